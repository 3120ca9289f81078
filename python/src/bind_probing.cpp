// The Python module's probing (bindings.h): treelens.probe's options into a probing run
// (core/probing/proberun.h) without the GIL, its report as `probe --json` writes it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <type_traits>
#include <vector>

#include "core/probing/probejson.h"
#include "core/probing/proberun.h"
#include "python/src/bindings.h"

namespace treelens::python {

namespace {

std::string probeJson(const py::dict &options)
{
    ProbeRunConfig config;
    auto str = [&](const char *key, std::string &field) {
        if (options.contains(key) && !options[key].is_none())
            field = py::str(options[key]).cast<std::string>();
    };
    auto files = [&](const char *key, std::vector<std::string> &field) {
        if (!options.contains(key) || options[key].is_none())
            return;
        py::object v = options[key];
        if (py::isinstance<py::str>(v))
            field = {v.cast<std::string>()};
        else
            for (const py::handle &f : v)
                field.push_back(py::str(f).cast<std::string>());
    };
    auto integer = [&](const char *key, auto &field) {
        if (!options.contains(key) || options[key].is_none())
            return;
        using T = std::decay_t<decltype(field)>;
        try {
            field = options[key].cast<T>();
        } catch (const py::cast_error &) {
            throw py::type_error(std::string("probe(): ") + key + " must be " +
                                 (std::is_same_v<T, bool> ? "True or False" : "a whole number") + ", not " +
                                 std::string(py::str(py::type::handle_of(options[key]).attr("__name__"))));
        }
    };
    str("tasks", config.tasks);
    str("model", config.model);
    files("train", config.train);
    files("dev", config.dev);
    files("test", config.test);
    str("layers", config.layers);
    str("pooling", config.pooling);
    str("probe", config.probe);
    str("tree", config.tree);
    str("tree_source", config.treeSource);
    str("device", config.device);
    str("precision", config.precision);
    str("features", config.featuresFile);
    integer("seed", config.seed);
    integer("split_seed", config.splitSeed);
    integer("epochs", config.epochs);
    integer("threads", config.threads);
    integer("rank", config.rank);
    integer("control", config.control);
    integer("random_init", config.randomInit);
    integer("baselines", config.baselines);
    config.commandLine = "treelens.probe(...)";
    SignalControl signals;
    Result<ProbeRunReport> r = Error{""};
    {
        py::gil_scoped_release release;
        r = runProbes(config, {}, &signals.control);
    }
    signals.rethrow();
    return probeReportJson(unwrap(std::move(r)));
}

} // namespace

void bindProbing(py::module_ &m)
{
    m.def("_probe", &probeJson);
}

} // namespace treelens::python
