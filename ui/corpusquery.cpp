// The Corpus dock's tree-pattern query without widgets (see corpusquery.h).
#include "ui/corpusquery.h"

#include <filesystem>

#include "ui/session/sentencepipeline.h"
#include "viz/patternmarks.h"

namespace treelens {

Result<CorpusPattern> CorpusPattern::parse(const std::string &text)
{
    CorpusPattern p;
    p.m_text = text;
    if (looksLikeGrewRequest(text)) {
        auto grew = DepPattern::parse(text);
        if (!grew)
            return Error{"Grew request: " + grew.message()};
        p.m_names = grew->names();
        p.m_grew = std::move(*grew);
    } else {
        auto tregex = TregexPattern::parse(text);
        if (!tregex)
            return Error{"Tregex pattern: " + tregex.message()};
        p.m_names = {"_root_"};
        p.m_names.insert(p.m_names.end(), tregex->names().begin(), tregex->names().end());
        p.m_tregex = std::move(*tregex);
    }
    return p;
}

std::vector<std::vector<int>> CorpusPattern::match(const Sentence &s, const DepGraph &graph, std::size_t limit) const
{
    std::vector<std::vector<int>> out;
    if (m_grew) {
        if (!s.dependency)
            return out;
        for (DepMatch &m : m_grew->match(graph, limit))
            out.push_back(std::move(m.nodes));
    } else if (m_tregex && s.constituency) {
        for (const TregexMatch &m : m_tregex->match(*s.constituency, limit)) {
            std::vector<int> nodes{m.node};
            nodes.insert(nodes.end(), m.bound.begin(), m.bound.end());
            out.push_back(std::move(nodes));
        }
    }
    return out;
}

const std::vector<DepGraph> &CorpusGraphs::graphs() const
{
    std::call_once(m_once, [this] {
        if (!m_corpus)
            return;
        m_graphs.reserve(m_corpus->size());
        for (const Sentence &s : *m_corpus)
            m_graphs.push_back(DepGraph::fromSentence(s));
    });
    return m_graphs;
}

std::vector<int> CorpusQueryResult::counts() const
{
    std::vector<int> c;
    c.reserve(occurrences.size());
    for (const auto &row : occurrences)
        c.push_back(static_cast<int>(row.size()));
    return c;
}

std::vector<int> CorpusQueryResult::matchedRows() const
{
    std::vector<int> rows;
    for (std::size_t r = 0; r < occurrences.size(); ++r)
        if (!occurrences[r].empty())
            rows.push_back(static_cast<int>(r));
    return rows;
}

std::shared_ptr<const std::vector<Sentence>> CorpusQueryResult::matchedSentences() const
{
    auto out = std::make_shared<std::vector<Sentence>>();
    if (corpus)
        for (int r : matchedRows())
            out->push_back((*corpus)[static_cast<std::size_t>(r)]);
    return out;
}

int CorpusQueryResult::word(int row, int k, int name) const
{
    if (row < 0 || static_cast<std::size_t>(row) >= occurrences.size() || !pattern || !corpus)
        return 0;
    const auto &occ = occurrences[static_cast<std::size_t>(row)];
    if (k < 0 || static_cast<std::size_t>(k) >= occ.size() || name < 0 || static_cast<std::size_t>(name) >= occ[k].size())
        return 0;
    const int node = occ[static_cast<std::size_t>(k)][static_cast<std::size_t>(name)];
    if (pattern->isGrew())
        return node;
    const Sentence &s = (*corpus)[static_cast<std::size_t>(row)];
    if (node < 0 || !s.constituency)
        return 0;
    const auto [start, end] = s.constituency->span(node);
    return end == start + 1 ? start + 1 : 0;
}

std::shared_ptr<const PatternMarks> CorpusQueryResult::marks(int row) const
{
    if (row < 0 || static_cast<std::size_t>(row) >= occurrences.size() || occurrences[row].empty() || !corpus || !pattern)
        return nullptr;
    const Sentence &s = (*corpus)[static_cast<std::size_t>(row)];
    auto m = std::make_shared<PatternMarks>();
    m->sentenceId = s.id;
    m->words = s.tokens.size();
    m->pattern = QString::fromStdString(pattern->text());
    m->occurrences = static_cast<int>(occurrences[row].size());
    const auto &names = pattern->names();
    for (std::size_t k = 0; k < occurrences[row].size(); ++k) {
        const auto &occ = occurrences[row][k];
        for (std::size_t i = 0; i < occ.size() && i < names.size(); ++i) {
            PatternMarks::Mark mark;
            mark.name = QString::fromStdString(names[i]);
            mark.colour = static_cast<int>(i);
            mark.occurrence = static_cast<int>(k);
            if (pattern->isGrew()) {
                if (occ[i] < 1) // the anchor is no word
                    continue;
                mark.first = mark.last = occ[i] - 1;
            } else {
                if (occ[i] < 0 || !s.constituency)
                    continue;
                const auto [start, end] = s.constituency->span(occ[i]);
                if (end <= start) // traces only
                    continue;
                mark.first = start;
                mark.last = end - 1;
                mark.phrase = true;
                mark.label = QString::fromStdString(s.constituency->node(occ[i]).label);
            }
            m->marks.push_back(std::move(mark));
        }
    }
    return m;
}

Result<CorpusQueryResult> runCorpusQuery(std::shared_ptr<const CorpusPattern> pattern, const CorpusGraphs &graphs,
                                         const RunControl &control)
{
    CorpusQueryResult r;
    r.corpus = graphs.corpus();
    r.pattern = pattern;
    if (!r.corpus || !pattern)
        return r;
    // Only a Grew request reads the graphs: a Tregex pattern never waits for them.
    static const std::vector<DepGraph> none;
    const std::vector<DepGraph> &g = pattern->isGrew() ? graphs.graphs() : none;
    static const DepGraph empty;
    const std::size_t n = r.corpus->size();
    r.occurrences.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (i % 256 == 0) {
            if (control.isCancelled())
                return Error{"cancelled"};
            control.report(i, n, "Matching");
        }
        const Sentence &s = (*r.corpus)[i];
        if (pattern->tree() == TreeKind::Dependency ? !s.dependency : !s.constituency) {
            ++r.withoutTree;
            continue;
        }
        r.occurrences[i] = pattern->match(s, i < g.size() ? g[i] : empty, CorpusQueryResult::kPerSentenceLimit);
        if (r.occurrences[i].size() >= CorpusQueryResult::kPerSentenceLimit)
            ++r.capped;
        r.total += r.occurrences[i].size();
        r.sentencesMatched += r.occurrences[i].empty() ? 0 : 1;
    }
    return r;
}

Result<QueryAttentionRun> queryAttention(const CorpusQueryResult &query, int from, int to, SentencePipeline &pipeline,
                                         const ParserConfig &parser, const std::string &modelPath, const RunControl &control)
{
    if (!query.pattern || !query.corpus)
        return Error{"no query"};
    const auto &names = query.pattern->names();
    if (from < 0 || to < 0 || static_cast<std::size_t>(from) >= names.size() || static_cast<std::size_t>(to) >= names.size())
        return Error{"the pattern has no such node"};
    if (modelPath.empty())
        return Error{"No model is loaded (File ▸ Load model…): the statistic reads a model's attention."};
    QueryAttentionRun run;
    run.model = std::filesystem::path(modelPath).filename().string();
    AttentionStatAccumulator acc(names[static_cast<std::size_t>(from)], names[static_cast<std::size_t>(to)]);
    const std::vector<int> rows = query.matchedRows();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (control.isCancelled())
            return Error{"cancelled"};
        control.report(i, rows.size(), "Analysing the matched sentences");
        const int row = rows[i];
        const Sentence &s = (*query.corpus)[static_cast<std::size_t>(row)];
        SentencePipeline::Output out = pipeline.runForModel(s, parser, modelPath, control);
        if (control.isCancelled())
            return Error{"cancelled"};
        if (!out.analysis) {
            if (!out.modelError.empty())
                return Error{out.modelError};
            continue; // the sentence itself was refused (over the word limit): its occurrences are not counted
        }
        ++run.sentences;
        for (std::size_t k = 0; k < query.occurrences[static_cast<std::size_t>(row)].size(); ++k) {
            auto added = acc.add(*out.analysis, query.word(row, static_cast<int>(k), from), query.word(row, static_cast<int>(k), to));
            if (!added)
                return Error{s.id + ": " + added.message()};
            if (*added)
                run.counted.push_back({row, static_cast<int>(k)});
        }
    }
    control.report(rows.size(), rows.size(), "Analysing the matched sentences");
    run.stat = acc.result();
    return run;
}

QueryAttentionFigure queryAttentionFigure(const QueryAttentionRun &run, const CorpusQueryResult &query)
{
    const AttentionStat &st = run.stat;
    QueryAttentionFigure f;
    f.pattern = query.pattern ? QString::fromStdString(query.pattern->text()).simplified() : QString();
    f.from = QString::fromStdString(st.from);
    f.to = QString::fromStdString(st.to);
    f.model = QString::fromStdString(run.model);
    f.layers = st.layers;
    f.heads = st.heads;
    f.occurrences = st.occurrences;
    f.skipped = st.skipped;
    f.sentences = run.sentences;
    f.causal = st.causal;
    f.later = st.later;
    auto grid = [&](const std::vector<std::vector<MeanCi>> &cells) {
        std::vector<QueryAttentionFigure::Cell> out;
        for (const auto &row : cells)
            for (const MeanCi &c : row)
                out.push_back({c.mean, c.ci95[0], c.ci95[1], c.n});
        return out;
    };
    f.cells = grid(st.cells);
    if (!st.baseline.cells.empty()) {
        f.baselineOffset = st.baseline.offset;
        f.baselineHits = st.baseline.hits;
        f.baselineOccurrences = st.baseline.occurrences;
        f.baseline = grid(st.baseline.cells);
    }
    return f;
}

} // namespace treelens
