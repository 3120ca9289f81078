#include "core/formats/analysisjson.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/formats/ptb.h"

namespace treelens {

namespace {

nlohmann::json matrixJson(const Matrix &m)
{
    nlohmann::json rows = nlohmann::json::array();
    for (int r = 0; r < m.rows; ++r) {
        nlohmann::json row = nlohmann::json::array();
        for (int c = 0; c < m.cols; ++c)
            row.push_back(m.at(r, c));
        rows.push_back(std::move(row));
    }
    return rows;
}

void appendCsvField(std::string &out, const std::string &field)
{
    if (field.find_first_of(",\"\r\n") == std::string::npos) {
        out += field;
        return;
    }
    out += '"';
    for (char c : field) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

/// "%.9g" without printf: std::to_chars ignores the C locale, which a Qt
/// application sets from the environment (a decimal comma would split the field).
void appendFloat(std::string &out, float v)
{
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
    out.append(buf, res.ptr);
}

/// What the model saw of the input and what was switched off: `unknown_words` (the words its
/// vocabulary lacks, numbered from 1 as the words are; [] when none; absent when the model has
/// no word vocabulary to check) and `ablated` (the heads, 1-based as --ablate takes them).
void addInputNotes(nlohmann::json &j, const Analysis &a)
{
    if (a.unknownWords) {
        nlohmann::json unknown = nlohmann::json::array();
        for (int w : *a.unknownWords)
            unknown.push_back(w + 1);
        j["unknown_words"] = unknown;
    }
    if (!a.ablated.empty()) {
        nlohmann::json ab = nlohmann::json::array();
        for (const auto &[layer, head] : a.ablated)
            ab.push_back({{"layer", layer + 1}, {"head", head < 0 ? nlohmann::json(nullptr) : nlohmann::json(head + 1)}});
        j["ablated"] = ab;
    }
}

nlohmann::json analysisJson(const Analysis &a, bool withAttention)
{
    nlohmann::json j;
    j["tokens"] = a.tokens;
    if (!a.wordToken.empty()) // each input word's index in `tokens` (attention rows and columns)
        j["word_token"] = a.wordToken;
    j["family"] = a.family;
    if (!a.pieces.empty()) {
        j["pieces"] = a.pieces;
        j["piece_token"] = a.pieceToken;
    }
    j["layers"] = a.layers;
    j["heads"] = a.heads;
    if (!a.linkProbs.empty())
        j["link_probs"] = a.linkProbs;
    if (!a.constituentPrior.empty()) {
        nlohmann::json c = nlohmann::json::array();
        for (const auto &m : a.constituentPrior)
            c.push_back(matrixJson(m));
        j["constituent_prior"] = c;
    }
    if (withAttention && !a.attention.empty()) {
        nlohmann::json at = nlohmann::json::array(), raw = nlohmann::json::array();
        for (std::size_t l = 0; l < a.attention.size(); ++l) {
            nlohmann::json heads = nlohmann::json::array(), rawHeads = nlohmann::json::array();
            for (std::size_t h = 0; h < a.attention[l].size(); ++h) {
                heads.push_back(matrixJson(a.attention[l][h]));
                if (l < a.attentionRaw.size() && h < a.attentionRaw[l].size())
                    rawHeads.push_back(matrixJson(a.attentionRaw[l][h]));
            }
            at.push_back(heads);
            raw.push_back(rawHeads);
        }
        j["attention"] = at;
        if (!a.pieceAttention.empty()) {
            nlohmann::json pa = nlohmann::json::array();
            for (const auto &heads : a.pieceAttention) {
                nlohmann::json hs = nlohmann::json::array();
                for (const auto &m : heads)
                    hs.push_back(matrixJson(m));
                pa.push_back(hs);
            }
            j["piece_attention"] = pa;
        }
        if (!a.attentionRaw.empty())
            j["attention_raw"] = raw;
        if (!a.attentionRelation.empty()) {
            nlohmann::json rel = nlohmann::json::array();
            for (const auto &heads : a.attentionRelation) {
                nlohmann::json hs = nlohmann::json::array();
                for (const auto &m : heads)
                    hs.push_back(matrixJson(m));
                rel.push_back(hs);
            }
            j["attention_relation"] = rel;
        }
    }
    if (a.inducedTree) {
        nlohmann::json b = nlohmann::json::array();
        for (const auto &[s, e] : a.inducedBrackets)
            b.push_back({s, e});
        j["induced_brackets"] = b;
        j["induced_tree"] = writePtbTree(*a.inducedTree);
    }
    if (!a.pieceText.empty())
        j["piece_text"] = a.pieceText; // the pieces as a person reads them (" old" for "Ġold")
    if (a.causalAttention)
        j["causal"] = true; // attention[l][h][i][j] for j > i is not possible (not zero attention)
    if (!a.surprisal.empty()) {
        // NaN (nothing predicts the word: the sequence's first piece) is written as null.
        auto numbers = [](const std::vector<double> &v) {
            nlohmann::json out = nlohmann::json::array();
            for (double x : v)
                out.push_back(std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr));
            return out;
        };
        j["surprisal"] = numbers(a.surprisal);
        j["piece_surprisal"] = numbers(a.pieceSurprisal);
    }
    if (a.logprob)
        j["logprob"] = *a.logprob;
    addInputNotes(j, a);
    if (!a.embedding.empty())
        j["embedding"] = a.embedding;
    if (!a.meanEmbedding.empty())
        j["mean_embedding"] = a.meanEmbedding;
    if (a.prediction) {
        j["prediction"] = {{"label", a.prediction->label}, {"score", a.prediction->score},
                           {"labels", a.prediction->labels}, {"probabilities", a.prediction->probabilities}};
    }
    if (!a.gates.empty()) {
        nlohmann::json g = nlohmann::json::object();
        for (const auto &[name, arr] : a.gates)
            g[name] = {{"shape", arr.shape}, {"data", arr.data}};
        j["gates"] = g;
    }
    if (a.relations) {
        // The relation matrix with its labels and tree distances (the ids are also in gates["relations.ids"]).
        nlohmann::json names = nlohmann::json::array(), dist = nlohmann::json::array();
        for (int i = 0; i < a.relations->n; ++i) {
            nlohmann::json row = nlohmann::json::array(), drow = nlohmann::json::array();
            for (int k = 0; k < a.relations->n; ++k) {
                row.push_back(a.relations->name(i, k));
                const auto [up, down] = a.relations->dist(i, k);
                drow.push_back({up, down});
            }
            names.push_back(row);
            dist.push_back(drow);
        }
        j["relations"] = {{"labels", names}, {"tree_distance", dist}, {"levels", a.relations->levels}};
    }
    if (withAttention && !a.nodeAttention.empty()) {
        nlohmann::json nodes = nlohmann::json::array();
        for (const auto &n : a.nodeAttention) {
            nlohmann::json node{{"node", n.node}, {"targets", n.targets}, {"weights", n.weights}};
            if (n.start >= 0)
                node["span"] = {n.start, n.end};
            if (n.headWord >= 0)
                node["head_word"] = n.headWord;
            if (!n.label.empty())
                node["label"] = n.label;
            if (n.norm != 0.0f)
                node["norm"] = n.norm;
            for (const auto &[name, arr] : n.arrays)
                node["arrays"][name] = {{"shape", arr.shape}, {"data", arr.data}};
            nodes.push_back(std::move(node));
        }
        j["node_attention"] = nodes;
    }
    if (!a.crossAttention.empty()) {
        nlohmann::json c = nlohmann::json::array();
        for (const auto &m : a.crossAttention)
            c.push_back(matrixJson(m));
        j["cross_attention"] = c;
    }
    if (!a.second.empty())
        j["second"] = analysisJson(a.second.front(), withAttention);
    return j;
}

} // namespace

std::string analysisToJson(const Analysis &a, bool withAttention, int indent)
{
    // Tokens come from user text: replace invalid UTF-8 rather than throw.
    return analysisJson(a, withAttention).dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string matrixToCsv(const Matrix &m, const std::vector<std::string> &rowLabels, const std::vector<std::string> &colLabels)
{
    auto label = [](const std::vector<std::string> &labels, int i) {
        return i < static_cast<int>(labels.size()) ? labels[static_cast<std::size_t>(i)] : std::to_string(i);
    };
    std::string out;
    for (int c = 0; c < m.cols; ++c) {
        out += ',';
        appendCsvField(out, label(colLabels, c));
    }
    out += "\r\n";
    for (int r = 0; r < m.rows; ++r) {
        appendCsvField(out, label(rowLabels, r));
        for (int c = 0; c < m.cols; ++c) {
            out += ',';
            appendFloat(out, m.at(r, c));
        }
        out += "\r\n";
    }
    return out;
}

std::string linkProbsToCsv(const Analysis &a)
{
    if (a.linkProbs.empty())
        return {};
    std::size_t gaps = 0;
    for (const auto &layer : a.linkProbs)
        gaps = std::max(gaps, layer.size());
    Matrix m(static_cast<int>(a.linkProbs.size()), static_cast<int>(gaps));
    std::vector<std::string> rows, cols;
    for (std::size_t l = 0; l < a.linkProbs.size(); ++l) {
        rows.push_back("layer " + std::to_string(l + 1));
        // A layer with fewer gaps than the others (malformed input) leaves zeros.
        for (std::size_t k = 0; k < a.linkProbs[l].size(); ++k)
            m.at(static_cast<int>(l), static_cast<int>(k)) = a.linkProbs[l][k];
    }
    for (std::size_t k = 0; k < gaps; ++k) {
        if (k + 1 < a.tokens.size())
            cols.push_back(a.tokens[k] + "|" + a.tokens[k + 1]);
        else
            cols.push_back(std::to_string(k) + "|" + std::to_string(k + 1));
    }
    return matrixToCsv(m, rows, cols);
}

} // namespace treelens
