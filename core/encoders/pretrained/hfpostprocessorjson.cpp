// Reading a tokenizer.json's post_processor (TemplateProcessing, BertProcessing,
// RobertaProcessing, ByteLevel, Sequence), and BERT's vocab.txt + tokenizer_config.json
// as the tokenizer transformers makes of them (BertNormalizer, BertPreTokenizer,
// WordPiece with "##", the [CLS] A [SEP] B [SEP] template).
#include "core/base/jsonstrict.h"
#include "core/base/strings.h"
#include "core/encoders/pretrained/hfjson.h"

namespace treelens::hf {

namespace jsonread {

namespace {

/// [ "token", id ] of BertProcessing / RobertaProcessing.
Status readTokenAndId(const Fields &f, const char *key, std::pair<std::string, std::int64_t> &out)
{
    const json *v = f.find(key);
    if (!v)
        return {};
    if (!v->is_array() || v->size() != 2 || !(*v)[0].is_string() || !readId((*v)[1], out.second))
        return f.fail(key, "expected [\"token\", id]");
    out.first = (*v)[0].get<std::string>();
    if (findInvalidUtf8(out.first) >= 0)
        return f.fail(key, "not valid UTF-8");
    return {};
}

Status readTemplatePiece(const json &e, const std::string &path, const std::string &where, TemplatePiece &piece)
{
    if (e.is_string()) {
        // The short form: "$A", "$B:1", "$1" (sequence A, type 1), "[CLS]", "[SEP]:1".
        std::string s = e.get<std::string>();
        const auto colon = s.rfind(':');
        if (colon != std::string::npos && colon + 1 < s.size() && s.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
            if (!parseInt(std::string_view(s).substr(colon + 1), piece.typeId))
                return makeError(where, path + ": bad type id in " + quote(s));
            s.resize(colon);
        }
        if (!s.empty() && s[0] == '$') {
            const std::string id = s.substr(1);
            piece.special = false;
            if (id.empty() || id == "A" || id == "B") {
                piece.id = id == "B" ? "B" : "A";
            } else if (id.find_first_not_of("0123456789") == std::string::npos && parseInt(id, piece.typeId)) {
                piece.id = "A";
            } else {
                return makeError(where, path + ": unknown sequence " + quote(s));
            }
        } else {
            piece.special = true;
            piece.id = s;
        }
        return {};
    }
    if (!e.is_object() || e.size() != 1)
        return makeError(where, path + ": expected {\"SpecialToken\": ...} or {\"Sequence\": ...}");
    const auto it = e.begin();
    if (it.key() != "SpecialToken" && it.key() != "Sequence")
        return makeError(where, path + ": unknown piece " + quote(it.key()));
    piece.special = it.key() == "SpecialToken";
    const std::string inner = join(path, it.key());
    if (!it.value().is_object())
        return makeError(where, inner + ": expected an object");
    Fields f(it.value(), inner, where);
    if (!f.find("id"))
        return f.fail("id", "missing");
    if (auto st = f.string("id", piece.id); !st)
        return st;
    std::size_t typeId = 0;
    if (auto st = f.count("type_id", typeId); !st)
        return st;
    if (typeId > static_cast<std::size_t>(INT_MAX))
        return f.fail("type_id", "out of range");
    piece.typeId = static_cast<int>(typeId);
    if (!piece.special && piece.id != "A" && piece.id != "B")
        return f.fail("id", "expected \"A\" or \"B\"");
    return {};
}

Status readTemplate(const Fields &f, const char *key, std::vector<TemplatePiece> &out, bool pair)
{
    const json *list = f.find(key);
    if (!list) {
        out = {TemplatePiece{false, "A", 0}};
        if (pair)
            out.push_back(TemplatePiece{false, "B", 1});
        return {};
    }
    if (list->is_string()) {
        // "[CLS] $A [SEP]": pieces separated by spaces.
        json pieces = json::array();
        const std::string text = list->get<std::string>();
        for (auto part : splitView(text, ' '))
            if (!part.empty())
                pieces.push_back(std::string(part));
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            TemplatePiece p;
            if (auto st = readTemplatePiece(pieces[i], at(join(f.path(), key), i), f.where(), p); !st)
                return st;
            out.push_back(p);
        }
        return {};
    }
    if (!list->is_array())
        return f.fail(key, "expected a list of pieces");
    for (std::size_t i = 0; i < list->size(); ++i) {
        TemplatePiece p;
        if (auto st = readTemplatePiece((*list)[i], at(join(f.path(), key), i), f.where(), p); !st)
            return st;
        out.push_back(p);
    }
    return {};
}

} // namespace

Status readPostProcessor(const json &j, const std::string &path, const std::string &where, int depth, PostProcessorSpec &out)
{
    std::string type;
    if (auto st = typeOf(j, path, where, depth, type); !st)
        return st;
    using K = PostProcessorSpec::Kind;
    Fields f(j, path, where);
    Status st;
    if (type == "TemplateProcessing") {
        out.kind = K::Template;
        if (!(st = readTemplate(f, "single", out.single, false)) || !(st = readTemplate(f, "pair", out.pair, true)))
            return st;
        if (const json *sp = f.find("special_tokens")) {
            if (!sp->is_object())
                return f.fail("special_tokens", "expected an object");
            for (auto it = sp->begin(); it != sp->end(); ++it) {
                const std::string tp = join(join(path, "special_tokens"), it.key());
                if (!it.value().is_object())
                    return makeError(where, tp + ": expected {\"id\", \"ids\", \"tokens\"}");
                const json &ids = it.value().contains("ids") ? it.value()["ids"] : json();
                const json &tokens = it.value().contains("tokens") ? it.value()["tokens"] : json();
                if (!ids.is_array() || !tokens.is_array() || ids.size() != tokens.size() || ids.empty())
                    return makeError(where, tp + ": expected as many ids as tokens, at least one");
                SpecialTokenSpec spec;
                for (std::size_t i = 0; i < ids.size(); ++i) {
                    std::int64_t id = 0;
                    if (!readId(ids[i], id) || !tokens[i].is_string())
                        return makeError(where, at(tp + ".ids", i) + ": expected an id and a token");
                    spec.ids.push_back(id);
                    spec.tokens.push_back(tokens[i].get<std::string>());
                    if (findInvalidUtf8(spec.tokens.back()) >= 0)
                        return makeError(where, at(tp + ".tokens", i) + ": not valid UTF-8");
                }
                out.specialTokens[it.key()] = std::move(spec);
            }
        }
        for (const auto *tmpl : {&out.single, &out.pair}) {
            const std::string key = tmpl == &out.single ? "single" : "pair";
            for (std::size_t i = 0; i < tmpl->size(); ++i) {
                const TemplatePiece &p = (*tmpl)[i];
                if (p.special && !out.specialTokens.count(p.id))
                    return makeError(where, at(join(path, key), i) + ": special token " + quote(p.id) + " is not in " +
                                                join(path, "special_tokens"));
                if (!p.special && p.id == "B" && tmpl == &out.single)
                    return makeError(where, at(join(path, key), i) + ": the single template uses $B");
            }
        }
    } else if (type == "BertProcessing" || type == "RobertaProcessing") {
        out.kind = type == "BertProcessing" ? K::Bert : K::Roberta;
        out.cls = type == "BertProcessing" ? std::make_pair(std::string("[CLS]"), std::int64_t{101}) : std::make_pair(std::string("<s>"), std::int64_t{0});
        out.sep = type == "BertProcessing" ? std::make_pair(std::string("[SEP]"), std::int64_t{102}) : std::make_pair(std::string("</s>"), std::int64_t{2});
        if (!(st = readTokenAndId(f, "cls", out.cls)) || !(st = readTokenAndId(f, "sep", out.sep)) ||
            !(st = f.boolean("trim_offsets", out.trimOffsets)) || !(st = f.boolean("add_prefix_space", out.addPrefixSpace)))
            return st;
    } else if (type == "ByteLevel") {
        out.kind = K::ByteLevel;
        if (!(st = f.boolean("trim_offsets", out.trimOffsets)) || !(st = f.boolean("add_prefix_space", out.addPrefixSpace)))
            return st;
    } else if (type == "Sequence") {
        out.kind = K::Sequence;
        const json *list = f.find("processors");
        if (!list || !list->is_array())
            return f.fail("processors", "expected a list");
        for (std::size_t i = 0; i < list->size(); ++i) {
            PostProcessorSpec child;
            if (auto cst = readPostProcessor((*list)[i], at(join(path, "processors"), i), where, depth + 1, child); !cst)
                return cst;
            out.children.push_back(std::move(child));
        }
    } else {
        return unsupported(where, path, type);
    }
    return {};
}

/// Every token a post-processor names must be one the tokenizer knows.
Status checkPostTokens(const PostProcessorSpec &spec, const std::string &path, const std::string &where,
                       const HfTokenizer::Impl &impl)
{
    // The token must be one the tokenizer knows, and its id inside the vocabulary (a
    // model indexes its embeddings with it).
    auto check = [&](const std::string &field, const std::string &token, std::int64_t id) -> Status {
        if (!impl.addedIds.count(token) && !impl.vocab().count(token))
            return makeError(where, field + ": " + quote(token) + " is not in the vocabulary");
        if (id >= impl.vocabSize)
            return makeError(where, field + ": id " + std::to_string(id) + " is outside the vocabulary (" +
                                        std::to_string(impl.vocabSize) + " ids)");
        return {};
    };
    using K = PostProcessorSpec::Kind;
    if (spec.kind == K::Template) {
        for (const auto &[name, tok] : spec.specialTokens)
            for (std::size_t i = 0; i < tok.tokens.size(); ++i)
                if (auto st = check(join(join(path, "special_tokens"), name), tok.tokens[i], tok.ids[i]); !st)
                    return st;
    } else if (spec.kind == K::Bert || spec.kind == K::Roberta) {
        if (auto st = check(join(path, "cls"), spec.cls.first, spec.cls.second); !st)
            return st;
        if (auto st = check(join(path, "sep"), spec.sep.first, spec.sep.second); !st)
            return st;
    } else if (spec.kind == K::Sequence) {
        for (std::size_t i = 0; i < spec.children.size(); ++i)
            if (auto st = checkPostTokens(spec.children[i], at(join(path, "processors"), i), where, impl); !st)
                return st;
    }
    return {};
}

} // namespace jsonread

using namespace jsonread;

Result<std::shared_ptr<HfTokenizer::Impl>> readBertVocab(const std::string &vocabText, const std::string &configJson,
                                                         const std::string &where)
{
    auto impl = std::make_shared<HfTokenizer::Impl>();
    impl->source = "vocab.txt";
    const std::vector<std::string> lines = splitListLines(vocabText);
    if (lines.empty())
        return makeError(where, "the vocabulary is empty");
    if (lines.size() > static_cast<std::size_t>(INT_MAX))
        return makeError(where, "too many lines");
    WordPieceModel &wp = impl->wordPiece;
    for (std::size_t i = 0; i < lines.size(); ++i)
        wp.vocab[lines[i]] = static_cast<std::int64_t>(i);   // a repeated token keeps its last line, as transformers does

    NormalizerSpec norm;   // BertNormalizer: clean text, CJK split, accents stripped when lower-casing
    std::string unk = "[UNK]", cls = "[CLS]", sep = "[SEP]", pad = "[PAD]", mask = "[MASK]";
    if (!trimView(configJson).empty()) {
        const std::string cfgWhere = where + ": tokenizer_config.json";
        auto parsed = parseJsonStrict(configJson, cfgWhere);
        if (!parsed)
            return parsed.error();
        if (!parsed->is_object())
            return makeError(cfgWhere, "expected a JSON object");
        Fields f(*parsed, "", cfgWhere);
        Status st;
        if (!(st = f.boolean("do_lower_case", norm.lowercase)) || !(st = f.optBoolean("strip_accents", norm.stripAccents)) ||
            !(st = f.boolean("tokenize_chinese_chars", norm.handleChineseChars)))
            return st.error();
        // A special token is a string or an AddedToken object {"content": ...}.
        for (auto [key, slot] : {std::make_pair("unk_token", &unk), std::make_pair("cls_token", &cls),
                                 std::make_pair("sep_token", &sep), std::make_pair("pad_token", &pad),
                                 std::make_pair("mask_token", &mask)}) {
            const json *v = f.find(key);
            if (!v)
                continue;
            if (v->is_object() && v->contains("content") && (*v)["content"].is_string())
                *slot = (*v)["content"].get<std::string>();
            else if (v->is_string())
                *slot = v->get<std::string>();
            else
                return f.fail(key, "expected a string or {\"content\": ...}");
            if (findInvalidUtf8(*slot) >= 0)
                return f.fail(key, "not valid UTF-8");
        }
    }
    impl->normalizer = norm;
    impl->preTokenizer = PreTokenizerSpec{};
    for (const auto &[name, token] : {std::make_pair("unk_token", &unk), std::make_pair("cls_token", &cls),
                                      std::make_pair("sep_token", &sep)})
        if (!wp.vocab.count(*token))
            return makeError(where, std::string(name) + " " + quote(*token) + " is not in the vocabulary");
    wp.unkToken = unk;
    wp.unkId = wp.vocab.at(unk);
    for (const std::string *t : {&pad, &unk, &cls, &sep, &mask}) {
        auto it = wp.vocab.find(*t);
        if (it == wp.vocab.end() || t->empty())
            continue;
        AddedToken a;
        a.content = *t;
        a.id = it->second;
        a.special = true;
        a.normalized = false;
        impl->added.push_back(std::move(a));
    }
    PostProcessorSpec post;
    post.kind = PostProcessorSpec::Kind::Template;
    post.single = {{true, cls, 0}, {false, "A", 0}, {true, sep, 0}};
    post.pair = {{true, cls, 0}, {false, "A", 0}, {true, sep, 0}, {false, "B", 1}, {true, sep, 1}};
    post.specialTokens[cls] = SpecialTokenSpec{{wp.vocab.at(cls)}, {cls}};
    post.specialTokens[sep] = SpecialTokenSpec{{wp.vocab.at(sep)}, {sep}};
    impl->postProcessor = std::move(post);
    impl->finish();
    return impl;
}

} // namespace treelens::hf
