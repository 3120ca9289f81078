// Analysis → JSON (the `analyze --json` contract) and matrices → CSV, parsed
// back independently (nlohmann, a small RFC 4180 reader) and compared with the
// hand-filled Analysis.
#include <clocale>
#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include "core/formats/analysisjson.h"
#include "core/formats/ptb.h"
#include "testutil.h"

using namespace treelens;

namespace {

Matrix filled(int n, float base)
{
    Matrix m(n, n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            m.at(r, c) = base + 0.1f * static_cast<float>(r) + 0.01f * static_cast<float>(c) + 1e-7f;
    return m;
}

Analysis handAnalysis()
{
    Analysis a;
    a.family = "tree-transformer";
    a.tokens = {"[CLS]", "the", "cat", "sat"};
    a.words = {"the", "cat", "sat"};
    a.wordToken = {1, 2, 3};
    a.layers = 2;
    a.heads = 2;
    for (int l = 0; l < 2; ++l) {
        a.attention.push_back({filled(4, 0.5f * l), filled(4, 0.5f * l + 0.25f)});
        a.attentionRaw.push_back({filled(4, 1.0f + l), filled(4, 2.0f + l)});
        a.constituentPrior.push_back(filled(4, 3.0f + l));
    }
    a.attention[1][1].at(2, 3) = 3.4028235e38f; // largest float
    a.attention[0][0].at(0, 1) = 1e-30f;
    a.linkProbs = {{0.1f, 0.2f, 0.3f}, {0.9f, 0.8f, 0.7f}};
    a.inducedBrackets = {{0, 2}};
    auto t = readPtb("(S (X (W the) (W cat)) (W sat))", "t");
    EXPECT_TRUE(t.ok());
    if (t.ok())
        a.inducedTree = t->front();
    a.embedding = {0.5f, -1.25f, 1.0f / 3.0f};
    a.meanEmbedding = {2.0f, 0.0f, -0.1f};
    a.prediction = Prediction{"pos", 0.75f, {"neg", "pos"}, {0.25f, 0.75f}};
    return a;
}

void expectMatrix(const nlohmann::json &j, const Matrix &m, const std::string &what)
{
    ASSERT_TRUE(j.is_array()) << what;
    ASSERT_EQ(j.size(), static_cast<std::size_t>(m.rows)) << what;
    for (int r = 0; r < m.rows; ++r) {
        ASSERT_EQ(j[r].size(), static_cast<std::size_t>(m.cols)) << what;
        for (int c = 0; c < m.cols; ++c)
            EXPECT_EQ(j[r][c].get<float>(), m.at(r, c)) << what << " [" << r << "][" << c << "]";
    }
}

std::set<std::string> keys(const nlohmann::json &j)
{
    std::set<std::string> out;
    for (auto it = j.begin(); it != j.end(); ++it)
        out.insert(it.key());
    return out;
}

/// A strict RFC 4180 reader: CRLF records, quoted fields with doubled quotes.
std::vector<std::vector<std::string>> parseCsv(const std::string &text)
{
    std::vector<std::vector<std::string>> rows(1);
    std::string field;
    bool quoted = false, wasQuoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            EXPECT_TRUE(field.empty() && !wasQuoted) << "quote inside an unquoted field at " << i;
            quoted = wasQuoted = true;
        } else if (c == ',') {
            rows.back().push_back(field);
            field.clear();
            wasQuoted = false;
        } else if (c == '\r') {
            EXPECT_TRUE(i + 1 < text.size() && text[i + 1] == '\n') << "bare CR at " << i;
            rows.back().push_back(field);
            field.clear();
            wasQuoted = false;
            rows.emplace_back();
            ++i;
        } else {
            EXPECT_NE(c, '\n') << "bare LF at " << i;
            field += c;
        }
    }
    EXPECT_FALSE(quoted) << "unterminated quoted field";
    EXPECT_TRUE(rows.back().empty() && field.empty()) << "last record not terminated by CRLF";
    rows.pop_back();
    return rows;
}

} // namespace

TEST(AnalysisJson, KeysAndValuesMatchTheAnalysis)
{
    const Analysis a = handAnalysis();
    const auto j = nlohmann::json::parse(analysisToJson(a, true));
    EXPECT_EQ(keys(j), (std::set<std::string>{"tokens", "word_token", "family", "layers", "heads", "link_probs",
                                              "constituent_prior", "attention", "attention_raw", "induced_brackets",
                                              "induced_tree", "embedding", "mean_embedding", "prediction"}));
    EXPECT_EQ(j["tokens"].get<std::vector<std::string>>(), a.tokens);
    EXPECT_EQ(j["word_token"].get<std::vector<int>>(), a.wordToken); // each word's row and column (issue 48)
    EXPECT_EQ(j["family"], "tree-transformer");
    EXPECT_EQ(j["layers"], 2);
    EXPECT_EQ(j["heads"], 2);
    ASSERT_EQ(j["link_probs"].size(), 2u);
    for (std::size_t l = 0; l < 2; ++l)
        EXPECT_EQ(j["link_probs"][l].get<std::vector<float>>(), a.linkProbs[l]);
    ASSERT_EQ(j["attention"].size(), 2u);
    ASSERT_EQ(j["attention_raw"].size(), 2u);
    ASSERT_EQ(j["constituent_prior"].size(), 2u);
    for (std::size_t l = 0; l < 2; ++l) {
        expectMatrix(j["constituent_prior"][l], a.constituentPrior[l], "prior " + std::to_string(l));
        ASSERT_EQ(j["attention"][l].size(), 2u);
        ASSERT_EQ(j["attention_raw"][l].size(), 2u);
        for (std::size_t h = 0; h < 2; ++h) {
            expectMatrix(j["attention"][l][h], a.attention[l][h], "attention");
            expectMatrix(j["attention_raw"][l][h], a.attentionRaw[l][h], "attention_raw");
        }
    }
    EXPECT_EQ(j["attention"][1][1][2][3].get<float>(), 3.4028235e38f);
    EXPECT_EQ(j["induced_brackets"], nlohmann::json::parse("[[0, 2]]"));
    EXPECT_EQ(j["induced_tree"], "(S (X (W the) (W cat)) (W sat))");
    EXPECT_EQ(j["embedding"].get<std::vector<float>>(), a.embedding);
    EXPECT_EQ(j["mean_embedding"].get<std::vector<float>>(), a.meanEmbedding);
    EXPECT_EQ(j["prediction"]["label"], "pos");
    EXPECT_EQ(j["prediction"]["score"].get<float>(), 0.75f);
    EXPECT_EQ(j["prediction"]["labels"], nlohmann::json::parse(R"(["neg", "pos"])"));
    EXPECT_EQ(j["prediction"]["probabilities"].get<std::vector<float>>(), (std::vector<float>{0.25f, 0.75f}));
}

TEST(AnalysisJson, OptionalPartsAreOmitted)
{
    const Analysis full = handAnalysis();
    const std::string line = analysisToJson(full, false);
    EXPECT_EQ(line.find('\n'), std::string::npos) << "JSON Lines output must be one line";
    const auto j = nlohmann::json::parse(line);
    EXPECT_FALSE(j.contains("attention"));
    EXPECT_FALSE(j.contains("attention_raw"));
    EXPECT_TRUE(j.contains("constituent_prior"));

    Analysis bare;
    bare.family = "x";
    bare.tokens = {"a"};
    EXPECT_EQ(keys(nlohmann::json::parse(analysisToJson(bare, true))),
              (std::set<std::string>{"tokens", "family", "layers", "heads"}));
    // Pretty printing is the same object.
    const std::string pretty = analysisToJson(full, true, 2);
    EXPECT_NE(pretty.find("\n  \"attention\": ["), std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(pretty), nlohmann::json::parse(analysisToJson(full, true)));
}

TEST(AnalysisJson, InvalidUtf8InTokensDoesNotThrow)
{
    Analysis a;
    a.tokens = {"caf\xe9"}; // Latin-1, not UTF-8
    std::string out;
    ASSERT_NO_THROW(out = analysisToJson(a, true));
    EXPECT_EQ(nlohmann::json::parse(out)["tokens"][0], "caf\xef\xbf\xbd"); // U+FFFD
}

TEST(MatrixCsv, QuotesLabelsAndRoundTripsFloats)
{
    Matrix m(2, 3);
    const float values[] = {0.1f, 1.0f / 3.0f, -2.5f, 1e-30f, 123456.789f, 3.4028235e38f};
    for (int i = 0; i < 6; ++i)
        m.data[static_cast<std::size_t>(i)] = values[i];
    const std::string csv = matrixToCsv(m, {"a,b", "say \"hi\""}, {"x", "multi\nline", "plain"});
    const auto rows = parseCsv(csv);
    ASSERT_EQ(rows.size(), 3u) << csv;
    EXPECT_EQ(rows[0], (std::vector<std::string>{"", "x", "multi\nline", "plain"}));
    EXPECT_EQ(rows[1][0], "a,b");
    EXPECT_EQ(rows[2][0], "say \"hi\"");
    for (int r = 0; r < 2; ++r) {
        ASSERT_EQ(rows[static_cast<std::size_t>(r) + 1].size(), 4u);
        for (int c = 0; c < 3; ++c) {
            const std::string &f = rows[static_cast<std::size_t>(r) + 1][static_cast<std::size_t>(c) + 1];
            EXPECT_EQ(std::strtof(f.c_str(), nullptr), m.at(r, c)) << f;
        }
    }
    EXPECT_NE(csv.find("\"say \"\"hi\"\"\""), std::string::npos) << csv;
    // Missing labels are the 0-based index.
    EXPECT_EQ(parseCsv(matrixToCsv(m, {}, {"x"}))[0], (std::vector<std::string>{"", "x", "1", "2"}));
    EXPECT_EQ(parseCsv(matrixToCsv(m, {}, {}))[2][0], "1");
}

TEST(MatrixCsv, IgnoresTheLocale)
{
    // Qt applications take LC_NUMERIC from the environment; a decimal comma would split fields.
    const char *old = std::setlocale(LC_NUMERIC, nullptr);
    const std::string saved = old ? old : "C";
    if (!std::setlocale(LC_NUMERIC, "de_DE.UTF-8") && !std::setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
        GTEST_SKIP() << "no locale with a decimal comma installed (de_DE.UTF-8, fr_FR.UTF-8)";
    Matrix m(1, 1, 0.5f);
    const std::string csv = matrixToCsv(m, {"r"}, {"c"});
    std::setlocale(LC_NUMERIC, saved.c_str());
    EXPECT_EQ(csv, ",c\r\nr,0.5\r\n");
}

TEST(MatrixCsv, LinkProbsByLayerAndGap)
{
    Analysis a = handAnalysis();
    // Hand-checked: "%.9g" of the floats nearest 0.1, 0.2, ... .
    EXPECT_EQ(linkProbsToCsv(a), ",[CLS]|the,the|cat,cat|sat\r\n"
                                 "layer 1,0.100000001,0.200000003,0.300000012\r\n"
                                 "layer 2,0.899999976,0.800000012,0.699999988\r\n");
    a.tokens[2] = "c,t";
    const auto rows = parseCsv(linkProbsToCsv(a));
    EXPECT_EQ(rows[0][2], "the|c,t");
    EXPECT_EQ(rows[0][3], "c,t|sat");
    EXPECT_EQ(linkProbsToCsv(Analysis{}), "");
}
