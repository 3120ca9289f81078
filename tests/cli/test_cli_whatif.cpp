// whatif (issue 33) end to end: the edited tree's `after` equals `analyze` on a file
// edited by hand here (the CoNLL-U HEAD/DEPREL columns, a PTB bracket), for the shipped
// tree-reading models; a cycle is refused naming it.
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "clirun.h"
#include "testutil.h"

using namespace treelens;
using nlohmann::json;

namespace {

test::CliRun cli(const std::string &args) { return test::runCli(args, ""); }
std::string q(const std::string &s) { return test::shellQuote(s); }

std::string model(const char *name) { return std::string(TREELENS_SOURCE_DIR) + "/resources/models/" + name; }

std::string writeTemp(const std::string &name, const std::string &content)
{
    const std::string p = test::cliTempDir() + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

const char *kReview = "The film is not as funny as its trailer , but the actors save it .";

/// The review parsed by the default parser, as CoNLL-U.
std::string parsedReview()
{
    const std::string text = writeTemp("review.txt", std::string(kReview) + "\n");
    const auto r = cli("parse --input " + q(text) + " --format conllu");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
}

/// The CoNLL-U with word `w`'s HEAD (and DEPREL, when given) set by hand.
std::string editConllu(const std::string &conllu, int w, int head, const std::string &deprel = "")
{
    std::istringstream in(conllu);
    std::string out;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line[0] != '#') {
            std::vector<std::string> cols;
            std::istringstream l(line);
            for (std::string c; std::getline(l, c, '\t');)
                cols.push_back(c);
            if (cols.size() == 10 && cols[0] == std::to_string(w)) {
                cols[6] = std::to_string(head);
                if (!deprel.empty())
                    cols[7] = deprel;
                line.clear();
                for (std::size_t k = 0; k < cols.size(); ++k)
                    line += (k ? "\t" : "") + cols[k];
            }
        }
        out += line + "\n";
    }
    return out;
}

/// Column `col` (0-based) of word `w` of a CoNLL-U text.
std::string column(const std::string &conllu, int w, int col)
{
    std::istringstream in(conllu);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        std::vector<std::string> cols;
        std::istringstream l(line);
        for (std::string c; std::getline(l, c, '\t');)
            cols.push_back(c);
        if (cols.size() == 10 && cols[0] == std::to_string(w))
            return cols[static_cast<std::size_t>(col)];
    }
    return {};
}

json analyzeJson(const std::string &args)
{
    const auto r = cli("analyze " + args + " --json --no-attention");
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out.substr(0, r.out.find('\n')));
}

/// whatif with the edits equals analyze on the hand-edited file, for one polarity model.
void checkPolarityModel(const char *file)
{
    const std::string conllu = parsedReview();
    ASSERT_FALSE(conllu.empty());
    const std::string input = writeTemp("review.conllu", conllu);
    // "not" (word 4) attached to "save" (14) instead; "trailer" (9) relabelled.
    const std::string oldLabel = column(conllu, 9, 7);
    const std::string newLabel = oldLabel == "obj" ? "iobj" : "obj";
    ASSERT_NE(column(conllu, 4, 6), "14") << "the edit must change the tree";
    const auto w = cli("whatif --model " + q(model(file)) + " --input " + q(input) + " --edit 'head 4=14' --edit 'label 9=" +
                       newLabel + "' --json");
    ASSERT_EQ(w.code, 0) << w.err;
    const json j = json::parse(w.out);
    EXPECT_TRUE(j["reads_tree"].get<bool>());
    EXPECT_EQ(j["edits"], (json{"head 4=14", "label 9=" + newLabel}));
    ASSERT_TRUE(j["after"].contains("prediction"));
    ASSERT_TRUE(j["delta"].contains("prediction"));

    const std::string edited = writeTemp("review-edited.conllu", editConllu(editConllu(conllu, 4, 14), 9, std::stoi(column(conllu, 9, 6)), newLabel));
    const json byHand = analyzeJson("--model " + q(model(file)) + " --input " + q(edited));
    const json before = analyzeJson("--model " + q(model(file)) + " --input " + q(input));
    EXPECT_EQ(j["after"]["prediction"]["label"], byHand["prediction"]["label"]);
    ASSERT_EQ(j["after"]["prediction"]["probabilities"].size(), byHand["prediction"]["probabilities"].size());
    for (std::size_t k = 0; k < byHand["prediction"]["probabilities"].size(); ++k) {
        EXPECT_NEAR(j["after"]["prediction"]["probabilities"][k].get<double>(), byHand["prediction"]["probabilities"][k].get<double>(),
                    1e-5);
        EXPECT_NEAR(j["before"]["prediction"]["probabilities"][k].get<double>(), before["prediction"]["probabilities"][k].get<double>(),
                    1e-5);
        // The delta is after - before.
        EXPECT_NEAR(j["delta"]["prediction"]["probability_change"][k].get<double>(),
                    byHand["prediction"]["probabilities"][k].get<double>() - before["prediction"]["probabilities"][k].get<double>(),
                    1e-5);
    }
    EXPECT_EQ(j["tree"]["dependency"]["heads"][3], 14);
    EXPECT_EQ(j["tree"]["dependency"]["deprels"][8], newLabel);

    // The text form names the edits and the change; --write-tree writes the hand-edited file's tree.
    const std::string written = test::cliTempDir() + "/written.conllu";
    const auto t = cli("whatif --model " + q(model(file)) + " --input " + q(input) + " -e 'head 4=14' -e 'label 9=" + newLabel +
                       "' --write-tree " + q(written));
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_NE(t.out.find("edits: head 4=14; label 9=" + newLabel), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("prediction: "), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("dependency tree: edited (from the "), std::string::npos) << t.out;
    EXPECT_NE(t.out.find(" tree, 2 edits)"), std::string::npos) << t.out;
    std::ifstream in(written);
    std::stringstream buf;
    buf << in.rdbuf();
    for (int word = 1; word <= 16; ++word) {
        EXPECT_EQ(column(buf.str(), word, 6), column(editConllu(conllu, 4, 14), word, 6)) << word;
    }
    EXPECT_EQ(column(buf.str(), 9, 7), newLabel);
}

} // namespace

TEST(CliWhatif, DependencyTransformerPolarityEqualsAnalyzeOnTheHandEditedFile)
{
    checkPolarityModel("dependency-transformer-en-polarity.safetensors");
}

TEST(CliWhatif, DttEdgesPolarityEqualsAnalyzeOnTheHandEditedFile)
{
    checkPolarityModel("dtt-edges-en-polarity.safetensors");
}

TEST(CliWhatif, ACycleIsRefusedNamingIt)
{
    // "dogs bark loudly": dogs→bark, loudly→bark (bark the root). dogs under loudly, then
    // loudly under dogs: a cycle 3 → 1 → 3.
    const std::string input = writeTemp("bark.conllu", "1\tdogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n"
                                                       "2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n"
                                                       "3\tloudly\t_\tADV\t_\t_\t2\tadvmod\t_\t_\n\n");
    const auto r = cli("whatif --model " + q(model("dependency-transformer-en-polarity.safetensors")) + " --input " + q(input) +
                       " --edit 'head 1=3' --edit 'head 3=1'");
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("edit 2 of 2: head 3=1: makes a cycle: 3 'loudly' \xe2\x86\x92 1 'dogs' \xe2\x86\x92 3 'loudly'"),
              std::string::npos)
        << r.err;
    // A malformed edit is refused before the model opens.
    const auto bad = cli("whatif --input " + q(input) + " --edit 'head 3'");
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("expected head W=H"), std::string::npos) << bad.err;
}

TEST(CliWhatif, TatPairBracketEqualsAnalyzeOnTheHandEditedPtb)
{
    // A pair with its trees; the answer's "the play" gets no NP of its own in the input,
    // and the edit brackets it: the hand-edited file has the NP written in.
    auto pairs = [](const std::string &answerTree) {
        return R"J({"format": "treelens-pairs", "version": 1, "task": "ranking", "labels": ["0", "1"], "pairs": [
  {"label": "1", "group": "q1",
   "first": {"tokens": ["Who", "wrote", "Hamlet", "?"], "constituency": "(SBARQ (WHNP (WP Who)) (SQ (VP (VBD wrote) (NP (NNP Hamlet)))) (. ?))"},
   "second": {"tokens": ["Shakespeare", "wrote", "the", "play", "."], "constituency": ")J" +
               answerTree + R"J("}}]})J";
    };
    const std::string flat = "(S (NP (NNP Shakespeare)) (VP (VBD wrote) (DT the) (NN play)) (. .))";
    const std::string withNp = "(S (NP (NNP Shakespeare)) (VP (VBD wrote) (NP (DT the) (NN play))) (. .))";
    const std::string input = writeTemp("pair.json", pairs(flat));
    const std::string byHandFile = writeTemp("pair-edited.json", pairs(withNp));
    const std::string tat = q(model("tat-en-wikiqa.safetensors"));
    const auto w = cli("whatif --model " + tat + " --pairs " + q(input) + " --side second --edit 'bracket 3-4 NP' --json --no-attention");
    ASSERT_EQ(w.code, 0) << w.err;
    const json j = json::parse(w.out);
    EXPECT_TRUE(j["reads_tree"].get<bool>());
    EXPECT_EQ(j["side"], "second");
    EXPECT_EQ(j["tree"]["constituency"]["ptb"], withNp);
    const auto r = cli("analyze --model " + tat + " --pairs " + q(byHandFile) + " --json --no-attention");
    ASSERT_EQ(r.code, 0) << r.err;
    const json byHand = json::parse(r.out.substr(0, r.out.find('\n')));
    EXPECT_NEAR(j["after"]["prediction"]["score"].get<double>(), byHand["prediction"]["score"].get<double>(), 1e-5);
    const auto r0 = cli("analyze --model " + tat + " --pairs " + q(input) + " --json --no-attention");
    const json before = json::parse(r0.out.substr(0, r0.out.find('\n')));
    EXPECT_NEAR(j["before"]["prediction"]["score"].get<double>(), before["prediction"]["score"].get<double>(), 1e-5);
    // Crossing brackets are refused naming the bracket crossed.
    const auto cross = cli("whatif --model " + tat + " --pairs " + q(input) + " --side second --edit 'bracket 1-2 X'");
    EXPECT_EQ(cross.code, 1);
    EXPECT_NE(cross.err.find("would cross (VP 2-4)"), std::string::npos) << cross.err;
}

TEST(CliWhatif, AModelThatDoesNotReadTheTreeSaysSo)
{
    // The shipped Tree Transformer reads words only: its prediction-free analysis is the
    // same, and the comparison with the tree (each head's share of the arcs) changes.
    const std::string input = writeTemp("bark2.conllu", "1\tdogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n"
                                                        "2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n"
                                                        "3\tloudly\t_\tADV\t_\t_\t2\tadvmod\t_\t_\n\n");
    const auto r = cli("whatif --input " + q(input) + " --edit 'head 3=1' --json --no-attention");
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_FALSE(j["reads_tree"].get<bool>());
    EXPECT_FALSE(j["delta"]["changed"].get<bool>());
    ASSERT_TRUE(j["delta"]["comparisons"].contains("head_share"));
    const auto t = cli("whatif --input " + q(input) + " --edit 'head 3=1'");
    EXPECT_NE(t.out.find("does not read the edited tree"), std::string::npos) << t.out;
}

// Issue 47, item 2: a typed sentence after --edit stays the sentence (it was read as a second
// edit: "unknown edit 'The'"), and its tree, which the parser made, is called parsed, not input.
TEST(CliWhatif, ATypedSentenceAfterTheEditIsTheSentenceAndItsTreeIsCalledParsed)
{
    const auto r = cli("whatif --edit 'head 2=4' 'The old man saw a red kite .'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("dependency tree: edited (from the parsed tree, 1 edit)"), std::string::npos) << r.out;
    const auto two = cli("whatif -e 'head 2=4' -e 'label 2=dep' 'The old man saw a red kite .'");
    ASSERT_EQ(two.code, 0) << two.err;
    EXPECT_NE(two.out.find("edited (from the parsed tree, 2 edits)"), std::string::npos) << two.out;
    // A file's tree is still the input's.
    const std::string input = writeTemp("bark3.conllu", "1\tdogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n"
                                                        "2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n\n");
    const auto f = cli("whatif --input " + q(input) + " --edit 'label 1=obj'");
    ASSERT_EQ(f.code, 0) << f.err;
    EXPECT_EQ(f.out.find("from the parsed tree"), std::string::npos) << f.out;
}

// explain (issue 34): f(input) is analyze's log-probability (classifier) and score-pairs'
// score (pair scorer); every subtree's attribution is the sum of its words'; Integrated
// Gradients with 256 steps closes the completeness gap to 2%.
TEST(CliExplain, MatchesAnalyzeAndScorePairsAndSubtreesSumTheirWords)
{
    const std::string dt = q(model("dependency-transformer-en-polarity.safetensors"));
    const std::string input = writeTemp("explain.conllu", "1\tthe\t_\tDET\t_\t_\t2\tdet\t_\t_\n"
                                                          "2\tfilm\t_\tNOUN\t_\t_\t5\tnsubj\t_\t_\n"
                                                          "3\tis\t_\tAUX\t_\t_\t5\tcop\t_\t_\n"
                                                          "4\tnot\t_\tPART\t_\t_\t5\tadvmod\t_\t_\n"
                                                          "5\tfunny\t_\tADJ\t_\t_\t0\troot\t_\t_\n"
                                                          "6\t.\t_\tPUNCT\t_\t_\t5\tpunct\t_\t_\n\n");
    const auto r = cli("explain --model " + dt + " --input " + q(input) + " --steps 256 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    const json byAnalyze = analyzeJson("--model " + dt + " --input " + q(input));
    const auto &labels = byAnalyze["prediction"]["labels"];
    const std::string label = byAnalyze["prediction"]["label"];
    std::size_t k = 0;
    while (labels[k] != label)
        ++k;
    EXPECT_EQ(j["target"], label);
    EXPECT_NEAR(j["f_input"].get<double>(), std::log(byAnalyze["prediction"]["probabilities"][k].get<double>()), 1e-4);
    const double delta = j["f_input"].get<double>() - j["f_baseline"].get<double>();
    EXPECT_LT(std::abs(j["completeness_gap"].get<double>()), 0.02 * std::abs(delta));
    ASSERT_EQ(j["words"].size(), 6u);
    ASSERT_FALSE(j["subtrees"].empty());
    for (const auto &s : j["subtrees"]) {
        double sum = 0.0;
        for (const auto &w : s["words"])
            sum += j["words"][w.get<std::size_t>() - 1]["attribution"].get<double>();
        EXPECT_NEAR(s["attribution"].get<double>(), sum, 1e-9) << s.dump();
    }

    // GGSA on pairs: f(input) is the score score-pairs writes.
    const std::string ggsa = q(model("ggsa-en-wikiqa.safetensors"));
    const std::string pairs = writeTemp("explain-pairs.tsv", "q1\twho wrote hamlet ?\tshakespeare wrote hamlet .\t1\n"
                                                             "q1\twho wrote hamlet ?\tthe river is wide .\t0\n");
    const auto e = cli("explain --model " + ggsa + " --pairs " + q(pairs) + " --steps 256 --json");
    ASSERT_EQ(e.code, 0) << e.err;
    const auto s = cli("score-pairs --model " + ggsa + " --input " + q(pairs));
    ASSERT_EQ(s.code, 0) << s.err;
    std::istringstream lines(e.out), scores(s.out);
    std::string line, row;
    std::getline(scores, row); // header
    int n = 0;
    while (std::getline(lines, line) && std::getline(scores, row)) {
        const json p = json::parse(line);
        const double score = std::stod(row.substr(row.rfind('\t') + 1));
        EXPECT_NEAR(p["f_input"].get<double>(), score, 1e-4) << row;
        // Within 2% of f(input) - f(baseline); where the score hardly moves between the
        // baseline and the input (|delta| < 0.01) the relative gap is noise over a tiny
        // denominator, and the absolute gap stays under 1e-3 (docs/explanations.md).
        const double delta = p["f_input"].get<double>() - p["f_baseline"].get<double>();
        const double gap = std::abs(p["completeness_gap"].get<double>());
        if (std::abs(delta) >= 0.01)
            EXPECT_LT(gap, 0.02 * std::abs(delta)) << row;
        else
            EXPECT_LT(gap, 1e-3) << row;
        ASSERT_TRUE(p.contains("first") && p.contains("second"));
        EXPECT_EQ(p["second"]["words"].size(), p["pair"] == 1 ? 4u : 5u);
        ++n;
    }
    EXPECT_EQ(n, 2);
    // A model without a prediction says so.
    const auto none = cli("explain --input " + q(input));
    EXPECT_EQ(none.code, 1);
    EXPECT_NE(none.err.find("makes no prediction to explain"), std::string::npos) << none.err;
    // Rollout runs on any model with attention and says what it is.
    const auto ro = cli("explain --method rollout --input " + q(input));
    EXPECT_EQ(ro.code, 0) << ro.err;
    EXPECT_NE(ro.out.find("rollout, attention rolled out"), std::string::npos) << ro.out;
    // Issue 47: the whole sentence once, apart; the ranked subtrees without it, by sum and per word.
    EXPECT_NE(ro.out.find(" whole sentence\t+"), std::string::npos) << ro.out;
    EXPECT_NE(ro.out.find("(the sum over its words: dependency root"), std::string::npos) << ro.out;
    EXPECT_EQ(ro.out.find("  dependency root:"), std::string::npos) << ro.out;
    EXPECT_EQ(ro.out.find(": the film is not funny .\n"), std::string::npos) << ro.out;
    EXPECT_NE(ro.out.find(" most positive subtrees per word (the mean over their words):"), std::string::npos) << ro.out;
    const auto rj = cli("explain --method rollout --json --input " + q(input));
    ASSERT_EQ(rj.code, 0) << rj.err;
    const json jr = json::parse(rj.out);
    EXPECT_TRUE(jr.contains("sent_id")) << rj.out.substr(0, 200); // joins the record back to the corpus
    const auto named = cli("explain --method rollout --json \"The old man saw a red car .\"");
    ASSERT_EQ(named.code, 0) << named.err;
    EXPECT_EQ(json::parse(named.out)["sent_id"], "s1");
    double all = 0.0;
    for (const auto &w : jr["words"])
        all += w["attribution"].get<double>();
    EXPECT_NEAR(jr["whole_sentence"]["attribution"].get<double>(), all, 1e-9);
    for (const auto &st : jr["subtrees"]) {
        EXPECT_EQ(st["whole_sentence"].get<bool>(), st["words"].size() == 6u) << st.dump();
        EXPECT_NEAR(st["per_word"].get<double>(), st["attribution"].get<double>() / st["words"].size(), 1e-12);
    }
}
