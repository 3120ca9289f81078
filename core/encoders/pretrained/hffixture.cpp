#include "core/encoders/pretrained/hffixture.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/inputlimits.h"
#include "core/base/jsonstrict.h"
#include "core/encoders/pretrained/hfconfig.h"
#include "core/model/tensordata.h"

namespace treelens {

using nlohmann::json;

namespace {

/// A JSON value flattened row-major: its shape (nested arrays, each level of one
/// length), and its leaves as numbers or as strings.
struct Flat {
    std::vector<std::int64_t> shape;
    std::vector<double> numbers;
    std::vector<std::string> strings;
    bool integer = true;   ///< every number integral (ids, offsets)
    bool ragged = false;   ///< arrays of one level of different lengths, or mixed leaves
};

void flattenInto(const json &v, std::size_t depth, Flat &f)
{
    if (v.is_array()) {
        if (f.shape.size() == depth)
            f.shape.push_back(static_cast<std::int64_t>(v.size()));
        else if (depth > f.shape.size() || f.shape[depth] != static_cast<std::int64_t>(v.size()))
            f.ragged = true;
        for (const auto &x : v)
            flattenInto(x, depth + 1, f);
        return;
    }
    if (depth != f.shape.size())
        f.ragged = true;
    if (v.is_string()) {
        f.strings.push_back(v.get<std::string>());
    } else if (v.is_number()) {
        f.numbers.push_back(v.get<double>());
        f.integer = f.integer && (v.is_number_integer() || v.is_number_unsigned());
    } else {
        f.ragged = true;
    }
    if (!f.strings.empty() && !f.numbers.empty())
        f.ragged = true;
}

Flat flatten(const json &v)
{
    Flat f;
    flattenInto(v, 0, f);
    return f;
}

FixtureCheck compareValue(const std::string &name, const json &expected, const json *computed, double tolerance)
{
    FixtureCheck c;
    c.name = name;
    const Flat e = flatten(expected);
    c.shape = e.shape;
    c.integer = e.integer || !e.strings.empty();
    if (!computed) {
        c.problem = "missing";
        return c;
    }
    const Flat g = flatten(*computed);
    if (e.ragged || g.ragged || g.shape != e.shape || g.strings.size() != e.strings.size() || g.numbers.size() != e.numbers.size()) {
        c.problem = "shape " + shapeText(g.shape) + (g.strings.empty() ? "" : " of strings") + ", expected " + shapeText(e.shape) +
                    (e.strings.empty() ? "" : " of strings");
        return c;
    }
    double worst = 0.0;
    for (std::size_t i = 0; i < e.numbers.size(); ++i) {
        const double d = std::isfinite(g.numbers[i]) ? std::fabs(g.numbers[i] - e.numbers[i]) : std::numeric_limits<double>::infinity();
        worst = std::max(worst, d);
    }
    std::size_t differ = 0;
    for (std::size_t i = 0; i < e.strings.size(); ++i)
        if (g.strings[i] != e.strings[i]) {
            if (differ++ == 0)
                c.problem = "item " + std::to_string(i) + " is \"" + g.strings[i] + "\", expected \"" + e.strings[i] + "\"";
        }
    if (differ > 1)
        c.problem += " (" + std::to_string(differ) + " differ)";
    c.maxAbsDiff = e.strings.empty() ? worst : static_cast<double>(differ);
    c.ok = differ == 0 && (c.integer ? worst == 0.0 : worst <= tolerance);
    return c;
}

/// Objects and arrays of objects (a decoder's "ablations") are compared key by key, each leaf
/// value one check ("sentence 2 ablations[1].logits_last"); a null is expected as null.
void compareInto(const std::string &name, const json &expected, const json *computed, FixtureReport &report)
{
    if (expected.is_null()) {
        FixtureCheck c;
        c.name = name;
        c.integer = true;
        c.ok = computed && computed->is_null();
        c.problem = c.ok ? "" : computed ? "not null" : "missing";
        report.checks.push_back(c);
        return;
    }
    if (expected.is_object()) {
        for (const auto &[key, value] : expected.items())
            compareInto(name + "." + key, value, computed && computed->is_object() && computed->contains(key) ? &(*computed)[key] : nullptr,
                        report);
        return;
    }
    if (expected.is_array() && !expected.empty() && expected.front().is_object()) {
        for (std::size_t k = 0; k < expected.size(); ++k)
            compareInto(name + "[" + std::to_string(k) + "]", expected[k],
                        computed && computed->is_array() && k < computed->size() ? &(*computed)[k] : nullptr, report);
        return;
    }
    report.checks.push_back(compareValue(name, expected, computed, report.tolerance));
}

} // namespace

bool isHfFixtureFolder(const std::string &dir)
{
    std::error_code ec;
    return isHfModelFolder(dir) && std::filesystem::is_regular_file(std::filesystem::path(dir) / "expected.json", ec);
}

Result<FixtureReport> compareHfFixture(const std::string &computedJson, const std::string &expectedJson, const std::string &where)
{
    auto expected = parseJsonStrict(expectedJson, where);
    if (!expected)
        return expected.error();
    const json computed = json::parse(computedJson, nullptr, false);
    if (!computed.is_object())
        return makeError(where, "the computed values are not a JSON object");
    FixtureReport report;
    const json &e = *expected;
    if (!e.is_object() || !e.contains("sentences") || !e["sentences"].is_array())
        return makeError(where, "no \"sentences\" array");
    if (!e.contains("tolerance_abs") || !e["tolerance_abs"].is_number() || !(e["tolerance_abs"].get<double>() >= 0))
        return makeError(where, "no \"tolerance_abs\" (a number >= 0)");
    report.tolerance = e["tolerance_abs"].get<double>();
    const json empty = json::array();
    const json &got = computed.contains("sentences") && computed["sentences"].is_array() ? computed["sentences"] : empty;
    for (std::size_t i = 0; i < e["sentences"].size(); ++i) {
        const json &s = e["sentences"][i];
        if (!s.is_object())
            return makeError(where, "sentence " + std::to_string(i + 1) + " is not an object");
        const json *g = i < got.size() && got[i].is_object() ? &got[i] : nullptr;
        for (const auto &[key, value] : s.items()) {
            const json *c = g && g->contains(key) ? &(*g)[key] : nullptr;
            compareInto("sentence " + std::to_string(i + 1) + " " + key, value, c, report);
        }
        if (g)
            for (const auto &[key, value] : g->items())
                if (!s.contains(key))
                    report.extra.push_back("sentence " + std::to_string(i + 1) + " " + key);
    }
    if (got.size() > e["sentences"].size())
        report.extra.push_back(std::to_string(got.size() - e["sentences"].size()) + " sentences more than expected.json");
    return report;
}

} // namespace treelens
