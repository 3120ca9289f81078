// Raw-text (CoNLL 2018 style) evaluation: span alignment of system words to gold
// words, and the pipeline from gold "# text" paragraphs through the tokenizer to
// a parse callback. Expected counts are worked out by hand in the comments.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/base/fileio.h"
#include "core/eval/rawtexteval.h"
#include "core/eval/textspans.h"
#include "core/eval/tokeneval.h"
#include "core/formats/conllu.h"
#include "testutil.h"

using namespace treelens;

namespace {

// One paragraph: "I don't know. Bob left. It rained!"
//   byte:        0         1         2         3
//                0123456789012345678901234567890123
// Gold words (paragraph offsets):
//   g1 I [0,1)  g2 do [2,4)  g3 n't [4,7)  g4 know [8,12)  g5 . [12,13)
//   g6 Bob [14,17)  g7 left [18,22)  g8 . [22,23)
//   g9 It [24,26)  g10 rained [27,33)  g11 ! [33,34)
// Gold tokens: the words, with "don't" [2,7) one token: 10. Sentences:
// [0,13) [14,23) [24,34).
const char *kGold =
    "# newdoc id = d1\n"
    "# sent_id = s1\n"
    "# text = I don't know.\n"
    "1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t_\t_\n"
    "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_\n"
    "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_\n"
    "4\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No\n"
    "5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_\n"
    "\n"
    "# sent_id = s2\n"
    "# text = Bob left.\n"
    "1\tBob\tBob\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\n"
    "2\tleft\tleave\tVERB\tVBD\t_\t0\troot\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n"
    "# sent_id = s3\n"
    "# text = It rained!\n"
    "1\tIt\tit\tPRON\tPRP\t_\t2\texpl\t_\t_\n"
    "2\trained\train\tVERB\tVBD\t_\t0\troot\t_\tSpaceAfter=No\n"
    "3\t!\t!\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n";

std::vector<Sentence> readGold(const char *text)
{
    auto r = readConllu(text, "gold.conllu");
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? *r : std::vector<Sentence>{};
}

struct W {
    const char *form;
    int start, end; // offsets into the sentence text
    const char *upos;
    const char *xpos;
    int head; // 1-based, 0 = root
    const char *deprel;
};

Sentence makeSentence(const std::string &text, const std::vector<W> &words)
{
    Sentence s;
    s.text = text;
    s.dependency = DependencyTree();
    for (const W &w : words) {
        Token t;
        t.text = w.form;
        t.charStart = w.start;
        t.charEnd = w.end;
        t.upos = w.upos;
        t.xpos = w.xpos;
        s.tokens.push_back(t);
        s.dependency->heads.push_back(w.head);
        s.dependency->deprels.push_back(w.deprel);
    }
    return s;
}

// Gold offsets in the concatenated paragraphs, as evaluateRawText lays them out.
std::vector<int> goldOffsets(const std::vector<Sentence> &gold)
{
    std::vector<int> off(gold.size(), 0);
    int base = 0;
    for (const TextParagraph &p : textParagraphs(gold)) {
        for (std::size_t k = 0; k < p.sentences.size(); ++k)
            off[static_cast<std::size_t>(p.sentences[k])] = base + p.shifts[k];
        base += static_cast<int>(p.text.size()) + 1;
    }
    return off;
}

} // namespace

TEST(RawTextEval, HandBuiltSystemWithWrongTokensAndBoundary)
{
    const std::vector<Sentence> gold = readGold(kGold);
    ASSERT_EQ(gold.size(), 3u);
    // System sentence A (offset 0): "don't" left as one word; heads as gold, but
    // "I" labelled expl (gold nsubj).
    //   a1 I [0,1) ->a3 expl   a2 don't [2,7) ->a3 aux   a3 know root   a4 . ->a3
    // System sentence B (offset 14): "Bob left. It rained!" not split, and
    // "rained!" one token [27,34).
    //   b1 Bob [14,17) ->b2 nsubj:pass   b2 left [18,22) ADJ root   b3 . ->b2
    //   b4 It [24,26) ->b5 nsubj   b5 rained! [27,34) ->b2 parataxis
    std::vector<Sentence> system;
    system.push_back(makeSentence("I don't know.", {{"I", 0, 1, "PRON", "PRP", 3, "expl"},
                                                    {"don't", 2, 7, "AUX", "VBP", 3, "aux"},
                                                    {"know", 8, 12, "VERB", "VB", 0, "root"},
                                                    {".", 12, 13, "PUNCT", ".", 3, "punct"}}));
    system.push_back(makeSentence("Bob left. It rained!", {{"Bob", 0, 3, "PROPN", "NNP", 2, "nsubj:pass"},
                                                           {"left", 4, 8, "ADJ", "VBD", 0, "root"},
                                                           {".", 8, 9, "PUNCT", ".", 2, "punct"},
                                                           {"It", 10, 12, "PRON", "PRP", 5, "nsubj"},
                                                           {"rained!", 13, 20, "VERB", "VBD", 2, "parataxis"}}));
    auto r = scoreRawText(gold, goldOffsets(gold), system, {0, 14});
    ASSERT_TRUE(r.ok()) << r.message();
    // Tokens: 9 system tokens; all but [27,34) are gold tokens ([2,7) is the
    // gold multiword token). 10 gold.
    EXPECT_EQ(r->tokens.gold, 10);
    EXPECT_EQ(r->tokens.predicted, 9);
    EXPECT_EQ(r->tokens.correct, 8);
    EXPECT_NEAR(r->tokens.f1(), 16.0 / 19.0, 1e-12);
    // Sentences: [0,13) right; [14,34) matches neither [14,23) nor [24,34).
    EXPECT_EQ(r->sentences.gold, 3);
    EXPECT_EQ(r->sentences.predicted, 2);
    EXPECT_EQ(r->sentences.correct, 1);
    EXPECT_NEAR(r->sentences.f1(), 0.4, 1e-12);
    // Words: 11 gold, 9 system; aligned a1 a3 a4 b1 b2 b3 b4 (not "don't"
    // [2,7) against do [2,4) + n't [4,7), not "rained!").
    EXPECT_EQ(r->words.gold, 11);
    EXPECT_EQ(r->words.predicted, 9);
    EXPECT_EQ(r->words.correct, 7);
    EXPECT_NEAR(r->words.f1(), 14.0 / 20.0, 1e-12);
    // UPOS: b2 ADJ vs VERB wrong -> 6 of the 7 aligned. XPOS all 7 right.
    EXPECT_EQ(r->upos.correct, 6);
    EXPECT_EQ(r->upos.gold, 11);
    EXPECT_EQ(r->upos.predicted, 9);
    EXPECT_EQ(r->xpos.correct, 7);
    // UFeats: gold FEATS are all "_", the system's empty: the 7 aligned agree. Lemmas:
    // every aligned gold lemma is a word the system left empty ("_"): none.
    EXPECT_EQ(r->ufeats.correct, 7);
    EXPECT_EQ(r->ufeats.gold, 11);
    EXPECT_EQ(r->ufeats.predicted, 9);
    EXPECT_EQ(r->lemmas.correct, 0);
    // UAS: a1->a3=g4 ok, a3 root ok, a4 ok, b1->b2=g7 ok, b2 root ok, b3 ok;
    // b4's head b5 is not aligned -> wrong. 6.
    EXPECT_EQ(r->uas.correct, 6);
    EXPECT_EQ(r->uas.gold, 11);
    EXPECT_EQ(r->uas.predicted, 9);
    EXPECT_NEAR(r->uas.precision(), 6.0 / 9.0, 1e-12);
    EXPECT_NEAR(r->uas.recall(), 6.0 / 11.0, 1e-12);
    // LAS: of those 6, a1 expl vs nsubj wrong; b1 nsubj:pass vs nsubj right
    // (universal part). 5.
    EXPECT_EQ(r->las.correct, 5);
    // No punctuation: gold 11 - 3 PUNCT = 8. System: a4, b3 are aligned to gold
    // PUNCT and left out; unaligned a2 (AUX) and b5 (VERB) stay: 9 - 2 = 7.
    // UAS among a1 a3 b1 b2 b4: 4; LAS: a1 wrong -> 3.
    EXPECT_EQ(r->uasNoPunct.gold, 8);
    EXPECT_EQ(r->uasNoPunct.predicted, 7);
    EXPECT_EQ(r->uasNoPunct.correct, 4);
    EXPECT_EQ(r->lasNoPunct.gold, 8);
    EXPECT_EQ(r->lasNoPunct.predicted, 7);
    EXPECT_EQ(r->lasNoPunct.correct, 3);
}

TEST(RawTextEval, RootHeadsAndUntaggedUnalignedPunctuation)
{
    // Gold "Go now!": g1 Go [0,2) root, g2 now [3,6) ->g1, g3 ! [6,7) ->g1 PUNCT.
    const std::vector<Sentence> gold = readGold("# text = Go now!\n"
                                                "1\tGo\tgo\tVERB\tVB\t_\t0\troot\t_\t_\n"
                                                "2\tnow\tnow\tADV\tRB\t_\t1\tadvmod\t_\tSpaceAfter=No\n"
                                                "3\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_\n\n");
    ASSERT_EQ(gold.size(), 1u);

    // 1. Untagged system "Go" [0,2) root, "no" [3,5) ->1, "w!" [5,7) ->1: only
    //    "Go" aligns; both it and g1 are roots, so UAS and LAS are right.
    //    UPOS "_" vs VERB is wrong. No punctuation: gold Go, now = 2; system
    //    "Go" (aligned to a non-PUNCT word), "no" and "w!" (unaligned, untagged,
    //    with letters) all stay = 3; correct 1.
    const std::vector<Sentence> system1 = {makeSentence("Go now!", {{"Go", 0, 2, "_", "_", 0, "root"},
                                                                    {"no", 3, 5, "_", "_", 1, "obj"},
                                                                    {"w!", 5, 7, "_", "_", 1, "punct"}})};
    auto r1 = scoreRawText(gold, {}, system1, {});
    ASSERT_TRUE(r1.ok()) << r1.message();
    EXPECT_EQ(r1->words.correct, 1);
    EXPECT_EQ(r1->uas.correct, 1);
    EXPECT_EQ(r1->las.correct, 1);
    EXPECT_EQ(r1->upos.correct, 0);
    EXPECT_EQ(r1->uasNoPunct.gold, 2);
    EXPECT_EQ(r1->uasNoPunct.predicted, 3);
    EXPECT_EQ(r1->uasNoPunct.correct, 1);

    // 2. Untagged system "Go" ->now, "now" root, "!" ->now, placed one byte
    //    after the gold (offset 1): nothing aligns. No punctuation: "Go" and
    //    "now" stay, "!" (punctuation characters only) is left out = 2.
    const std::vector<Sentence> system2 = {makeSentence("Go now!", {{"Go", 0, 2, "_", "_", 2, "dep"},
                                                                    {"now", 3, 6, "_", "_", 0, "root"},
                                                                    {"!", 6, 7, "_", "_", 2, "punct"}})};
    auto r2 = scoreRawText(gold, {0}, system2, {1});
    ASSERT_TRUE(r2.ok()) << r2.message();
    EXPECT_EQ(r2->words.correct, 0);
    EXPECT_EQ(r2->uasNoPunct.predicted, 2);
    EXPECT_EQ(r2->uasNoPunct.correct, 0);

    // 3. The same system in place: all 3 words align, but every head is wrong:
    //    "Go" ->now (gold root), "now" root (gold ->Go), "!" ->now (gold ->Go).
    auto r3 = scoreRawText(gold, {}, system2, {});
    ASSERT_TRUE(r3.ok()) << r3.message();
    EXPECT_EQ(r3->words.correct, 3);
    EXPECT_EQ(r3->uas.correct, 0);
    EXPECT_EQ(r3->uasNoPunct.predicted, 2); // "!" aligned to gold PUNCT
}

TEST(RawTextEval, MultiwordTokenWhoseFormsDoNotSpellItIsOneWord)
{
    // "won't" = will + not: the FORMs do not spell the surface, so the token is
    // one gold word [2,7) that stands for "will" (its word whose head, "go", is
    // outside the token): AUX, ->go, aux. Gold words: I, won't, go, . = 4.
    const std::vector<Sentence> gold = readGold("# text = I won't go.\n"
                                                "1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t_\t_\n"
                                                "2-3\twon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
                                                "2\twill\twill\tAUX\tMD\t_\t4\taux\t_\t_\n"
                                                "3\tnot\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_\n"
                                                "4\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No\n"
                                                "5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_\n\n");
    ASSERT_EQ(gold.size(), 1u);
    const std::vector<Sentence> system = {makeSentence("I won't go.", {{"I", 0, 1, "PRON", "PRP", 3, "nsubj"},
                                                                       {"won't", 2, 7, "AUX", "MD", 3, "aux"},
                                                                       {"go", 8, 10, "VERB", "VB", 0, "root"},
                                                                       {".", 10, 11, "PUNCT", ".", 3, "punct"}})};
    auto r = scoreRawText(gold, {}, system, {});
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->tokens.gold, 4);
    EXPECT_EQ(r->tokens.correct, 4);
    EXPECT_EQ(r->words.gold, 4);
    EXPECT_EQ(r->words.correct, 4);
    EXPECT_EQ(r->upos.correct, 4);
    EXPECT_EQ(r->uas.correct, 4);
    EXPECT_EQ(r->las.correct, 4);
}

TEST(RawTextEval, PipelineWithAnOracleParseCallbackScoresPerfectly)
{
    // Two paragraphs ("# newpar" before s3): "I don't know. Bob left." and
    // "It rained!". The tokenizer splits and tokenizes these as gold does
    // ("do" "n't" in one multiword token), so a callback that copies the gold
    // trees and tags by sentence text scores 100 everywhere.
    std::string text = kGold;
    text.replace(text.find("# sent_id = s3"), 0, "# newpar\n");
    const std::vector<Sentence> gold = readGold(text.c_str());
    ASSERT_EQ(gold.size(), 3u);
    std::map<std::string, const Sentence *> byText;
    for (const Sentence &s : gold)
        byText[s.text] = &s;
    int calls = 0;
    std::vector<std::string> ids;
    auto r = evaluateRawText(gold, Tokenizer(), [&](std::vector<Sentence> &sentences) -> Status {
        ++calls;
        for (Sentence &s : sentences) {
            ids.push_back(s.id);
            const auto it = byText.find(s.text);
            if (it == byText.end() || it->second->tokens.size() != s.tokens.size())
                return Error{"unexpected sentence '" + s.text + "'"};
            s.dependency = it->second->dependency;
            for (std::size_t k = 0; k < s.tokens.size(); ++k) {
                s.tokens[k].upos = it->second->tokens[k].upos;
                s.tokens[k].xpos = it->second->tokens[k].xpos;
                s.tokens[k].charStart = -1; // the evaluator keeps the tokenizer's offsets
            }
        }
        return Status::success();
    });
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(ids, (std::vector<std::string>{"s1", "s2", "s3"}));
    EXPECT_EQ(r->paragraphs, 2);
    for (const PrfCounts *c : {&r->tokens, &r->sentences, &r->words, &r->upos, &r->xpos, &r->uas, &r->las,
                               &r->uasNoPunct, &r->lasNoPunct})
        EXPECT_DOUBLE_EQ(c->f1(), 1.0);
    EXPECT_EQ(r->words.gold, 11);
    EXPECT_EQ(r->tokens.gold, 10);
    EXPECT_EQ(r->sentences.gold, 3);
    EXPECT_EQ(r->uasNoPunct.gold, 8);
    EXPECT_EQ(r->unparsedSentences, 0);
}

TEST(RawTextEval, ParseErrorsStopItUnparsedSentencesScoreNoAttachments)
{
    const std::vector<Sentence> gold = readGold(kGold);
    auto failing = evaluateRawText(gold, Tokenizer(), [](std::vector<Sentence> &) -> Status {
        return Error{"parser exploded on sentence 2"};
    });
    ASSERT_FALSE(failing.ok());
    EXPECT_EQ(failing.message(), "parser exploded on sentence 2");

    auto dropped = evaluateRawText(gold, Tokenizer(), [](std::vector<Sentence> &sentences) -> Status {
        sentences.pop_back();
        return Status::success();
    });
    ASSERT_FALSE(dropped.ok());
    EXPECT_NE(dropped.message().find("returned 2 sentences for 3"), std::string::npos) << dropped.message();

    auto wrongTree = evaluateRawText(gold, Tokenizer(), [](std::vector<Sentence> &sentences) -> Status {
        sentences[0].dependency = DependencyTree{{0}, {"root"}};
        return Status::success();
    });
    ASSERT_FALSE(wrongTree.ok());
    EXPECT_NE(wrongTree.message().find("1 heads for 5 words"), std::string::npos) << wrongTree.message();

    // Sentences left without a tree are unparsed: their words still count for
    // Tokens and Words (the tokenizer gets all 11 right, as in the oracle test)
    // but never for UAS/LAS; untagged, they get no UPOS right either.
    auto noTrees = evaluateRawText(gold, Tokenizer(), [](std::vector<Sentence> &) { return Status::success(); });
    ASSERT_TRUE(noTrees.ok()) << noTrees.message();
    EXPECT_EQ(noTrees->unparsedSentences, 3);
    EXPECT_EQ(noTrees->words.correct, 11);
    EXPECT_EQ(noTrees->tokens.correct, 10);
    EXPECT_EQ(noTrees->sentences.correct, 3);
    EXPECT_EQ(noTrees->upos.correct, 0);
    EXPECT_EQ(noTrees->uas.correct, 0);
    EXPECT_EQ(noTrees->las.correct, 0);
    EXPECT_EQ(noTrees->uas.predicted, 11);

    // A gold sentence without a tree is an error.
    std::vector<Sentence> noGoldTree = gold;
    noGoldTree[2].dependency.reset();
    auto g = scoreRawText(noGoldTree, goldOffsets(noGoldTree), gold, goldOffsets(gold));
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.message().find("gold sentence 3 ('s3') has no dependency tree"), std::string::npos) << g.message();

    std::vector<Sentence> noText = gold;
    noText[1].text.clear();
    auto r = evaluateRawText(noText, Tokenizer(), [](std::vector<Sentence> &) { return Status::success(); });
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("'s2') has no '# text'"), std::string::npos) << r.message();
}

TEST(RawTextEval, EwtDevOracleScoresHundred)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    const std::string path = test::sharedPath("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    auto text = readFile(path);
    ASSERT_TRUE(text.ok()) << text.message();
    auto gold = readConllu(*text, path);
    ASSERT_TRUE(gold.ok()) << gold.message();
    // System = the gold words with their spans and trees.
    const std::vector<int> off = goldOffsets(*gold);
    auto r = scoreRawText(*gold, off, *gold, off);
    ASSERT_TRUE(r.ok()) << r.message();
    long long words = 0;
    for (const Sentence &s : *gold)
        words += static_cast<long long>(sentenceSpans(s).words.size());
    EXPECT_GT(words, 25000);
    EXPECT_EQ(r->words.gold, words);
    EXPECT_EQ(r->sentences.gold, static_cast<long long>(gold->size()));
    for (const PrfCounts *c : {&r->tokens, &r->sentences, &r->words, &r->upos, &r->xpos, &r->uas, &r->las,
                               &r->uasNoPunct, &r->lasNoPunct}) {
        EXPECT_EQ(c->correct, c->gold);
        EXPECT_EQ(c->predicted, c->gold);
        EXPECT_DOUBLE_EQ(c->f1(), 1.0);
    }
    // Gold word spans are distinct in the document coordinate (paragraphs end
    // to end), so the 100 is not a lucky pairing of equal spans.
    std::vector<TextSpan> spans;
    for (std::size_t i = 0; i < gold->size(); ++i)
        for (const TextSpan &w : sentenceSpans((*gold)[i]).words)
            spans.emplace_back(w.first + off[i], w.second + off[i]);
    std::sort(spans.begin(), spans.end());
    EXPECT_EQ(std::adjacent_find(spans.begin(), spans.end()), spans.end());
    // Moved one byte right, the system aligns only where a word is followed,
    // without a space, by one of the same length ("!!", ".)"): a small part.
    std::vector<int> shifted = off;
    for (int &o : shifted)
        ++o;
    auto moved = scoreRawText(*gold, off, *gold, shifted);
    ASSERT_TRUE(moved.ok()) << moved.message();
    EXPECT_LT(moved->words.correct, words / 50);
    EXPECT_EQ(moved->sentences.correct, 0);
}

TEST(RawTextEval, EwtDevPipelineSentencesAgreeWithTheSplitterEvaluation)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    const std::string path = test::sharedPath("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    auto text = readFile(path);
    ASSERT_TRUE(text.ok()) << text.message();
    auto gold = readConllu(*text, path);
    ASSERT_TRUE(gold.ok()) << gold.message();
    // A flat "parser": every word attached to the first.
    auto r = evaluateRawText(*gold, Tokenizer(), [](std::vector<Sentence> &sentences) -> Status {
        for (Sentence &s : sentences) {
            s.dependency = DependencyTree();
            for (std::size_t k = 0; k < s.tokens.size(); ++k) {
                s.dependency->heads.push_back(k == 0 ? 0 : 1);
                s.dependency->deprels.push_back(k == 0 ? "root" : "dep");
            }
        }
        return Status::success();
    });
    ASSERT_TRUE(r.ok()) << r.message();
    // Sentence spans are the splitter's, so the counts equal
    // evaluateSentenceSplitter's on the same paragraphs.
    const SegmentationScore seg = evaluateSentenceSplitter(*gold, Tokenizer());
    EXPECT_EQ(r->paragraphs, seg.paragraphs);
    EXPECT_EQ(r->sentences.gold, seg.sentences.gold);
    EXPECT_EQ(r->sentences.predicted, seg.sentences.predicted);
    EXPECT_EQ(r->sentences.correct, seg.sentences.correct);
    // The tokenizer scores about 0.98 token F1 per gold sentence (tokeneval).
    EXPECT_GT(r->tokens.f1(), 0.95);
    EXPECT_GT(r->words.f1(), 0.95);
    EXPECT_LT(r->uas.f1(), 0.5);
    EXPECT_EQ(r->upos.correct, 0); // no tags
}
