// verify-fixture: read a fixture directory, compare computed tensors with expected.json (see fixture.h).
#include "core/encoders/fixture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/base/inputlimits.h"
#include "core/base/jsonstrict.h"
#include "core/model/checkpoint.h"

namespace treelens {

using nlohmann::json;

namespace {


bool isIntegerType(DType t)
{
    return t == DType::I64 || t == DType::I32 || t == DType::I16 || t == DType::I8 || t == DType::U8 || t == DType::Bool;
}

/// Every value of a TensorData as double (integers exactly up to 2^53).
std::vector<double> valuesOf(const TensorData &t)
{
    std::vector<double> v;
    if (t.dtype == DType::I64 || t.dtype == DType::F64) {
        // memcpy: the bytes of a mapped file need not be 8-byte aligned.
        v.resize(std::min(t.numel(), t.size() / 8));
        for (std::size_t i = 0; i < v.size(); ++i) {
            std::int64_t x = 0;
            std::memcpy(&x, t.data() + 8 * i, 8);
            if (t.dtype == DType::I64)
                v[i] = static_cast<double>(x);
            else
                std::memcpy(&v[i], &x, 8);
        }
    } else {
        const auto f = t.toFloat();
        v.assign(f.begin(), f.end());
    }
    return v;
}

/// Flattens nested lists (row-major), checking the shape on the way.
bool flatten(const json &data, const std::vector<std::int64_t> &shape, std::size_t dim, std::vector<double> &out)
{
    if (dim == shape.size()) {
        if (!data.is_number())
            return false;
        out.push_back(data.get<double>());
        return true;
    }
    if (!data.is_array() || static_cast<std::int64_t>(data.size()) != shape[dim])
        return false;
    for (const auto &x : data)
        if (!flatten(x, shape, dim + 1, out))
            return false;
    return true;
}

json nest(const std::vector<double> &v, const std::vector<std::int64_t> &shape, bool integer)
{
    std::size_t pos = 0;
    std::function<json(std::size_t)> rec = [&](std::size_t dim) -> json {
        if (dim == shape.size()) {
            const double x = v[pos++];
            if (integer)
                return static_cast<std::int64_t>(x);
            return static_cast<float>(x); // written as the shortest decimal that round-trips the f32
        }
        json a = json::array();
        for (std::int64_t i = 0; i < shape[dim]; ++i)
            a.push_back(rec(dim + 1));
        return a;
    };
    return rec(0);
}

} // namespace

bool FixtureReport::passed() const
{
    for (const auto &c : checks)
        if (!c.ok)
            return false;
    return !checks.empty();
}

Result<FixtureRequest> readFixtureDirectory(const std::string &dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return makeError(dir, "not a directory");
    FixtureRequest r;
    r.dir = dir;
    r.configPath = (fs::path(dir) / "config.json").string();
    r.inputsPath = (fs::path(dir) / "inputs.json").string();
    r.stateDictPath = (fs::path(dir) / "state_dict.pt").string();
    auto config = readFileLimited(r.configPath, inputLimits().maxSideFileBytes);
    if (!config)
        return config.error();
    auto parsed = parseJsonStrict(*config, r.configPath);
    if (!parsed)
        return parsed.error();
    if (auto s = checkJsonIntegers(*parsed, r.configPath); !s)
        return s.error();
    r.configJson = std::move(*config);
    auto inputs = readFileLimited(r.inputsPath, inputLimits().maxSideFileBytes);
    if (!inputs)
        return inputs.error();
    if (auto p = parseJsonStrict(*inputs, r.inputsPath); !p)
        return p.error();
    r.inputsJson = std::move(*inputs);
    auto tensors = readTorchCheckpoint(r.stateDictPath, &r.note);
    if (!tensors)
        return tensors.error();
    r.stateDict = std::move(*tensors);
    return r;
}

Result<const EncoderFamily *> fixtureFamily(const FixtureRequest &request)
{
    std::string name;
    try {
        const auto j = json::parse(request.configJson);
        name = j.value("family", std::string());
        if (name.empty() && j.contains("model") && j["model"].is_string())
            name = j["model"].get<std::string>(); // a fixture may name its family "model"
    } catch (const std::exception &e) {
        return makeError(request.configPath, e.what());
    }
    if (name.empty())
        return makeError(request.configPath, "no \"family\" (or \"model\") naming the model family");
    const EncoderFamily *f = findEncoderFamily(name);
    if (!f)
        return makeError(request.configPath, "family '" + name + "' is not one this build knows");
    if (!f->computeFixture)
        return makeError(request.configPath, "family '" + name + "' has no fixture runner yet");
    return f;
}

ImportRequest importRequestFor(const FixtureRequest &request)
{
    ImportRequest ir;
    ir.tensors = request.stateDict;
    ir.checkpointPath = request.stateDictPath;
    ir.note = request.note;
    ir.configJson = request.configJson;
    ir.configPath = request.configPath;
    return ir;
}

std::optional<double> fixtureTolerance(const FixtureRequest &request)
{
    try {
        const json j = json::parse(request.configJson);
        if (j.contains("tolerance_abs") && j["tolerance_abs"].is_number())
            return j["tolerance_abs"].get<double>();
    } catch (const std::exception &) {
    }
    return std::nullopt;
}

Result<FixtureReport> compareWithExpected(const TensorMap &computed, const std::string &expectedJson,
                                          const std::string &where, std::optional<double> fallbackTolerance)
{
    auto parsed = parseJsonStrict(expectedJson, where);
    if (!parsed)
        return parsed.error();
    const json &j = *parsed;
    FixtureReport report;
    try {
        if (j.contains("tolerance_abs"))
            report.tolerance = j.at("tolerance_abs").get<double>();
        else if (fallbackTolerance)
            report.tolerance = *fallbackTolerance;
        else
            return makeError(where, "no \"tolerance_abs\" here or in the fixture's config.json");
        if (!(report.tolerance >= 0))
            return makeError(where, "tolerance_abs must be a number >= 0");
        const auto &tensors = j.at("tensors");
        if (!tensors.is_object())
            return makeError(where, "\"tensors\" is not an object");
        for (const auto &[name, t] : tensors.items()) {
            FixtureCheck c;
            c.name = name;
            c.shape = t.at("shape").get<std::vector<std::int64_t>>();
            const std::string dtype = t.value("dtype", std::string("float32"));
            c.integer = dtype.rfind("int", 0) == 0 || dtype.rfind("uint", 0) == 0 || dtype == "bool";
            std::vector<double> expected;
            if (!flatten(t.at("data"), c.shape, 0, expected))
                return makeError(where, "tensor '" + name + "': data does not have the shape " + shapeText(c.shape));
            const auto it = computed.find(name);
            if (it == computed.end()) {
                c.problem = "missing";
                report.checks.push_back(c);
                continue;
            }
            if (it->second.shape != c.shape) {
                c.problem = "shape " + shapeText(it->second.shape) + ", expected " + shapeText(c.shape);
                report.checks.push_back(c);
                continue;
            }
            const auto got = valuesOf(it->second);
            double worst = 0.0;
            for (std::size_t i = 0; i < expected.size(); ++i) {
                const double d = std::isfinite(got[i]) ? std::fabs(got[i] - expected[i]) : std::numeric_limits<double>::infinity();
                worst = std::max(worst, d);
            }
            c.maxAbsDiff = worst;
            c.ok = c.integer ? worst == 0.0 : worst <= report.tolerance;
            if (c.integer && !isIntegerType(it->second.dtype) && worst == 0.0)
                c.ok = true; // integral values computed as floats compare exactly all the same
            report.checks.push_back(c);
        }
        for (const auto &[name, t] : computed)
            if (!tensors.contains(name))
                report.extra.push_back(name);
    } catch (const std::exception &e) {
        return makeError(where, e.what());
    }
    return report;
}

std::string fixtureTensorsJson(const TensorMap &computed, double tolerance)
{
    json tensors = json::object();
    for (const auto &[name, t] : computed) {
        const bool integer = isIntegerType(t.dtype);
        tensors[name] = {{"shape", t.shape},
                         {"dtype", integer ? "int64" : "float32"},
                         {"data", nest(valuesOf(t), t.shape, integer)}};
    }
    return json{{"tolerance_abs", tolerance}, {"note", "computed by treelens-cli verify-fixture"}, {"tensors", tensors}}
        .dump();
}

} // namespace treelens
