// Sentence-pair corpora (core/formats/pairs.h): the WikiQA folder layout, the
// ranking TSV, PASCAL RTE XML and TreeLens pairs JSON; their writers; the real
// WikiQA and RTE files of ../shared/data; and bad files, which must give one
// "FILE:LINE: message" and no corpus at all.
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/base/fileio.h"
#include "core/formats/pairs.h"
#include "core/parsing/pairparsing.h"
#include "core/parsing/parser.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::string tempDir()
{
    static const std::string dir = [] {
        std::string t = (std::filesystem::temp_directory_path() / "treelens-pairs-XXXXXX").string();
        return std::string(::mkdtemp(t.data()));
    }();
    return dir;
}

std::string writeTemp(const std::string &name, const std::string &bytes)
{
    const std::string p = tempDir() + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
}

// A WikiQA folder under the temporary directory.
std::string writeWikiQa(const std::string &name, const std::string &a, const std::string &b, const std::string &id,
                        const std::string &sim)
{
    writeTemp(name + "/a.toks", a);
    writeTemp(name + "/b.toks", b);
    writeTemp(name + "/id.txt", id);
    writeTemp(name + "/sim.txt", sim);
    return tempDir() + "/" + name;
}

// The error of a read that must fail; fails the test when it succeeded.
std::string errorOf(const Result<PairCorpus> &r)
{
    EXPECT_FALSE(r.ok()) << "expected an error, read " << (r ? r->pairs.size() : 0) << " pairs";
    return r ? std::string() : r.message();
}

void expectSamePairs(const PairCorpus &a, const PairCorpus &b, bool compareIds = true)
{
    EXPECT_EQ(a.task, b.task);
    EXPECT_EQ(a.labels, b.labels);
    ASSERT_EQ(a.pairs.size(), b.pairs.size());
    for (std::size_t i = 0; i < a.pairs.size(); ++i) {
        SCOPED_TRACE("pair " + std::to_string(i + 1));
        const SentencePair &p = a.pairs[i], &q = b.pairs[i];
        EXPECT_EQ(p.group, q.group);
        EXPECT_EQ(p.label, q.label);
        EXPECT_EQ(p.first.words(), q.first.words());
        EXPECT_EQ(p.second.words(), q.second.words());
        if (compareIds) {
            EXPECT_EQ(p.first.id, q.first.id);
            EXPECT_EQ(p.second.id, q.second.id);
        }
    }
}

const char *kWikiQaA = "how old is the universe\nhow old is the universe\nwho wrote hamlet\n";
const char *kWikiQaB = "the universe is 13.8 billion years old .\nit is big .\nhamlet is a tragedy by william shakespeare .\n";
const char *kWikiQaId = "Q1\nQ1\nQ7\n";
const char *kWikiQaSim = "1\n0\n1\n";

} // namespace

// ------------------------------------------------------------------ WikiQA

TEST(WikiQa, ReadsTheFourFiles)
{
    auto r = readWikiQa({kWikiQaA, kWikiQaB, kWikiQaId, kWikiQaSim}, "wq");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->task, "ranking");
    EXPECT_EQ(r->labels, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(r->source, "wq");
    ASSERT_EQ(r->pairs.size(), 3u);
    const SentencePair &p = r->pairs[1];
    EXPECT_EQ(p.group, "Q1");
    EXPECT_EQ(p.label, "0");
    EXPECT_EQ(p.first.id, "qQ1");
    EXPECT_EQ(p.second.id, "qQ1.c2");
    EXPECT_EQ(r->pairs[2].second.id, "qQ7.c1");
    EXPECT_EQ(p.first.text, "how old is the universe");
    EXPECT_EQ(p.first.words(), (std::vector<std::string>{"how", "old", "is", "the", "universe"}));
    EXPECT_EQ(p.second.line, 2);
    // Already tokenised: "13.8" and "." stay as written, with offsets into the line.
    const Sentence &c = r->pairs[0].second;
    EXPECT_EQ(c.tokens[3].text, "13.8");
    EXPECT_EQ(c.tokens[3].charStart, 16);
    EXPECT_EQ(c.tokens[3].charEnd, 20);
    EXPECT_EQ(c.tokens.back().text, ".");
}

TEST(WikiQa, ReadsAFolderWithCrlfBomAndNoFinalNewline)
{
    const std::string dir = writeWikiQa("crlf", "\xEF\xBB\xBFwho wrote hamlet\r\nwho wrote hamlet\r\n", "shakespeare did .\r\nit is old .",
                                        "7\r\n7\r\n", "1\r\n0");
    for (const char *format : {"auto", "wikiqa"}) {
        auto r = readPairCorpus(dir, format);
        ASSERT_TRUE(r.ok()) << r.message();
        ASSERT_EQ(r->pairs.size(), 2u);
        EXPECT_EQ(r->pairs[0].first.text, "who wrote hamlet");
        EXPECT_EQ(r->pairs[1].second.words(), (std::vector<std::string>{"it", "is", "old", "."}));
        EXPECT_EQ(r->pairs[1].label, "0");
        EXPECT_EQ(r->source, dir);
    }
    // A trailing slash is the same folder.
    auto r = readPairCorpus(dir + "/");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->source, dir);
}

TEST(WikiQa, MismatchedLineCountsNameTheOddFile)
{
    // b.toks has 2 lines, the others 3.
    auto r = readWikiQa({kWikiQaA, "a .\nb .\n", kWikiQaId, kWikiQaSim}, "wq");
    EXPECT_EQ(errorOf(r), "wq/b.toks: 2 lines, but a.toks, id.txt and sim.txt have 3 (each file has one line per pair)");
    // a.toks is the odd one when the other three agree.
    r = readWikiQa({"q\n", kWikiQaB, kWikiQaId, kWikiQaSim}, "wq");
    EXPECT_EQ(errorOf(r), "wq/a.toks: 1 line, but b.toks, id.txt and sim.txt have 3 (each file has one line per pair)");
    // On disk, too.
    const std::string dir = writeWikiQa("short", kWikiQaA, kWikiQaB, kWikiQaId, "1\n0\n");
    EXPECT_EQ(errorOf(readPairCorpus(dir)), dir + "/sim.txt: 2 lines, but a.toks, b.toks and id.txt have 3 (each file has one line per pair)");
}

TEST(WikiQa, BadLabelsIdsAndLinesNameFileAndLine)
{
    EXPECT_EQ(errorOf(readWikiQa({kWikiQaA, kWikiQaB, kWikiQaId, "1\nx\n1\n"}, "wq")), "wq/sim.txt:2: label 'x' is not 0 or 1");
    EXPECT_EQ(errorOf(readWikiQa({kWikiQaA, kWikiQaB, kWikiQaId, "1\n0\n2\n"}, "wq")), "wq/sim.txt:3: label '2' is not 0 or 1");
    EXPECT_EQ(errorOf(readWikiQa({kWikiQaA, kWikiQaB, kWikiQaId, "1\n\n1\n"}, "wq")), "wq/sim.txt:2: label '' is not 0 or 1");
    EXPECT_EQ(errorOf(readWikiQa({kWikiQaA, kWikiQaB, "Q1\n \nQ7\n", kWikiQaSim}, "wq")), "wq/id.txt:2: empty question id");
    EXPECT_EQ(errorOf(readWikiQa({"a\n  \nb\n", kWikiQaB, kWikiQaId, kWikiQaSim}, "wq")), "wq/a.toks:2: empty question");
    EXPECT_EQ(errorOf(readWikiQa({kWikiQaA, "a\nb\n\t\n", kWikiQaId, kWikiQaSim}, "wq")), "wq/b.toks:3: empty candidate sentence");
    EXPECT_EQ(errorOf(readWikiQa({kWikiQaA, "a\nb \xC3\x28 c\nd\n", kWikiQaId, kWikiQaSim}, "wq")),
              "wq/b.toks:2: invalid UTF-8 at column 3");
    // A folder without a.toks is not WikiQA; a missing file is named.
    std::filesystem::create_directories(tempDir() + "/empty");
    EXPECT_NE(errorOf(readPairCorpus(tempDir() + "/empty")).find("a folder without a.toks"), std::string::npos);
    writeTemp("partial/a.toks", kWikiQaA);
    EXPECT_EQ(errorOf(readPairCorpus(tempDir() + "/partial")).rfind(tempDir() + "/partial/b.toks: ", 0), 0u);
}

// --------------------------------------------------------------------- TSV

TEST(PairsTsv, ReadsWithAndWithoutHeaderAndTokenises)
{
    const std::string body = "Q1\tWhat's the capital of France?\tParis is the capital of France.\t1\r\n"
                              "Q1\tWhat's the capital of France?\tFrance is in Europe.\t0\r\n"
                              "\n"
                              "Q2\tWho wrote Hamlet?\tShakespeare wrote it.\t1\n";
    for (const std::string &header : {std::string(), std::string("qid\tquestion\tcandidate\tlabel\n"), std::string("id\tq\ta\tLabel\n")}) {
        SCOPED_TRACE(header);
        auto r = readPairsTsv(header + body, "p.tsv");
        ASSERT_TRUE(r.ok()) << r.message();
        EXPECT_EQ(r->task, "ranking");
        ASSERT_EQ(r->pairs.size(), 3u);
        const SentencePair &p = r->pairs[0];
        EXPECT_EQ(p.group, "Q1");
        EXPECT_EQ(p.label, "1");
        EXPECT_EQ(p.first.text, "What's the capital of France?");
        // The project's tokenizer: clitic and final punctuation split off, offsets kept.
        EXPECT_EQ(p.first.words(), (std::vector<std::string>{"What", "'s", "the", "capital", "of", "France", "?"}));
        EXPECT_EQ(p.first.tokens[1].charStart, 4);
        EXPECT_EQ(r->pairs[1].second.id, "qQ1.c2");
        EXPECT_EQ(r->pairs[2].first.line, header.empty() ? 4 : 5);
    }
}

TEST(PairsTsv, RefusesBadLinesWithFileAndLine)
{
    const std::string ok = "Q1\ta question\tan answer\t1\n";
    EXPECT_EQ(errorOf(readPairsTsv(ok + ok + "Q1\tno label\tcolumn\n", "bad.tsv")),
              "bad.tsv:3: expected 4 tab-separated columns (qid, question, candidate, label), found 3");
    EXPECT_EQ(errorOf(readPairsTsv(ok + "Q1\ta\tb\t1\textra\n", "bad.tsv")),
              "bad.tsv:2: expected 4 tab-separated columns (qid, question, candidate, label), found 5");
    EXPECT_EQ(errorOf(readPairsTsv(ok + "Q1\ta\tb\tyes\n", "bad.tsv")), "bad.tsv:2: non-numeric label 'yes' (a ranking TSV has labels 0 and 1)");
    EXPECT_EQ(errorOf(readPairsTsv(ok + "Q1\ta\tb\t2\n", "bad.tsv")), "bad.tsv:2: label '2' is not 0 or 1");
    EXPECT_EQ(errorOf(readPairsTsv(ok + "Q1\ta\tb\t0.5\n", "bad.tsv")), "bad.tsv:2: label '0.5' is not 0 or 1");
    EXPECT_EQ(errorOf(readPairsTsv(ok + "\ta\tb\t1\n", "bad.tsv")), "bad.tsv:2: empty question id (column 1)");
    EXPECT_EQ(errorOf(readPairsTsv(ok + "Q1\t \tb\t1\n", "bad.tsv")), "bad.tsv:2: empty question (column 2)");
    EXPECT_EQ(errorOf(readPairsTsv(ok + "Q1\ta\t\t1\n", "bad.tsv")), "bad.tsv:2: empty candidate sentence (column 3)");
    EXPECT_EQ(errorOf(readPairsTsv(ok + ok + "Q1\ta \xFF\tb\t1\n", "bad.tsv")), "bad.tsv:3: invalid UTF-8 at column 6");
    // "label" is a header only on the first line.
    EXPECT_EQ(errorOf(readPairsTsv(ok + "qid\tquestion\tcandidate\tlabel\n", "bad.tsv")),
              "bad.tsv:2: non-numeric label 'label' (a ranking TSV has labels 0 and 1)");
}

// --------------------------------------------------------------------- RTE

namespace {

const char *kRte2 = R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE entailment-corpus SYSTEM "rte.dtd">
<entailment-corpus challenge="2">
<pair id="2" entailment="YES" task="IE">
<t>The Bank of Italy, the ultimate arbiter of
   Italian banking mergers, has been engulfed by &quot;scandal&quot;.</t>
<h>A local banker bids.</h>
</pair>
<pair id="4" value="FALSE" task="IE">
  <h>Fazio is subordinate.</h>
  <t>Trichet &amp; Fazio <b>met</b>.</t>
</pair>
</entailment-corpus>
)";

} // namespace

TEST(RteXml, ReadsPairsAndNormalisesLabels)
{
    auto r = readRteXml(kRte2, "rte.xml");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->task, "classification");
    EXPECT_EQ(r->labels, (std::vector<std::string>{"NO", "YES"}));
    ASSERT_EQ(r->pairs.size(), 2u);
    const SentencePair &p = r->pairs[0];
    EXPECT_EQ(p.group, "2");
    EXPECT_EQ(p.label, "YES");
    EXPECT_EQ(p.first.id, "2.t");
    EXPECT_EQ(p.second.id, "2.h");
    // White space runs collapse; entities are decoded; the text is tokenised.
    EXPECT_EQ(p.first.text, "The Bank of Italy, the ultimate arbiter of Italian banking mergers, has been engulfed by \"scandal\".");
    EXPECT_EQ(p.first.tokens[4].text, ",");
    EXPECT_EQ(p.first.line, 5);
    EXPECT_EQ(p.second.line, 7);
    EXPECT_EQ(p.second.words(), (std::vector<std::string>{"A", "local", "banker", "bids", "."}));
    // RTE 1's value="FALSE"; <h> before <t>; markup inside <t> keeps its text.
    EXPECT_EQ(r->pairs[1].label, "NO");
    EXPECT_EQ(r->pairs[1].first.text, "Trichet & Fazio met.");
    EXPECT_EQ(r->pairs[1].first.line, 11);
}

TEST(RteXml, ThreeWayLabelSet)
{
    const std::string doc = "<entailment-corpus>\n"
                            "<pair id='1' entailment='ENTAILMENT'><t>a b</t><h>a</h></pair>\n"
                            "<pair id='2' entailment='contradiction'><t>a b</t><h>c</h></pair>\n"
                            "</entailment-corpus>\n";
    auto r = readRteXml(doc, "3way.xml");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->labels, (std::vector<std::string>{"YES", "UNKNOWN", "CONTRADICTION"}));
    EXPECT_EQ(r->pairs[0].label, "YES");
    EXPECT_EQ(r->pairs[1].label, "CONTRADICTION");
    auto mixed = readRteXml("<entailment-corpus><pair id='1' entailment='NO'><t>a</t><h>b</h></pair>"
                            "<pair id='2' entailment='UNKNOWN'><t>a</t><h>b</h></pair></entailment-corpus>",
                            "mixed.xml");
    ASSERT_TRUE(mixed.ok()) << mixed.message();
    EXPECT_EQ(mixed->labels, (std::vector<std::string>{"NO", "YES", "UNKNOWN", "CONTRADICTION"}));
}

TEST(RteXml, BadFilesNameTheLine)
{
    auto wrap = [](const std::string &pairs) { return "<?xml version=\"1.0\"?>\n<entailment-corpus>\n" + pairs + "</entailment-corpus>\n"; };
    const std::string good = "<pair id=\"1\" entailment=\"YES\">\n<t>a b</t>\n<h>a</h>\n</pair>\n";
    EXPECT_EQ(errorOf(readRteXml(wrap(good + "<pair id=\"2\" task=\"IE\">\n<t>a</t><h>b</h></pair>\n"), "bad.xml")),
              "bad.xml:7: pair has no 'entailment' or 'value' attribute");
    EXPECT_EQ(errorOf(readRteXml(wrap(good + "\n<pair entailment=\"NO\"><t>a</t><h>b</h></pair>\n"), "bad.xml")),
              "bad.xml:8: pair has no 'id' attribute");
    EXPECT_EQ(errorOf(readRteXml(wrap(good + "<pair id=\"2\" entailment=\"NO\">\n<t>a</t></pair>\n"), "bad.xml")),
              "bad.xml:7: pair '2' has no <h> element");
    EXPECT_EQ(errorOf(readRteXml(wrap(good + "<pair id=\"2\" entailment=\"NO\">\n<t>a</t>\n<t>b</t><h>c</h></pair>\n"), "bad.xml")),
              "bad.xml:9: pair '2' has more than one <t> element");
    EXPECT_EQ(errorOf(readRteXml(wrap(good + "<pair id=\"2\" entailment=\"NO\">\n<t> </t><h>c</h></pair>\n"), "bad.xml")),
              "bad.xml:8: pair '2' has an empty <t>");
    EXPECT_EQ(errorOf(readRteXml(wrap(good + "<pair id=\"2\" entailment=\"MAYBE\"><t>a</t><h>b</h></pair>\n"), "bad.xml")),
              "bad.xml:7: pair '2': label 'MAYBE' is not one of YES, NO, TRUE, FALSE, ENTAILMENT, CONTRADICTION, UNKNOWN");
    EXPECT_EQ(errorOf(readRteXml(wrap(good + good), "bad.xml")), "bad.xml:7: pair id '1' repeats the pair at line 3");
    // Malformed XML: pugixml's description, at the line of the fault.
    EXPECT_EQ(errorOf(readRteXml(wrap(good + "<pair id=\"2\" entailment=\"NO\">\n<t>a</h>\n</pair>\n"), "bad.xml")),
              "bad.xml:8: XML error: Start-end tags mismatch");
    EXPECT_EQ(errorOf(readRteXml("<entailment-corpus>\n<pair id=\"1\n", "bad.xml")).rfind("bad.xml:2: XML error: ", 0), 0u);
    EXPECT_EQ(errorOf(readRteXml("", "bad.xml")), "bad.xml:1: XML error: No document element found");
    EXPECT_EQ(errorOf(readRteXml("<corpus/>", "bad.xml")), "bad.xml:1: root element is <corpus>, not <entailment-corpus> (not a PASCAL RTE file)");
    EXPECT_EQ(errorOf(readRteXml(wrap(good + "<pair id=\"2\" entailment=\"NO\"><t>caf\xE9</t><h>b</h></pair>\n"), "bad.xml")),
              "bad.xml:7: invalid UTF-8 at column 36");
    EXPECT_EQ(errorOf(readRteXml(wrap("<pair id=\"2\" entailment=\"NO\">\n<t>a &#xD800;</t><h>b</h></pair>\n"), "bad.xml")),
              "bad.xml:4: pair '2': <t> holds a character reference that is not valid UTF-8");
}

TEST(RteXml, NeverResolvesExternalEntities)
{
    // An entity declared in the internal subset pointing at a local file stays an
    // unexpanded reference: pugixml has no DTD processing at all.
    const std::string doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE entailment-corpus [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n"
                            "<entailment-corpus><pair id=\"1\" entailment=\"YES\"><t>a &xxe; b</t><h>a</h></pair></entailment-corpus>\n";
    auto r = readRteXml(doc, "xxe.xml");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->pairs[0].first.text, "a &xxe; b");
    EXPECT_EQ(r->pairs[0].first.text.find("root:"), std::string::npos);
}

// -------------------------------------------------------------------- JSON

namespace {

const char *kPairsJson = R"({"format": "treelens-pairs", "version": 1, "task": "classification",
 "labels": ["NO", "YES"],
 "pairs": [
  {"group": "7", "label": "YES",
   "first": {"text": "Cats don't bark."},
   "second": {"id": "h7", "text": "Cats are quiet", "tokens": ["Cats", "are", "quiet"], "heads": [2, 0, 2]}},
  {"label": "NO", "first": {"text": "A b."}, "second": {"text": "C"}}
 ]})";

} // namespace

TEST(PairsJson, ReadsTokensTreesAndTokenisesText)
{
    auto r = readPairsJson(kPairsJson, "p.json");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->task, "classification");
    EXPECT_EQ(r->labels, (std::vector<std::string>{"NO", "YES"}));
    ASSERT_EQ(r->pairs.size(), 2u);
    const SentencePair &p = r->pairs[0];
    EXPECT_EQ(p.group, "7");
    EXPECT_EQ(p.first.words(), (std::vector<std::string>{"Cats", "do", "n't", "bark", "."}));
    EXPECT_EQ(p.first.tokens[2].charStart, 7); // "n't" of "don't"
    EXPECT_EQ(p.first.id, "p1.1");
    EXPECT_EQ(p.second.id, "h7");
    ASSERT_TRUE(p.second.dependency);
    EXPECT_EQ(p.second.dependency->heads, (std::vector<int>{2, 0, 2}));
    EXPECT_EQ(p.first.line, 4);
    EXPECT_EQ(r->pairs[1].group, "");
    EXPECT_EQ(r->pairs[1].first.line, 7);
}

TEST(PairsJson, DefaultsLabelsAndAcceptsIntegers)
{
    auto r = readPairsJson(R"({"format":"treelens-pairs","version":1,"task":"ranking","pairs":[
        {"group": 12, "label": 1, "first": {"text": "who?"}, "second": {"text": "me."}}]})",
                           "r.json");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->labels, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(r->pairs[0].group, "12");
    EXPECT_EQ(r->pairs[0].label, "1");
    EXPECT_EQ(r->pairs[0].second.id, "q12.c1");
    auto c = readPairsJson(R"({"format":"treelens-pairs","version":1,"task":"classification","pairs":[
        {"label": "b", "first": {"text": "x"}, "second": {"text": "y"}},
        {"label": "a", "first": {"text": "x"}, "second": {"text": "y"}}]})",
                           "c.json");
    ASSERT_TRUE(c.ok()) << c.message();
    EXPECT_EQ(c->labels, (std::vector<std::string>{"a", "b"}));
}

TEST(PairsJson, ErrorsNamePairAndLine)
{
    auto doc = [](const std::string &task, const std::string &pairs) {
        return "{\"format\":\"treelens-pairs\",\"version\":1,\"task\":\"" + task + "\",\"pairs\":[\n" + pairs + "\n]}";
    };
    const std::string ok = R"({"group":"q","label":"1","first":{"text":"a"},"second":{"text":"b"}})";
    EXPECT_EQ(errorOf(readPairsJson(doc("ranking", ok + ",\n" + R"({"group":"q","label":"yes","first":{"text":"a"},"second":{"text":"b"}})"), "p.json")),
              "p.json:3: pair 2: label 'yes' is not 0 or 1");
    EXPECT_EQ(errorOf(readPairsJson(doc("ranking", ok + ",\n\n" + R"({"label":"1","first":{"text":"a"},"second":{"text":"b"}})"), "p.json")),
              "p.json:4: pair 2: a ranking pair needs a non-empty 'group' (its question id)");
    EXPECT_EQ(errorOf(readPairsJson(doc("ranking", ok + ",\n" + R"({"group":"q","label":"1","first":{"text":"a"}})"), "p.json")),
              "p.json:3: pair 2: has no 'second' sentence");
    EXPECT_EQ(errorOf(readPairsJson(doc("ranking", R"({"group":"q","label":"1","first":{"text":" "},"second":{"text":"b"}})"), "p.json")),
              "p.json:2: pair 1: first: 'text' is empty and there are no 'tokens'");
    EXPECT_EQ(errorOf(readPairsJson(doc("ranking", R"({"group":"q","label":"1","first":{"tokens":[]},"second":{"text":"b"}})"), "p.json")),
              "p.json:2: pair 1: first: 'tokens' must be a non-empty array");
    EXPECT_EQ(errorOf(readPairsJson(doc("ranking", R"({"group":"q","label":"1","first":{"tokens":["a"],"heads":[2]},"second":{"text":"b"}})"), "p.json")),
              "p.json:2: pair 1: first: head 2 of token 1 is out of range (0..1)");
    EXPECT_EQ(errorOf(readPairsJson(doc("ranking", R"({"group":"q","label":"1","label":"0","first":{"text":"a"},"second":{"text":"b"}})"), "p.json")),
              "p.json: JSON object names the key 'label' twice (refused)");
    EXPECT_EQ(errorOf(readPairsJson(doc("tagging", ok), "p.json")), "p.json: 'task' must be \"ranking\" or \"classification\"");
    EXPECT_EQ(errorOf(readPairsJson(R"({"format":"treelens-pairs","version":2,"task":"ranking","pairs":[]})", "p.json")),
              "p.json: 'version' must be 1 (this build reads version 1)");
    EXPECT_EQ(errorOf(readPairsJson(R"([{"tokens":["a"]}])", "p.json")),
              "p.json: not a TreeLens pairs file (expected an object with \"format\": \"treelens-pairs\")");
    EXPECT_EQ(errorOf(readPairsJson(R"({"format":"treelens-pairs","version":1,"task":"classification","labels":["A"],"pairs":[
        {"label":"B","first":{"text":"a"},"second":{"text":"b"}}]})", "p.json")),
              "p.json:2: pair 1: label 'B' is not in 'labels'");
    EXPECT_EQ(errorOf(readPairsJson(R"({"format":"treelens-pairs","version":1,"task":"ranking","labels":["no","yes"],"pairs":[]})", "p.json")),
              "p.json: a ranking corpus has the labels [\"0\", \"1\"]");
    EXPECT_NE(errorOf(readPairsJson("{\"format\":\"treelens-pairs\",\n\"version\":1,", "p.json")).find("not valid JSON"), std::string::npos);
    EXPECT_EQ(errorOf(readPairsJson("{\"format\":\"treelens-pairs\",\n\"x\":\"\xC3\"}", "p.json")), "p.json:2: invalid UTF-8 at column 6");
}

// ---------------------------------------------------- writers, round trips

TEST(PairWriters, JsonRoundTripsEverything)
{
    auto r = readPairsJson(kPairsJson, "p.json");
    ASSERT_TRUE(r.ok()) << r.message();
    const std::string written = writePairsJson(*r);
    auto back = readPairsJson(written, "back.json");
    ASSERT_TRUE(back.ok()) << back.message() << "\n" << written;
    expectSamePairs(*r, *back);
    for (std::size_t i = 0; i < r->pairs.size(); ++i) {
        EXPECT_EQ(back->pairs[i].first.tokens, r->pairs[i].first.tokens);
        EXPECT_EQ(back->pairs[i].second.text, r->pairs[i].second.text);
        EXPECT_EQ(back->pairs[i].second.dependency.has_value(), r->pairs[i].second.dependency.has_value());
        // One pair per line: pair K on line K+1.
        EXPECT_EQ(back->pairs[i].first.line, static_cast<int>(i) + 2);
    }
    EXPECT_EQ(writePairsJson(*back), written);
}

TEST(PairWriters, EmptyCorporaRoundTrip)
{
    // Found by fuzz_pairjson: a classification corpus without pairs has no labels,
    // and "labels": [] does not read (a present label set names at least one).
    for (const char *task : {"classification", "ranking"}) {
        auto r = readPairsJson(std::string(R"({"format":"treelens-pairs","version":1,"task":")") + task + R"(","pairs":[]})", "e.json");
        ASSERT_TRUE(r.ok()) << r.message();
        auto back = readPairsJson(writePairsJson(*r), "back.json");
        ASSERT_TRUE(back.ok()) << back.message() << "\n" << writePairsJson(*r);
        EXPECT_EQ(back->labels, r->labels);
        EXPECT_TRUE(back->pairs.empty());
    }
    auto tsv = readPairsTsv(writePairsTsv(PairCorpus{{}, "ranking", {"0", "1"}, "x"}), "e.tsv");
    ASSERT_TRUE(tsv.ok()) << tsv.message();
    EXPECT_TRUE(tsv->pairs.empty());
}

TEST(PairWriters, TsvRoundTripsRankingCorpora)
{
    auto r = readWikiQa({kWikiQaA, kWikiQaB, kWikiQaId, kWikiQaSim}, "wq");
    ASSERT_TRUE(r.ok()) << r.message();
    const std::string tsv = writePairsTsv(*r);
    EXPECT_EQ(tsv.substr(0, tsv.find('\n')), "qid\tquestion\tcandidate\tlabel");
    EXPECT_NE(tsv.find("\nQ7\twho wrote hamlet\thamlet is a tragedy by william shakespeare .\t1\n"), std::string::npos);
    auto back = readPairsTsv(tsv, "back.tsv");
    ASSERT_TRUE(back.ok()) << back.message();
    expectSamePairs(*r, *back);
    // Tabs and line breaks inside a field cannot split the row.
    PairCorpus odd = *r;
    odd.pairs.resize(1);
    odd.pairs[0].group = "a\tb";
    odd.pairs[0].first.tokens[0].text = "x\ny";
    auto again = readPairsTsv(writePairsTsv(odd), "odd.tsv");
    ASSERT_TRUE(again.ok()) << again.message();
    EXPECT_EQ(again->pairs[0].group, "a b");
    EXPECT_EQ(again->pairs[0].first.words().front(), "x");
}

TEST(PairFormats, DetectionAndNames)
{
    EXPECT_EQ(*pairFormatFromPath("x.xml"), PairFormat::Rte);
    EXPECT_EQ(*pairFormatFromPath("x.JSON"), PairFormat::Json);
    EXPECT_EQ(*pairFormatFromPath("x.tsv"), PairFormat::Tsv);
    EXPECT_EQ(*pairFormatFromPath("x.txt"), PairFormat::Tsv);
    EXPECT_FALSE(pairFormatFromPath("x.conllu").ok());
    for (PairFormat f : {PairFormat::WikiQa, PairFormat::Tsv, PairFormat::Rte, PairFormat::Json})
        EXPECT_EQ(*parsePairFormat(pairFormatName(f)), f);
    EXPECT_EQ(parsePairFormat("csv").message(), "unknown pair format 'csv' (known: wikiqa, tsv, rte, json)");
    EXPECT_FALSE(readPairCorpusText("", "x", PairFormat::WikiQa).ok());

    const std::string tsv = writeTemp("c.tsv", "Q1\ta\tb\t1\n");
    const std::string xml = writeTemp("c.xml", kRte2);
    const std::string json = writeTemp("c.json", kPairsJson);
    EXPECT_EQ(readPairCorpus(tsv)->pairs.size(), 1u);
    EXPECT_EQ(readPairCorpus(xml)->pairs.size(), 2u);
    EXPECT_EQ(readPairCorpus(json)->pairs.size(), 2u);
    EXPECT_EQ(readPairCorpus(xml)->source, xml);
    // A mistyped path is said to be missing, not of an unclear format (wikiqa/tst).
    const auto missing = readPairCorpus(tempDir() + "/wikiqa/tst");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.message().find("wikiqa/tst: No such file or directory"), std::string::npos) << missing.message();
    // An explicit format wins over the extension.
    EXPECT_EQ(readPairCorpus(writeTemp("c.data", kPairsJson), "json")->pairs.size(), 2u);
    EXPECT_EQ(errorOf(readPairCorpus(tempDir() + "/missing.tsv")), tempDir() + "/missing.tsv: No such file or directory");
}

TEST(PairFormats, NothingIsHalfLoaded)
{
    // Errors on the last line of long inputs: no corpus comes back, not the good part.
    std::string tsv, a, b, id, sim, xml = "<entailment-corpus>\n";
    for (int i = 0; i < 200; ++i) {
        tsv += "Q" + std::to_string(i / 4) + "\tq\tc\t" + std::to_string(i % 2) + "\n";
        a += "q\n";
        b += "c\n";
        id += std::to_string(i / 4) + "\n";
        sim += std::to_string(i % 2) + "\n";
        xml += "<pair id='" + std::to_string(i) + "' value='TRUE'><t>a</t><h>b</h></pair>\n";
    }
    EXPECT_EQ(errorOf(readPairsTsv(tsv + "Q9\tq\tc\n", "long.tsv")).rfind("long.tsv:201: ", 0), 0u);
    EXPECT_EQ(errorOf(readWikiQa({a + "q\n", b + "c\n", id + "9\n", sim + "5\n"}, "wq")), "wq/sim.txt:201: label '5' is not 0 or 1");
    EXPECT_EQ(errorOf(readRteXml(xml + "<pair id='x'><t>a</t><h>b</h></pair>\n</entailment-corpus>", "long.xml")),
              "long.xml:202: pair has no 'entailment' or 'value' attribute");
    // ... and an unchanged corpus stays unchanged when a later read fails.
    Result<PairCorpus> loaded = readPairsTsv(tsv, "long.tsv");
    ASSERT_TRUE(loaded.ok());
    const std::size_t before = loaded->pairs.size();
    if (auto next = readPairsTsv(tsv + "bad\n", "bad.tsv"))
        loaded = std::move(next);
    EXPECT_EQ(loaded->pairs.size(), before);
}

// --------------------------------------------------------- shared corpora

TEST(SharedPairs, WikiQaSplitsLoadWithTheirCounts)
{
    TREELENS_REQUIRE_SHARED("data/wikiqa/train/a.toks");
    const std::pair<const char *, std::size_t> splits[] = {{"train", 8672}, {"dev", 1130}, {"test", 2351}};
    for (const auto &[split, count] : splits) {
        SCOPED_TRACE(split);
        auto r = readPairCorpus(test::sharedPath(std::string("data/wikiqa/") + split));
        ASSERT_TRUE(r.ok()) << r.message();
        EXPECT_EQ(r->pairs.size(), count);
        for (const auto &p : r->pairs)
            ASSERT_TRUE(p.label == "0" || p.label == "1");
        // The JSON writer round-trips a real split exactly.
        auto back = readPairsJson(writePairsJson(*r), "back.json");
        ASSERT_TRUE(back.ok()) << back.message();
        expectSamePairs(*r, *back);
    }
}

TEST(SharedPairs, RteFilesLoadWithTheirCounts)
{
    TREELENS_REQUIRE_SHARED("data/rte/rte1_dev.xml");
    // Counts from `grep -o '<pair ' FILE | wc -l` (RTE 2 dev in this copy has 400 pairs).
    const std::pair<const char *, std::size_t> files[] = {{"rte1_dev", 567}, {"rte1_test", 800}, {"rte2_dev", 400},
                                                           {"rte2_test", 800}, {"rte3_dev", 800}, {"rte3_test", 800}};
    for (const auto &[name, count] : files) {
        SCOPED_TRACE(name);
        auto r = readPairCorpus(test::sharedPath(std::string("data/rte/") + name + ".xml"));
        ASSERT_TRUE(r.ok()) << r.message();
        EXPECT_EQ(r->pairs.size(), count);
        EXPECT_EQ(r->labels, (std::vector<std::string>{"NO", "YES"}));
        for (const auto &p : r->pairs) {
            EXPECT_FALSE(p.first.tokens.empty());
            EXPECT_EQ(p.first.text.find('\n'), std::string::npos);
        }
        auto back = readPairsJson(writePairsJson(*r), "back.json");
        ASSERT_TRUE(back.ok()) << back.message();
        expectSamePairs(*r, *back);
    }
    // First pair of RTE 1 dev, by hand from the file.
    auto r = readPairCorpus(test::sharedPath("data/rte/rte1_dev.xml"));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->pairs[0].group, "8");
    EXPECT_EQ(r->pairs[0].label, "NO");
    EXPECT_EQ(r->pairs[0].second.text, "Crude oil prices rose to $37.80 per barrel");
    EXPECT_EQ(r->pairs[0].first.line, 5);
}

namespace {

/// Parses nothing (a flat tree), reporting progress per sentence as the default parseAll does.
class FlatParser final : public Parser {
public:
    ParserInfo info() const override { return {"flat", true, false, "test"}; }
    Result<Sentence> parse(const Sentence &input) override
    {
        Sentence s = input;
        DependencyTree t;
        t.heads.assign(s.tokens.size(), 0);
        for (std::size_t i = 1; i < s.tokens.size(); ++i)
            t.heads[i] = 1;
        t.deprels.assign(s.tokens.size(), "dep");
        s.dependency = t;
        return s;
    }
};

} // namespace

namespace {

Token wordToken(const char *text)
{
    Token t;
    t.text = text;
    return t;
}

} // namespace

TEST(PairParsing, ProgressOnlyGoesUpAcrossBatches)
{
    // The workbench's status ran "parsing 112/256" back to "16/256": the parser's own count
    // within a batch was passed on as the corpus' count.
    PairCorpus corpus;
    corpus.task = "classification";
    for (int i = 0; i < 50; ++i) {
        SentencePair p;
        p.first.tokens = {wordToken("a"), wordToken("b")};
        p.second.tokens = {wordToken("c")};
        corpus.pairs.push_back(p);
    }
    std::vector<std::pair<std::size_t, std::size_t>> reports;
    RunControl control;
    control.progress = [&](std::size_t done, std::size_t total, const std::string &) { reports.emplace_back(done, total); };
    FlatParser parser;
    auto unparsed = parsePairCorpus(corpus, parser, control, 100, 16);
    ASSERT_TRUE(unparsed.ok()) << unparsed.message();
    EXPECT_EQ(*unparsed, 0u);
    ASSERT_FALSE(reports.empty());
    for (std::size_t i = 0; i < reports.size(); ++i) {
        EXPECT_EQ(reports[i].second, 100u);
        if (i > 0) {
            EXPECT_GE(reports[i].first, reports[i - 1].first) << "report " << i;
        }
    }
    EXPECT_EQ(reports.back().first, 100u);
    EXPECT_TRUE(corpus.pairs[49].second.dependency.has_value());
}

TEST(CompleteTrees, ATreebankThatCarriesItsTreesOpensNoParser)
{
    // Issue 30: analyze of a CoNLL-U file with its trees still opened the neural parser and
    // failed where its model file was absent.
    auto sentence = [](bool tree) {
        Sentence s;
        s.tokens = {wordToken("Dogs"), wordToken("bark")};
        if (tree)
            s.dependency = DependencyTree{{2, 0}, {"nsubj", "root"}};
        return s;
    };
    int opened = 0;
    FlatParser parser;
    auto absent = [&]() -> Result<Parser *> {
        ++opened;
        return Error{"parser-dep-en-ewt.safetensors: not found"};
    };
    std::vector<Sentence> gold{sentence(true), sentence(true)};
    EXPECT_TRUE(completeTrees(gold, true, false, "gold.conllu", absent).ok());
    EXPECT_EQ(opened, 0);
    EXPECT_EQ(gold[0].dependency->deprels[0], "nsubj"); // its own tree, kept
    // A sentence without one needs the parser: its absence is the error.
    std::vector<Sentence> mixed{sentence(true), sentence(false)};
    const Status st = completeTrees(mixed, true, false, "mixed.conllu", absent);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("not found"), std::string::npos) << st.message();
    EXPECT_EQ(opened, 1);
    auto present = [&]() -> Result<Parser *> {
        ++opened;
        return &parser;
    };
    ASSERT_TRUE(completeTrees(mixed, true, false, "mixed.conllu", present).ok());
    EXPECT_EQ(opened, 2);
    EXPECT_EQ(mixed[0].dependency->deprels[0], "nsubj");    // kept
    EXPECT_EQ(mixed[1].dependency->deprels[0], "dep");      // parsed (the flat parser's)
    EXPECT_EQ(mixed[1].dependency->heads, (std::vector<int>{0, 1}));
}
