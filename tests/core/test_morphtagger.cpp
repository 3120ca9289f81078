// The morphological tagger (issue 48): lemma rules derive and apply (hand cases),
// the CoNLL 2018 UFeats/Lemmas definitions, and the tagger's smallest training run
// (it overfits a tiny treebank and its model file round-trips).
#include <filesystem>

#include <gtest/gtest.h>

#include "core/eval/morpheval.h"
#include "core/formats/corpus.h"
#include "core/model/modelfile.h"
#include "core/parsing/lemmarules.h"
#include "core/parsing/neural/morphtagger.h"
#include "core/training/training.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::string roundTrip(const std::string &form, const std::string &lemma)
{
    return applyLemmaRule(deriveLemmaRule(form, lemma), form).value_or("<none>");
}

} // namespace

TEST(LemmaRules, DeriveAndApplyHandCases)
{
    EXPECT_EQ(deriveLemmaRule("running", "run"), "l0;e0,4,0,");
    EXPECT_EQ(deriveLemmaRule("Cities", "city"), "l0;e0,3,0,y");
    EXPECT_EQ(deriveLemmaRule("went", "go"), "l0;wgo"); // nothing shared: a whole-word rule
    EXPECT_EQ(deriveLemmaRule("U.S.", "U.S."), "u0;e0,0,0,");
    EXPECT_EQ(deriveLemmaRule("Vinken", "Vinken"), "u0,l1;e0,0,0,");
    EXPECT_EQ(deriveLemmaRule("unhappier", "happy"), "l0;e2,3,0,y");
    for (const auto &[form, lemma] : std::vector<std::pair<std::string, std::string>>{
             {"running", "run"}, {"Cities", "city"}, {"went", "go"}, {"U.S.", "U.S."}, {"GoogleOS", "GoogleOS"},
             {"iPhones", "iPhone"}, {"Über", "über"}, {"ÉCOLES", "école"}, {"n't", "not"}, {"'s", "be"}, {"2", "2"}})
        EXPECT_EQ(roundTrip(form, lemma), lemma) << form;

    // One rule, other forms: that is what makes rules classes.
    EXPECT_EQ(applyLemmaRule("l0;e0,3,0,y", "Parties").value_or(""), "party");
    EXPECT_EQ(applyLemmaRule("l0;e0,1,0,", "dogs").value_or(""), "dog");
    EXPECT_EQ(applyLemmaRule("u0,l1;e0,0,0,", "LONDON").value_or(""), "London");
    EXPECT_EQ(applyLemmaRule("u0;e0,0,0,", "nasa").value_or(""), "NASA");
    EXPECT_EQ(applyLemmaRule("l0;wgo", "goes").value_or(""), "go");
    // A rule that would remove the whole word, or one that does not parse, does not apply.
    EXPECT_FALSE(applyLemmaRule("l0;e0,3,0,y", "ies"));
    EXPECT_FALSE(applyLemmaRule("l0;e0,9,0,", "dogs"));
    EXPECT_FALSE(applyLemmaRule("l0;x", "dogs"));
    EXPECT_FALSE(applyLemmaRule("nonsense", "dogs"));
    EXPECT_FALSE(applyLemmaRule("l0;e0,0,5,ab", "dogs"));
    EXPECT_EQ(lowerCaseWord("ÉCOLE Ab"), "école ab");
}

TEST(MorphEval, UniversalFeaturesAndTheLemmaRuleOfConll2018)
{
    EXPECT_EQ(universalFeatures("_"), "");
    EXPECT_EQ(universalFeatures("Typo=Yes"), "");
    EXPECT_EQ(universalFeatures("Number=Sing|ExtPos=ADP|Abbr=Yes"), "Abbr=Yes|Number=Sing");
    EXPECT_TRUE(ufeatsMatch("Number=Sing|Style=Coll", "Number=Sing"));
    EXPECT_TRUE(ufeatsMatch("_", "Typo=Yes"));
    EXPECT_FALSE(ufeatsMatch("Number=Sing", "Number=Plur"));
    EXPECT_TRUE(lemmaMatches("_", "anything"));
    EXPECT_FALSE(lemmaMatches("be", "is"));

    // Hand-checked: 4 words; FEATS right on 1, 2 and 4 (3 has the wrong Tense, 4 differs
    // only in Typo); LEMMA right on 1, 3 (gold _) and 4.
    Sentence g, p;
    auto tok = [](const char *form, const char *lemma, const char *feats) {
        Token t;
        t.text = form;
        t.lemma = lemma;
        t.feats = feats;
        return t;
    };
    g.tokens = {tok("Dogs", "dog", "Number=Plur"), tok("were", "be", "Mood=Ind|Tense=Past"), tok("x", "_", "Tense=Past"),
                tok("teh", "the", "Typo=Yes")};
    p.tokens = {tok("Dogs", "dog", "Number=Plur"), tok("were", "were", "Tense=Past|Mood=Ind"), tok("x", "x", "Tense=Pres"),
                tok("teh", "the", "_")};
    const MorphCounts c = scoreMorphology({g}, {p});
    EXPECT_EQ(c.words, 4);
    EXPECT_EQ(c.ufeats, 3);
    EXPECT_EQ(c.lemmas, 3);
}

TEST(MorphTagger, OverfitsATinyTreebankAndRoundTripsItsModelFile)
{
    const std::string dir = ::testing::TempDir() + "/morphtagger-test";
    std::filesystem::create_directories(dir);
    const std::string data = test::testData("ui/agreement.conllu");
    TrainRecipe r = *trainerDefaults("morph-tagger");
    r.name = "tiny";
    r.data.train = r.data.dev = {data};
    r.output = dir + "/tiny.safetensors";
    r.checkpoint = dir + "/tiny.ckpt.safetensors";
    MorphTaggerConfig model;
    model.wordDim = 16;
    model.charDim = 8;
    model.charFilters = 16;
    model.lstmLayers = 1;
    model.lstmHidden = 32;
    model.dropout = 0.0;
    model.wordDropout = 0.0;
    r.modelJson = model.toJson();
    r.epochs = 150;
    r.batchWords = 100;
    r.optimizer.lr = 1e-2;
    r.schedule.decayEvery = 1000; // a constant rate: the tiny run only has to memorise
    r.patience = 150;
    r.optionsJson = R"({"word_min_count": 1})";
    r.threads = 1;
    r.storage = "f32";
    double best = -1;
    ASSERT_TRUE(trainModel(r, "", [&](const TrainProgress &p) {
                    if (p.hasDev())
                        best = p.bestDevMetric;
                }).ok());
    EXPECT_DOUBLE_EQ(best, 100.0);

    auto tagger = MorphTaggerModel::load(r.output, 1);
    ASSERT_TRUE(tagger.ok()) << tagger.message();
    auto gold = readCorpusFile(data, CorpusFormat::Conllu);
    ASSERT_TRUE(gold.ok());
    auto pred = *gold;
    for (auto &s : pred)
        for (auto &t : s.tokens)
            t.lemma = t.feats = "_";
    ASSERT_TRUE((*tagger)->tag(pred).ok());
    const MorphCounts c = scoreMorphology(*gold, pred);
    EXPECT_EQ(c.ufeats, c.words);
    EXPECT_EQ(c.lemmas, c.words);
    EXPECT_EQ(pred[0].tokens[1].lemma, "dog");
    EXPECT_EQ(pred[0].tokens[1].upos, (*gold)[0].tokens[1].upos); // UPOS is not the tagger's to write

    // The training lexicon travels in the model file: "dogs" -> "dog", seen in training.
    auto file = loadModelFile(r.output);
    ASSERT_TRUE(file.ok()) << file.message();
    EXPECT_NE(file->configJson.find(R"(["dogs","dog"])"), std::string::npos);

    EXPECT_FALSE(MorphTaggerModel::load(test::testData("ui/three.conllu")).ok());
    EXPECT_FALSE(readTrainRecipe(R"({"train": "a.conllu"})", "", "morph-tagger").ok());
    EXPECT_FALSE(readTrainRecipe(R"({"train":"a","dev":"b","output":"c","model":{"lemma_rules_min_count":0}})", "",
                                 "morph-tagger").ok());
    EXPECT_FALSE(readTrainRecipe(R"({"train":"a","dev":"b","output":"c","model":{"lexicon_min_share":0.3}})", "",
                                 "morph-tagger").ok());
}
