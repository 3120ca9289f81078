// treelens-cli query --stat (docs/query.md, "Statistics"): the attention statistic equals the
// mean of analyze --json's word-level attention over the occurrences (and so does its
// fixed-offset baseline), computed here from analyze's output; the surprisal statistic and
// its bins equal the means of analyze's surprisal on a decoder fixture; refusals.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <cstdio>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "clirun.h"
#include "testutil.h"

using namespace treelens;
using test::CliRun;

namespace {

CliRun cli(const std::string &args) { return test::runCli(args, ""); }

std::string writeTemp(const std::string &name, const std::string &text)
{
    const std::string dir = test::cliTempDir() + "/querystat";
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// The corpus of tests/core/test_deppattern.cpp. `V [upos=VERB]; V -[1=nsubj]-> S` has four
// occurrences: s1 chases(6)->cat(5), barking(9)->dogs(2); s2 eaten(3)->It(1); s3
// sleeps(2)->Kim(1). Offsets S - V: -1, -7, -2, -1: the baseline's offset is -1.
const char *kCorpus =
    "# sent_id = s1\n"
    "1\tThe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t2\tdet\t_\t_\n"
    "2\tdogs\tdog\tNOUN\tNNS\tNumber=Plur\t9\tnsubj\t_\t_\n"
    "3\tthat\tthat\tPRON\tWDT\tPronType=Rel\t6\tobj\t_\t_\n"
    "4\tthe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t5\tdet\t_\t_\n"
    "5\tcat\tcat\tNOUN\tNN\tNumber=Sing\t6\tnsubj\t_\t_\n"
    "6\tchases\tchase\tVERB\tVBZ\tMood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin\t2\tacl:relcl\t_\t_\n"
    "7\twere\tbe\tAUX\tVBD\tMood=Ind|Number=Plur|Person=3|Tense=Past|VerbForm=Fin\t9\taux\t_\t_\n"
    "8\tnot\tnot\tPART\tRB\tPolarity=Neg\t9\tadvmod\t_\t_\n"
    "9\tbarking\tbark\tVERB\tVBG\tTense=Pres|VerbForm=Part\t0\troot\t_\t_\n"
    "10\t.\t.\tPUNCT\t.\t_\t9\tpunct\t_\t_\n"
    "\n"
    "# sent_id = s2\n"
    "1\tIt\tit\tPRON\tPRP\tNumber=Sing\t3\tnsubj:pass\t_\t_\n"
    "2\twas\tbe\tAUX\tVBD\tNumber=Sing\t3\taux:pass\t_\t_\n"
    "3\teaten\teat\tVERB\tVBN\tVoice=Pass\t0\troot\t_\t_\n"
    "4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n"
    "\n"
    "# sent_id = s3\n"
    "1\tKim\tKim\tPROPN\tNNP\tNumber=Sing\t2\tnsubj\t_\t_\n"
    "2\tsleeps\tsleep\tVERB\tVBZ\tNumber=Sing\t0\troot\t_\t_\n"
    "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n";

const char *kPattern = "'pattern { V [upos=VERB]; V -[1=nsubj]-> S }'";

/// analyze --json's records by sent_id.
std::map<std::string, nlohmann::json> analyses(const std::string &corpus, const std::string &model)
{
    const CliRun r = cli("analyze --json --input " + test::shellQuote(corpus) + model);
    EXPECT_EQ(r.code, 0) << r.err;
    std::map<std::string, nlohmann::json> out;
    std::string line;
    std::istringstream in(r.out);
    while (std::getline(in, line))
        if (!line.empty()) {
            auto j = nlohmann::json::parse(line);
            out[j.at("sent_id").get<std::string>()] = j;
        }
    return out;
}

} // namespace

TEST(CliQueryStat, AttentionIsTheMeanOfAnalyzesWordAttentionOverTheOccurrences)
{
    const std::string corpus = writeTemp("corpus.conllu", kCorpus);
    const std::string figure = writeTemp("heat.svg", "");
    const CliRun r = cli("query --json --stat attention V S --figure " + test::shellQuote(figure) + " --pattern " + kPattern
                         + " --input " + test::shellQuote(corpus));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("stat"), "attention");
    EXPECT_EQ(j.at("from"), "V");
    EXPECT_EQ(j.at("to"), "S");
    EXPECT_EQ(j.at("occurrences"), 4);
    EXPECT_EQ(j.at("trees"), "gold");
    const auto a = analyses(corpus, "");
    ASSERT_EQ(a.size(), 3u);
    // (sent_id, V, S) and the baseline's word at offset -1 from V.
    const struct {
        const char *id;
        int v, s;
    } occ[] = {{"s1", 6, 5}, {"s1", 9, 2}, {"s2", 3, 1}, {"s3", 2, 1}};
    const int layers = j.at("layers"), heads = j.at("heads");
    ASSERT_GT(layers, 0);
    ASSERT_GT(heads, 0);
    EXPECT_EQ(j.at("baseline").at("offset"), -1);
    EXPECT_EQ(j.at("baseline").at("hits"), 2);
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h) {
            double sum = 0, sumSq = 0, base = 0;
            for (const auto &o : occ) {
                const auto &rec = a.at(o.id);
                // Rows and columns are tokens ([CLS] first for the default model): word w is
                // token word_token[w - 1].
                const auto &wt = rec.at("word_token");
                const auto &m = rec.at("attention")[l][h];
                const int v = wt[o.v - 1], s = wt[o.s - 1], before = wt[o.v - 2];
                const double x = m[v][s].get<double>();
                sum += x, sumSq += x * x;
                base += m[v][before].get<double>();
            }
            const double mean = sum / 4, sd = std::sqrt((sumSq - sum * sum / 4) / 3);
            EXPECT_NEAR(j.at("mean")[l][h].get<double>(), mean, 1e-5) << "L" << l + 1 << " H" << h + 1;
            EXPECT_NEAR(j.at("ci95")[l][h][1].get<double>(), mean + 1.96 * sd / 2.0, 1e-5);
            EXPECT_NEAR(j.at("baseline").at("mean")[l][h].get<double>(), base / 4, 1e-5);
        }
    ASSERT_EQ(j.at("list").size(), 4u);
    EXPECT_EQ(j.at("list")[0].at("sent_id"), "s1");
    // The heatmap: one cell per layer x head in each grid, the first cell's mean written in it.
    std::ifstream in(figure);
    const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t rects = 0;
    for (std::size_t at = svg.find("<title>L"); at != std::string::npos; at = svg.find("<title>L", at + 1))
        ++rects;
    EXPECT_EQ(rects, static_cast<std::size_t>(2 * layers * heads));
    char first[32];
    std::snprintf(first, sizeof first, ">%.2f</text>", j.at("mean")[0][0].get<double>());
    EXPECT_NE(svg.find(first), std::string::npos);
}

TEST(CliQueryStat, SurprisalBinnedByDistanceOnADecoder)
{
    TREELENS_REQUIRE_SHARED("fixtures/hf-decoders-reference/gpt2-tiny-random");
    const std::string model = " --model " + test::shellQuote(test::sharedPath("fixtures/hf-decoders-reference/gpt2-tiny-random"));
    const std::string corpus = writeTemp("corpus-lm.conllu", kCorpus);
    const CliRun r = cli("query --json --stat surprisal V --by 'distance(S, V)' --pattern " + std::string(kPattern) + " --input "
                         + test::shellQuote(corpus) + model);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto a = analyses(corpus, model);
    auto surprisal = [&](const char *id, int word) { return a.at(id).at("surprisal")[word - 1].get<double>(); };
    // Distances: 1 (chases-cat, sleeps-Kim), 7 (barking-dogs), 2 (eaten-It).
    const double d1 = (surprisal("s1", 6) + surprisal("s3", 2)) / 2;
    ASSERT_EQ(j.at("bins").size(), 3u);
    EXPECT_EQ(j.at("bins")[0].at("value"), 1.0);
    EXPECT_EQ(j.at("bins")[0].at("occurrences"), 2);
    EXPECT_NEAR(j.at("bins")[0].at("mean").get<double>(), d1, 1e-6);
    EXPECT_NEAR(j.at("bins")[1].at("mean").get<double>(), surprisal("s2", 3), 1e-6);
    EXPECT_NEAR(j.at("bins")[2].at("mean").get<double>(), surprisal("s1", 9), 1e-6);
    EXPECT_NEAR(j.at("mean").get<double>(), (surprisal("s1", 6) + surprisal("s1", 9) + surprisal("s2", 3) + surprisal("s3", 2)) / 4, 1e-6);
    EXPECT_EQ(j.at("unit"), "nats");
}

TEST(CliQueryStat, Refusals)
{
    const std::string corpus = writeTemp("corpus-r.conllu", kCorpus);
    const std::string in = " --input " + test::shellQuote(corpus);
    CliRun r = cli(std::string("query --stat attention V Q --pattern ") + kPattern + in);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("'Q' is not a node of the pattern (V, S)"), std::string::npos) << r.err;
    r = cli("query --stat attention V S --pattern 'VP < NP'" + in);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("--stat needs a Grew request"), std::string::npos) << r.err;
    r = cli(std::string("query --stat attention V S --by 'distance(V,S)' --pattern ") + kPattern + in);
    EXPECT_NE(r.err.find("--by bins the surprisal statistic"), std::string::npos) << r.err;
    r = cli(std::string("query --stat surprisal V --by 'length(V)' --pattern ") + kPattern + in);
    EXPECT_NE(r.err.find("not a measure"), std::string::npos) << r.err;
    r = cli(std::string("query --count --stat surprisal V --pattern ") + kPattern + in);
    EXPECT_NE(r.err.find("--stat does not take --count"), std::string::npos) << r.err;
    r = cli(std::string("query --stat attention V S --figure x.png --pattern ") + kPattern + in);
    EXPECT_NE(r.err.find("as SVG"), std::string::npos) << r.err;
}
