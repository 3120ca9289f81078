#include "core/formats/analysistext.h"

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "core/formats/ptb.h"

namespace treelens {

namespace {

std::string number(double v, const char *format = "%.3f")
{
    char buf[48];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

/// "tok 0.93 tok 0.12 tok": the top layer's links between the tokens they join.
std::string linksLine(const Analysis &a)
{
    const std::vector<float> &top = a.linkProbs.back();
    std::string line;
    for (std::size_t k = 0; k < a.tokens.size(); ++k) {
        line += a.tokens[k];
        if (k < top.size() && k + 1 < a.tokens.size())
            line += " " + number(top[k], "%.2f") + " ";
    }
    return line;
}

/// What the analysis holds beyond the printed lines, with the way to get it.
std::string holdsLine(const Analysis &a)
{
    std::vector<std::string> parts;
    if (!a.attention.empty() && !a.attention.front().empty())
        parts.push_back("attention (" + std::to_string(a.attention.size()) + " layers x " +
                        std::to_string(a.attention.front().size()) + " heads over " + std::to_string(a.tokens.size()) +
                        " tokens)");
    if (!a.nodeAttention.empty())
        parts.push_back("node attention (" + std::to_string(a.nodeAttention.size()) + " tree nodes)");
    if (a.relations)
        parts.push_back("the relation matrix it read");
    if (!a.gates.empty())
        parts.push_back("gates (" + std::to_string(a.gates.size()) + " arrays)");
    if (!a.crossAttention.empty())
        parts.push_back("cross-sentence attention");
    if (!a.embedding.empty())
        parts.push_back("a " + std::to_string(a.embedding.size()) + "-dimensional sentence vector");
    if (parts.empty())
        return {};
    std::string line = "holds: ";
    for (std::size_t i = 0; i < parts.size(); ++i)
        line += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return line + " (--json for the values)";
}

/// "surprisal (nats): The - old 4.21 man 3.02 ...; log p(sentence) -23.417": a language model's
/// surprisal per word ("-" where nothing predicts the word).
std::string surprisalLine(const Analysis &a)
{
    std::string line = "surprisal (nats):";
    for (std::size_t w = 0; w < a.words.size() && w < a.surprisal.size(); ++w)
        line += " " + a.words[w] + " " + (std::isfinite(a.surprisal[w]) ? number(a.surprisal[w], "%.2f") : std::string("-"));
    if (a.logprob)
        line += "; log p(sentence) " + number(*a.logprob);
    if (!a.surprisal.empty() && !std::isfinite(a.surprisal.front()))
        line += " (\"-\": the sequence's first piece, which nothing predicts; --prepend-bos puts the model's BOS before it)";
    return line;
}

void sentenceLines(const Analysis &a, const std::string &indent, std::string &out)
{
    if (!a.surprisal.empty())
        out += indent + surprisalLine(a) + "\n";
    if (!a.ablated.empty()) {
        std::string line = "ablated:";
        for (const auto &[layer, head] : a.ablated)
            line += " L" + std::to_string(layer + 1) + (head < 0 ? std::string(" (every head)") : " H" + std::to_string(head + 1));
        out += indent + line + "\n";
    }
    if (a.inducedTree)
        out += indent + "tree:  " + writePtbTree(*a.inducedTree) + "\n";
    if (!a.linkProbs.empty() && !a.linkProbs.back().empty())
        out += indent + "links (top layer): " + linksLine(a) + "\n";
    // Words the model's vocabulary lacks (it saw its unknown token): said on every sentence
    // the model checks (after the tree and links, which lead as before), "none" included, so their absence is a finding (issue 47).
    if (a.unknownWords) {
        std::string line = "unknown words:";
        for (int w : *a.unknownWords)
            line += " " + (w >= 0 && w < static_cast<int>(a.words.size()) ? a.words[static_cast<std::size_t>(w)] : std::string("?")) +
                    " (" + std::to_string(w + 1) + ")";
        out += indent + (a.unknownWords->empty() ? std::string("unknown words: none") : line) + "\n";
    }
    // What the family says a reader needs (a Tree Transformer with its prior off: why no tree follows).
    for (const std::string &note : a.notes)
        out += indent + note + "\n";
    if (const std::string h = holdsLine(a); !h.empty())
        out += indent + h + "\n";
}

} // namespace

std::string predictionText(const Prediction &p)
{
    std::string s;
    if (p.probabilities.empty())
        return (p.label.empty() ? std::string() : p.label + " ") + "score " + number(p.score);
    s = p.label + " " + number(p.score) + " (";
    for (std::size_t k = 0; k < p.probabilities.size(); ++k)
        s += (k ? ", " : "") + (k < p.labels.size() ? p.labels[k] : std::to_string(k)) + " " + number(p.probabilities[k]);
    return s + ")";
}

std::string analysisToText(const Analysis &a)
{
    std::string out;
    if (a.prediction)
        out += std::string(a.second.empty() ? "prediction: " : "pair prediction: ") + predictionText(*a.prediction) + "\n";
    sentenceLines(a, "", out);
    for (const Analysis &b : a.second) {
        out += "second:\n";
        sentenceLines(b, "  ", out);
    }
    if (out.empty())
        out = "(the model emits nothing for this sentence beyond its tokens: " + std::to_string(a.tokens.size()) + ")\n";
    return out;
}

} // namespace treelens
