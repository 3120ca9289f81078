#include "core/base/jsonstrict.h"

#include <climits>
#include <set>
#include <vector>

#include "core/base/inputlimits.h"

namespace treelens {

Result<nlohmann::json> parseJsonStrict(std::string_view text, const std::string &where)
{
    using json = nlohmann::json;
    std::vector<std::set<std::string>> keys;
    std::string duplicate;
    json::parser_callback_t cb = [&](int, json::parse_event_t event, json &parsed) {
        switch (event) {
        case json::parse_event_t::object_start:
            keys.emplace_back();
            break;
        case json::parse_event_t::object_end:
            if (!keys.empty())
                keys.pop_back();
            break;
        case json::parse_event_t::key:
            if (!keys.empty() && parsed.is_string() && !keys.back().insert(parsed.get<std::string>()).second &&
                duplicate.empty())
                duplicate = parsed.get<std::string>();
            break;
        default:
            break;
        }
        return true;
    };
    json j;
    try {
        j = json::parse(text.begin(), text.end(), cb);
    } catch (const json::exception &e) {
        return makeError(where, std::string("not valid JSON: ") + e.what());
    }
    if (!duplicate.empty())
        return makeError(where, "JSON object names the key '" + (duplicate.size() > 60 ? duplicate.substr(0, 57) + "..." : duplicate) +
                                    "' twice (refused)");
    return j;
}

namespace {

Status checkIntegers(const nlohmann::json &j, const std::string &path, const std::string &where, int depth,
                     const std::set<std::string> &wide, bool isWide)
{
    if (depth > inputLimits().maxTreeDepth)
        return makeError(where, "JSON nested deeper than " + std::to_string(inputLimits().maxTreeDepth) + " levels (refused)");
    if (isWide && (j.is_number_unsigned() || (j.is_number_integer() && j.get<long long>() >= 0))) {
        // a key documented as 64-bit unsigned (a seed)
    } else if (j.is_number_unsigned()) {
        if (j.get<unsigned long long>() > static_cast<unsigned long long>(INT_MAX))
            return makeError(where, (path.empty() ? std::string("value") : path) + ": " + j.dump() + " is out of range (at most " +
                                        std::to_string(INT_MAX) + ")");
    } else if (j.is_number_integer()) {
        const long long v = j.get<long long>();
        if (v < INT_MIN || v > INT_MAX)
            return makeError(where, (path.empty() ? std::string("value") : path) + ": " + j.dump() + " is out of range (" +
                                        std::to_string(INT_MIN) + ".." + std::to_string(INT_MAX) + ")");
    } else if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            if (auto st = checkIntegers(it.value(), path.empty() ? it.key() : path + "." + it.key(), where, depth + 1, wide,
                                         wide.count(it.key()) > 0); !st)
                return st;
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            if (auto st = checkIntegers(j[i], path + "[" + std::to_string(i) + "]", where, depth + 1, wide, false); !st)
                return st;
    }
    return {};
}

} // namespace

Status checkJsonIntegers(const nlohmann::json &j, const std::string &where, const std::set<std::string> &wideKeys)
{
    return checkIntegers(j, "", where, 0, wideKeys, false);
}

} // namespace treelens
