// Minimal pairs: the pair files (BLiMP JSON Lines, good/bad TSV), the Wilson interval
// (against hand-computed values), and pairs made from hand-annotated UD trees, where each
// expected pair, skip and attractor was worked out by hand from the trees below.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/eval/makepairs.h"
#include "core/eval/minimalpairs.h"
#include "core/eval/minimalpairscoring.h"
#include "core/formats/conllu.h"

using namespace treelens;

namespace {

// ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL, as UD English EWT annotates them.
const char *kTrees = R"(# sent_id = keys
1	The	the	DET	DT	Definite=Def|PronType=Art	2	det	_	_
2	keys	key	NOUN	NNS	Number=Plur	6	nsubj	_	_
3	to	to	ADP	IN	_	5	case	_	_
4	the	the	DET	DT	Definite=Def|PronType=Art	5	det	_	_
5	cabinet	cabinet	NOUN	NN	Number=Sing	2	nmod	_	_
6	open	open	VERB	VBP	Mood=Ind|Tense=Pres|VerbForm=Fin	0	root	_	_
7	doors	door	NOUN	NNS	Number=Plur	6	obj	_	_
8	.	.	PUNCT	.	_	6	punct	_	_

# sent_id = she
1	She	she	PRON	PRP	Case=Nom|Gender=Fem|Number=Sing|Person=3|PronType=Prs	2	nsubj	_	_
2	opens	open	VERB	VBZ	Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin	0	root	_	_
3	it	it	PRON	PRP	Case=Acc|Gender=Neut|Number=Sing|Person=3|PronType=Prs	2	obj	_	_
4	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = dogs
1	These	this	DET	DT	Number=Plur|PronType=Dem	2	det	_	_
2	dogs	dog	NOUN	NNS	Number=Plur	4	nsubj	_	_
3	have	have	AUX	VBP	Mood=Ind|Tense=Pres|VerbForm=Fin	4	aux	_	_
4	eaten	eat	VERB	VBN	Tense=Past|VerbForm=Part	0	root	_	_
5	.	.	PUNCT	.	_	4	punct	_	_

# sent_id = am
1	I	I	PRON	PRP	Case=Nom|Number=Sing|Person=1|PronType=Prs	3	nsubj	_	_
2	am	be	AUX	VBP	Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin	3	cop	_	_
3	here	here	ADV	RB	PronType=Dem	0	root	_	_

# sent_id = was
1	That	that	DET	DT	Number=Sing|PronType=Dem	2	det	_	_
2	man	man	NOUN	NN	Number=Sing	4	nsubj	_	_
3	was	be	AUX	VBD	Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin	4	cop	_	_
4	tall	tall	ADJ	JJ	Degree=Pos	0	root	_	_

# sent_id = bark
1	Dogs	dog	NOUN	NNS	Number=Plur	2	nsubj	_	_
2	bark	bark	VERB	VBP	Mood=Ind|Tense=Pres|VerbForm=Fin	0	root	_	_

)";

std::vector<Sentence> trees()
{
    auto s = readConllu(kTrees, "trees.conllu");
    EXPECT_TRUE(s) << s.message();
    return s ? *s : std::vector<Sentence>{};
}

std::string joined(const std::vector<std::string> &w)
{
    std::string out;
    for (const auto &x : w)
        out += (out.empty() ? "" : " ") + x;
    return out;
}

} // namespace

TEST(MinimalPairs, AgreementPairsFromHandAnnotatedTrees)
{
    const MadePairs made = makePairs(trees(), PairPhenomenon::Agreement);
    ASSERT_EQ(made.pairs.size(), 4u);
    // "open" (VBP) with "keys": the singular from the treebank's own "opens"; "cabinet" is an attractor.
    EXPECT_EQ(joined(made.pairs[0].badWords), "The keys to the cabinet opens doors .");
    EXPECT_EQ(made.pairs[0].changed, 6);
    EXPECT_EQ(made.pairs[0].controller, 2);
    EXPECT_EQ(made.pairs[0].distance, 4);
    EXPECT_EQ(made.pairs[0].attractors, std::vector<int>{5});
    EXPECT_EQ(made.pairs[0].goodNumber, "Plur");
    // "opens" (VBZ): the plural is the lemma.
    EXPECT_EQ(joined(made.pairs[1].badWords), "She open it .");
    EXPECT_TRUE(made.pairs[1].attractors.empty());
    // An auxiliary agrees with the subject of its verb.
    EXPECT_EQ(joined(made.pairs[2].badWords), "These dogs has eaten .");
    EXPECT_EQ(made.pairs[2].controller, 2);
    EXPECT_EQ(made.pairs[2].changed, 3);
    // was -> were; a copula's subject is its predicate's.
    EXPECT_EQ(joined(made.pairs[3].badWords), "That man were tall");
    EXPECT_EQ(made.pairs[3].sentenceId, "was");
    // Good and bad differ in exactly one word, the good one is the treebank's.
    for (const MadePair &p : made.pairs) {
        ASSERT_EQ(p.goodWords.size(), p.badWords.size());
        int differ = 0;
        for (std::size_t i = 0; i < p.goodWords.size(); ++i)
            differ += p.goodWords[i] != p.badWords[i];
        EXPECT_EQ(differ, 1);
    }
    // Skipped: "am" with "I"; "bark" has no -s form in this treebank.
    std::map<std::string, int> skipped(made.skipped.begin(), made.skipped.end());
    EXPECT_EQ(skipped["a contraction or 'am'"], 1);
    EXPECT_EQ(skipped["no other-number form in the treebank"], 1);
}

TEST(MinimalPairs, DeterminerPairsFromHandAnnotatedTrees)
{
    const MadePairs made = makePairs(trees(), PairPhenomenon::Determiner);
    ASSERT_EQ(made.pairs.size(), 2u);
    EXPECT_EQ(joined(made.pairs[0].badWords), "This dogs have eaten .");
    EXPECT_EQ(made.pairs[0].changed, 1);
    EXPECT_EQ(made.pairs[0].controller, 2);
    EXPECT_EQ(joined(made.pairs[1].badWords), "Those man was tall");
    const std::string json = madePairJson(made.pairs[0], PairPhenomenon::Determiner, 1);
    EXPECT_NE(json.find("\"sentence_good\":\"These dogs have eaten .\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"sentence_bad\":\"This dogs have eaten .\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"UID\":\"treebank_determiner_noun_agreement\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"noun\":2"), std::string::npos) << json;
}

TEST(MinimalPairs, SentencesWithoutTreesAreSkippedAndCounted)
{
    std::vector<Sentence> s = trees();
    s[0].dependency.reset();
    const MadePairs made = makePairs(s, PairPhenomenon::Agreement);
    EXPECT_EQ(made.pairs.size(), 3u);
    EXPECT_EQ(made.skipped.front(), std::make_pair(std::string("no dependency tree"), 1));
}

TEST(MinimalPairs, ReadsBlimpJsonLinesAndTsv)
{
    auto blimp = readMinimalPairs(
        R"({"sentence_good": "Who should Derek hug after shocking Richard?", "sentence_bad": "Who should Derek hug Richard after shocking?", "field": "syntax", "linguistics_term": "island_effects", "UID": "adjunct_island", "pairID": "0"}
{"sentence_good": "A b.", "sentence_bad": "A c.", "pairID": 7}
)",
        "blimp.jsonl");
    ASSERT_TRUE(blimp) << blimp.message();
    ASSERT_EQ(blimp->size(), 2u);
    EXPECT_EQ((*blimp)[0].phenomenon, "adjunct_island");
    EXPECT_EQ((*blimp)[0].id, "0");
    EXPECT_EQ((*blimp)[1].id, "7");
    EXPECT_EQ((*blimp)[1].phenomenon, "");
    EXPECT_EQ((*blimp)[1].line, 2);

    auto tsv = readMinimalPairs("good\tbad\tphenomenon\nThe dogs bark.\tThe dogs barks.\tagreement\n\n", "p.tsv");
    ASSERT_TRUE(tsv) << tsv.message();
    ASSERT_EQ(tsv->size(), 1u);
    EXPECT_EQ((*tsv)[0].bad, "The dogs barks.");
    EXPECT_EQ((*tsv)[0].id, "2");

    for (const char *bad : {"good\tbad\nonly one column\n", "a\tb\nx\ty\n", "{\"sentence_good\": \"x\"}\n", "{\"sentence_good\": 1, \"sentence_bad\": \"y\"}\n",
                            "good\tbad\n", "{\"sentence_good\": \"x\", \"sentence_bad\": \"y\", \"sentence_bad\": \"z\"}\n"}) {
        auto r = readMinimalPairs(bad, "bad.txt");
        EXPECT_FALSE(r) << bad;
        if (!r)
            EXPECT_EQ(r.message().rfind("bad.txt", 0), 0u) << r.message();
    }
}

TEST(MinimalPairs, WordsAndTheirFirstDifference)
{
    EXPECT_EQ(pairWords("  The keys\tare  here. "), (std::vector<std::string>{"The", "keys", "are", "here."}));
    EXPECT_EQ(firstDifference({"a", "b", "c"}, {"a", "x", "c"}), 1);
    EXPECT_EQ(firstDifference({"a", "b"}, {"a", "b", "c"}), 2);
    EXPECT_FALSE(firstDifference({"a"}, {"a"}).has_value());
}

TEST(MinimalPairs, WilsonIntervalAsComputedByHand)
{
    // 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38416, half-width 1.96 sqrt(0.016 + 0.009604) / 1.38416.
    const Proportion p = wilsonInterval(8, 10);
    EXPECT_DOUBLE_EQ(p.value, 0.8);
    EXPECT_NEAR(p.low, 0.4902, 1e-4);
    EXPECT_NEAR(p.high, 0.9433, 1e-4);
    const Proportion all = wilsonInterval(5, 5); // never above 1, and not [1, 1]
    EXPECT_DOUBLE_EQ(all.high, 1.0);
    EXPECT_NEAR(all.low, 0.5655, 1e-4);
    const PairSummary s = summarizePairs({true, false, true}, {1.0, -2.0, 4.0}, {"a", "a", ""});
    EXPECT_EQ(s.accuracy.hits, 2);
    EXPECT_DOUBLE_EQ(s.meanMargin, 1.0);
    EXPECT_EQ(s.byPhenomenon.at("a").total, 2);
    EXPECT_DOUBLE_EQ(s.marginByPhenomenon.at("a"), -0.5);
    EXPECT_EQ(s.byPhenomenon.at("(none)").hits, 1);
}

TEST(MinimalPairs, SweepResultsReadBackWithTheirCellsNumberedFromZero)
{
    const char *sweep = R"J({"model": "m", "input": "p.jsonl", "baseline": {"pairs": 40, "accuracy": 0.75, "ci95": [0.6, 0.86],
        "mean_margin": 1.5, "skipped": 0}, "layers": 2, "heads": 2, "cells": [
        {"layer": 1, "head": 2, "pairs": 40, "accuracy": 0.7, "accuracy_change": -0.05, "accuracy_change_ci95": [-0.12, 0.02],
         "mean_margin_change": -0.3, "mean_margin_change_ci95": [-0.5, -0.1], "flipped_to_wrong": ["3", "9"], "flipped_to_right": []},
        {"layer": 2, "head": null, "pairs": 0, "accuracy": 0.0, "accuracy_change": null, "accuracy_change_ci95": null,
         "mean_margin_change": null, "mean_margin_change_ci95": null, "flipped_to_wrong": [], "flipped_to_right": ["4"]}],
        "intervals": "paired differences, mean +- 1.96 sd / sqrt(n)"})J";
    auto t = readSweepJson(sweep, "sweep.json");
    ASSERT_TRUE(t) << t.message();
    EXPECT_EQ(t->model, "m");
    EXPECT_EQ(t->layers, 2);
    EXPECT_DOUBLE_EQ(t->baseline, 0.75);
    EXPECT_EQ(t->baselinePairs, 40);
    ASSERT_EQ(t->cells.size(), 2u);
    EXPECT_EQ(t->cells[0].layer, 0);
    EXPECT_EQ(t->cells[0].head, 1);
    EXPECT_TRUE(t->cells[0].accuracyChange.valid);
    EXPECT_DOUBLE_EQ(t->cells[0].accuracyChange.low, -0.12);
    EXPECT_DOUBLE_EQ(t->cells[0].marginChange.high, -0.1);
    EXPECT_EQ(t->cells[0].flippedToWrong.size(), 2u);
    EXPECT_EQ(t->cells[1].head, -1); // the whole layer
    EXPECT_FALSE(t->cells[1].accuracyChange.valid);
    EXPECT_EQ(t->cells[1].flippedToRight.size(), 1u);

    auto outside = readSweepJson(R"({"model": "m", "input": "p", "baseline": {"pairs": 1, "accuracy": 1}, "layers": 1, "heads": 1,
        "cells": [{"layer": 3, "head": 1}]})", "s.json");
    ASSERT_FALSE(outside);
    EXPECT_NE(outside.message().find("s.json"), std::string::npos);
    EXPECT_NE(outside.message().find("outside"), std::string::npos) << outside.message();
    EXPECT_FALSE(readSweepJson("{\"records\": 1}", "s.json"));
}

TEST(MinimalPairs, PairedChangeAndSweepCellsAsComputedByHand)
{
    // Four pairs: the baseline gets 1, 2, 3 right (pair 3 refused by the ablated run), the ablation 2 and 4.
    PairOutcomes base{{1, 1, 1, 0}, {1.0, 2.0, 0.5, -1.0}};
    PairOutcomes off{{0, 1, -1, 1}, {-0.5, 1.0, std::nan(""), 0.25}};
    const SweepCell c = sweepCell(2, -1, base, off);
    EXPECT_EQ(c.layer, 2);
    EXPECT_EQ(c.head, -1);
    EXPECT_EQ(c.pairs, 3);                       // pair 3 is left out
    EXPECT_DOUBLE_EQ(c.accuracy, 2.0 / 3.0);
    EXPECT_EQ(c.flippedToWrong, (std::vector<std::size_t>{0}));
    EXPECT_EQ(c.flippedToRight, (std::vector<std::size_t>{3}));
    // Differences of correctness -1, 0, +1: mean 0, sd 1, half-width 1.96 / sqrt(3).
    EXPECT_DOUBLE_EQ(c.accuracyChange.change, 0.0);
    EXPECT_NEAR(c.accuracyChange.high, 1.96 / std::sqrt(3.0), 1e-12);
    // Margins -1.5, -1, +1.25: mean -5/12.
    EXPECT_NEAR(c.marginChange.change, -5.0 / 12.0, 1e-12);
    EXPECT_FALSE(pairedChange({}).valid);
}
