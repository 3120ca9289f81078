#pragma once
// Corpora for the probing stages' tests, built here so that every expectation
// can be counted from their definition.
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/formats/corpus.h"
#include "core/probing/rundata.h"
#include "core/probing/runtrees.h"
#include "testutil.h"

namespace treelens::test {

/// tests/data/probing/tiny.conllu (tests/data/probing/make_fixtures.sh): 30
/// sentences, sentence i (0-based) has 3 + i % 6 words; every third sentence is
/// a chain (word k+1 depends on word k), the others flat (every word depends on
/// the first); the last word is "." (PUNCT, relation punct), the others NOUN (dep).
inline int tinyLength(int i) { return 3 + i % 6; }
inline bool tinyChain(int i) { return i % 3 == 0; }
constexpr int kTinySentences = 30;

inline std::string tinyPath() { return testData("probing/tiny.conllu"); }

inline std::vector<Sentence> tinyCorpus()
{
    auto r = readCorpusFile(tinyPath(), CorpusFormat::Conllu);
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? std::move(*r) : std::vector<Sentence>{};
}

/// `sentences` written to a CoNLL-U file of the test's temporary folder.
inline std::string writeTemp(const std::string &name, const std::string &text)
{
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

/// The tiny corpus as a probing run reads it when given alone (cut 24/3/3).
inline ProbeData tinyOneCorpus()
{
    ProbeRunConfig config;
    config.train = {tinyPath()};
    auto d = readProbeData(config, 0);
    EXPECT_TRUE(d.ok()) << d.message();
    return d.ok() ? std::move(*d) : ProbeData{};
}

/// The trees of the tiny corpus as the trees stage finds them: gold dependency trees only.
inline ProbeTrees tinyTrees()
{
    ProbeTrees t;
    t.tree = "dependency";
    t.depGold = kTinySentences;
    t.constMissing = kTinySentences;
    return t;
}

} // namespace treelens::test
