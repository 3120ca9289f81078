// Shards and their merge (core/formats/shard.h): ranges worked out by hand, the CRC-32
// check value of the standard, shard files written by hand merged in any order, and every
// refusal merge owes a user (a missing, repeated, incomplete or foreign shard).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "core/formats/shard.h"

using namespace treelens;

namespace {

std::string tempDir()
{
    static std::string dir = [] {
        std::string t = ::testing::TempDir() + "treelens-shard-XXXXXX";
        return std::string(mkdtemp(t.data()));
    }();
    return dir;
}

std::string write(const std::string &name, const std::string &text)
{
    const std::string p = tempDir() + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

ShardHeader header(int index, int count, std::size_t begin, std::size_t end, std::size_t total = 5)
{
    ShardHeader h;
    h.command = "score-pairs";
    h.options = "treelens-cli score-pairs -m idf-overlap -i p.tsv";
    h.shard = {index, count};
    h.input = {"p.tsv", 120, "0a1b2c3d"};
    h.total = total;
    h.begin = begin;
    h.end = end;
    h.headerLines = 1;
    return h;
}

/// A shard file of records begin..end-1 ("r<i>" lines) under a one-line table header.
std::string shardFile(const std::string &name, const ShardHeader &h, bool complete = true)
{
    std::string text = shardHeaderLine(h) + "head\n";
    for (std::size_t i = h.begin; i < h.end; ++i)
        text += "r" + std::to_string(i) + "\n";
    if (complete)
        text += shardEndLine(h.end - h.begin);
    return write(name, text);
}

} // namespace

TEST(Shard, SpecsAndRangesByHand)
{
    auto s = parseShardSpec("2/4");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->index, 2);
    EXPECT_EQ(s->count, 4);
    EXPECT_EQ(s->str(), "2/4");
    for (const char *bad : {"0/4", "5/4", "2", "a/b", "2/0", "-1/3", "1/", "/3", " 1/3", "1/3x"})
        EXPECT_FALSE(parseShardSpec(bad)) << bad;
    // 10 items, 4 shards of single items: ⌊(i−1)·10/4⌋ = 0, 2, 5, 7, 10.
    const std::size_t expect[5] = {0, 2, 5, 7, 10};
    for (int i = 1; i <= 4; ++i) {
        const ShardRange r = shardRange(10, {i, 4});
        EXPECT_EQ(r.begin, expect[i - 1]);
        EXPECT_EQ(r.end, expect[i]);
    }
    // In blocks of 3 (blocks [0,3) [3,6) [6,9) [9,10)), 3 shards: blocks 0 | 1 | 2-3.
    EXPECT_EQ(shardRange(10, {1, 3}, 3).end, 3u);
    EXPECT_EQ(shardRange(10, {2, 3}, 3).begin, 3u);
    EXPECT_EQ(shardRange(10, {2, 3}, 3).end, 6u);
    EXPECT_EQ(shardRange(10, {3, 3}, 3).end, 10u);
    // More shards than blocks: some are empty.
    EXPECT_EQ(shardRange(10, {1, 4}, 512).size(), 0u);
    EXPECT_EQ(shardRange(10, {4, 4}, 512).size(), 10u);
    // Groups starting at 0, 3, 4, 8 of 10 items, 2 shards: groups 0-1 | 2-3.
    EXPECT_EQ(shardRangeByGroups({0, 3, 4, 8}, 10, {1, 2}).end, 4u);
    EXPECT_EQ(shardRangeByGroups({0, 3, 4, 8}, 10, {2, 2}).begin, 4u);
    EXPECT_EQ(shardRangeByGroups({0, 3, 4, 8}, 10, {2, 2}).end, 10u);
    // Any total, block and N: the shards tile the input in order.
    std::mt19937 rng(7);
    for (int t = 0; t < 300; ++t) {
        const std::size_t total = rng() % 3000, block = 1 + rng() % 600;
        const int n = 1 + static_cast<int>(rng() % 12);
        std::size_t next = 0;
        for (int i = 1; i <= n; ++i) {
            const ShardRange r = shardRange(total, {i, n}, block);
            ASSERT_EQ(r.begin, next);
            ASSERT_TRUE(r.begin % block == 0 || r.begin == total);
            next = r.end;
        }
        ASSERT_EQ(next, total);
    }
}

TEST(Shard, InputIdentityIsTheCrc32OfTheBytes)
{
    // The CRC-32 check value of "123456789" (ISO-HDLC / zlib) is cbf43926.
    const std::string p = write("check.txt", "123456789");
    auto id = inputIdentity(p);
    ASSERT_TRUE(id) << id.message();
    EXPECT_EQ(id->crc32, "cbf43926");
    EXPECT_EQ(id->size, 9u);
    EXPECT_EQ(id->path, p);
    // A folder: its files in name order; another byte in one file changes it.
    const std::string dir = tempDir() + "/corpus";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/a.toks") << "who wrote hamlet ?\n";
    std::ofstream(dir + "/b.toks") << "shakespeare wrote hamlet .\n";
    auto f1 = inputIdentity(dir);
    ASSERT_TRUE(f1);
    EXPECT_EQ(f1->size, 19u + 27u);
    std::ofstream(dir + "/b.toks") << "shakespeare wrote hamlet !\n";
    auto f2 = inputIdentity(dir);
    ASSERT_TRUE(f2);
    EXPECT_NE(f1->crc32, f2->crc32);
    EXPECT_FALSE(inputIdentity(tempDir() + "/no-such-file"));
}

TEST(Shard, MergeJoinsShardsInAnyOrderAndRefusesWhatIsNotTheWholeRun)
{
    const std::string a = shardFile("s1", header(1, 3, 0, 2)), b = shardFile("s2", header(2, 3, 2, 2)),
                      c = shardFile("s3", header(3, 3, 2, 5));
    auto m = mergeShards({c, a, b});
    ASSERT_TRUE(m) << m.message();
    EXPECT_EQ(m->body, "head\nr0\nr1\nr2\nr3\nr4\n") << "the table header once, the records in input order";
    EXPECT_EQ(m->records, 5u);
    auto f = readShardFile(c);
    ASSERT_TRUE(f);
    EXPECT_TRUE(f->complete);
    EXPECT_EQ(f->header.begin, 2u);
    EXPECT_EQ(f->body, "head\nr2\nr3\nr4\n");
    // --skip-done: the same shard of the same input and command line, complete.
    EXPECT_TRUE(shardIsDone(c, header(3, 3, 0, 0)));
    EXPECT_FALSE(shardIsDone(c, header(2, 3, 0, 0)));
    ShardHeader other = header(3, 3, 0, 0);
    other.input.crc32 = "ffffffff";
    EXPECT_FALSE(shardIsDone(c, other));
    auto refused = [](const std::vector<std::string> &files, const std::string &why) {
        auto r = mergeShards(files);
        ASSERT_FALSE(r) << why;
        EXPECT_NE(r.message().find(why), std::string::npos) << r.message();
    };
    // Streamed a piece at a time: the same bytes; a repeated header line longer than a piece
    // (1 MiB) is still kept once.
    std::string streamed;
    auto st = mergeShardsTo({b, c, a}, [&](std::string_view piece) {
        streamed.append(piece);
        return Status{};
    });
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(streamed, m->body);
    EXPECT_TRUE(st->body.empty());
    const std::string longHead(1536 * 1024, 'h');
    auto withHead = [&](const std::string &name, const ShardHeader &h) {
        std::string text = shardHeaderLine(h) + longHead + "\n";
        for (std::size_t i = h.begin; i < h.end; ++i)
            text += "r" + std::to_string(i) + "\n";
        return write(name, text + shardEndLine(h.end - h.begin));
    };
    std::string big;
    auto sb = mergeShardsTo({withHead("l1", header(1, 2, 0, 3)), withHead("l2", header(2, 2, 3, 5))}, [&](std::string_view piece) {
        big.append(piece);
        return Status{};
    });
    ASSERT_TRUE(sb) << sb.message();
    EXPECT_EQ(big, longHead + "\nr0\nr1\nr2\nr3\nr4\n");
    refused({a, c}, "shard 2 of 3 is missing");
    refused({a, b, b, c}, "is given twice");
    refused({a, b, shardFile("x", header(3, 3, 2, 5), false)}, "incomplete shard output");
    ShardHeader foreign = header(3, 3, 2, 5);
    foreign.input = {"q.tsv", 130, "01234567"};
    refused({a, b, shardFile("y", foreign)}, "is a shard of another input");
    ShardHeader options = header(3, 3, 2, 5);
    options.options += " --format tsv";
    refused({a, b, shardFile("z", options)}, "comes from another command line");
    refused({a, b, shardFile("w", header(3, 4, 2, 5))}, "another number of shards");
    // Issue 47, item 10: shards run with other threads round differently; merge says so. A shard
    // written before the header recorded threads (-1) is not compared.
    ShardHeader fourThreads = header(3, 3, 2, 5);
    fourThreads.threads = 4;
    ShardHeader oneThread = header(1, 3, 0, 2);
    oneThread.threads = 1;
    refused({shardFile("t1", oneThread), b, shardFile("t4", fourThreads)}, "were run with 1 thread and 4 threads");
    ShardHeader defaults16 = header(3, 3, 2, 5), defaults8 = header(1, 3, 0, 2);
    defaults16.threads = defaults8.threads = 0;
    defaults16.cpus = 16;
    defaults8.cpus = 8;
    refused({shardFile("d8", defaults8), b, shardFile("d16", defaults16)}, "the default threads (8 CPUs) and the default threads (16 CPUs)");
    EXPECT_EQ(differentThreads(oneThread, header(2, 3, 2, 2)), ""); // not recorded: not compared
    ShardHeader round = header(1, 3, 0, 2);
    round.threads = 2;
    round.cpus = 4;
    ShardFile back;
    {
        auto r = readShardFile(shardFile("rt", round));
        ASSERT_TRUE(r) << r.message();
        back = *r;
    }
    EXPECT_EQ(back.header.threads, 2);
    EXPECT_EQ(back.header.cpus, 4);
    refused({a, shardFile("v", header(2, 3, 3, 3)), c}, "starts at record 3");
    refused({write("plain", "qid\tindex\n")}, "not a shard output");
    // An end line that counts other records than the shard line says.
    refused({a, b, write("u", shardHeaderLine(header(3, 3, 2, 5)) + "head\nr2\n" + shardEndLine(1))}, "holds 1 records");
    EXPECT_FALSE(mergeShards({}));
}
