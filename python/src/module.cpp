// treelens._treelens: the Python module's C++ side (issue 36, docs/python.md), pybind11
// over the same core the app and the CLI run. Sentences, trees, models, analyses (their
// matrices as NumPy arrays), pair corpora and scores, pair metrics, probing runs, and the
// views rendered offscreen (render.cpp, when the GUI is built). treelens/__init__.py
// wraps it in the documented API; errors are treelens.Error with the core's one-line
// messages. Long work runs without the GIL; Ctrl+C (SIGINT) cancels it between batches.
// This file: treelens.Error, the blocks of work, and the module's init, which calls each
// unit's bind*() (bindings.h).
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <utility>

#include "python/src/bindings.h"

namespace treelens::python {

py::object &errorType()
{
    static auto *type = new py::object();
    return *type;
}

[[noreturn]] void raise(const std::string &message)
{
    PyErr_SetString(errorType().ptr(), message.c_str());
    throw py::error_already_set();
}

void check(const Status &s)
{
    if (!s)
        raise(s.message());
}

std::pair<std::size_t, std::size_t> &lastWork()
{
    static std::pair<std::size_t, std::size_t> work;
    return work;
}

Status inBlocks(std::size_t n, std::size_t step, const std::function<Status(std::size_t, std::size_t)> &work)
{
    SignalControl signals;
    Status status;
    std::size_t done = 0;
    {
        py::gil_scoped_release release;
        for (std::size_t b = 0; status && b < n; b += step) {
            if (signals.control.isCancelled()) {
                status = cancelledError();
                break;
            }
            status = work(b, std::min(n, b + step));
            if (status)
                done = std::min(n, b + step);
        }
    }
    lastWork() = {done, n};
    signals.rethrow();
    return status;
}

} // namespace treelens::python

using namespace treelens::python;

PYBIND11_MODULE(_treelens, m)
{
    m.doc() = "TreeLens core (C++): see the treelens package for the documented API";
    errorType() = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
        "treelens.Error", "A failure the TreeLens core reports, with its one-line message", PyExc_RuntimeError, nullptr));
    m.attr("Error") = errorType();
    // A C++ exception from a library underneath (LibTorch's c10::Error, std::bad_alloc, ...) is a
    // treelens.Error too, with its message.
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const py::builtin_exception &) {
            throw;
        } catch (const py::error_already_set &) {
            throw;
        } catch (const std::exception &e) {
            PyErr_SetString(errorType().ptr(), e.what());
        }
    });
    m.attr("__version__") = TREELENS_VERSION;

    // The order names each class in the signatures of what is bound after it, as before the
    // split into units (the docstrings are the same).
    bindCorpus(m);
    bindAnalysis(m);
    bindModel(m);
    bindPairs(m);
    bindProbing(m);
    bindQuery(m);
    m.def("_last_work", [] { return lastWork(); }, "(items done, items) of the last run in blocks (for the tests)");
}
