// --where P (issue 48, docs/query.md "Restricting an analysis: --where"): analyze, explain,
// probe, minimal-pairs and make-pairs restricted to the occurrences of a tree pattern, on
// hand-made corpora whose answers are counted by hand. Each test fails when --where has no
// effect: the records, pairs or arcs of the whole corpus differ from the restricted ones.
// probe's head-accuracy under `pattern { V -[nsubj]-> S }` equals the nsubj row of the
// unrestricted run's per-relation breakdown; shards merged equal the whole run.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "clirun.h"
#include "core/base/fileio.h"
#include "testutil.h"

using namespace treelens;
using nlohmann::json;
using test::CliRun;

namespace {

CliRun cli(const std::string &args) { return test::runCli(args); }
std::string q(const std::string &s) { return test::shellQuote(s); }

std::string temp(const std::string &name)
{
    const std::string dir = test::cliTempDir() + "/where";
    std::filesystem::create_directories(dir);
    return dir + "/" + name;
}

std::string writeTemp(const std::string &name, const std::string &text)
{
    const std::string path = temp(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

std::string fileText(const std::string &path)
{
    auto t = readFile(path);
    return t ? *t : std::string("<unreadable>");
}

std::vector<json> jsonLines(const std::string &text)
{
    std::vector<json> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            out.push_back(json::parse(line));
    return out;
}

constexpr const char *kNsubj = "pattern { V -[nsubj]-> S }";

/// Eight sentences. Exact nsubj arcs (counted by hand): s1 1, s2 1, s5 1, s6 1, s7 2 — six arcs
/// in five sentences; s3's subject is nsubj:pass (not nsubj for Grew), s4 and s8 have none.
/// Verbs whose arc is not the root's: s5 "leave" (xcomp), s7 the second "fell" (conj).
std::string corpus()
{
    static const std::string path = writeTemp("nsubj.conllu", R"(# sent_id = s1
1	The	the	DET	DT	_	2	det	_	_
2	dog	dog	NOUN	NN	Number=Sing	3	nsubj	_	_
3	sleeps	sleep	VERB	VBZ	Number=Sing	0	root	_	_
4	.	.	PUNCT	.	_	3	punct	_	_

# sent_id = s2
1	Birds	bird	NOUN	NNS	Number=Plur	2	nsubj	_	_
2	sing	sing	VERB	VBP	_	0	root	_	_
3	songs	song	NOUN	NNS	Number=Plur	2	obj	_	_
4	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = s3
1	The	the	DET	DT	_	2	det	_	_
2	letter	letter	NOUN	NN	Number=Sing	4	nsubj:pass	_	_
3	was	be	AUX	VBD	_	4	aux:pass	_	_
4	written	write	VERB	VBN	_	0	root	_	_
5	.	.	PUNCT	.	_	4	punct	_	_

# sent_id = s4
1	Very	very	ADV	RB	_	2	advmod	_	_
2	old	old	ADJ	JJ	_	3	amod	_	_
3	trees	tree	NOUN	NNS	Number=Plur	0	root	_	_
4	.	.	PUNCT	.	_	3	punct	_	_

# sent_id = s5
1	She	she	PRON	PRP	_	2	nsubj	_	_
2	wants	want	VERB	VBZ	_	0	root	_	_
3	to	to	PART	TO	_	4	mark	_	_
4	leave	leave	VERB	VB	_	2	xcomp	_	_
5	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = s6
1	The	the	DET	DT	_	2	det	_	_
2	cat	cat	NOUN	NN	Number=Sing	3	nsubj	_	_
3	saw	see	VERB	VBD	_	0	root	_	_
4	a	a	DET	DT	_	5	det	_	_
5	bird	bird	NOUN	NN	Number=Sing	3	obj	_	_
6	.	.	PUNCT	.	_	3	punct	_	_

# sent_id = s7
1	Rain	rain	NOUN	NN	Number=Sing	2	nsubj	_	_
2	fell	fall	VERB	VBD	_	0	root	_	_
3	and	and	CCONJ	CC	_	5	cc	_	_
4	snow	snow	NOUN	NN	Number=Sing	5	nsubj	_	_
5	fell	fall	VERB	VBD	_	2	conj	_	_
6	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = s8
1	Stop	stop	VERB	VB	_	0	root	_	_
2	!	!	PUNCT	.	_	1	punct	_	_

)");
    return path;
}

const json *relation(const json &headAccuracy, const std::string &name)
{
    for (const json &r : headAccuracy.at("relations"))
        if (r.at("relation") == name)
            return &r;
    return nullptr;
}

/// `probe` on the corpus (train and test the same file) with the given tasks and flags.
CliRun probe(const std::string &tasks, const std::string &more)
{
    const std::string c = q(corpus());
    return cli("probe --task " + tasks + " --train " + c + " --test " + c + " --device cpu --json " + more);
}

} // namespace

// head-accuracy on the matched arcs only: the nsubj arcs of `V -[nsubj]-> S` are scored, and
// the grids are the nsubj row of the unrestricted run (subtypes kept, so nsubj:pass is not in it).
TEST(CliWhere, ProbeHeadAccuracyOnTheMatchedArcsIsTheNsubjRow)
{
    const CliRun whole = probe("head-accuracy", "--relation-subtypes keep");
    ASSERT_EQ(whole.code, 0) << whole.err;
    const CliRun where = probe("head-accuracy", "--relation-subtypes keep --where " + q(kNsubj));
    ASSERT_EQ(where.code, 0) << where.err;
    const json w = json::parse(where.out), h = json::parse(whole.out);
    const json *nsubj = relation(h["tasks"]["head-accuracy"], "nsubj");
    const json *all = relation(w["tasks"]["head-accuracy"], "all");
    ASSERT_TRUE(nsubj && all) << where.out.substr(0, 400);
    EXPECT_EQ((*nsubj)["count"], 12); // six arcs, train and test the same file
    EXPECT_EQ((*all)["count"], 12);
    EXPECT_EQ((*all)["dep_to_head"], (*nsubj)["dep_to_head"]);
    EXPECT_EQ((*all)["head_to_dep"], (*nsubj)["head_to_dep"]);
    EXPECT_EQ((*all)["best_offset"], (*nsubj)["best_offset"]);
    EXPECT_EQ(w["tasks"]["head-accuracy"]["relations"].size(), 2u) << "all and nsubj only";
    EXPECT_EQ(w["tasks"]["head-accuracy"]["sentences"], 10);
    // The report records the restriction.
    const json &r = w["where"];
    EXPECT_EQ(r["pattern"], kNsubj);
    EXPECT_EQ(r["syntax"], "grew");
    EXPECT_EQ(r["sentences"], 16);
    EXPECT_EQ(r["sentences_matched"], 10);
    EXPECT_EQ(r["occurrences"], 12);
    EXPECT_EQ(r["trees"], "gold");
    EXPECT_EQ(r["head_accuracy_arcs"], "between bound words");
    EXPECT_EQ(r["head_accuracy_arc_count"], 12);
    EXPECT_EQ(r["splits"], json::parse(R"({"dev": 0, "test": 5, "train": 5})"));
    EXPECT_FALSE(h.contains("where"));
    EXPECT_NE(where.err.find("where: 10 of 16 sentences have an occurrence"), std::string::npos) << where.err;
    // The text report says it too.
    const std::string c = q(corpus());
    const CliRun text = cli("probe --task head-accuracy --train " + c + " --test " + c + " --device cpu --where " + q(kNsubj));
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("where: Grew request pattern { V -[nsubj]-> S }: 10 of 16 sentences have an occurrence (12 "
                            "occurrences; trees gold); only they are probed; head-accuracy scores the arcs between bound "
                            "words (12)"),
              std::string::npos)
        << text.out.substr(0, 1500);
}

// A pattern of one node binds no pair: the arcs into its word (documented fallback); the
// verbs' non-root arcs are s5's xcomp and s7's conj, the same cells as the whole run's rows.
TEST(CliWhere, ProbeOneNodePatternScoresTheArcsIntoItsWord)
{
    const CliRun whole = probe("head-accuracy", "");
    ASSERT_EQ(whole.code, 0) << whole.err;
    const CliRun where = probe("head-accuracy", "--where " + q("pattern { V [upos=VERB] }"));
    ASSERT_EQ(where.code, 0) << where.err;
    const json w = json::parse(where.out), h = json::parse(whole.out)["tasks"]["head-accuracy"];
    EXPECT_EQ(w["where"]["head_accuracy_arcs"], "into bound words");
    EXPECT_EQ(w["where"]["head_accuracy_arc_count"], 4);
    EXPECT_EQ(w["where"]["sentences_matched"], 14); // every sentence but s4, twice
    const json &t = w["tasks"]["head-accuracy"];
    EXPECT_EQ((*relation(t, "all"))["count"], 4);
    for (const char *rel : {"xcomp", "conj"}) {
        ASSERT_TRUE(relation(t, rel)) << rel;
        EXPECT_EQ((*relation(t, rel))["count"], 2) << rel;
        EXPECT_EQ((*relation(t, rel))["dep_to_head"], (*relation(h, rel))["dep_to_head"]) << rel;
    }
}

// The sentence probes train and are tested on the matched sentences only.
TEST(CliWhere, ProbeSentenceProbesUseTheMatchedSentences)
{
    const CliRun whole = probe("sentlen", "--epochs 1 --layers 1");
    ASSERT_EQ(whole.code, 0) << whole.err;
    EXPECT_EQ(json::parse(whole.out)["tasks"]["sentlen"]["examples"], json::parse(R"({"train": 8, "dev": 0, "test": 8})"));
    const CliRun where = probe("sentlen", "--epochs 1 --layers 1 --where " + q(kNsubj));
    ASSERT_EQ(where.code, 0) << where.err;
    EXPECT_EQ(json::parse(where.out)["tasks"]["sentlen"]["examples"], json::parse(R"({"train": 5, "dev": 0, "test": 5})"));
}

// A Tregex pattern on PTB trees: the head-rule dependency trees are scored, a node stands for
// its head word; `VP < NP=obj` binds saw (VP) and kite (the object NP) in the first tree only.
TEST(CliWhere, ProbeTregexOnPtbTrees)
{
    const std::string g = q(test::testData("conformance/gold.mrg"));
    const CliRun r = cli("probe --task head-accuracy --train " + g + " --test " + g + " --device cpu --json --where " +
                         q("VP < NP=obj"));
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["where"]["syntax"], "tregex");
    EXPECT_EQ(j["where"]["sentences_matched"], 2);
    EXPECT_EQ(j["where"]["head_accuracy_arc_count"], 2);
    EXPECT_EQ((*relation(j["tasks"]["head-accuracy"], "all"))["count"], 2);
}

// probe --shard extracts the restricted run's features (the whole run's sentences restricted in
// every shard, then cut): merged, the probes trained on them are the direct run's; features
// extracted without the same --where hold other sentences and are refused (their first line
// names the pattern).
TEST(CliWhere, ProbeShardsOfARestrictedRun)
{
    const std::string c = q(corpus());
    const std::string base = "probe --task sentlen --layers 1 --train " + c + " --test " + c + " --device cpu --where " + q(kNsubj);
    const std::string s1 = temp("p1"), s2 = temp("p2"), features = temp("pfeatures"), unrestricted = temp("pall");
    ASSERT_EQ(cli(base + " --shard 1/2 -o " + q(s1)).code, 0);
    ASSERT_EQ(cli(base + " --shard 2/2 -o " + q(s2)).code, 0);
    const CliRun m = cli("merge " + q(s2) + " " + q(s1) + " -o " + q(features));
    ASSERT_EQ(m.code, 0) << m.err;
    const CliRun direct = cli(base + " --epochs 1 --json");
    ASSERT_EQ(direct.code, 0) << direct.err;
    const CliRun fromFeatures = cli(base + " --epochs 1 --json --features " + q(features));
    ASSERT_EQ(fromFeatures.code, 0) << fromFeatures.err;
    EXPECT_EQ(json::parse(fromFeatures.out)["tasks"], json::parse(direct.out)["tasks"]);
    EXPECT_EQ(json::parse(fromFeatures.out)["where"], json::parse(direct.out)["where"]);
    const CliRun all = cli("probe --task sentlen --layers 1 --train " + c + " --test " + c + " --device cpu --extract-features -o " +
                           q(unrestricted));
    ASSERT_EQ(all.code, 0) << all.err;
    const CliRun refused = cli(base + " --epochs 1 --features " + q(unrestricted));
    EXPECT_EQ(refused.code, 1);
    EXPECT_NE(refused.err.find("do not fit this run: they were extracted without --where, this run has --where grew "
                               "pattern { V -[nsubj]-> S }"),
              std::string::npos)
        << refused.err;
}

TEST(CliWhere, ProbeRefusesARestrictionWithoutArcsOrSentences)
{
    const CliRun noArc = probe("head-accuracy", "--where " + q("pattern { X [upos=DET]; Y [upos=PUNCT] }"));
    EXPECT_EQ(noArc.code, 1);
    EXPECT_NE(noArc.err.find("treelens-cli: error: --where: head-accuracy: no dependency arc has both its head and its "
                             "dependent bound by one occurrence"),
              std::string::npos)
        << noArc.err;
    const CliRun none = probe("head-accuracy", "--where " + q("pattern { X [form=\"zebra\"] }"));
    EXPECT_EQ(none.code, 1);
    EXPECT_NE(none.err.find("--where: no sentence of the run's 16 has an occurrence"), std::string::npos) << none.err;
    const CliRun bad = probe("head-accuracy", "--where " + q("pattern { V -[nsubj] S }"));
    EXPECT_EQ(bad.code, 1);
    EXPECT_EQ(bad.err.rfind("treelens-cli: error: --where (Grew request): line 1, column", 0), 0u) << bad.err;
}

// analyze: only the matched sentences, each with the words of its occurrences.
TEST(CliWhere, AnalyzeOnlyTheMatchedSentencesWithTheirWords)
{
    const std::string c = q(corpus());
    const CliRun whole = cli("analyze --json --no-attention --input " + c);
    ASSERT_EQ(whole.code, 0) << whole.err;
    EXPECT_EQ(jsonLines(whole.out).size(), 8u);
    const CliRun r = cli("analyze --json --no-attention --input " + c + " --where " + q(kNsubj));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto records = jsonLines(r.out);
    ASSERT_EQ(records.size(), 5u);
    std::vector<std::string> ids;
    for (const json &j : records)
        ids.push_back(j["sent_id"]);
    EXPECT_EQ(ids, (std::vector<std::string>{"s1", "s2", "s5", "s6", "s7"}));
    EXPECT_EQ(records[0]["matches"], json::parse(R"([{"V": 3, "S": 2}])"));
    EXPECT_EQ(records[4]["matches"], json::parse(R"([{"V": 2, "S": 1}, {"V": 5, "S": 4}])"));
    EXPECT_TRUE(records[0].contains("tokens"));
    EXPECT_NE(r.err.find("analyze: --where: 5 of 8 sentences have an occurrence (6 occurrences) of the Grew request "
                         "pattern { V -[nsubj]-> S }"),
              std::string::npos)
        << r.err;
    // Text: a last line per record; the pattern from a file reads the same.
    const std::string file = writeTemp("nsubj.grew", std::string(kNsubj) + "\n");
    const CliRun text = cli("analyze --input " + c + " --where-file " + q(file));
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("sentence s7: Rain fell and snow fell ."), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("matches: V=2:fell S=1:Rain; V=5:fell S=4:snow\n"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("sentence s4:"), std::string::npos) << text.out;
}

// A Tregex node stands for its head word (Collins head rules): the VP for "saw", the object NP
// for "kite"; the second tree has no NP under its VP.
TEST(CliWhere, AnalyzeTregexNamesTheHeadWords)
{
    const CliRun r = cli("analyze --json --no-attention --input " + q(test::testData("conformance/gold.mrg")) + " --where " +
                         q("VP < NP=obj"));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto records = jsonLines(r.out);
    ASSERT_EQ(records.size(), 1u) << r.out.substr(0, 300);
    EXPECT_EQ(records[0]["sent_id"], "gold:1");
    EXPECT_EQ(records[0]["matches"], json::parse(R"([{"_root_": 4, "obj": 7}])"));
}

TEST(CliWhere, UsageAndPatternErrors)
{
    const std::string c = q(corpus());
    const CliRun pairs = cli("analyze --pairs " + q(test::testData("conformance/pairs.tsv")) + " --where " + q(kNsubj));
    EXPECT_EQ(pairs.code, 2) << pairs.err;
    const CliRun both = cli("analyze --input " + c + " --where " + q(kNsubj) + " --where-file " + c);
    EXPECT_EQ(both.code, 2) << both.err;
    const CliRun syntax = cli("analyze --input " + c + " --where X --where-syntax cypher");
    EXPECT_EQ(syntax.code, 2) << syntax.err;
    const CliRun bad = cli("analyze --input " + c + " --where " + q("VP < (NP"));
    EXPECT_EQ(bad.code, 1);
    EXPECT_EQ(bad.err.rfind("treelens-cli: error: --where (Tregex pattern): column", 0), 0u) << bad.err;
    EXPECT_TRUE(bad.out.empty());
}

// Shards: the restriction is applied per sentence after the shard's cut, so the merged shards
// are the whole run byte for byte (600 sentences: two blocks of 512, every third matches).
TEST(CliWhere, AnalyzeShardsMergeToTheWholeRun)
{
    std::string text;
    for (int i = 0; i < 600; ++i)
        text += "# sent_id = b" + std::to_string(i + 1) + "\n" +
                (i % 3 == 0 ? "1\tDogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n"
                            : "1\tVery\tvery\tADV\tRB\t_\t2\tadvmod\t_\t_\n2\told\told\tADJ\tJJ\t_\t0\troot\t_\t_\n") +
                "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n\n";
    const std::string input = q(writeTemp("big.conllu", text));
    const std::string args = "analyze --json --no-attention --input " + input + " --where " + q(kNsubj);
    const CliRun whole = cli(args);
    ASSERT_EQ(whole.code, 0) << whole.err;
    EXPECT_EQ(jsonLines(whole.out).size(), 200u);
    const std::string s1 = temp("a1"), s2 = temp("a2"), merged = temp("amerged");
    ASSERT_EQ(cli(args + " --shard 1/2 -o " + q(s1)).code, 0);
    ASSERT_EQ(cli(args + " --shard 2/2 -o " + q(s2)).code, 0);
    const CliRun m = cli("merge " + q(s2) + " " + q(s1) + " -o " + q(merged));
    ASSERT_EQ(m.code, 0) << m.err;
    EXPECT_EQ(fileText(merged), whole.out);
}

// explain: only the matched sentences, numbered as in the input, naming their occurrences' words.
TEST(CliWhere, ExplainOnlyTheMatchedSentences)
{
    const std::string c = q(corpus());
    const CliRun r = cli("explain --method rollout --json --input " + c + " --where " + q(kNsubj));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto records = jsonLines(r.out);
    ASSERT_EQ(records.size(), 5u);
    std::vector<int> numbers;
    for (const json &j : records)
        numbers.push_back(j["sentence"]);
    EXPECT_EQ(numbers, (std::vector<int>{1, 2, 5, 6, 7}));
    EXPECT_EQ(records[2]["sent_id"], "s5");
    EXPECT_EQ(records[2]["matches"], json::parse(R"([{"V": 2, "S": 1}])"));
    EXPECT_NE(r.err.find("explain: --where: 5 of 8 sentences have an occurrence"), std::string::npos) << r.err;
    const CliRun text = cli("explain --method rollout --input " + c + " --where " + q(kNsubj));
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("sentence 5 (s5): rollout"), std::string::npos) << text.out.substr(0, 600);
    EXPECT_NE(text.out.find(" matches: V=2:wants S=1:She\n"), std::string::npos) << text.out.substr(0, 600);
    EXPECT_EQ(text.out.find("(s3)"), std::string::npos);
    const CliRun whole = cli("explain --method rollout --json --input " + c);
    ASSERT_EQ(whole.code, 0) << whole.err;
    EXPECT_EQ(jsonLines(whole.out).size(), 8u);
}

// minimal-pairs: only the pairs whose good sentence (parsed) has an occurrence; the summary says
// so; the shards merge to the whole run (70 pairs: blocks of 64, every other pair matches).
TEST(CliWhere, MinimalPairsOnlyThePairsWhoseGoodSentenceMatches)
{
    const std::string model =
        q(std::string(TREELENS_SOURCE_DIR) + "/resources/models/tree-transformer-en-small-mlm.safetensors");
    std::string tsv = "good\tbad\tphenomenon\n";
    for (int i = 0; i < 70; ++i)
        tsv += i % 2 == 0 ? "The dogs bark .\tThe dogs barks .\tagreement\n" : "The cat sleeps .\tThe cat sleep .\tagreement\n";
    const std::string input = q(writeTemp("pairs.tsv", tsv));
    const std::string where = " --where " + q("pattern { N [form=\"dogs\"] }");
    const CliRun whole = cli("minimal-pairs --json --model " + model + " --input " + input);
    ASSERT_EQ(whole.code, 0) << whole.err;
    EXPECT_EQ(jsonLines(whole.out).size(), 71u);
    const std::string args = "minimal-pairs --json --model " + model + " --input " + input + where;
    const CliRun r = cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto records = jsonLines(r.out);
    ASSERT_EQ(records.size(), 36u);
    EXPECT_EQ(records[0]["id"], "2"); // a TSV pair's id is its line
    EXPECT_EQ(records[1]["id"], "4");
    EXPECT_EQ(records[0]["occurrences"], 1);
    const json &summary = records.back()["summary"];
    EXPECT_EQ(summary["pairs"], 35);
    EXPECT_EQ(summary["where"], json::parse(R"({"pattern": "pattern { N [form=\"dogs\"] }", "syntax": "grew", "pairs": 70,
                                                "sentences_matched": 35, "occurrences": 35})"));
    const std::string s1 = temp("m1"), s2 = temp("m2");
    ASSERT_EQ(cli(args + " --shard 1/2 -o " + q(s1)).code, 0);
    ASSERT_EQ(cli(args + " --shard 2/2 -o " + q(s2)).code, 0);
    const CliRun merged = cli("merge " + q(s1) + " " + q(s2));
    ASSERT_EQ(merged.code, 0) << merged.err;
    EXPECT_EQ(merged.out, r.out);
    const CliRun text = cli("minimal-pairs --model " + model + " --input " + input + where);
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("restricted (--where): 35 of 70 pairs whose good sentence has an occurrence (35 occurrences)"),
              std::string::npos)
        << text.out;
}

// make-pairs: pairs only from the sentences with an occurrence (m1 and m2 make a pair each; m3's
// verb has no other form in the treebank).
TEST(CliWhere, MakePairsOnlyFromTheMatchedSentences)
{
    const std::string input = q(writeTemp("agreement.conllu", R"(# sent_id = m1
1	The	the	DET	DT	_	2	det	_	_
2	dog	dog	NOUN	NN	Number=Sing	3	nsubj	_	_
3	sleeps	sleep	VERB	VBZ	Number=Sing|Tense=Pres|VerbForm=Fin	0	root	_	_
4	.	.	PUNCT	.	_	3	punct	_	_

# sent_id = m2
1	The	the	DET	DT	_	2	det	_	_
2	cat	cat	NOUN	NN	Number=Sing	3	nsubj	_	_
3	runs	run	VERB	VBZ	Number=Sing|Tense=Pres|VerbForm=Fin	0	root	_	_
4	.	.	PUNCT	.	_	3	punct	_	_

# sent_id = m3
1	Birds	bird	NOUN	NNS	Number=Plur	2	nsubj	_	_
2	sing	sing	VERB	VBP	Tense=Pres|VerbForm=Fin	0	root	_	_
3	.	.	PUNCT	.	_	2	punct	_	_

)"));
    const CliRun whole = cli("make-pairs --input " + input);
    ASSERT_EQ(whole.code, 0) << whole.err;
    EXPECT_EQ(jsonLines(whole.out).size(), 2u) << whole.out;
    const CliRun r = cli("make-pairs --input " + input + " --where " + q("pattern { S [form=\"cat\"] }"));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto made = jsonLines(r.out);
    ASSERT_EQ(made.size(), 1u) << r.out;
    EXPECT_EQ(made[0]["source"], "m2");
    EXPECT_EQ(made[0]["sentence_bad"], "The cat run .");
    EXPECT_NE(r.err.find("make-pairs: 1 agreement pairs from 1 sentences with an occurrence (of 3)"), std::string::npos) << r.err;
    const CliRun none = cli("make-pairs --input " + input + " --where " + q("pattern { S [form=\"Birds\"] }"));
    EXPECT_EQ(none.code, 1);
    EXPECT_NE(none.err.find("no agreement pairs in 1 sentences with an occurrence of --where's pattern (of 3)"), std::string::npos)
        << none.err;
}
