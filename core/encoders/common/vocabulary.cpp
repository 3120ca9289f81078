// The one word vocabulary of the encoder families (see vocabulary.h).
#include "core/encoders/common/vocabulary.h"

#include <algorithm>
#include <unordered_map>

#include "core/base/strings.h"

#include <nlohmann/json.hpp>

namespace treelens {

Result<Vocabulary> Vocabulary::fromTokens(std::vector<std::string> tokens, const std::string &where)
{
    if (tokens.empty())
        return makeError(where, "the vocabulary is empty");
    Vocabulary v;
    v.m_tokens = std::move(tokens);
    for (std::size_t i = 0; i < v.m_tokens.size(); ++i) {
        const std::string &t = v.m_tokens[i];
        if (!v.m_index.emplace(t, static_cast<int>(i)).second)
            return makeError(where, "'" + t + "' appears twice (ids " + std::to_string(v.m_index[t]) + " and " +
                                        std::to_string(i) + ")");
    }
    v.m_pad = v.id("[PAD]");
    v.m_unk = v.id("[UNK]");
    v.m_mask = v.id("[MASK]");
    v.m_cls = v.id("[CLS]");
    return v;
}

Result<Vocabulary> Vocabulary::withSpecials(std::vector<std::string> tokens)
{
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i].empty())
            return makeError("vocabulary", "entry " + std::to_string(i) + " is empty");
    auto v = fromTokens(std::move(tokens));
    if (!v)
        return v;
    for (const char *special : {"[PAD]", "[UNK]", "[MASK]", "[CLS]"})
        if (!v->contains(special))
            return makeError("vocabulary", std::string("the special token ") + special + " is missing");
    return v;
}

Vocabulary Vocabulary::lenient(std::vector<std::string> tokens)
{
    Vocabulary v;
    v.m_tokens = std::move(tokens);
    for (std::size_t i = 0; i < v.m_tokens.size(); ++i)
        v.m_index.emplace(v.m_tokens[i], static_cast<int>(i));
    v.m_pad = v.id("[PAD]");
    v.m_unk = v.id("[UNK]");
    v.m_mask = v.id("[MASK]");
    v.m_cls = v.id("[CLS]");
    return v;
}

Result<Vocabulary> Vocabulary::fromDictionaryJson(const std::string &json, const std::string &where)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json);
    } catch (const std::exception &e) {
        return makeError(where, std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_object() || j.empty())
        return makeError(where, "expected a non-empty JSON object {\"word\": id, ...}");
    std::vector<std::string> tokens(j.size());
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!it.value().is_number_integer())
            return makeError(where, "the id of '" + it.key() + "' is not an integer");
        const auto id = it.value().get<long long>();
        if (id < 0 || id >= static_cast<long long>(tokens.size()))
            return makeError(where, "the id " + std::to_string(id) + " of '" + it.key() + "' is out of range 0.."
                                        + std::to_string(tokens.size() - 1));
        if (!tokens[static_cast<std::size_t>(id)].empty())
            return makeError(where, "id " + std::to_string(id) + " is used twice");
        tokens[static_cast<std::size_t>(id)] = it.key();
    }
    auto v = withSpecials(std::move(tokens));
    if (!v)
        return makeError(where, v.error());
    return v;
}

Result<Vocabulary> Vocabulary::fromLines(const std::string &text, const std::string &where)
{
    auto v = withSpecials(splitListLines(text));
    if (!v)
        return makeError(where, v.error());
    return v;
}

std::string Vocabulary::toLines() const
{
    std::string out;
    for (const auto &t : m_tokens) {
        out += t;
        out += '\n';
    }
    return out;
}

int Vocabulary::id(const std::string &token) const
{
    const auto it = m_index.find(token);
    return it == m_index.end() ? -1 : it->second;
}

int Vocabulary::id(const std::string &word, Match match) const
{
    switch (match) {
    case Match::Exact:
        return id(word);
    case Match::Lowercase:
        return id(toLowerAscii(word));
    case Match::Normalized:
        return id(normalize(word));
    case Match::AnyForm:
        break;
    }
    // Each form only when the one before is absent (most words are found as written).
    if (const int i = id(word); i >= 0)
        return i;
    if (const int i = id(toLowerAscii(word)); i >= 0)
        return i;
    return id(normalize(word));
}

std::vector<std::int64_t> Vocabulary::ids(const std::vector<std::string> &words, Match match, std::int64_t unkId) const
{
    std::vector<std::int64_t> v;
    v.reserve(words.size());
    for (const auto &w : words) {
        const int i = id(w, match);
        v.push_back(i >= 0 ? i : unkId);
    }
    return v;
}

std::string Vocabulary::normalize(const std::string &word)
{
    std::string out;
    out.reserve(word.size());
    bool inDigits = false;
    for (char c : word) {
        if (c >= '0' && c <= '9') {
            if (!inDigits)
                out += 'N';
            inDigits = true;
            continue;
        }
        inDigits = false;
        out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    return out;
}

std::vector<int> Vocabulary::encode(const std::vector<std::string> &words) const
{
    std::vector<int> ids;
    ids.reserve(words.size() + 1);
    ids.push_back(m_cls);
    for (const auto &w : words) {
        const int i = id(normalize(w));
        ids.push_back(i >= 0 ? i : m_unk);
    }
    return ids;
}

std::vector<std::string> frequentWordTokens(const std::vector<const std::vector<std::string> *> &sentences,
                                            std::vector<std::string> specials, int maxSize, int minCount)
{
    std::unordered_map<std::string, std::size_t> counts;
    for (const auto *s : sentences)
        for (const auto &w : *s)
            ++counts[Vocabulary::normalize(w)];
    std::vector<std::pair<std::string, std::size_t>> sorted(counts.begin(), counts.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    const std::vector<std::string> reserved = specials;
    std::vector<std::string> tokens = std::move(specials);
    for (const auto &[w, c] : sorted) {
        if (static_cast<int>(tokens.size()) >= maxSize || c < static_cast<std::size_t>(minCount))
            break;
        if (std::find(reserved.begin(), reserved.end(), w) != reserved.end() || w.find('\n') != std::string::npos)
            continue;
        tokens.push_back(w);
    }
    return tokens;
}

} // namespace treelens
