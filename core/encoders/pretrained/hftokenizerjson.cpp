// Reading a tokenizer.json (the `tokenizers` library's serialisation) into the pieces
// of hftokenizerimpl.h: normalizer, pre-tokenizer, model, added tokens (the
// post-processor in hfpostprocessorjson.cpp). Every error is one line naming the file
// and the field; a component type this build does not implement is refused by name.
#include <map>
#include <optional>

#include "core/base/jsonstrict.h"
#include "core/base/strings.h"
#include "core/encoders/pretrained/hfjson.h"

namespace treelens::hf {

namespace {

using namespace treelens::hf::jsonread;

/// {"String": "..."} or {"Regex": "..."} (the library's SplitPattern / ReplacePattern).
Status readPattern(const Fields &f, const char *key, Pattern &out)
{
    const json *p = f.find(key);
    if (!p || !p->is_object() || p->size() != 1 || !p->begin().value().is_string())
        return f.fail(key, "expected {\"String\": \"...\"} or {\"Regex\": \"...\"}");
    const std::string kind = p->begin().key(), text = p->begin().value().get<std::string>();
    if (findInvalidUtf8(text) >= 0)
        return f.fail(key, "not valid UTF-8");
    if (kind != "String" && kind != "Regex")
        return f.fail(key, "pattern type " + quote(kind) + " is not supported by this build");
    auto pattern = kind == "String" ? Pattern::literal(text) : Pattern::regex(text);
    if (!pattern)
        return f.fail(key, quote(text) + ": " + pattern.message());
    out = std::move(pattern).value();
    return {};
}

/// A string field that must be there.
Status requiredString(const Fields &f, const char *key, std::string &out)
{
    if (!f.find(key))
        return f.fail(key, "missing");
    return f.string(key, out);
}

Status readNormalizer(const json &j, const std::string &path, const std::string &where, int depth, NormalizerSpec &out)
{
    std::string type;
    if (auto st = typeOf(j, path, where, depth, type); !st)
        return st;
    using K = NormalizerSpec::Kind;
    Fields f(j, path, where);
    if (type == "BertNormalizer") {
        out.kind = K::Bert;
        Status st;
        if (!(st = f.boolean("clean_text", out.cleanText)) || !(st = f.boolean("handle_chinese_chars", out.handleChineseChars)) ||
            !(st = f.optBoolean("strip_accents", out.stripAccents)) || !(st = f.boolean("lowercase", out.lowercase)))
            return st;
    } else if (type == "Lowercase") {
        out.kind = K::Lowercase;
    } else if (type == "NFD") {
        out.kind = K::Nfd;
    } else if (type == "NFKD") {
        out.kind = K::Nfkd;
    } else if (type == "NFC") {
        out.kind = K::Nfc;
    } else if (type == "NFKC") {
        out.kind = K::Nfkc;
    } else if (type == "StripAccents") {
        out.kind = K::StripAccents;
    } else if (type == "Prepend") {
        out.kind = K::Prepend;
        std::string text;
        if (auto st = requiredString(f, "prepend", text); !st)
            return st;
        out.text = toU32(text);
    } else if (type == "Replace") {
        out.kind = K::Replace;
        std::string content;
        Status st;
        if (!(st = readPattern(f, "pattern", out.pattern)) || !(st = requiredString(f, "content", content)))
            return st;
        out.text = toU32(content);
    } else if (type == "Sequence") {
        out.kind = K::Sequence;
        const json *list = f.find("normalizers");
        if (!list || !list->is_array())
            return f.fail("normalizers", "expected a list");
        const std::string listPath = join(path, "normalizers");
        for (std::size_t i = 0; i < list->size(); ++i) {
            NormalizerSpec child;
            if (auto st = readNormalizer((*list)[i], at(listPath, i), where, depth + 1, child); !st)
                return st;
            out.children.push_back(std::move(child));
        }
    } else {
        return unsupported(where, path, type);
    }
    return {};
}

Status readSplit(const Fields &f, PreTokenizerSpec &out)
{
    static const std::map<std::string, SplitBehavior> behaviors = {
        {"Removed", SplitBehavior::Removed},
        {"Isolated", SplitBehavior::Isolated},
        {"MergedWithPrevious", SplitBehavior::MergedWithPrevious},
        {"MergedWithNext", SplitBehavior::MergedWithNext},
        {"Contiguous", SplitBehavior::Contiguous}};
    std::string behavior;
    Status st;
    if (!(st = readPattern(f, "pattern", out.pattern)) || !(st = requiredString(f, "behavior", behavior)) ||
        !(st = f.boolean("invert", out.invert)))
        return st;
    auto it = behaviors.find(behavior);
    if (it == behaviors.end())
        return f.fail("behavior", quote(behavior) + " is not supported by this build");
    out.behavior = it->second;
    return {};
}

Status readMetaspace(const Fields &f, PreTokenizerSpec &out)
{
    using P = PreTokenizerSpec::Prepend;
    std::string replacement, scheme = "always";
    std::optional<bool> addPrefixSpace;
    Status st;
    if (!(st = requiredString(f, "replacement", replacement)) || !(st = f.string("prepend_scheme", scheme)) ||
        !(st = f.boolean("split", out.split)) || !(st = f.optBoolean("add_prefix_space", addPrefixSpace)))
        return st;
    const std::u32string rep = toU32(replacement);
    if (rep.size() != 1)
        return f.fail("replacement", "expected one character");
    out.replacement = rep.front();
    if (scheme == "always")
        out.prependScheme = P::Always;
    else if (scheme == "first")
        out.prependScheme = P::First;
    else if (scheme == "never")
        out.prependScheme = P::Never;
    else
        return f.fail("prepend_scheme", "expected \"always\", \"first\" or \"never\"");
    // The older spelling: the library refuses false beside any scheme but "never" (the
    // default "always" included), and true changes nothing.
    if (addPrefixSpace == false && out.prependScheme != P::Never)
        return f.fail("add_prefix_space", "false does not match prepend_scheme " + quote(scheme));
    return {};
}

Status readPreTokenizer(const json &j, const std::string &path, const std::string &where, int depth, PreTokenizerSpec &out)
{
    std::string type;
    if (auto st = typeOf(j, path, where, depth, type); !st)
        return st;
    using K = PreTokenizerSpec::Kind;
    Fields f(j, path, where);
    if (type == "BertPreTokenizer") {
        out.kind = K::Bert;
    } else if (type == "Whitespace") {
        out.kind = K::Whitespace;
    } else if (type == "WhitespaceSplit") {
        out.kind = K::WhitespaceSplit;
    } else if (type == "ByteLevel") {
        out.kind = K::ByteLevel;
        Status st;
        if (!(st = f.boolean("add_prefix_space", out.addPrefixSpace)) || !(st = f.boolean("use_regex", out.useRegex)))
            return st;
    } else if (type == "Split") {
        out.kind = K::Split;
        if (auto st = readSplit(f, out); !st)
            return st;
    } else if (type == "Metaspace") {
        out.kind = K::Metaspace;
        if (auto st = readMetaspace(f, out); !st)
            return st;
    } else if (type == "Sequence") {
        out.kind = K::Sequence;
        const json *list = f.find("pretokenizers");
        if (!list || !list->is_array())
            return f.fail("pretokenizers", "expected a list");
        const std::string listPath = join(path, "pretokenizers");
        for (std::size_t i = 0; i < list->size(); ++i) {
            PreTokenizerSpec child;
            if (auto st = readPreTokenizer((*list)[i], at(listPath, i), where, depth + 1, child); !st)
                return st;
            out.children.push_back(std::move(child));
        }
    } else {
        return unsupported(where, path, type);
    }
    return {};
}

Status readVocab(const Fields &f, Vocab &vocab)
{
    const json *v = f.find("vocab");
    if (!v || !v->is_object())
        return f.fail("vocab", "expected an object {\"token\": id, ...}");
    if (v->empty())
        return f.fail("vocab", "the vocabulary is empty");
    vocab.reserve(v->size());
    for (auto it = v->begin(); it != v->end(); ++it) {
        std::int64_t id = 0;
        if (!readId(it.value(), id))
            return f.fail("vocab", "the id of " + quote(it.key()) + " is not an integer in 0.." + std::to_string(INT_MAX));
        vocab.emplace(it.key(), id);
    }
    return {};
}

Status readWordPiece(const Fields &f, WordPieceModel &m)
{
    Status st;
    if (!(st = readVocab(f, m.vocab)) || !(st = f.string("unk_token", m.unkToken)) ||
        !(st = f.string("continuing_subword_prefix", m.prefix)) || !(st = f.count("max_input_chars_per_word", m.maxInputCharsPerWord)))
        return st;
    auto it = m.vocab.find(m.unkToken);
    if (it == m.vocab.end())
        return f.fail("unk_token", quote(m.unkToken) + " is not in " + join(f.path(), "vocab"));
    m.unkId = it->second;
    return {};
}

Status readBpe(const Fields &f, BpeModel &m)
{
    Status st;
    std::optional<std::string> prefix, suffix;
    bool byteFallback = false;
    if (!(st = readVocab(f, m.vocab)) || !(st = f.optString("unk_token", m.unkToken)) ||
        !(st = f.optString("continuing_subword_prefix", prefix)) || !(st = f.optString("end_of_word_suffix", suffix)) ||
        !(st = f.boolean("fuse_unk", m.fuseUnk)) || !(st = f.boolean("byte_fallback", byteFallback)) ||
        !(st = f.boolean("ignore_merges", m.ignoreMerges)))
        return st;
    if (const json *d = f.find("dropout")) {
        if (!d->is_number())
            return f.fail("dropout", "expected a number or null");
        if (d->get<double>() != 0.0)
            return f.fail("dropout", "BPE dropout (random merges) is not supported by this build");
    }
    m.prefix = prefix.value_or("");
    m.suffix = suffix.value_or("");
    for (const auto &[token, id] : m.vocab)
        m.tokenOf.emplace(id, token);
    if (byteFallback) {
        // The library looks up "<0xXX>" (upper-case hex) for each byte of a character
        // the vocabulary lacks.
        static const char *hex = "0123456789ABCDEF";
        m.byteIds.assign(256, -1);
        for (int b = 0; b < 256; ++b) {
            const std::string name = std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
            if (auto it = m.vocab.find(name); it != m.vocab.end())
                m.byteIds[static_cast<std::size_t>(b)] = it->second;
        }
    }
    if (m.unkToken) {
        auto it = m.vocab.find(*m.unkToken);
        if (it == m.vocab.end())
            return f.fail("unk_token", quote(*m.unkToken) + " is not in " + join(f.path(), "vocab"));
        m.unkId = it->second;
    }
    const json *merges = f.find("merges");
    if (!merges || !merges->is_array())
        return f.fail("merges", "expected a list");
    const std::string mp = join(f.path(), "merges");
    m.merges.reserve(merges->size());
    std::uint32_t rank = 0;
    std::string merged;
    for (std::size_t i = 0; i < merges->size(); ++i) {
        const json &e = (*merges)[i];
        std::string a, b;
        if (e.is_string()) {
            const std::string line = e.get<std::string>();
            if (startsWith(line, "#version"))
                continue;
            const auto parts = splitView(line, ' ');
            if (parts.size() != 2)
                return f.failAt(at(mp, i), "expected \"left right\" (two tokens and one space)");
            a = std::string(parts[0]);
            b = std::string(parts[1]);
        } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
            a = e[0].get<std::string>();
            b = e[1].get<std::string>();
        } else {
            return f.failAt(at(mp, i), "expected \"left right\" or [\"left\", \"right\"]");
        }
        auto ia = m.vocab.find(a), ib = m.vocab.find(b);
        if (ia == m.vocab.end())
            return f.failAt(at(mp, i), quote(a) + " is not in " + join(f.path(), "vocab"));
        if (ib == m.vocab.end())
            return f.failAt(at(mp, i), quote(b) + " is not in " + join(f.path(), "vocab"));
        // The merged token: the right one without its continuation prefix.
        if (b.size() < m.prefix.size())
            return f.failAt(at(mp, i), quote(b) + " is shorter than the continuing_subword_prefix");
        merged = a + b.substr(m.prefix.size());
        auto im = m.vocab.find(merged);
        if (im == m.vocab.end())
            return f.failAt(at(mp, i), "the merged token " + quote(merged) + " is not in " + join(f.path(), "vocab"));
        m.merges[BpeModel::key(ia->second, ib->second)] = BpeModel::Merge{rank, im->second};
        ++rank;
    }
    return {};
}

Status readModel(const json &j, const std::string &where, HfTokenizer::Impl &impl)
{
    if (!j.is_object())
        return makeError(where, "model: expected an object");
    std::string type;
    if (auto it = j.find("type"); it != j.end() && it->is_string())
        type = it->get<std::string>();
    else if (j.contains("merges"))
        type = "BPE";
    else if (j.contains("max_input_chars_per_word") || j.contains("continuing_subword_prefix"))
        type = "WordPiece";
    else
        return makeError(where, "model: no \"type\"");
    Fields f(j, "model", where);
    if (type == "WordPiece") {
        impl.modelKind = HfTokenizer::Impl::ModelKind::WordPiece;
        return readWordPiece(f, impl.wordPiece);
    }
    if (type == "BPE") {
        impl.modelKind = HfTokenizer::Impl::ModelKind::Bpe;
        return readBpe(f, impl.bpe);
    }
    return unsupported(where, "model", type);
}

Status readAddedTokens(const json *list, const std::string &where, HfTokenizer::Impl &impl)
{
    if (!list)
        return {};
    if (!list->is_array())
        return makeError(where, "added_tokens: expected a list");
    // The library's ids, not the declared ones (it only warns when they differ): a token
    // of the model's vocabulary keeps the model's id, a token seen before keeps its id,
    // any other takes the next id after the model's vocabulary (its number of entries).
    std::map<std::int64_t, AddedToken> byId;
    std::int64_t nextId = static_cast<std::int64_t>(impl.vocab().size());
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json &e = (*list)[i];
        const std::string path = at("added_tokens", i);
        if (!e.is_object())
            return makeError(where, path + ": expected an object");
        Fields f(e, path, where);
        AddedToken t;
        Status st;
        if (!f.find("content") || !f.find("id"))
            return f.fail("", "expected \"id\" and \"content\"");
        if (!readId(*f.find("id"), t.id))
            return f.fail("id", "not an integer in 0.." + std::to_string(INT_MAX));
        if (!(st = f.string("content", t.content)) || !(st = f.boolean("special", t.special)))
            return st;
        t.normalized = !t.special;
        if (!(st = f.boolean("single_word", t.singleWord)) || !(st = f.boolean("lstrip", t.lstrip)) ||
            !(st = f.boolean("rstrip", t.rstrip)) || !(st = f.boolean("normalized", t.normalized)))
            return st;
        if (t.content.empty())
            continue;   // the library ignores an empty added token
        if (auto it = impl.addedIds.find(t.content); it != impl.addedIds.end())
            t.id = it->second;
        else if (auto v = impl.vocab().find(t.content); v != impl.vocab().end())
            t.id = v->second;
        else
            t.id = nextId++;
        impl.addedIds[t.content] = t.id;
        byId[t.id] = std::move(t);
    }
    for (auto &entry : byId)
        impl.added.push_back(std::move(entry.second));
    return {};
}

} // namespace

Result<std::shared_ptr<HfTokenizer::Impl>> readTokenizerJson(const std::string &text, const std::string &where)
{
    auto parsed = parseJsonStrict(text, where);
    if (!parsed)
        return parsed.error();
    const json &j = *parsed;
    if (!j.is_object())
        return makeError(where, "expected a JSON object (a tokenizer.json)");
    auto impl = std::make_shared<HfTokenizer::Impl>();
    impl->source = "tokenizer.json";
    auto field = [&](const char *key) -> const json * {
        auto it = j.find(key);
        return it == j.end() || it->is_null() ? nullptr : &*it;
    };
    const json *model = field("model");
    if (!model)
        return makeError(where, "model: missing");
    if (auto st = readModel(*model, where, *impl); !st)
        return st.error();
    if (const json *n = field("normalizer")) {
        NormalizerSpec spec;
        if (auto st = readNormalizer(*n, "normalizer", where, 0, spec); !st)
            return st.error();
        impl->normalizer = std::move(spec);
    }
    if (const json *p = field("pre_tokenizer")) {
        PreTokenizerSpec spec;
        if (auto st = readPreTokenizer(*p, "pre_tokenizer", where, 0, spec); !st)
            return st.error();
        impl->preTokenizer = std::move(spec);
    }
    if (const json *p = field("post_processor")) {
        PostProcessorSpec spec;
        if (auto st = readPostProcessor(*p, "post_processor", where, 0, spec); !st)
            return st.error();
        impl->postProcessor = std::move(spec);
    }
    if (auto st = readAddedTokens(field("added_tokens"), where, *impl); !st)
        return st.error();
    impl->finish();
    if (impl->postProcessor)
        if (auto st = checkPostTokens(*impl->postProcessor, "post_processor", where, *impl); !st)
            return st.error();
    return impl;
}

} // namespace treelens::hf
