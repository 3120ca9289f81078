#pragma once
/// \file jsonstrict.h
/// Strict JSON for untrusted files (model configs, safetensors headers, recipes,
/// TreeLens JSON): nlohmann::json keeps the last of two equal keys silently and
/// narrows integers silently in get<int>(); these refuse both instead.

#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/base/result.h"

namespace treelens {

/// Parses `text`; a syntax error, or an object naming a key twice (at any depth),
/// is an Error "WHERE: ..." naming the key.
Result<nlohmann::json> parseJsonStrict(std::string_view text, const std::string &where);

/// Refuses any integer in `j` outside the range of int ("WHERE: key.path: 4294967298
/// is out of range"), so that get<int>() cannot truncate it. Floating-point values
/// are left alone. Keys named in `wideKeys` (at any depth) may hold any
/// non-negative 64-bit integer (seeds).
Status checkJsonIntegers(const nlohmann::json &j, const std::string &where,
                         const std::set<std::string> &wideKeys = {"seed"});

} // namespace treelens
