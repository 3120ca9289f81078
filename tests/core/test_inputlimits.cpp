// The one input-limits policy (core/base/inputlimits.h, jsonstrict.h) and the
// exact validation of issue "Hardening": each case of the hostile-input campaign
// with the behaviour the docs promise (docs/file-formats.md, "Limits").
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/base/jsonstrict.h"
#include "core/formats/conllu.h"
#include "core/formats/corpus.h"
#include "core/formats/plaintext.h"
#include "core/formats/ptb.h"
#include "core/formats/treelensjson.h"
#include "core/model/safetensors.h"
#include "core/training/recipe.h"

using namespace treelens;

namespace {

std::string tempDir()
{
    static const std::string dir = [] {
        std::string t = (std::filesystem::temp_directory_path() / "treelens-limits-XXXXXX").string();
        return std::string(::mkdtemp(t.data()));
    }();
    return dir;
}

std::string writeTemp(const std::string &name, const std::string &bytes)
{
    const std::string p = tempDir() + "/" + name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
}

bool has(const std::string &s, const std::string &needle) { return s.find(needle) != std::string::npos; }

const std::string kBom = "\xEF\xBB\xBF";
const std::string kConllu = "1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n";

} // namespace

TEST(InputLimits, DevicesAndFifosAreRefusedByNameNotReadUntilMemoryRunsOut)
{
    // A link to /dev/zero (a model directory's model.safetensors in the campaign).
    const std::string link = tempDir() + "/zero.safetensors";
    std::filesystem::remove(link);
    std::filesystem::create_symlink("/dev/zero", link);
    auto r = readFile(link);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.message(), link + ": not a regular file")) << r.message();
    auto st = readSafetensors(link);
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(has(st.message(), "not a regular file")) << st.message();
    const std::string fifo = tempDir() + "/fifo.conllu";
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto f = readCorpusFile(fifo, CorpusFormat::Conllu);
    ASSERT_FALSE(f.ok());
    EXPECT_TRUE(has(f.message(), "not a regular file")) << f.message();
    // A link to a regular file is read.
    const std::string target = writeTemp("target.conllu", kConllu);
    const std::string ok = tempDir() + "/ok.conllu";
    std::filesystem::remove(ok);
    std::filesystem::create_symlink(target, ok);
    EXPECT_TRUE(readCorpusFile(ok, CorpusFormat::Conllu).ok());
}

TEST(InputLimits, FilesLargerThanTheLimitAreRefusedBeforeReading)
{
    const std::string p = writeTemp("big.txt", std::string(4096, 'a'));
    auto r = readFileLimited(p, 1000);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.message(), "4096 bytes, larger than the limit of 1000 bytes")) << r.message();
    EXPECT_TRUE(readFileLimited(p, 4096).ok());
    EXPECT_FALSE(readFileLimited("", 10).ok());
}

TEST(InputLimits, AByteOrderMarkIsSkippedByEveryReader)
{
    auto c = readConllu(kBom + kConllu, "bom.conllu");
    ASSERT_TRUE(c.ok()) << c.message();
    EXPECT_EQ(c->front().tokens.front().text, "Hi");
    auto p = readPtbSentences(kBom + "(S (NN Hi))\n", "bom.mrg");
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_EQ(p->front().tokens.front().text, "Hi");
    auto t = readPlainText(kBom + "Hi there.\n", "bom.txt");
    ASSERT_TRUE(t.ok()) << t.message();
    EXPECT_EQ(t->front().tokens.front().text, "Hi");
    auto j = readTreeLensJson(kBom + "{\"tokens\": [\"Hi\"]}\n", "bom.jsonl");
    ASSERT_TRUE(j.ok()) << j.message();
    EXPECT_EQ(j->front().tokens.front().text, "Hi");
    // Only at the start: a BOM inside a token is text (U+FEFF), kept.
    auto inner = readPlainText("a" + kBom + "b\n", "x.txt");
    ASSERT_TRUE(inner.ok());
}

TEST(InputLimits, NulBytesAreRefusedWithLineAndColumnByEveryReader)
{
    auto c = readConllu(kConllu + std::string("1\ta\0b\t_\t_\t_\t_\t0\troot\t_\t_\n\n", 25), "nul.conllu");
    ASSERT_FALSE(c.ok());
    EXPECT_TRUE(has(c.message(), "nul.conllu:3: NUL byte at column 4")) << c.message();
    auto p = readPtbSentences(std::string("(S (NN a\0b))\n", 13), "nul.mrg");
    ASSERT_FALSE(p.ok());
    EXPECT_TRUE(has(p.message(), "nul.mrg:1: NUL byte at column 9")) << p.message();
    // Columns count characters, not bytes.
    auto t = readPlainText(std::string("Hé\0llo\n", 8), "nul.txt");
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(has(t.message(), "nul.txt:1: NUL byte at column 3")) << t.message();
    auto j = readTreeLensJson(std::string("{\"tokens\": [\"a\"]}\n{\0}\n", 22), "nul.jsonl");
    ASSERT_FALSE(j.ok());
    EXPECT_TRUE(has(j.message(), "nul.jsonl:2: NUL byte at column 2")) << j.message();
    auto u = readPlainText("ok\n\xff\n", "bad.txt");
    ASSERT_FALSE(u.ok());
    EXPECT_TRUE(has(u.message(), "bad.txt:2: invalid UTF-8 at column 1")) << u.message();
}

TEST(InputLimits, OverlappingMultiwordTokenRangesAreRefused)
{
    const std::string head = "1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n";
    auto word = [](int id) { return std::to_string(id) + "\tw\tw\tX\tX\t_\t1\tdep\t_\t_\n"; };
    const std::string overlap = head + "2-3\tbc\t_\t_\t_\t_\t_\t_\t_\t_\n" + word(2) + "3-4\tcd\t_\t_\t_\t_\t_\t_\t_\t_\n" + word(3) + word(4) + "\n";
    auto r = readConllu(overlap, "mwt.conllu");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.message(), "mwt.conllu:4: multiword token range '3-4' overlaps '2-3'")) << r.message();
    // Adjacent ranges are fine and round-trip.
    const std::string adjacent = head + "2-3\tbc\t_\t_\t_\t_\t_\t_\t_\t_\n" + word(2) + word(3) + "4-5\tde\t_\t_\t_\t_\t_\t_\t_\t_\n" + word(4) + word(5) + "\n";
    auto a = readConllu(adjacent, "mwt.conllu");
    ASSERT_TRUE(a.ok()) << a.message();
    EXPECT_EQ(writeConllu(*a), "# sent_id = s1\n" + adjacent);
}

TEST(InputLimits, SafetensorsNamingATensorTwiceIsRefused)
{
    // Two entries named "a" (8 bytes of data; nlohmann::json alone keeps the last).
    std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
    while (header.size() % 8)
        header += ' ';
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i)
        bytes[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    bytes += header + std::string(8, '\0');
    auto r = readSafetensorsBytes(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size(), "dup.safetensors");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.message(), "dup.safetensors: header: JSON object names the key 'a' twice")) << r.message();
}

TEST(InputLimits, IntegersAreRangeCheckedBeforeNarrowing)
{
    auto j = parseJsonStrict(R"({"model": {"heads": 4294967298, "max_len": 256}})", "config.json");
    ASSERT_TRUE(j.ok());
    auto st = checkJsonIntegers(*j, "config.json");
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(has(st.message(), "config.json: model.heads: 4294967298 is out of range")) << st.message();
    auto neg = parseJsonStrict(R"({"a": [1, -4294967296]})", "x");
    ASSERT_FALSE(checkJsonIntegers(*neg, "x").ok());
    EXPECT_TRUE(has(checkJsonIntegers(*neg, "x").message(), "a[1]: -4294967296 is out of range"));
    // A seed is a 32-bit unsigned (or wider) value by contract.
    auto seed = parseJsonStrict(R"({"training": {"seed": 3000000000}, "x": 2147483647})", "r");
    EXPECT_TRUE(checkJsonIntegers(*seed, "r").ok());
    // Recipes go through the same check.
    auto recipe = TrainRecipe::fromJson(R"({"family": "tree-transformer", "training": {"steps": 4294967552}})", ".", TrainRecipe{});
    ASSERT_FALSE(recipe.ok());
    EXPECT_TRUE(has(recipe.message(), "training.steps: 4294967552 is out of range")) << recipe.message();
    auto dupRecipe = TrainRecipe::fromJson(R"({"family": "a", "family": "b"})", ".", TrainRecipe{});
    ASSERT_FALSE(dupRecipe.ok());
    EXPECT_TRUE(has(dupRecipe.message(), "names the key 'family' twice")) << dupRecipe.message();
}

TEST(InputLimits, TreeLensJsonOffsetsAndHeadsOutOfRangeAreRefusedNotDropped)
{
    auto bad = [](const std::string &line, const std::string &needle) {
        auto r = readTreeLensJson(line + "\n", "x.jsonl");
        ASSERT_FALSE(r.ok()) << line;
        EXPECT_TRUE(has(r.message(), needle)) << r.message();
        EXPECT_EQ(r.message().rfind("x.jsonl:1: ", 0), 0u) << r.message();
    };
    bad(R"({"text": "Hi", "tokens": [{"form": "Hi", "start": 0, "end": 9}]})", "token 1: offsets [0, 9) are out of range for a text of 2 bytes");
    bad(R"({"text": "Hi", "tokens": [{"form": "Hi", "start": -1, "end": 2}]})", "out of range");
    bad(R"({"text": "Hi", "tokens": [{"form": "Hi", "start": 2, "end": 1}]})", "out of range");
    bad(R"({"text": "Hi", "tokens": [{"form": "Hi", "start": 0}]})", "'start' and 'end' go together");
    bad(R"({"text": "Hi", "tokens": [{"form": "Hi", "start": 0, "end": "2"}]})", "must be integers");
    bad(R"({"text": "Hi", "tokens": [{"form": "Hi", "start": 18446744073709551615, "end": 2}]})", "out of range");
    bad(R"({"tokens": ["a", "b"], "heads": [0, 4294967297]})", "head 4294967297 of token 2 is out of range (0..2)");
    auto ok = readTreeLensJson(R"({"text": "Hi", "tokens": [{"form": "Hi", "start": 0, "end": 2}]})", "x.jsonl");
    ASSERT_TRUE(ok.ok()) << ok.message();
    EXPECT_EQ(ok->front().tokens.front().charEnd, 2);
}

TEST(InputLimits, MessagesAreSafeForATerminal)
{
    EXPECT_EQ(printableMessage("HEAD '\x1b[2J0' is bad"), "HEAD '\\x1b[2J0' is bad");
    EXPECT_EQ(printableMessage("a\nb\rc\td"), "a\\x0ab\\x0dc d");
    EXPECT_EQ(printableMessage("del\x7f"), "del\\x7f");
    EXPECT_EQ(printableMessage("csi \xc2\x9b" "2J"), "csi \\u{9b}2J"); // C1 CSI as UTF-8
    EXPECT_EQ(printableMessage("bad \xff byte"), "bad \\xff byte");
    EXPECT_EQ(printableMessage("naïve 日本 ✓"), "naïve 日本 ✓");
    // The readers' errors carry the raw field; the CLI prints it escaped (tests/cli).
    auto r = readConllu("1\ta\ta\tX\tX\t_\t\x1b[2J0\troot\t_\t_\n\n", "esc.conllu");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(printableMessage(r.message()), "esc.conllu:1: HEAD '\\x1b[2J0' is not an integer");
}

TEST(InputLimits, SentenceLengthMessagesNameFileAndLine)
{
    EXPECT_TRUE(checkSentenceLength(250, 250, "a.conllu", 3, "s1").ok());
    auto st = checkSentenceLength(10000, 250, "a.conllu", 3, "s1", "see --max-words");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message(), "a.conllu:3: sentence has 10000 words (limit 250, see --max-words)");
    auto noLine = checkSentenceLength(300, 250, "a.json", 0, "s7");
    EXPECT_EQ(noLine.message(), "a.json: sentence s7 has 300 words (limit 250)");
}

TEST(InputLimits, WritesThroughASymlinkReplaceItsTargetAndKeepTheLink)
{
    const std::string target = writeTemp("target.txt", "old");
    ::chmod(target.c_str(), 0640);
    const std::string link = tempDir() + "/link.txt";
    std::filesystem::remove(link);
    std::filesystem::create_symlink("target.txt", link); // relative, as `ln -s` makes them
    ASSERT_TRUE(writeFileAtomic(link, "new").ok());
    EXPECT_TRUE(std::filesystem::is_symlink(link));
    std::ifstream in(target);
    std::string content((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(content, "new");
    EXPECT_EQ(std::filesystem::status(target).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write | std::filesystem::perms::group_read);
    // A writer dropped without commit leaves nothing behind.
    {
        auto w = AtomicFileWriter::open(tempDir() + "/never.txt");
        ASSERT_TRUE(w.ok());
        ASSERT_TRUE(w->write("partial").ok());
    }
    EXPECT_FALSE(std::filesystem::exists(tempDir() + "/never.txt"));
    for (const auto &e : std::filesystem::directory_iterator(tempDir()))
        EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}
