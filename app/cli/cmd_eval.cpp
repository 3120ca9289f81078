// eval-parse and info.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "core/eval/bracketeval.h"
#include "core/eval/depeval.h"
#include "core/eval/morpheval.h"
#include "core/eval/rawtexteval.h"
#include "core/eval/tokeneval.h"
#include "core/formats/conllu.h"
#include "core/base/strings.h"
#include "core/text/tokenizer.h"
#include "core/parsing/parser.h"
#include "core/runtime/torchinfo.h"

namespace treelens::cli {

namespace {

std::string fixed(double v, int digits = 2)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

double round2(double v) { return static_cast<double>(static_cast<long long>(v * 100.0 + (v >= 0 ? 0.5 : -0.5))) / 100.0; }

struct EvalSpec {
    std::string gold, pred, from;
    bool json = false;
    bool keepPunct = false;
};

nlohmann::json bracketJson(const BracketCounts &c)
{
    return {{"precision", round2(c.precision())}, {"recall", round2(c.recall())}, {"f1", round2(c.f1())},
            {"gold_brackets", c.gold}, {"predicted_brackets", c.predicted}, {"matched_brackets", c.matched}};
}

/// UFeats and Lemmas (CoNLL 2018, core/eval/morpheval.h) when the gold file has lemmas or features.
void addMorphology(const std::vector<Sentence> &gold, const std::vector<Sentence> &pred, nlohmann::json &j, std::string &text)
{
    const bool any = std::any_of(gold.begin(), gold.end(), [](const Sentence &s) {
        return std::any_of(s.tokens.begin(), s.tokens.end(), [](const Token &t) {
            return (!t.lemma.empty() && t.lemma != "_") || (!t.feats.empty() && t.feats != "_");
        });
    });
    if (!any)
        return;
    const MorphCounts m = scoreMorphology(gold, pred);
    j["dependency"]["ufeats"] = round2(100.0 * m.accuracy(m.ufeats));
    j["dependency"]["lemmas"] = round2(100.0 * m.accuracy(m.lemmas));
    text += "  UFeats " + fixed(100.0 * m.accuracy(m.ufeats)) + "  Lemmas " + fixed(100.0 * m.accuracy(m.lemmas)) +
            "  (CoNLL 2018: universal features as sets; a gold lemma _ matches any)\n";
}

} // namespace

void addEvalParseCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("eval-parse", "Score predicted trees against gold trees (UAS/LAS, bracket P/R/F1)");
    auto spec = std::make_shared<EvalSpec>();
    cmd->add_option("--gold,-g", spec->gold, "Gold file (.conllu, .mrg/.ptb, .json)")->required()->type_name("G");
    cmd->add_option("--pred,-p", spec->pred, "Predicted file, same sentences and tokens")->required()->type_name("P");
    cmd->add_option("--from", spec->from, "Format of both files (default: from each extension)")
        ->check(CLI::IsMember({"conllu", "ptb", "json"}));
    cmd->add_flag("--json", spec->json, "Print one JSON object instead of text");
    cmd->add_flag("--keep-punct", spec->keepPunct, "Brackets: do not delete punctuation (evalb deletes it)");
    cmd->footer("Dependencies (when both files have them): UAS/LAS with and without punctuation (LAS on the universal\n"
                "relation, CoNLL 2018 style), UPOS/XPOS, and UFeats/Lemmas when the gold file has lemmas or features\n"
                "(CoNLL 2018 definitions). Constituents (when both have them): labelled and unlabelled bracket\n"
                "P/R/F1 with evalb COLLINS.prm conventions (see docs/evaluation.md).");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            auto fmtOf = [&](const std::string &p) {
                return spec->from.empty() ? formatFromPath(p) : *parseCorpusFormat(spec->from);
            };
            auto gold = readCorpusNonEmpty(spec->gold, fmtOf(spec->gold));
            if (!gold)
                return fail(gold.message());
            auto pred = readCorpusNonEmpty(spec->pred, fmtOf(spec->pred));
            if (!pred)
                return fail(pred.message());
            if (gold->size() != pred->size())
                return fail(spec->gold + " has " + std::to_string(gold->size()) + " sentences but " + spec->pred + " has "
                            + std::to_string(pred->size()));
            auto all = [](const std::vector<Sentence> &v, bool dep) {
                for (const auto &s : v)
                    if (dep ? !s.dependency : !s.constituency)
                        return false;
                return !v.empty();
            };
            const bool doDep = all(*gold, true) && all(*pred, true);
            const bool doCon = all(*gold, false) && all(*pred, false);
            if (!doDep && !doCon)
                return fail("the files share no kind of tree (every sentence of both needs a dependency or a constituency tree)");
            nlohmann::json j;
            j["sentences"] = gold->size();
            std::string text;
            if (doDep) {
                auto e = evaluateDependencies(*gold, *pred);
                if (!e)
                    return fail(e.message());
                j["dependency"] = {{"tokens", e->all.tokens},
                                   {"uas", round2(e->all.uas())},
                                   {"las", round2(e->all.las())},
                                   {"tokens_no_punct", e->noPunct.tokens},
                                   {"uas_no_punct", round2(e->noPunct.uas())},
                                   {"las_no_punct", round2(e->noPunct.las())},
                                   {"exact_unlabeled", e->exactUnlabeled}};
                auto pct = [](long c, long n) { return n ? round2(100.0 * static_cast<double>(c) / static_cast<double>(n)) : 0.0; };
                if (e->uposTokens)
                    j["dependency"]["upos"] = pct(e->uposCorrect, e->uposTokens);
                if (e->xposTokens)
                    j["dependency"]["xpos"] = pct(e->xposCorrect, e->xposTokens);
                text += "Dependencies: " + std::to_string(e->sentences) + " sentences, " + std::to_string(e->all.tokens) + " tokens\n";
                text += "  UAS " + fixed(e->all.uas()) + "  LAS " + fixed(e->all.las()) + "  (punctuation included)\n";
                text += "  UAS " + fixed(e->noPunct.uas()) + "  LAS " + fixed(e->noPunct.las()) + "  (punctuation excluded, "
                        + std::to_string(e->noPunct.tokens) + " tokens)\n";
                text += "  exact unlabeled match " + std::to_string(e->exactUnlabeled) + " sentences\n";
                if (e->uposTokens)
                    text += "  UPOS " + fixed(100.0 * static_cast<double>(e->uposCorrect) / static_cast<double>(e->uposTokens))
                            + "  XPOS "
                            + (e->xposTokens ? fixed(100.0 * static_cast<double>(e->xposCorrect) / static_cast<double>(e->xposTokens))
                                             : std::string("-"))
                            + "  (tokens with a gold tag)\n";
            }
            if (doDep)
                addMorphology(*gold, *pred, j, text);
            if (doCon) {
                BracketEvalOptions opt;
                opt.ignorePunctuation = !spec->keepPunct;
                auto e = evaluateBrackets(*gold, *pred, opt);
                if (!e)
                    return fail(e.message());
                j["constituency"] = {{"labeled", bracketJson(e->labeled)},
                                     {"unlabeled", bracketJson(e->unlabeled)},
                                     {"exact_labeled", e->exactLabeled},
                                     {"sentence_f1_unlabeled", round2(e->sentenceF1Unlabeled)}};
                text += "Constituents: " + std::to_string(e->sentences) + " sentences (evalb conventions"
                        + std::string(spec->keepPunct ? ", punctuation kept" : "") + ")\n";
                text += "  labeled    P " + fixed(e->labeled.precision()) + "  R " + fixed(e->labeled.recall()) + "  F1 "
                        + fixed(e->labeled.f1()) + "  (" + std::to_string(e->labeled.matched) + " of " + std::to_string(e->labeled.gold)
                        + " gold, " + std::to_string(e->labeled.predicted) + " predicted)\n";
                text += "  unlabeled  P " + fixed(e->unlabeled.precision()) + "  R " + fixed(e->unlabeled.recall()) + "  F1 "
                        + fixed(e->unlabeled.f1()) + "\n";
                text += "  exact labeled match " + std::to_string(e->exactLabeled) + " sentences\n";
            }
            std::cout << (spec->json ? j.dump() + "\n" : text);
            return 0;
        };
    });
}

void addInfoCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("info", "Print versions, parser backends and the compute device");
    auto json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "Print JSON");
    cmd->callback([&action, json]() {
        action = [json]() {
            const TorchInfo t = torchInfo();
            nlohmann::json j;
            j["treelens"] = TREELENS_VERSION;
            j["libtorch"] = t.version;
            j["cuda_available"] = t.cudaAvailable;
            j["cuda_devices"] = t.cudaDevices;
            j["threads"] = t.threads;
            j["blas"] = t.blas;
            nlohmann::json parsers = nlohmann::json::array();
            for (const auto &p : availableParsers())
                parsers.push_back({{"name", p.name}, {"dependencies", p.dependencies}, {"constituencies", p.constituencies},
                                   {"description", p.description}});
            j["parsers"] = parsers;
            if (*json) {
                std::cout << j.dump() << '\n';
            } else {
                std::cout << "TreeLens " << TREELENS_VERSION << "\nLibTorch " << t.version << " (" << t.threads << " threads, BLAS: "
                          << (t.blas.empty() ? "unknown" : t.blas) << ")\nCUDA: "
                          << (t.cudaAvailable ? std::to_string(t.cudaDevices) + " device(s)" : std::string("not available")) << "\nParsers:\n";
                for (const auto &p : availableParsers())
                    std::cout << "  " << p.name << " - " << p.description << '\n';
            }
            return 0;
        };
    });
}

} // namespace treelens::cli

namespace treelens::cli {

void addEvalTokenizeCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("eval-tokenize", "Score the tokenizer and sentence splitter against gold CoNLL-U");
    struct Spec {
        std::string gold;
        bool json = false;
        int mismatches = 0;
    };
    auto spec = std::make_shared<Spec>();
    cmd->add_option("--gold,-g", spec->gold, "Gold CoNLL-U file with '# text' lines (e.g. UD EWT test)")->required()->type_name("FILE");
    cmd->add_flag("--json", spec->json, "Print one JSON object instead of text");
    cmd->add_option("--mismatches", spec->mismatches, "Also list the first N disagreeing stretches")->capture_default_str();
    cmd->footer("Tokens: multiword tokens count as their surface token, matched by exact character span (CoNLL 2018\n"
                "'Tokens'). Words: multiword tokens split. Sentences: gold '# text' lines joined into paragraphs and\n"
                "re-split. Definitions in docs/tokenizer.md.");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            auto gold = readCorpusNonEmpty(spec->gold, CorpusFormat::Conllu);
            if (!gold)
                return fail(gold.message());
            const Tokenizer tokenizer;
            const TokenizationScore t = evaluateTokenizer(*gold, tokenizer, spec->mismatches);
            const SegmentationScore s = evaluateSentenceSplitter(*gold, tokenizer);
            auto r4 = [](double v) { return static_cast<double>(static_cast<long long>(v * 10000.0 + 0.5)) / 10000.0; };
            if (spec->json) {
                nlohmann::json j = {{"sentences", t.sentences},
                                    {"token_precision", r4(t.tokens.precision())},
                                    {"token_recall", r4(t.tokens.recall())},
                                    {"token_f1", r4(t.tokens.f1())},
                                    {"word_f1", r4(t.words.f1())},
                                    {"sentence_precision", r4(s.sentences.precision())},
                                    {"sentence_recall", r4(s.sentences.recall())},
                                    {"sentence_f1", r4(s.sentences.f1())},
                                    {"boundary_f1", r4(s.boundaries.f1())}};
                nlohmann::json mm = nlohmann::json::array();
                for (const auto &m : t.mismatches)
                    mm.push_back({{"sentence", m.sentenceId}, {"gold", m.gold}, {"predicted", m.predicted}});
                if (spec->mismatches > 0)
                    j["mismatches"] = mm;
                std::cout << j.dump() << '\n';
                return 0;
            }
            std::cout << "Tokens     P " << fixed(100 * t.tokens.precision()) << "  R " << fixed(100 * t.tokens.recall()) << "  F1 "
                      << fixed(100 * t.tokens.f1()) << "  (" << t.tokens.gold << " gold tokens, " << t.sentences << " sentences)\n"
                      << "Words      F1 " << fixed(100 * t.words.f1()) << "\n"
                      << "Sentences  P " << fixed(100 * s.sentences.precision()) << "  R " << fixed(100 * s.sentences.recall())
                      << "  F1 " << fixed(100 * s.sentences.f1()) << "  (boundary F1 " << fixed(100 * s.boundaries.f1()) << ")\n";
            for (const auto &m : t.mismatches)
                std::cout << "  " << m.sentenceId << ": gold [" << join(m.gold, " | ") << "] predicted [" << join(m.predicted, " | ") << "]\n";
            return 0;
        };
    });
}

void addEvalRawCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("eval-raw", "Score sentence splitter + tokenizer + parser on raw text against gold "
                                               "CoNLL-U (CoNLL 2018 shared-task style)");
    struct Spec {
        std::string gold;
        ParserSpec parser;
        bool json = false;
        std::string output;
    };
    auto spec = std::make_shared<Spec>();
    cmd->add_option("--gold,-g", spec->gold, "Gold CoNLL-U file with '# text' lines and trees (e.g. UD EWT test)")
        ->required()
        ->type_name("FILE");
    addParserOptions(cmd, spec->parser);
    cmd->add_flag("--json", spec->json, "Print one JSON object instead of text");
    cmd->add_option("-o,--output", spec->output,
                    "Also write the system's sentences, parsed, as CoNLL-U (e.g. for conll18_ud_eval.py)")
        ->type_name("FILE");
    cmd->footer("The gold '# text' lines are joined into paragraphs (at '# newdoc'/'# newpar'), split into sentences,\n"
                "tokenized and parsed; words are aligned to gold words by character span. Tokens, Sentences, Words,\n"
                "UPOS, XPOS, UAS, LAS (universal relation) and UAS/LAS without punctuation as P/R/F1 in percent\n"
                "(precision over system words, recall over gold words). Definitions: docs/evaluation.md.");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            auto gold = readCorpusNonEmpty(spec->gold, CorpusFormat::Conllu);
            if (!gold)
                return fail(gold.message());
            auto parser = createParser(parserConfig(spec->parser));
            if (!parser)
                return fail(parser.message());
            const Tokenizer tokenizer;
            // A sentence the parser refuses or fails on stays unparsed (its words
            // count as wrong attachments) instead of ending the evaluation.
            std::vector<std::string> failures;
            bool parseFailed = false;
            std::vector<Sentence> systemOut;
            ParseSentences parse = [&](std::vector<Sentence> &sentences) -> Status {
                std::vector<std::vector<MultiwordToken>> mwts;
                for (const auto &s : sentences)
                    mwts.push_back(s.multiwordTokens);
                auto r = parseSentences(**parser, spec->parser, std::move(sentences), spec->gold + " (re-tokenized)",
                                        &failures);
                if (!r) {
                    parseFailed = true;
                    return r.error();
                }
                sentences = std::move(*r);
                if (!spec->output.empty()) {
                    systemOut = sentences;
                    for (std::size_t i = 0; i < systemOut.size() && i < mwts.size(); ++i)
                        systemOut[i].multiwordTokens = mwts[i];
                }
                return Status::success();
            };
            auto score = evaluateRawText(*gold, tokenizer, parse);
            if (!score)
                return fail(parseFailed ? score.message() : spec->gold + ": " + score.message());
            if (!spec->output.empty()) {
                if (const int rc = writeOutput(spec->output, writeConllu(systemOut)); rc != 0)
                    return rc;
            }
            const RawTextScore &r = *score;
            const auto shownFailures = static_cast<std::ptrdiff_t>(std::min<std::size_t>(failures.size(), 5));
            const std::vector<std::pair<std::string, const PrfCounts *>> rows = {
                {"tokens", &r.tokens}, {"sentences", &r.sentences}, {"words", &r.words},
                {"upos", &r.upos},     {"xpos", &r.xpos},           {"ufeats", &r.ufeats},
                {"lemmas", &r.lemmas}, {"uas", &r.uas},             {"las", &r.las},
                {"uas_no_punct", &r.uasNoPunct}, {"las_no_punct", &r.lasNoPunct}};
            if (spec->json) {
                nlohmann::json j = {{"gold", spec->gold},
                                    {"parser", spec->parser.parser},
                                    {"gold_sentences", r.sentences.gold},
                                    {"system_sentences", r.sentences.predicted},
                                    {"paragraphs", r.paragraphs},
                                    {"unparsed_sentences", r.unparsedSentences},
                                    {"parse_errors", std::vector<std::string>(failures.begin(), failures.begin() + shownFailures)},
                                    {"tokenize_seconds", round2(r.tokenizeSeconds)},
                                    {"parse_seconds", round2(r.parseSeconds)}};
                for (const auto &[name, c] : rows)
                    j[name] = {{"precision", round2(100 * c->precision())},
                               {"recall", round2(100 * c->recall())},
                               {"f1", round2(100 * c->f1())},
                               {"gold", c->gold},
                               {"system", c->predicted},
                               {"correct", c->correct}};
                std::cout << j.dump() << '\n';
                return 0;
            }
            const std::vector<std::string> labels = {"Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "Lemmas",
                                                     "UAS", "LAS", "UAS no punct", "LAS no punct"};
            std::cout << "Raw text: " << r.sentences.gold << " gold sentences in " << r.paragraphs << " paragraphs, "
                      << r.sentences.predicted << " system sentences; parser " << spec->parser.parser << " ("
                      << fixed(r.tokenizeSeconds) << " s tokenizing, " << fixed(r.parseSeconds) << " s parsing)\n";
            if (r.unparsedSentences > 0) {
                std::cout << r.unparsedSentences << " system sentences not parsed (their words count as wrong "
                          << "attachments), e.g.:\n";
                for (std::ptrdiff_t k = 0; k < shownFailures; ++k)
                    std::cout << "  " << failures[static_cast<std::size_t>(k)] << '\n';
            }
            char buf[160];
            std::snprintf(buf, sizeof buf, "%-14s %7s %7s %7s\n", "Metric", "P", "R", "F1");
            std::cout << buf;
            for (std::size_t k = 0; k < rows.size(); ++k) {
                const PrfCounts &c = *rows[k].second;
                std::snprintf(buf, sizeof buf, "%-14s %7s %7s %7s\n", labels[k].c_str(), fixed(100 * c.precision()).c_str(),
                              fixed(100 * c.recall()).c_str(), fixed(100 * c.f1()).c_str());
                std::cout << buf;
            }
            return 0;
        };
    });
}

} // namespace treelens::cli
