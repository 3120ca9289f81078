#pragma once
/// \file hfjson.h
/// Internal to hftokenizerjson.cpp and hfpostprocessorjson.cpp: reading the fields of
/// a tokenizer.json with errors "WHERE: path.to.field: what".

#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/base/result.h"
#include "core/base/utf8.h"
#include "core/encoders/pretrained/hftokenizerimpl.h"

namespace treelens::hf::jsonread {

using nlohmann::json;

constexpr int kMaxNesting = 64;   ///< Sequence inside Sequence, at most

inline std::string quote(const std::string &s)
{
    std::string q = s.size() > 60 ? s.substr(0, 57) + "..." : s;
    return "\"" + q + "\"";
}

inline std::string join(const std::string &path, const std::string &key) { return path.empty() ? key : path + "." + key; }
inline std::string at(const std::string &path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

/// Reads fields of one JSON object, naming them in errors as PATH.KEY.
class Fields {
public:
    Fields(const json &obj, std::string path, const std::string &where) : m_obj(obj), m_path(std::move(path)), m_where(where) {}

    Error fail(const std::string &key, const std::string &what) const
    {
        return makeError(m_where, (key.empty() ? m_path : join(m_path, key)) + ": " + what);
    }
    const json *find(const char *key) const
    {
        auto it = m_obj.find(key);
        return it == m_obj.end() || it->is_null() ? nullptr : &*it;
    }
    Status boolean(const char *key, bool &out) const
    {
        if (const json *v = find(key)) {
            if (!v->is_boolean())
                return fail(key, "expected true or false");
            out = v->get<bool>();
        }
        return {};
    }
    Status optBoolean(const char *key, std::optional<bool> &out) const
    {
        out.reset();
        bool b = false;
        if (!find(key))
            return {};
        if (auto st = boolean(key, b); !st)
            return st;
        out = b;
        return {};
    }
    Status string(const char *key, std::string &out) const
    {
        if (const json *v = find(key)) {
            if (!v->is_string())
                return fail(key, "expected a string");
            out = v->get<std::string>();
            if (findInvalidUtf8(out) >= 0)
                return fail(key, "not valid UTF-8");
        }
        return {};
    }
    Status optString(const char *key, std::optional<std::string> &out) const
    {
        out.reset();
        if (!find(key))
            return {};
        std::string s;
        if (auto st = string(key, s); !st)
            return st;
        out = s;
        return {};
    }
    Status count(const char *key, std::size_t &out) const
    {
        if (const json *v = find(key)) {
            if (!v->is_number_integer() || (v->is_number_integer() && !v->is_number_unsigned() && v->get<long long>() < 0))
                return fail(key, "expected a non-negative integer");
            out = static_cast<std::size_t>(v->get<unsigned long long>());
        }
        return {};
    }
    Error failAt(const std::string &fullPath, const std::string &what) const { return makeError(m_where, fullPath + ": " + what); }
    const std::string &path() const { return m_path; }
    const std::string &where() const { return m_where; }

private:
    const json &m_obj;
    std::string m_path;
    const std::string &m_where;
};

/// A token id: an integer in 0..INT_MAX.
inline bool readId(const json &v, std::int64_t &out)
{
    if (!v.is_number_integer())
        return false;
    if (v.is_number_unsigned()) {
        const auto u = v.get<unsigned long long>();
        if (u > static_cast<unsigned long long>(INT_MAX))
            return false;
        out = static_cast<std::int64_t>(u);
        return true;
    }
    const long long s = v.get<long long>();
    if (s < 0 || s > INT_MAX)
        return false;
    out = s;
    return true;
}

/// The "type" of the component at `path` (a normalizer, pre-tokenizer, post-processor, ...),
/// `depth` levels inside Sequences (more than kMaxNesting is refused).
inline Status typeOf(const json &j, const std::string &path, const std::string &where, int depth, std::string &type)
{
    if (depth > kMaxNesting)
        return makeError(where, path + ": nested deeper than " + std::to_string(kMaxNesting) + " levels");
    if (!j.is_object())
        return makeError(where, path + ": expected an object or null");
    auto it = j.find("type");
    if (it == j.end() || !it->is_string())
        return makeError(where, path + ": no \"type\"");
    type = it->get<std::string>();
    return {};
}

inline Error unsupported(const std::string &where, const std::string &path, const std::string &type)
{
    return makeError(where, path + " type " + quote(type) + " is not supported by this build");
}

/// hfpostprocessorjson.cpp: the post_processor at `path`, and the check (once the
/// vocabulary is complete) that every token it names is known, its id inside.
Status readPostProcessor(const json &j, const std::string &path, const std::string &where, int depth, PostProcessorSpec &out);
Status checkPostTokens(const PostProcessorSpec &spec, const std::string &path, const std::string &where,
                       const HfTokenizer::Impl &impl);

} // namespace treelens::hf::jsonread
