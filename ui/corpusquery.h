#pragma once
/// \file corpusquery.h
/// The Corpus dock's tree-pattern query (issue 48; docs/query.md, "In the app"), without
/// widgets: a pattern typed in the dock parsed as a Grew request or a Tregex pattern
/// (looksLikeGrewRequest decides, as `treelens-cli query --syntax auto` does) and matched
/// against every sentence of the open corpus (each sentence's DepGraph built once per corpus
/// and kept), the occurrences kept per sentence; what the tree views draw of one sentence's
/// occurrences (PatternMarks); and the attention statistic from one pattern node to another
/// over them (core/query/querystat.h), each sentence analysed as the window analyses one
/// (SentencePipeline). Everything here may run on any thread: the corpus, the patterns and
/// the graphs are immutable once made.

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/sentence.h"
#include "core/parsing/parser.h"
#include "core/query/deppattern.h"
#include "core/query/querystat.h"
#include "core/query/tregex.h"
#include "viz/queryattentionview.h"
#include "viz/viewcommon.h"

namespace treelens {

class SentencePipeline;

/// A pattern typed into the dock, parsed.
class CorpusPattern {
public:
    /// Parses `text` as a Grew request when looksLikeGrewRequest() says it is one, else as a
    /// Tregex pattern. The error names the language and where the parser stopped: "Grew
    /// request: line 1, column 24: expected ',' or ']', found '}'".
    static Result<CorpusPattern> parse(const std::string &text);

    bool isGrew() const { return m_grew.has_value(); }
    /// "Grew request" or "Tregex pattern".
    std::string languageName() const { return isGrew() ? "Grew request" : "Tregex pattern"; }
    /// The tree the pattern reads: a Grew request the dependency tree, Tregex the constituency tree.
    TreeKind tree() const { return isGrew() ? TreeKind::Dependency : TreeKind::Constituency; }
    /// The names of the pattern's nodes: a Grew request's pattern nodes; for Tregex "_root_"
    /// (the node at the pattern's root) then its =name nodes (as `treelens-cli query` writes them).
    const std::vector<std::string> &names() const { return m_names; }
    const std::string &text() const { return m_text; }

    /// Every occurrence in `s` (at most `limit`), each the node bound to every name: for a Grew
    /// request 0 = the anchor and 1..n the words (`graph`: `s`'s DepGraph); for Tregex the tree
    /// node (ConstituencyTree::nodes), -1 for a name the occurrence leaves unbound. None when
    /// `s` lacks the tree the pattern reads.
    std::vector<std::vector<int>> match(const Sentence &s, const DepGraph &graph, std::size_t limit) const;

private:
    std::optional<DepPattern> m_grew;
    std::optional<TregexPattern> m_tregex;
    std::vector<std::string> m_names;
    std::string m_text;
};

/// Each sentence's DepGraph, built once for a corpus on first use (from any thread).
class CorpusGraphs {
public:
    explicit CorpusGraphs(std::shared_ptr<const std::vector<Sentence>> corpus) : m_corpus(std::move(corpus)) {}
    const std::shared_ptr<const std::vector<Sentence>> &corpus() const { return m_corpus; }
    /// The graphs, by corpus row (built by the first caller; the others wait for it).
    const std::vector<DepGraph> &graphs() const;

private:
    std::shared_ptr<const std::vector<Sentence>> m_corpus;
    mutable std::once_flag m_once;
    mutable std::vector<DepGraph> m_graphs;
};

/// A pattern matched over a corpus.
struct CorpusQueryResult {
    std::shared_ptr<const std::vector<Sentence>> corpus;
    std::shared_ptr<const CorpusPattern> pattern;
    /// occurrences[row][k]: occurrence k of corpus row `row`, as CorpusPattern::match gives it.
    std::vector<std::vector<std::vector<int>>> occurrences;
    std::size_t total = 0;           ///< occurrences in all
    std::size_t sentencesMatched = 0;
    std::size_t withoutTree = 0;     ///< sentences that lack the tree the pattern reads (not searched)
    std::size_t capped = 0;          ///< sentences whose occurrences were cut at the per-sentence limit

    /// Occurrences per corpus row.
    std::vector<int> counts() const;
    /// The rows with at least one occurrence, in corpus order.
    std::vector<int> matchedRows() const;
    /// The matched sentences themselves, in corpus order (the Probing and Minimal pairs docks' slice).
    std::shared_ptr<const std::vector<Sentence>> matchedSentences() const;
    /// The word (1-based) that node `name` of occurrence `k` of `row` stands for in a word-level
    /// statistic: a Grew node's own (0 = the anchor); a Tregex node's only word when it covers
    /// exactly one; 0 otherwise (a constituent of several words, an unbound name).
    int word(int row, int k, int name) const;
    /// What the tree views outline in `row`'s sentence (null when it has no occurrence).
    std::shared_ptr<const PatternMarks> marks(int row) const;

    /// Occurrences kept per sentence (a Tregex pattern's matches grow as a product of its descriptions).
    static constexpr std::size_t kPerSentenceLimit = 10000;
};

/// Matches `pattern` against every sentence of `graphs`' corpus; cancellable between
/// sentences (then an error "cancelled"); progress in sentences.
Result<CorpusQueryResult> runCorpusQuery(std::shared_ptr<const CorpusPattern> pattern, const CorpusGraphs &graphs,
                                         const RunControl &control);

/// The attention statistic over a query's occurrences.
struct QueryAttentionRun {
    AttentionStat stat;
    /// For each occurrence counted (AttentionStat::values' order): its corpus row and its
    /// index among that row's occurrences.
    std::vector<std::pair<int, int>> counted;
    std::size_t sentences = 0; ///< sentences analysed
    std::string model;         ///< the model's name
};

/// Analyses every matched sentence of `query` with the model at `modelPath`
/// (SentencePipeline::runForModel: the parser only for a tree the model reads and the sentence
/// lacks; every head on) and adds each occurrence to an AttentionStatAccumulator from node
/// `from` to node `to` (indices into the pattern's names()). Errors: no model, a model that
/// does not analyse one sentence (its refusal), a model error, cancelled.
Result<QueryAttentionRun> queryAttention(const CorpusQueryResult &query, int from, int to, SentencePipeline &pipeline,
                                         const ParserConfig &parser, const std::string &modelPath, const RunControl &control);

/// The heatmap's figure of a run.
QueryAttentionFigure queryAttentionFigure(const QueryAttentionRun &run, const CorpusQueryResult &query);

} // namespace treelens
