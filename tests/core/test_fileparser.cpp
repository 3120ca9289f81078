// The "file" parser backend and the default backend choice.
#include <filesystem>
#include <fstream>

#include "core/encoders/encoder.h"
#include "core/formats/corpus.h"
#include "core/parsing/neural/neuralparser.h"
#include "core/parsing/parser.h"
#include "testutil.h"

using namespace treelens;

namespace {

Sentence typed(const std::vector<std::string> &words)
{
    Sentence s;
    s.id = "input";
    for (const auto &w : words) {
        Token t;
        t.text = w;
        s.text += (s.text.empty() ? "" : " ") + w;
        s.tokens.push_back(t);
    }
    return s;
}

} // namespace

TEST(FileParser, TakesTheTreesOfTheSentenceWithTheSameWords)
{
    ParserConfig c;
    c.backend = "file";
    c.treeFile = test::testData("ui/three.conllu");
    auto p = createParser(c);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_EQ((*p)->info().name, "file");
    // ui-2 in the file, checked by hand: Mr.->Vinken compound, Vinken->chairman nsubj,
    // is->chairman cop, chairman root, of->Elsevier case, Elsevier->chairman nmod, .->chairman punct.
    auto r = (*p)->parse(typed({"Mr.", "Vinken", "is", "chairman", "of", "Elsevier", "."}));
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_TRUE(r->dependency);
    EXPECT_EQ(r->dependency->heads, (std::vector<int>{2, 4, 4, 0, 6, 4, 4}));
    EXPECT_EQ(r->dependency->deprels, (std::vector<std::string>{"compound", "nsubj", "cop", "root", "case", "nmod", "punct"}));
    EXPECT_EQ(r->tokens[2].upos, "AUX");
    EXPECT_EQ(r->tokens[2].xpos, "VBZ");
    EXPECT_EQ(r->tokens[2].text, "is");
    EXPECT_EQ(r->metadataValue("parser"), "file");
    EXPECT_EQ(r->id, "input"); // the input sentence is kept, only trees and tags are taken
}

TEST(FileParser, ClearErrorsForMissingSentencesAndFiles)
{
    ParserConfig c;
    c.backend = "file";
    c.treeFile = test::testData("ui/three.conllu");
    auto p = createParser(c);
    ASSERT_TRUE(p.ok());
    auto r = (*p)->parse(typed({"The", "cat", "sat"})); // "The cat sat ." is in the file, without the period it is not
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("is not in"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("three.conllu (3 sentences)"), std::string::npos) << r.message();

    c.treeFile.clear();
    EXPECT_FALSE(createParser(c).ok());
    c.treeFile = ::testing::TempDir() + "/no-such-file.conllu";
    auto missing = createParser(c);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.message().find("no-such-file.conllu"), std::string::npos) << missing.message();
    // A file without any tree (plain text) is refused.
    const std::string txt = ::testing::TempDir() + "/plain.txt";
    std::ofstream(txt) << "Just some words .\n";
    c.treeFile = txt;
    EXPECT_FALSE(createParser(c).ok());
}

TEST(Parsers, DefaultIsNeuralWhenItsModelIsInstalled)
{
    const bool shipped = !findShippedModel(kShippedDependencyParser).empty();
    EXPECT_EQ(defaultParserBackend(), shipped ? "neural" : (createParser([] {
                                                                 ParserConfig c;
                                                                 c.backend = "link-grammar";
                                                                 return c;
                                                             }())
                                                                    .ok()
                                                                ? "link-grammar"
                                                                : "neural"));
    EXPECT_EQ(ParserConfig().backend, defaultParserBackend());
    std::vector<std::string> names;
    for (const auto &i : availableParsers())
        names.push_back(i.name);
    EXPECT_EQ(names.front(), "neural");
    EXPECT_NE(std::find(names.begin(), names.end(), "file"), names.end());
}
