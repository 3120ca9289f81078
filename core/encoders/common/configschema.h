#pragma once
/// \file configschema.h
/// A family's config as one table of fields — its treelens.config key, the member
/// it fills, whether a file must give it — read and written from that table, so a
/// key is spelled once. Reading keeps LibTorch-free nlohmann semantics: a required
/// key that is missing or of the wrong type throws (the caller's try turns it into
/// an error naming the config), an optional one keeps the member's default.
/// Torch-free, header-only.

#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace treelens {

template <class Config>
struct ConfigField {
    using Member = std::variant<int Config::*, double Config::*, bool Config::*, std::string Config::*,
                                std::vector<int> Config::*, std::vector<std::string> Config::*>;
    const char *key;
    Member member;
    bool required = false;
};

/// Every field of `config` under its key.
template <class Config>
nlohmann::json configToJson(const Config &config, const std::vector<ConfigField<Config>> &fields)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto &f : fields)
        std::visit([&](auto member) { j[f.key] = config.*member; }, f.member);
    return j;
}

/// Fills `config` from `j`: required fields with j.at(key) (throws when missing or
/// of another type), optional ones with j.value(key, current value).
template <class Config>
void configFromJson(const nlohmann::json &j, Config &config, const std::vector<ConfigField<Config>> &fields)
{
    for (const auto &f : fields)
        std::visit(
            [&](auto member) {
                using T = std::decay_t<decltype(config.*member)>;
                config.*member = f.required ? j.at(f.key).template get<T>() : j.value(f.key, config.*member);
            },
            f.member);
}

} // namespace treelens
