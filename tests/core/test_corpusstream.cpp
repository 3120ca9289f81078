// CorpusStream (the streaming path of parse/analyze): read piece by piece, a
// file gives exactly the sentences, ids and line numbers of a whole-file read
// (the independent reference: readCorpusFile), for every format, on UD EWT dev
// and on small files with awkward boundaries; errors in a later piece name the
// file's own line.
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/formats/conllu.h"
#include "core/formats/corpus.h"
#include "core/formats/corpusstream.h"
#include "core/formats/treelensjson.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::string writeTemp(const std::string &name, const std::string &bytes)
{
    static const std::string dir = [] {
        std::string t = (std::filesystem::temp_directory_path() / "treelens-stream-XXXXXX").string();
        return std::string(::mkdtemp(t.data()));
    }();
    const std::string p = dir + "/" + name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
}

std::vector<Sentence> readAll(CorpusStream &s, std::size_t count, std::size_t *pieces)
{
    std::vector<Sentence> out;
    *pieces = 0;
    for (;;) {
        auto r = s.next(count);
        EXPECT_TRUE(r.ok()) << r.message();
        if (!r || r->empty())
            break;
        ++*pieces;
        for (auto &x : *r)
            out.push_back(std::move(x));
    }
    return out;
}

void expectSameAsWhole(const std::string &path, CorpusFormat format, std::size_t count, const CorpusReadOptions &options = {})
{
    auto whole = readCorpusFile(path, format, options);
    ASSERT_TRUE(whole.ok()) << whole.message();
    auto stream = CorpusStream::open(path, format, options);
    ASSERT_TRUE(stream.ok()) << stream.message();
    std::size_t pieces = 0;
    const auto got = readAll(*stream, count, &pieces);
    ASSERT_EQ(got.size(), whole->size()) << path;
    for (std::size_t i = 0; i < got.size(); ++i) {
        // Everything a sentence carries, through two independent serialisations.
        EXPECT_EQ(writeConllu({got[i]}), writeConllu({(*whole)[i]})) << path << " sentence " << i;
        EXPECT_EQ(sentenceToJsonLine(got[i]), sentenceToJsonLine((*whole)[i])) << path << " sentence " << i;
        EXPECT_EQ(got[i].id, (*whole)[i].id);
        EXPECT_EQ(got[i].line, (*whole)[i].line) << path << " sentence " << i;
    }
    if (whole->size() > count * 2 && format != CorpusFormat::Ptb) {
        EXPECT_GE(pieces, options.split ? 2 : whole->size() / count) << "read in pieces"; // running text: cut at paragraphs
    }
}

} // namespace

TEST(CorpusStream, UdEwtDevReadsAsAWholeFileInEveryFormat)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    const std::string dev = test::sharedPath("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    expectSameAsWhole(dev, CorpusFormat::Conllu, 64);
    expectSameAsWhole(dev, CorpusFormat::Conllu, 1);
    auto sentences = readCorpusFile(dev, CorpusFormat::Conllu);
    ASSERT_TRUE(sentences.ok());
    std::string text, jsonl;
    for (const auto &s : *sentences) {
        text += s.text + "\n";
        jsonl += sentenceToJsonLine(s) + "\n";
    }
    const std::string t = writeTemp("dev.txt", text), j = writeTemp("dev.jsonl", jsonl);
    expectSameAsWhole(t, CorpusFormat::Text, 100);
    expectSameAsWhole(j, CorpusFormat::Json, 100);
}

TEST(CorpusStream, AwkwardBoundariesAndFormatsReadWhole)
{
    // Runs of blank lines, a BOM, CRLF, comments; pieces of one sentence.
    const std::string conllu = "\xEF\xBB\xBF# sent_id = a\n1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n\n\n"
                               "# text = Yo\r\n1\tYo\t_\t_\t_\t_\t0\troot\t_\t_\r\n\r\n"
                               "1\tZ\t_\t_\t_\t_\t0\troot\t_\t_\n";
    expectSameAsWhole(writeTemp("a.conllu", conllu), CorpusFormat::Conllu, 1);
    expectSameAsWhole(writeTemp("a.txt", "\n\nOne.\n\n  Two words.\nThree\n"), CorpusFormat::Text, 1);
    CorpusReadOptions split;
    split.split = true;
    std::string running;
    for (int p = 0; p < 30; ++p)
        running += "This is paragraph " + std::to_string(p) + ". It has two sentences.\n\n";
    expectSameAsWhole(writeTemp("run.txt", running), CorpusFormat::Text, 2, split);
    expectSameAsWhole(writeTemp("a.jsonl", "\n\n{\"tokens\": [\"a\"]}\n\n{\"id\": \"x\", \"tokens\": [\"b\"]}\n{\"tokens\": [\"c\"]}\n"),
                      CorpusFormat::Json, 1);
    expectSameAsWhole(writeTemp("arr.json", "\n [{\"tokens\": [\"a\"]}, {\"tokens\": [\"b\"]}]\n"), CorpusFormat::Json, 1);
    expectSameAsWhole(writeTemp("a.mrg", "(S (NN a))\n(S\n  (NN b))\n"), CorpusFormat::Ptb, 1);
}

TEST(CorpusStream, ErrorsInALaterPieceNameTheFilesLine)
{
    std::string conllu;
    for (int i = 0; i < 10; ++i)
        conllu += "1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n";
    conllu += "1\tHi\t_\t_\t_\t_\tx\troot\t_\t_\n\n"; // line 21
    const std::string p = writeTemp("late.conllu", conllu);
    auto s = CorpusStream::open(p, CorpusFormat::Conllu);
    ASSERT_TRUE(s.ok());
    std::string error;
    for (int k = 0; k < 20 && error.empty(); ++k) {
        auto r = s->next(3);
        if (!r)
            error = r.message();
        else if (r->empty())
            break;
    }
    EXPECT_EQ(error, p + ":21: HEAD 'x' is not an integer");
    auto dev = CorpusStream::open("/dev/zero", CorpusFormat::Text);
    ASSERT_FALSE(dev.ok());
    EXPECT_NE(dev.message().find("not a regular file"), std::string::npos);
}
