// `treelens-cli parse` output columns (issue 47, item 1): each CoNLL-U column is either
// predicted or marked as the input's, an input's enhanced graph never contradicts the
// predicted tree, and raw text gets SpaceAfter=No from the tokenizer's offsets.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/base/strings.h"
#include "core/formats/conllu.h"
#include "clirun.h"
#include "testutil.h"

using namespace treelens;
using test::CliRun;

namespace {

CliRun cli(const std::string &args, const std::string &stdinText = "") { return test::runCli(args, stdinText); }

/// The value of "# KEY = VALUE" in a sentence's comments ("" when absent).
std::string comment(const Sentence &s, const std::string &key)
{
    for (const auto &c : s.comments) {
        const std::string_view t = trimView(c);
        if (startsWith(t, key + " = "))
            return std::string(t.substr(key.size() + 3));
    }
    return {};
}

int countComments(const std::string &conllu, const std::string &key)
{
    int n = 0;
    for (std::size_t p = conllu.find("# " + key + " ="); p != std::string::npos; p = conllu.find("# " + key + " =", p + 1))
        ++n;
    return n;
}

// A hand-written sentence whose gold tree is deliberately absurd (every word under the
// last one, "dep"), with an enhanced graph (DEPS) and an empty node agreeing with it,
// lemmas and features: no parser predicts this tree, so carried-over DEPS would
// contradict the predicted HEAD/DEPREL.
const char *kAbsurd = "# sent_id = absurd-1\n"
                      "# text = The old man saw a red kite.\n"
                      "1\tThe\tthe\tDET\tDT\tDefinite=Def\t8\tdep\t8:dep\t_\n"
                      "2\told\told\tADJ\tJJ\tDegree=Pos\t8\tdep\t8:dep\t_\n"
                      "3\tman\tman\tNOUN\tNN\tNumber=Sing\t8\tdep\t8:dep\t_\n"
                      "4\tsaw\tsee\tVERB\tVBD\tTense=Past\t8\tdep\t8:dep\t_\n"
                      "4.1\tsaw\tsee\tVERB\tVBD\t_\t_\t_\t8:dep\t_\n"
                      "5\ta\ta\tDET\tDT\tDefinite=Ind\t8\tdep\t8:dep\t_\n"
                      "6\tred\tred\tADJ\tJJ\tDegree=Pos\t8\tdep\t8:dep\t_\n"
                      "7\tkite\tkite\tNOUN\tNN\tNumber=Sing\t8\tdep\t8:dep\tSpaceAfter=No\n"
                      "8\t.\t.\tPUNCT\t.\t_\t0\troot\t0:root\t_\n\n";

} // namespace

TEST(CliParse, PredictedColumnsAreNamedAndTheInputsEnhancedGraphNeverContradictsThem)
{
    const std::string in = test::cliTempDir() + "/absurd.conllu";
    std::ofstream(in, std::ios::binary) << kAbsurd;
    // Without the morphological tagger (--morph-model none) LEMMA and FEATS stay the input's.
    const CliRun r = cli("parse --morph-model none --input " + test::shellQuote(in));
    ASSERT_EQ(r.code, 0) << r.err;
    auto parsed = readConllu(r.out, "stdout");
    ASSERT_TRUE(parsed.ok()) << parsed.message();
    ASSERT_EQ(parsed->size(), 1u);
    const Sentence &s = parsed->front();
    ASSERT_TRUE(s.dependency);
    // The parser did not reproduce the absurd tree (else the test proves nothing).
    ASSERT_NE(s.dependency->heads, (std::vector<int>{8, 8, 8, 8, 8, 8, 8, 0}));
    EXPECT_EQ(comment(s, "treelens.predicted"), "UPOS XPOS HEAD DEPREL");
    EXPECT_EQ(comment(s, "treelens.from_input"), "LEMMA FEATS MISC");
    // DEPS: `_`, or containing the basic HEAD:DEPREL (UD's rule); no empty node left.
    for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        const std::string &deps = s.tokens[i].deps;
        if (deps.empty() || deps == "_")
            continue;
        const std::string basic = std::to_string(s.dependency->heads[i]) + ":" + s.dependency->deprels[i];
        EXPECT_NE(("|" + deps + "|").find("|" + basic + "|"), std::string::npos) << "word " << i + 1 << ": " << deps;
    }
    EXPECT_TRUE(s.emptyNodes.empty());
    EXPECT_EQ(r.out.find("4.1\t"), std::string::npos) << r.out;
    // The carried-over columns are the input's, word for word.
    EXPECT_EQ(s.tokens[3].lemma, "see");
    EXPECT_EQ(s.tokens[2].feats, "Number=Sing");
    EXPECT_EQ(s.tokens[6].misc, "SpaceAfter=No");

    // Parsing the output again replaces the marks rather than adding more.
    const std::string again = test::cliTempDir() + "/again.conllu";
    std::ofstream(again, std::ios::binary) << r.out;
    const CliRun r2 = cli("parse --morph-model none --input " + test::shellQuote(again));
    ASSERT_EQ(r2.code, 0) << r2.err;
    EXPECT_EQ(countComments(r2.out, "treelens.predicted"), 1) << r2.out;
    EXPECT_EQ(countComments(r2.out, "treelens.from_input"), 1) << r2.out;
    EXPECT_EQ(countComments(r2.out, "sent_id"), 1) << r2.out;

    // --parser file keeps the input's trees: nothing predicted, the enhanced graph kept.
    const CliRun kept = cli("parse --parser file --input " + test::shellQuote(in));
    ASSERT_EQ(kept.code, 0) << kept.err;
    auto k = readConllu(kept.out, "stdout");
    ASSERT_TRUE(k.ok()) << k.message();
    EXPECT_EQ(comment(k->front(), "treelens.predicted"), "none");
    EXPECT_EQ(comment(k->front(), "treelens.from_input"), "LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC");
    EXPECT_EQ(k->front().tokens[0].deps, "8:dep");
}

TEST(CliParse, RawTextGetsSpaceAfterFromTheTokenizersOffsets)
{
    // Hand-checked: "kite" before ",", "is" before "n't", "it" before "?", "(" before
    // "red", "red" before ")" carry SpaceAfter=No; the text is rebuilt from the forms.
    const std::string text = "It is (red) kite, isn't it?";
    const CliRun r = cli("parse " + test::shellQuote(text));
    ASSERT_EQ(r.code, 0) << r.err;
    auto parsed = readConllu(r.out, "stdout");
    ASSERT_TRUE(parsed.ok()) << parsed.message();
    const Sentence &s = parsed->front();
    std::vector<std::string> noSpace;
    std::string rebuilt;
    for (const Token &t : s.tokens) {
        rebuilt += t.text;
        if (t.misc.find("SpaceAfter=No") != std::string::npos)
            noSpace.push_back(t.text);
        else
            rebuilt += ' ';
    }
    EXPECT_EQ(noSpace, (std::vector<std::string>{"(", "red", "kite", "is", "it"}));
    EXPECT_EQ(std::string(trimView(rebuilt)), text);
    EXPECT_EQ(comment(s, "text"), text);
    EXPECT_EQ(comment(s, "treelens.predicted"), "LEMMA UPOS XPOS FEATS HEAD DEPREL");
    EXPECT_EQ(comment(s, "treelens.from_input"), "MISC");
    // sent_id and text come before TreeLens's own comments.
    EXPECT_LT(r.out.find("# sent_id"), r.out.find("# treelens.predicted")) << r.out;
    EXPECT_LT(r.out.find("# text"), r.out.find("# treelens.predicted")) << r.out;
}

TEST(CliParse, RawTextGetsPredictedLemmasAndFeatures)
{
    // The shipped morphological tagger (tagger-morph-en-ewt) writes LEMMA and FEATS, so
    // agreement patterns work on raw text; the input's LEMMA/FEATS are replaced, not kept.
    const CliRun r = cli("parse " + test::shellQuote("The dogs were barking at the cities."));
    ASSERT_EQ(r.code, 0) << r.err;
    auto parsed = readConllu(r.out, "stdout");
    ASSERT_TRUE(parsed.ok()) << parsed.message();
    const Sentence &s = parsed->front();
    ASSERT_EQ(s.tokens.size(), 8u);
    EXPECT_EQ(comment(s, "treelens.predicted"), "LEMMA UPOS XPOS FEATS HEAD DEPREL");
    for (const Token &t : s.tokens)
        EXPECT_FALSE(t.lemma.empty() || t.lemma == "_") << t.text;
    // FEATS as EWT has them: "at" and "." have none.
    auto hasFeature = [&](std::size_t i, const std::string &f) {
        return ("|" + s.tokens[i].feats + "|").find("|" + f + "|") != std::string::npos;
    };
    EXPECT_TRUE(hasFeature(0, "Definite=Def")) << s.tokens[0].feats;
    EXPECT_TRUE(hasFeature(1, "Number=Plur")) << s.tokens[1].feats;
    EXPECT_TRUE(hasFeature(2, "Tense=Past")) << s.tokens[2].feats;
    EXPECT_TRUE(hasFeature(6, "Number=Plur")) << s.tokens[6].feats;
    EXPECT_EQ(s.tokens[4].feats, "_");
    EXPECT_EQ(s.tokens[1].lemma, "dog");
    EXPECT_EQ(s.tokens[2].lemma, "be");
    EXPECT_EQ(s.tokens[3].lemma, "bark");
    EXPECT_EQ(s.tokens[6].lemma, "city");

    // A CoNLL-U input's own LEMMA/FEATS give way to the predicted ones.
    const std::string in = test::cliTempDir() + "/absurd-tagged.conllu";
    std::ofstream(in, std::ios::binary) << kAbsurd;
    const CliRun tagged = cli("parse --input " + test::shellQuote(in));
    ASSERT_EQ(tagged.code, 0) << tagged.err;
    auto t = readConllu(tagged.out, "stdout");
    ASSERT_TRUE(t.ok()) << t.message();
    EXPECT_EQ(comment(t->front(), "treelens.predicted"), "LEMMA UPOS XPOS FEATS HEAD DEPREL");
    EXPECT_EQ(comment(t->front(), "treelens.from_input"), "MISC");
    EXPECT_EQ(t->front().tokens[3].lemma, "see");
}
