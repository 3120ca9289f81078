#pragma once
/// \file querystat.h
/// Statistics over the occurrences of a tree pattern (docs/query.md, "Statistics"):
/// the mean word-level attention from the word bound to one pattern node to the word bound
/// to another, per layer × head, with 95% confidence intervals and the same statistic for
/// the best fixed-offset baseline; the mean surprisal at a node, binned by a numeric
/// measure of the occurrence (distance, a count of words between two nodes, depth).

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/query/deppattern.h"

namespace treelens {

/// A mean with its 95% confidence interval (normal approximation: mean ± 1.96·s/√n, s the
/// sample standard deviation; the interval is the mean itself when n < 2).
struct MeanCi {
    double mean = 0.0;
    std::array<double, 2> ci95{0.0, 0.0};
    std::size_t n = 0;
};

/// Running sums for MeanCi.
struct MeanAccumulator {
    double sum = 0.0, sumSq = 0.0;
    std::size_t n = 0;
    void add(double x) { sum += x, sumSq += x * x, ++n; }
    MeanCi result() const;
};

struct AttentionStat {
    std::string from, to;         ///< the pattern nodes
    std::size_t occurrences = 0;  ///< occurrences counted
    std::size_t skipped = 0;      ///< occurrences left out: a node bound to the anchor, or no attention
    int layers = 0, heads = 0;
    bool causal = false;          ///< a causal model: attention to a later word is not possible
    std::size_t later = 0;        ///< counted occurrences whose `to` word comes after the `from` word
    std::vector<std::vector<MeanCi>> cells; ///< [layer][head], as Analysis::attention
    /// The baseline: the attention from the `from` word to the word at a fixed offset from
    /// it, the offset being the one that puts the `to` word most often (the best
    /// fixed-offset predictor of where `to` is); over the occurrences where that word exists.
    struct Baseline {
        int offset = 0;
        std::size_t hits = 0;         ///< occurrences whose `to` word is at that offset
        std::size_t occurrences = 0;  ///< occurrences where the word at that offset exists
        std::vector<std::vector<MeanCi>> cells;
    } baseline;
    /// Per counted occurrence, its value in each cell ([layer * heads + head]), in the order
    /// they were added (to list the occurrences behind a cell).
    std::vector<std::vector<float>> values;
};

/// Adds occurrences one by one (sentence after sentence), then gives the statistic.
class AttentionStatAccumulator {
public:
    AttentionStatAccumulator(std::string from, std::string to, bool keepValues = true);
    /// One occurrence: the pattern node `from` bound to word `fromWord`, `to` to `toWord`
    /// (1-based, 0 = the anchor) in the sentence `a` analysed. Returns false (and counts it
    /// as skipped) when either is the anchor or `a` has no attention; an analysis with
    /// another number of layers or heads than the first is an error.
    Result<bool> add(const Analysis &a, int fromWord, int toWord);
    AttentionStat result() const;

    static constexpr int kMaxOffset = 20; ///< offsets -20..20 are candidates for the baseline

private:
    AttentionStat m_stat;
    bool m_keep;
    std::vector<MeanAccumulator> m_cells;
    std::map<int, std::vector<MeanAccumulator>> m_offsets; ///< offset -> per cell
    std::map<int, std::size_t> m_offsetHits;
};

/// A numeric measure of an occurrence, to bin a statistic by:
/// `distance(X,Y)` the number of words from X to Y (|position difference|),
/// `count(X,Y,[upos=NOUN, Number=Plur])` the words strictly between X and Y that a Grew
/// node test accepts (attractors), `depth(X)` the number of edges from the root word to X,
/// `X.F` a feature whose value is a number.
class MatchMeasure {
public:
    static Result<MatchMeasure> parse(std::string_view text, const std::vector<std::string> &names);
    /// The value for an occurrence, or nothing (a feature without a number, the anchor).
    std::optional<double> value(const DepGraph &g, const DepMatch &m) const;
    const std::string &text() const { return m_text; }

private:
    enum class Kind { Distance, Count, Depth, Feature };
    Kind m_kind = Kind::Distance;
    std::string m_text;
    int m_a = -1, m_b = -1;
    std::string m_feature;
    std::optional<DepPattern> m_test; ///< Count: "pattern { Z [...] }"
};

struct SurprisalStat {
    std::string at;                ///< the pattern node
    std::string by;                ///< the measure ("" = none)
    std::size_t occurrences = 0;
    std::size_t skipped = 0;       ///< the anchor, no surprisal, or no value of the measure
    MeanCi overall;
    std::map<double, MeanCi> bins; ///< measure value -> surprisal at the node
};

class SurprisalStatAccumulator {
public:
    SurprisalStatAccumulator(std::string at, std::string by) { m_stat.at = std::move(at), m_stat.by = std::move(by); }
    /// `word` 1-based; `bin` the measure's value (nullopt without a measure or value).
    bool add(const Analysis &a, int word, std::optional<double> bin, bool binned);
    SurprisalStat result() const;

private:
    SurprisalStat m_stat;
    MeanAccumulator m_all;
    std::map<double, MeanAccumulator> m_bins;
};

} // namespace treelens
