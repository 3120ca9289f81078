#include "core/formats/treelensjson.h"

#include <nlohmann/json.hpp>

#include "core/base/strings.h"
#include "core/base/utf8.h"
#include "core/base/inputlimits.h"
#include "core/formats/ptb.h"

namespace treelens {

using nlohmann::json;

namespace {

std::string getString(const json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

Result<Sentence> sentenceFromJson(const json &j, const std::string &where)
{
    if (!j.is_object())
        return makeError(where, "expected a JSON object per sentence");
    Sentence s;
    s.id = getString(j, "id");
    s.text = getString(j, "text");
    const auto toks = j.find("tokens");
    if (toks == j.end() || !toks->is_array() || toks->empty())
        return makeError(where, "'tokens' must be a non-empty array");
    for (const auto &t : *toks) {
        Token tok;
        if (t.is_string()) {
            tok.text = t.get<std::string>();
        } else if (t.is_object()) {
            tok.text = getString(t, "form");
            tok.lemma = getString(t, "lemma");
            tok.upos = getString(t, "upos");
            tok.xpos = getString(t, "xpos");
            tok.feats = getString(t, "feats");
            tok.misc = getString(t, "misc");
            // Offsets are byte offsets into "text", half-open, both or neither
            // (docs/file-formats.md); anything else is refused, not dropped.
            const bool hasStart = t.contains("start"), hasEnd = t.contains("end");
            if (hasStart || hasEnd) {
                const std::string tk = "token " + std::to_string(s.tokens.size() + 1);
                if (hasStart != hasEnd)
                    return makeError(where, tk + ": 'start' and 'end' go together");
                if (!t["start"].is_number_integer() || !t["end"].is_number_integer())
                    return makeError(where, tk + ": 'start' and 'end' must be integers");
                // (an unsigned value above 2^63 reads as negative and is refused too)
                const long long b = t["start"].get<long long>(), e = t["end"].get<long long>();
                if (b < 0 || e < b || e > static_cast<long long>(s.text.size()))
                    return makeError(where, tk + ": offsets [" + std::to_string(b) + ", " + std::to_string(e) +
                                                ") are out of range for a text of " + std::to_string(s.text.size()) + " bytes");
                tok.charStart = static_cast<int>(b);
                tok.charEnd = static_cast<int>(e);
            }
        } else {
            return makeError(where, "a token must be a string or an object");
        }
        if (tok.text.empty())
            return makeError(where, "token " + std::to_string(s.tokens.size() + 1) + " has an empty form");
        s.tokens.push_back(std::move(tok));
    }
    const auto heads = j.find("heads");
    if (heads != j.end()) {
        if (!heads->is_array() || heads->size() != s.tokens.size())
            return makeError(where, "'heads' must be an array with one entry per token");
        DependencyTree d;
        for (const auto &h : *heads) {
            if (!h.is_number_integer())
                return makeError(where, "'heads' must hold integers");
            // Range-checked before narrowing: 4294967297 must not read as 1.
            if (h.get<long long>() < 0 || h.get<long long>() > static_cast<long long>(s.tokens.size()))
                return makeError(where, "head " + h.dump() + " of token " + std::to_string(d.heads.size() + 1) +
                                            " is out of range (0.." + std::to_string(s.tokens.size()) + ")");
            d.heads.push_back(static_cast<int>(h.get<long long>()));
        }
        const auto rels = j.find("deprels");
        if (rels != j.end()) {
            if (!rels->is_array() || rels->size() != s.tokens.size())
                return makeError(where, "'deprels' must be an array with one entry per token");
            for (const auto &r : *rels)
                d.deprels.push_back(r.is_string() ? r.get<std::string>() : std::string());
        } else {
            d.deprels.assign(s.tokens.size(), "dep");
        }
        const Status st = d.validate();
        if (!st.ok())
            return makeError(where, st.error());
        s.dependency = std::move(d);
    }
    const auto cons = j.find("constituency");
    if (cons != j.end() && !cons->is_null()) {
        if (!cons->is_string())
            return makeError(where, "'constituency' must be a PTB bracket string");
        auto trees = readPtb(cons->get<std::string>(), where + " (constituency)");
        if (!trees)
            return trees.error();
        if (trees->size() != 1)
            return makeError(where, "'constituency' must hold exactly one tree");
        if (trees->front().wordCount() != static_cast<int>(s.tokens.size()))
            return makeError(where, "'constituency' has " + std::to_string(trees->front().wordCount()) + " words but there are "
                                        + std::to_string(s.tokens.size()) + " tokens");
        s.constituency = std::move(trees->front());
    }
    const auto meta = j.find("metadata");
    if (meta != j.end() && meta->is_object())
        for (auto it = meta->begin(); it != meta->end(); ++it)
            s.metadata.emplace_back(it.key(), it->is_string() ? it->get<std::string>() : it->dump());
    return s;
}

Result<std::vector<Sentence>> readTreeLensJson(std::string_view input, const std::string &source)
{
    return readTreeLensJson(input, source, 1, 0);
}

Result<std::vector<Sentence>> readTreeLensJson(std::string_view input, const std::string &source, int firstLine, int firstIndex)
{
    auto checked = checkedText(input, source, firstLine);
    if (!checked)
        return checked.error();
    const std::string_view text = *checked;
    std::vector<Sentence> out;
    const std::string_view trimmed = trimView(text);
    auto finishIds = [&]() {
        for (std::size_t i = 0; i < out.size(); ++i)
            if (out[i].id.empty())
                out[i].id = "s" + std::to_string(static_cast<std::size_t>(firstIndex) + i + 1);
    };
    if (!trimmed.empty() && trimmed.front() == '[') {
        const json doc = json::parse(trimmed, nullptr, false);
        if (doc.is_discarded())
            return makeError(source, "not valid JSON");
        int k = 0;
        for (const auto &j : doc) {
            auto s = sentenceFromJson(j, source + ": sentence " + std::to_string(++k));
            if (!s)
                return s.error();
            out.push_back(std::move(*s));
        }
        finishIds();
        return out;
    }
    // JSON Lines.
    std::size_t pos = 0;
    int line = firstLine - 1;
    while (pos <= text.size()) {
        auto nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = text.size();
        const std::string_view l = trimView(text.substr(pos, nl - pos));
        ++line;
        pos = nl + 1;
        if (l.empty())
            continue;
        const std::string where = source + ":" + std::to_string(line);
        const json j = json::parse(l, nullptr, false);
        if (j.is_discarded())
            return makeError(where, "not valid JSON");
        auto s = sentenceFromJson(j, where);
        if (!s)
            return s.error();
        s->line = line;
        out.push_back(std::move(*s));
    }
    finishIds();
    return out;
}

json sentenceToJson(const Sentence &s)
{
    json j;
    j["id"] = s.id;
    j["text"] = s.text;
    json toks = json::array();
    for (const auto &t : s.tokens) {
        json o;
        o["form"] = t.text;
        auto put = [&](const char *k, const std::string &v) {
            if (!v.empty() && v != "_")
                o[k] = v;
        };
        put("lemma", t.lemma);
        put("upos", t.upos);
        put("xpos", t.xpos);
        put("feats", t.feats);
        put("misc", t.misc);
        if (t.charStart >= 0) {
            o["start"] = t.charStart;
            o["end"] = t.charEnd;
        }
        toks.push_back(std::move(o));
    }
    j["tokens"] = std::move(toks);
    if (s.dependency) {
        j["heads"] = s.dependency->heads;
        j["deprels"] = s.dependency->deprels;
    }
    if (s.constituency && !s.constituency->empty())
        j["constituency"] = writePtbTree(*s.constituency);
    if (!s.metadata.empty()) {
        json m = json::object();
        for (const auto &[k, v] : s.metadata)
            m[k] = v;
        j["metadata"] = std::move(m);
    }
    return j;
}

std::string sentenceToJsonLine(const Sentence &s)
{
    const json j = sentenceToJson(s);
    // Replace invalid UTF-8 rather than throw: input was validated, but be safe.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string writeTreeLensJson(const std::vector<Sentence> &sentences)
{
    std::string out;
    for (const auto &s : sentences) {
        out += sentenceToJsonLine(s);
        out += '\n';
    }
    return out;
}

} // namespace treelens
