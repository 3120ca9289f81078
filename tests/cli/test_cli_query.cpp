// treelens-cli query (issue 48, docs/query.md): Tregex patterns counted by hand on a small
// tree and on the repository's PTB files, the text and JSON records, --count, -o, --limit,
// shards (their records are the whole run's, and merge gives the whole run's output byte for
// byte, --count totals included), pattern errors naming the column, and raw text searched on
// predicted trees that the output calls predicted. The Grew requests' tests are the
// CliQuery.Grew* tests: counts derived by hand on a small CoNLL-U corpus.
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
using test::CliRun;
using test::shellQuote;

namespace {

CliRun cli(const std::string &args, const std::string &stdinText = "") { return test::runCli(args, stdinText); }

/// A file in this test's own folder (PTB sentences are named after their file: dog.mrg's first is dog:1).
std::string temp(const std::string &name)
{
    const std::string dir = test::cliTempDir() + "/query";
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

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

std::string q(const std::string &s) { return shellQuote(s); }

/// `query --count` of `pattern` over `input` (extra flags in `more`): its one line.
std::string countOf(const std::string &pattern, const std::string &input, const std::string &more = "")
{
    const CliRun r = cli("query --count --pattern " + q(pattern) + " --input " + q(input) + " " + more);
    EXPECT_EQ(r.code, 0) << pattern << ": " << r.err;
    return r.out;
}

const std::string kGoldMrg = test::testData("conformance/gold.mrg");
const std::string kGoldConllu = test::testData("conformance/gold.conllu");
const std::string kTraces = test::testData("golden/traces.mrg");

// A small tree counted by hand:
//   (S (NP (NP (DT the) (NN dog)) (PP (IN of) (NP (NNP John)))) (VP (VBD barked)))
// three NPs: the outer one over words 1-4, "the dog" (1-2) and "John" (4).
const char *kDogOfJohn = "(S (NP (NP (DT the) (NN dog)) (PP (IN of) (NP (NNP John)))) (VP (VBD barked)))\n";

} // namespace

TEST(CliQuery, TregexCountsOnAHandCountedTree)
{
    const std::string f = writeTemp("dog.mrg", kDogOfJohn);
    EXPECT_EQ(countOf("NP", f), "occurrences 3 in 1 sentences of 1\n");
    // The outer NP is the only one with an NP child.
    EXPECT_EQ(countOf("NP < NP", f), "occurrences 1 in 1 sentences of 1\n");
    // Outer NP: dog, John; "the dog": dog; "John": John. One match per (NP, tag) pair.
    EXPECT_EQ(countOf("NP << /^NN/", f), "occurrences 4 in 1 sentences of 1\n");
    EXPECT_EQ(countOf("NP < NN", f), "occurrences 1 in 1 sentences of 1\n");
    // A negated relation binds nothing: the two inner NPs once each.
    EXPECT_EQ(countOf("NP !< NP", f), "occurrences 2 in 1 sentences of 1\n");
    // The outer NP dominates both inner ones.
    EXPECT_EQ(countOf("NP=a << NP=b", f), "occurrences 2 in 1 sentences of 1\n");
    const CliRun r = cli("query --pattern 'NP=a << NP=b' --input " + q(f));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "dog:1\t_root_=1-4:the_dog_of_John a=1-4:the_dog_of_John b=1-2:the_dog\tthe dog of John barked\n"
                     "dog:1\t_root_=1-4:the_dog_of_John a=1-4:the_dog_of_John b=4-4:John\tthe dog of John barked\n");
}

TEST(CliQuery, TregexCountsOnTheTestDataTrees)
{
    // gold.mrg: "The old man saw a red kite ." and "Dogs bark loudly ."
    EXPECT_EQ(countOf("NP", kGoldMrg), "occurrences 3 in 2 sentences of 2\n");
    EXPECT_EQ(countOf("NP < DT", kGoldMrg), "occurrences 2 in 1 sentences of 2\n");
    EXPECT_EQ(countOf("VP < NP", kGoldMrg), "occurrences 1 in 1 sentences of 2\n");
    // The same trees in CoNLL-U's '# constituency' comments: gold, no parser opened.
    EXPECT_EQ(countOf("NP", kGoldConllu, "--json"), "{\"occurrences\":3,\"sentences_matched\":2,\"sentences\":2,\"trees\":\"gold\"}\n");
    // traces.mrg (WSJ 0001's first sentence with its trace, a topicalised SINV, a ROOT tree):
    // NP-SBJ-1 and the trace's NP-SBJ; It and Ann; none in the third.
    EXPECT_EQ(countOf("/^NP-SBJ/", kTraces), "occurrences 4 in 2 sentences of 3\n");
    EXPECT_EQ(countOf("_ROOT_", kTraces), "occurrences 3 in 3 sentences of 3\n");
    EXPECT_EQ(countOf("/^-NONE-$/", kTraces), "occurrences 2 in 2 sentences of 3\n");
    EXPECT_EQ(countOf("VP < TO", kTraces), "occurrences 1 in 1 sentences of 3\n");

    const CliRun r = cli("query --pattern 'VP < NP=obj' --input " + q(kGoldMrg));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "gold:1\t_root_=4-7:saw_a_red_kite obj=5-7:a_red_kite\tThe old man saw a red kite .\n");
    EXPECT_TRUE(r.err.empty()) << r.err; // gold trees: nothing to say
    // A node over a trace only covers no word.
    const CliRun t = cli("query --pattern '/^NP-SBJ/=s <: /^-NONE-$/' --input " + q(kTraces));
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_EQ(t.out, "traces:1\t_root_=- s=-\tMr. Vinken is expected to resign .\n");
}

TEST(CliQuery, JsonRecordsCarryTheSentIdAndTheNodes)
{
    const CliRun r = cli("query --json --pattern 'VP < NP=obj' --input " + q(kGoldConllu));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto ls = lines(r.out);
    ASSERT_EQ(ls.size(), 1u) << r.out;
    const auto j = nlohmann::ordered_json::parse(ls[0]);
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it)
        keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"sent_id", "line", "trees", "nodes"}));
    EXPECT_EQ(j["sent_id"], "c-1");
    EXPECT_EQ(j["line"], 1);
    EXPECT_EQ(j["trees"], "gold");
    const auto &root = j["nodes"]["_root_"];
    EXPECT_EQ(root["label"], "VP");
    EXPECT_EQ(root["first"], 4);
    EXPECT_EQ(root["last"], 7);
    EXPECT_EQ(root["words"], "saw a red kite");
    const auto &obj = j["nodes"]["obj"];
    EXPECT_EQ(obj["label"], "NP");
    EXPECT_EQ(obj["first"], 5);
    EXPECT_EQ(obj["last"], 7);
    EXPECT_EQ(obj["words"], "a red kite");

    // Every record names its sentence; the second sentence's line is where it starts.
    const CliRun all = cli("query --json --pattern NP --input " + q(kGoldConllu));
    ASSERT_EQ(all.code, 0) << all.err;
    const auto records = lines(all.out);
    ASSERT_EQ(records.size(), 3u) << all.out;
    EXPECT_EQ(nlohmann::json::parse(records[0])["sent_id"], "c-1");
    EXPECT_EQ(nlohmann::json::parse(records[1])["sent_id"], "c-1");
    EXPECT_EQ(nlohmann::json::parse(records[2])["sent_id"], "c-2");
    EXPECT_EQ(nlohmann::json::parse(records[2])["line"], 13);
    // A node over traces only: no first or last word.
    const CliRun t = cli("query --json --pattern '/^NP-SBJ/ <: /^-NONE-$/' --input " + q(kTraces));
    ASSERT_EQ(t.code, 0) << t.err;
    const auto trace = nlohmann::json::parse(lines(t.out).at(0))["nodes"]["_root_"];
    EXPECT_TRUE(trace["first"].is_null());
    EXPECT_TRUE(trace["last"].is_null());
    EXPECT_EQ(trace["words"], "");
    EXPECT_EQ(trace["label"], "NP-SBJ");
}

TEST(CliQuery, OutputFileLimitAndUsage)
{
    const std::string out = temp("limit.out");
    const CliRun r = cli("query --pattern NP --limit 2 --input " + q(kGoldMrg) + " -o " + q(out));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(fileText(out), "gold:1\t_root_=1-3:The_old_man\tThe old man saw a red kite .\n"
                             "gold:1\t_root_=5-7:a_red_kite\tThe old man saw a red kite .\n");
    EXPECT_NE(r.err.find("stopped after 2 occurrences (--limit)"), std::string::npos) << r.err;
    const std::string counted = temp("count.out");
    ASSERT_EQ(cli("query --count --json --pattern NP --input " + q(kGoldMrg) + " -o " + q(counted)).code, 0);
    EXPECT_EQ(fileText(counted), "{\"occurrences\":3,\"sentences_matched\":2,\"sentences\":2,\"trees\":\"gold\"}\n");
    // The pattern from a file.
    const std::string pf = writeTemp("pattern.tregex", "VP < NP=obj\n");
    const CliRun f = cli("query --pattern-file " + q(pf) + " --input " + q(kGoldMrg));
    ASSERT_EQ(f.code, 0) << f.err;
    EXPECT_EQ(f.out, "gold:1\t_root_=4-7:saw_a_red_kite obj=5-7:a_red_kite\tThe old man saw a red kite .\n");
    // Usage errors (exit 2): no pattern, two patterns, --count with --limit, an unknown syntax.
    EXPECT_EQ(cli("query --input " + q(kGoldMrg)).code, 2);
    EXPECT_EQ(cli("query --pattern NP --pattern-file " + q(pf) + " --input " + q(kGoldMrg)).code, 2);
    EXPECT_EQ(cli("query --pattern NP --count --limit 1 --input " + q(kGoldMrg)).code, 2);
    EXPECT_EQ(cli("query --pattern NP --syntax xpath --input " + q(kGoldMrg)).code, 2);
}

TEST(CliQuery, PatternErrorNamesTheColumn)
{
    const std::string out = temp("error.out");
    const CliRun r = cli("query --pattern 'NP <' --input " + q(kGoldMrg) + " -o " + q(out));
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(test::pathExists(out));
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("--pattern (Tregex pattern): column 5: "), std::string::npos) << r.err;
    const std::string pf = writeTemp("bad.tregex", "NP < (VP\n");
    const CliRun f = cli("query --pattern-file " + q(pf) + " --input " + q(kGoldMrg));
    EXPECT_EQ(f.code, 1);
    EXPECT_NE(f.err.find(pf + " (Tregex pattern): column "), std::string::npos) << f.err;
    // A pattern error comes before the input is read.
    const CliRun both = cli("query --pattern 'NP <' --input " + q(temp("no-such-file.mrg")));
    EXPECT_EQ(both.code, 1);
    EXPECT_NE(both.err.find("column 5"), std::string::npos) << both.err;
}

TEST(CliQuery, ShardsAreTheWholeRun)
{
    // 4,500 sentences: three blocks of 2,000, so that every shard of 3 has sentences.
    const char *trees[] = {"( (S (NP (DT The) (JJ old) (NN man)) (VP (VBD saw) (NP (DT a) (JJ red) (NN kite))) (. .)) )",
                           "( (S (NP (NNS Dogs)) (VP (VBP bark) (ADVP (RB loudly))) (. .)) )",
                           "( (S (NP (PRP It)) (VP (VBZ rains)) (. .)) )"};
    std::string corpus;
    for (int i = 0; i < 4500; ++i)
        corpus += std::string(trees[i % 3]) + "\n";
    const std::string input = writeTemp("big.mrg", corpus);
    for (const std::string flags : {"", "--json", "--count", "--count --json", "--limit 2100"}) {
        const std::string args = "query --pattern 'NP < DT|NNS' --input " + q(input) + " " + flags;
        const std::string whole = temp("whole.out");
        const CliRun w = cli(args + " -o " + q(whole));
        ASSERT_EQ(w.code, 0) << w.err;
        std::string records, list;
        for (int i = 1; i <= 3; ++i) {
            const std::string shard = temp("shard" + std::to_string(i) + ".out");
            const CliRun s = cli(args + " --shard " + std::to_string(i) + "/3 -o " + q(shard));
            ASSERT_EQ(s.code, 0) << s.err;
            list = " " + q(shard) + list; // merged in reverse order
            for (const std::string &l : lines(fileText(shard)))
                if (l.rfind("#treelens-shard", 0) != 0 && l.rfind("{\"query_totals\"", 0) != 0)
                    records += l + "\n";
        }
        const std::string merged = temp("merged.out");
        const CliRun m = cli("merge" + list + " -o " + q(merged));
        ASSERT_EQ(m.code, 0) << m.err;
        EXPECT_EQ(fileText(merged), fileText(whole)) << flags;
        if (flags.empty() || flags == "--json") {
            EXPECT_EQ(records, fileText(whole)) << flags << ": the union of the shards' records";
        } else if (flags == "--count") {
            EXPECT_EQ(fileText(whole), "occurrences 4500 in 3000 sentences of 4500\n");
        } else if (flags == "--limit 2100") {
            EXPECT_EQ(lines(fileText(whole)).size(), 2100u);
        }
    }
    // A shard needs its input in a file and -o.
    EXPECT_EQ(cli("query --pattern NP --shard 1/2 --input " + q(input)).code, 1);
}

TEST(CliQuery, RawTextIsSearchedOnPredictedTreesAndSaysSo)
{
    const CliRun r = cli("query --json --pattern NP 'The old man saw a red kite.'");
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_FALSE(r.out.empty());
    for (const std::string &l : lines(r.out)) {
        const auto j = nlohmann::json::parse(l);
        EXPECT_EQ(j["trees"], "predicted") << l;
        EXPECT_EQ(j["sent_id"], "s1") << l;
    }
    EXPECT_NE(r.err.find("constituency trees of 1 of 1 sentences are predicted (parser neural)"), std::string::npos) << r.err;
    const std::string text = writeTemp("raw.txt", "The old man saw a red kite.\nDogs bark loudly.\n");
    const CliRun t = cli("query --pattern 'S < NP' --input " + q(text));
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_NE(t.err.find("are predicted"), std::string::npos) << t.err;
    EXPECT_NE(t.out.find("s1\t"), std::string::npos) << t.out;
    const CliRun c = cli("query --count --json --pattern 'S < NP' --input " + q(text));
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("\"trees\":\"predicted\""), std::string::npos) << c.out;
    // CoNLL-U without '# constituency': its constituency trees predicted, its own tags kept.
    const std::string conllu = writeTemp("nocons.conllu", "# sent_id = n-1\n"
                                                          "1\tDogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n"
                                                          "2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n\n");
    const CliRun n = cli("query --json --pattern NP --input " + q(conllu));
    ASSERT_EQ(n.code, 0) << n.err;
    EXPECT_NE(n.out.find("\"sent_id\":\"n-1\",\"line\":1,\"trees\":\"predicted\""), std::string::npos) << n.out;
}

// --- Grew requests (core/query/deppattern.h) -------------------------------------------------

namespace {

// Three sentences with hand-checked trees:
//   g1 "The dog sleeps ."          sleeps -nsubj-> dog
//   g2 "Cats and dogs chase mice ." chase -nsubj-> Cats, Cats -conj-> dogs, chase -obj-> mice
//   g3 "It rains ."                rains -expl-> It (no nsubj)
const char *kGrewCorpus = "# sent_id = g1\n"
                          "# text = The dog sleeps.\n"
                          "1\tThe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t2\tdet\t_\t_\n"
                          "2\tdog\tdog\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t_\t_\n"
                          "3\tsleeps\tsleep\tVERB\tVBZ\tNumber=Sing|Person=3|Tense=Pres\t0\troot\t_\tSpaceAfter=No\n"
                          "4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n"
                          "\n"
                          "# sent_id = g2\n"
                          "# text = Cats and dogs chase mice.\n"
                          "1\tCats\tcat\tNOUN\tNNS\tNumber=Plur\t4\tnsubj\t_\t_\n"
                          "2\tand\tand\tCCONJ\tCC\t_\t3\tcc\t_\t_\n"
                          "3\tdogs\tdog\tNOUN\tNNS\tNumber=Plur\t1\tconj\t_\t_\n"
                          "4\tchase\tchase\tVERB\tVBP\tTense=Pres\t0\troot\t_\t_\n"
                          "5\tmice\tmouse\tNOUN\tNNS\tNumber=Plur\t4\tobj\t_\tSpaceAfter=No\n"
                          "6\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_\n"
                          "\n"
                          "# sent_id = g3\n"
                          "# text = It rains.\n"
                          "1\tIt\tit\tPRON\tPRP\t_\t2\texpl\t_\t_\n"
                          "2\trains\train\tVERB\tVBZ\tTense=Pres\t0\troot\t_\tSpaceAfter=No\n"
                          "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
                          "\n";

const char *kSubject = "pattern { V [upos=VERB]; S []; V -[nsubj]-> S }";

} // namespace

TEST(CliQuery, GrewCountsOnAHandMadeCorpus)
{
    const std::string f = writeTemp("grew.conllu", kGrewCorpus);
    // g1 (sleeps, dog) and g2 (chase, Cats); g3's subject is expl.
    EXPECT_EQ(countOf(kSubject, f), "occurrences 2 in 2 sentences of 3\n");
    // dog; Cats, dogs, mice.
    EXPECT_EQ(countOf("pattern { N [upos=NOUN] }", f), "occurrences 4 in 2 sentences of 3\n");
    EXPECT_EQ(countOf("pattern { N [upos=NOUN, Number=Plur] }", f), "occurrences 3 in 1 sentences of 3\n");
    // Only rains has no nsubj.
    EXPECT_EQ(countOf("pattern { V [upos=VERB] } without { V -[nsubj]-> S }", f), "occurrences 1 in 1 sentences of 3\n");
    // The anchor's root edge: one per sentence.
    EXPECT_EQ(countOf("pattern { A -[root]-> R }", f), "occurrences 3 in 3 sentences of 3\n");
    EXPECT_EQ(countOf(kSubject, f, "--json"),
              "{\"occurrences\":2,\"sentences_matched\":2,\"sentences\":3,\"trees\":\"gold\"}\n");
}

TEST(CliQuery, GrewRecords)
{
    const std::string f = writeTemp("grew.conllu", kGrewCorpus);
    const CliRun r = cli("query --pattern " + q(kSubject) + " --input " + q(f));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "g1\tV=3:sleeps S=2:dog\tThe dog sleeps.\n"
                     "g2\tV=4:chase S=1:Cats\tCats and dogs chase mice.\n");
    EXPECT_TRUE(r.err.empty()) << r.err;
    const CliRun j = cli("query --json --pattern " + q(kSubject) + " --input " + q(f));
    ASSERT_EQ(j.code, 0) << j.err;
    const auto ls = lines(j.out);
    ASSERT_EQ(ls.size(), 2u) << j.out;
    const auto first = nlohmann::ordered_json::parse(ls[0]);
    EXPECT_EQ(first["sent_id"], "g1");
    EXPECT_EQ(first["trees"], "gold");
    EXPECT_EQ(first["nodes"]["V"]["word"], 3);
    EXPECT_EQ(first["nodes"]["V"]["form"], "sleeps");
    EXPECT_EQ(first["nodes"]["S"]["word"], 2);
    EXPECT_EQ(first["nodes"]["S"]["form"], "dog");
    EXPECT_EQ(first["nodes"].begin().key(), "V"); // the request's order
    // The anchor is word 0, "__0__".
    const CliRun a = cli("query --json --limit 1 --pattern 'pattern { A -[root]-> R }' --input " + q(f));
    ASSERT_EQ(a.code, 0) << a.err;
    const auto anchor = nlohmann::json::parse(lines(a.out).at(0));
    EXPECT_EQ(anchor["nodes"]["A"]["word"], 0);
    EXPECT_EQ(anchor["nodes"]["A"]["form"], "__0__");
    EXPECT_EQ(anchor["nodes"]["R"]["word"], 3);
    // --syntax tregex reads the same text as a (bad) Tregex pattern; auto takes it for Grew.
    EXPECT_EQ(cli("query --syntax tregex --pattern " + q(kSubject) + " --input " + q(f)).code, 1);
    EXPECT_EQ(cli("query --syntax grew --pattern " + q(kSubject) + " --input " + q(f)).out, r.out);
}

TEST(CliQuery, GrewRequestErrorNamesLineAndColumn)
{
    const std::string f = writeTemp("grew.conllu", kGrewCorpus);
    const CliRun r = cli("query --pattern 'pattern { V [upos=VERB }' --input " + q(f));
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("--pattern (Grew request): line 1, column "), std::string::npos) << r.err;
    const std::string pf = writeTemp("bad.grew", "pattern {\n  V [upos=VERB];\n  V -[nsubj]-> \n}\n");
    const CliRun m = cli("query --pattern-file " + q(pf) + " --input " + q(f));
    EXPECT_EQ(m.code, 1);
    EXPECT_NE(m.err.find(pf + " (Grew request): line "), std::string::npos) << m.err;
}

TEST(CliQuery, GrewOnRawTextSaysPredicted)
{
    const CliRun r = cli("query --json --pattern " + q(kSubject) + " 'The dog sleeps.'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("dependency trees of 1 of 1 sentences are predicted"), std::string::npos) << r.err;
    for (const std::string &l : lines(r.out))
        EXPECT_EQ(nlohmann::json::parse(l)["trees"], "predicted") << l;
    // The tagger gives the raw text its UPOS, which the request reads: sleeps -nsubj-> dog.
    EXPECT_NE(r.out.find("\"S\":{\"word\":2,\"form\":\"dog\"}"), std::string::npos) << r.out;
}
