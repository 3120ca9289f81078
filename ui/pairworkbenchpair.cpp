// The pair workbench's pair view (see pairworkbench.h): both sentences' trees with the
// model's analysis of the pair (each side an AnalysisDocument with its ViewHost), the Tree
// Aggregation Transformer's or recursive models' steps, and the phrase view with the
// question's phrase in a second pair.
#include "ui/pairworkbench.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTabWidget>
#include <QTimer>

#include "core/data/overlays.h"
#include "core/encoders/encoder.h"
#include "ui/pairscoring.h"
#include "ui/pairworkbenchparts.h"
#include "ui/rankexplainpanel.h"
#include "ui/session/analysisdocument.h"
#include "ui/session/jobrunner.h"
#include "ui/viewhost.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/pairviews.h"
#include "viz/tatnodes.h"
#include "viz/tatnodeview.h"

namespace treelens {

using namespace pairworkbench;

namespace {

/// The aggregation steps of a pair analysis with aggregation nodes (the TAT): the levels of its deeper tree (0 without).
int tatPairSteps(const Analysis &a)
{
    int steps = 0;
    if (!overlay::hasAggregationNodes(a))
        return 0;
    for (const Analysis *side : {&a, a.second.empty() ? nullptr : &a.second.front()})
        if (side)
            if (auto n = tatNodesOf(*side))
                steps = std::max(steps, n->steps());
    return steps;
}

/// The composition steps of a pair analysis with a bottom-up composition (the recursive models): the larger height of its two trees (0 without).
int recursivePairSteps(const Analysis &a)
{
    if (!overlay::hasComposition(a))
        return 0;
    int steps = 0;
    for (const Analysis *side : {&a, a.second.empty() ? nullptr : &a.second.front()})
        if (side)
            for (int h : recursiveNodeHeights(side->nodeAttention))
                steps = std::max(steps, h);
    return steps;
}

/// One pair through the model (with attention): a pair model reads both sentences; a
/// single-sentence encoder is run on each side, the second side's analysis under `second`.
Result<Analysis> analysePair(JobRunner &jobs, const std::string &model, const Sentence &first, const Sentence &second,
                             const RunControl &control)
{
    auto enc = jobs.encoders().get(model, DeviceConfig{});
    if (!enc)
        return enc.error();
    AnalyzeOptions opt;
    opt.attention = true;
    if ((*enc)->info().pairInput) {
        auto r = (*enc)->analyze({pairEncoderInput(first, second)}, opt, &control);
        if (!r)
            return r.error();
        return std::move(r->front());
    }
    EncoderInput in{first.words(), first.dependency, first.constituency, {}, {}, {}};
    EncoderInput other{second.words(), second.dependency, second.constituency, {}, {}, {}};
    auto r = (*enc)->analyze({in, other}, opt, &control);
    if (!r)
        return r.error();
    Analysis a = std::move((*r)[0]);
    a.second.push_back(std::move((*r)[1]));
    return a;
}

/// The bridge between the sentences (side 0's host has it).
PairBridgeView *bridgeOf(ViewHost &host)
{
    return qobject_cast<PairBridgeView *>(host.widget(QStringLiteral("bridge")));
}

} // namespace

ConstituencyView *PairWorkbench::constituencyView(int side) const
{
    return sideViews(side).constituencyView();
}

int PairWorkbench::aggregationStep() const
{
    return m_sideDocs[0]->selection().aggregationStep;
}

void PairWorkbench::updateSelection()
{
    for (AnalysisDocument *doc : m_sideDocs) {
        ViewState s = doc->selection();
        s.layer = m_layer->value() - 1;
        s.head = m_head->value() - 1;
        s.aggregationStep = m_step->value();
        doc->setSelection(s); // clamped to the side's analysis; the views follow
    }
}

void PairWorkbench::showPair(int pair)
{
    if (!m_corpus || pair < 0 || pair >= static_cast<int>(m_corpus->pairs.size()))
        return;
    m_currentPair = pair;
    m_jobs.cancelGroup(kCompareGroup); // a comparison of the previous pair is no longer wanted
    m_rankPanel->setQuestion(shownRanking(pair), pair);
    const SentencePair &p = m_corpus->pairs[static_cast<std::size_t>(pair)];
    auto first = std::make_shared<const Sentence>(p.first);
    auto second = std::make_shared<const Sentence>(p.second);
    const QString gold = tr("pair %1 (group %2), gold label %3").arg(pair).arg(QString::fromStdString(p.group),
                                                                              QString::fromStdString(p.label));
    m_pairCaption->setText(gold);
    m_compareAnalysis.reset();
    fillCompareChoices();
    const QString path = systemPath(m_systemA);
    if (path.isEmpty() || path == kIdfSystem) {
        m_pairAnalysis.reset();
        bridgeOf(sideViews(0))->setCaption(gold);
        m_sideDocs[0]->setResult(first, nullptr);
        m_sideDocs[1]->setResult(second, nullptr);
        m_docsPair = pair;
        updateNodeView();
        Q_EMIT pairReady();
        return;
    }
    JobRunner *jobs = &m_jobs;
    const std::string model = path.toStdString();
    m_jobs.submit<Analysis>(
        JobRunner::Lane::Background, kViewGroup, this,
        [jobs, model, first, second](const RunControl &control) { return analysePair(*jobs, model, *first, *second, control); },
        [this, first, second, gold](quint64, std::shared_ptr<const Analysis> a) {
            m_pairAnalysis = a;
            {
                // The selection follows below, once the documents have the new analysis (its shape).
                const QSignalBlocker layerBlocker(m_layer), headBlocker(m_head);
                m_layer->setRange(1, std::max(1, a->layers));
                m_head->setRange(1, std::max(1, a->heads));
            }
            auto secondAnalysis = a->second.empty() ? nullptr : std::make_shared<const Analysis>(a->second.front());
            // The TAT: a step aggregates one level on both trees (the pair is one batch), so the deeper tree sets the steps.
            const int tatSteps = tatPairSteps(*a);
            for (int side = 0; side < 2; ++side)
                sideViews(side).constituencyView()->setAggregationDepth(tatSteps - 1);
            // The recursive models: a step composes one height on both trees.
            const int steps = tatSteps > 0 ? tatSteps : recursivePairSteps(*a);
            bridgeOf(sideViews(0))->setCaption(gold + QStringLiteral(" — ") + systemName(systemPath(m_systemA)));
            m_sideDocs[0]->setResult(first, a); // the pair: the bridge reads Analysis::second
            m_sideDocs[1]->setResult(second, secondAnalysis);
            m_docsPair = m_currentPair; // the latest showPair's job (older ones are superseded)
            applyAttributions(m_currentPair); // explained before: its attributions on the trees again
            updateSelection();
            // The TAT: the question's root in the phrase view.
            m_step->setRange(0, steps);
            m_step->setEnabled(steps > 0);
            m_play->setEnabled(steps > 0);
            if (tatSteps > 0) {
                if (auto n = tatNodesOf(*a))
                    selectTatNode(0, static_cast<int>(n->nodes.size()) - 1);
            } else {
                updateNodeView();
            }
            if (steps > 0 && m_comparePair >= 0)
                analyseComparePair(); // says pairReady when the comparison is in
            else
                Q_EMIT pairReady();
        },
        [this](quint64, const QString &message) { m_status->setText(tr("Error: %1").arg(message)); });
}

std::vector<int> PairWorkbench::shownRanking(int pair) const
{
    if (m_currentRow < 0 || m_currentRow >= static_cast<int>(m_rows.size()))
        return {};
    const std::vector<int> &ranked = m_rows[static_cast<std::size_t>(m_currentRow)].ranked;
    return std::find(ranked.begin(), ranked.end(), pair) != ranked.end() ? ranked : std::vector<int>{};
}

void PairWorkbench::showRankPanel() { m_detailTabs->setCurrentWidget(m_rankPanel); }

void PairWorkbench::applyAttributions(int pair)
{
    if (pair != m_docsPair) // the documents hold another pair (or this one's analysis has not arrived)
        return;
    const auto attribution = m_rankPanel->attributionFor(pair);
    if (!attribution)
        return;
    for (int side = 0; side < 2 && side < static_cast<int>(attribution->sides.size()); ++side) {
        AnalysisDocument &doc = *m_sideDocs[side];
        const auto analysis = doc.analysis();
        const std::vector<double> &word = attribution->sides[static_cast<std::size_t>(side)].word;
        if (!analysis || analysis->words.size() != word.size())
            continue;
        // The views draw overlay::kAttributionWord: bands under the words, badges on the constituents.
        auto copy = std::make_shared<Analysis>(*analysis);
        NamedArray values{{static_cast<int>(word.size())}, {}};
        for (double v : word)
            values.data.push_back(static_cast<float>(v));
        copy->gates[overlay::kAttributionWord] = std::move(values);
        doc.setAnalysis(copy, doc.modelMessage());
    }
    if (!attribution->sides.empty())
        m_pairAnalysis = m_sideDocs[0]->analysis();
}

void PairWorkbench::setAggregationStep(int step)
{
    if (m_step->value() != step) {
        m_step->setValue(step); // comes back here through valueChanged
        return;
    }
    updateSelection();
}

void PairWorkbench::playAggregation(bool on)
{
    if (m_play->isChecked() != on) {
        m_play->setChecked(on);
        return;
    }
    if (on) {
        if (m_pairAnalysis && overlay::hasAggregationNodes(*m_pairAnalysis))
            showConstituencyTrees(true); // the TAT aggregates over constituency trees
        m_step->setValue(1);
        m_playTimer->start();
    } else {
        m_playTimer->stop();
    }
}

void PairWorkbench::showNodeView(bool on)
{
    m_detailTabs->setCurrentIndex(on ? 1 : 0);
}

void PairWorkbench::selectTatNode(int side, int id)
{
    m_nodeSide = side == 0 ? 0 : 1;
    m_nodeId = id;
    constituencyView(0)->setSelectedTatNode(m_nodeSide == 0 ? id : -1);
    constituencyView(1)->setSelectedTatNode(m_nodeSide == 1 ? id : -1);
    updateNodeView();
}

void PairWorkbench::fillCompareChoices()
{
    m_compare->clear();
    m_comparePair = -1;
    if (!m_corpus || m_currentPair < 0 || m_corpus->task != kRankingTask) {
        m_compare->setEnabled(false);
        return;
    }
    const auto &cur = m_corpus->pairs[static_cast<std::size_t>(m_currentPair)];
    m_compare->addItem(tr("(none)"), -1);
    int best = -1;
    double bestScore = -1e300;
    for (std::size_t i = 0; i < m_corpus->pairs.size(); ++i) {
        const auto &p = m_corpus->pairs[i];
        if (static_cast<int>(i) == m_currentPair || p.group != cur.group)
            continue;
        const bool correct = p.label == "1";
        const double score = m_scores && i < m_scores->a.scores.size() ? m_scores->a.scores[i] : std::nan("");
        QString text = QString::fromStdString(p.second.text);
        if (text.size() > 48)
            text = text.left(47) + QChar(0x2026);
        m_compare->addItem(QStringLiteral("%1 · %2%3 · %4")
                               .arg(static_cast<int>(i))
                               .arg(correct ? tr("correct") : tr("wrong"))
                               .arg(std::isnan(score) ? QString() : QStringLiteral(" · A %1").arg(score, 0, 'f', 3))
                               .arg(text),
                           static_cast<int>(i));
        // The default: the best-scored candidate of the other gold label (correct vs wrong).
        if (correct != (cur.label == "1") && (best < 0 || score > bestScore)) {
            best = static_cast<int>(i);
            bestScore = std::isnan(score) ? -1e299 : score;
        }
    }
    m_compare->setEnabled(m_compare->count() > 1);
    m_comparePair = best;
    m_compare->setCurrentIndex(std::max(0, m_compare->findData(best)));
}

void PairWorkbench::setComparePair(int pair)
{
    if (m_compare->findData(pair) < 0)
        pair = -1;
    m_comparePair = pair;
    m_compare->setCurrentIndex(std::max(0, m_compare->findData(pair)));
    m_compareAnalysis.reset();
    if (pair >= 0 && m_pairAnalysis && overlay::hasAggregationNodes(*m_pairAnalysis))
        analyseComparePair();
    else
        updateNodeView();
}

void PairWorkbench::analyseComparePair()
{
    if (!m_corpus || m_comparePair < 0)
        return;
    const SentencePair &p = m_corpus->pairs[static_cast<std::size_t>(m_comparePair)];
    auto first = std::make_shared<const Sentence>(p.first);
    auto second = std::make_shared<const Sentence>(p.second);
    JobRunner *jobs = &m_jobs;
    const std::string model = systemPath(m_systemA).toStdString();
    const int pair = m_comparePair;
    m_jobs.submit<Analysis>(
        JobRunner::Lane::Background, kCompareGroup, this,
        [jobs, model, first, second](const RunControl &control) { return analysePair(*jobs, model, *first, *second, control); },
        [this, pair](quint64, std::shared_ptr<const Analysis> a) {
            if (pair == m_comparePair)
                m_compareAnalysis = a;
            updateNodeView();
            Q_EMIT pairReady();
        },
        [this](quint64, const QString &message) {
            m_status->setText(tr("Error: %1").arg(message));
            updateNodeView();
            Q_EMIT pairReady();
        });
}

void PairWorkbench::updateNodeView()
{
    const Analysis *a = m_pairAnalysis.get();
    if (!a || !overlay::hasAggregationNodes(*a)) {
        m_tatNode->clear(tr("The phrase view shows a Tree Aggregation Transformer's pair: score the corpus with one (system A)."));
        return;
    }
    const Analysis *side = m_nodeSide == 0 ? a : (a->second.empty() ? nullptr : &a->second.front());
    const SentencePair *pair = m_corpus && m_currentPair >= 0 ? &m_corpus->pairs[static_cast<std::size_t>(m_currentPair)] : nullptr;
    const Sentence *sentence = pair ? (m_nodeSide == 0 ? &pair->first : &pair->second) : nullptr;
    auto nodes = side ? tatNodesOf(*side) : std::nullopt;
    if (!nodes || !sentence || !sentence->constituency || m_nodeId < 0 || m_nodeId >= static_cast<int>(nodes->nodes.size())) {
        m_tatNode->clear(tr("Click a phrase of either constituency tree."));
        return;
    }
    const auto words = sentence->words();
    auto panelOf = [&](const TatNodes &n, const Analysis &whole, const QString &who, const SentencePair &p) {
        TatNodeView::Panel panel;
        panel.node = n.nodes[static_cast<std::size_t>(m_nodeId)];
        panel.labels = tatPositionLabels(n, m_nodeId, *sentence->constituency, words);
        panel.steps = tatPairSteps(whole);
        const double score = whole.prediction ? whole.prediction->score : std::nan("");
        panel.caption = tr("%1 (%2), P(relevant) %3")
                            .arg(who, p.label == "1" ? tr("correct") : tr("wrong"))
                            .arg(score, 0, 'f', 3);
        return panel;
    };
    std::vector<TatNodeView::Panel> panels;
    panels.push_back(panelOf(*nodes, *a, tr("With candidate %1").arg(m_currentPair), *pair));
    // The question's tree is the same in every pair of the question: its phrase in the comparison pair.
    if (m_nodeSide == 0 && m_compareAnalysis && m_comparePair >= 0) {
        auto other = tatNodesOf(*m_compareAnalysis);
        if (other && other->nodes.size() == nodes->nodes.size())
            panels.push_back(panelOf(*other, *m_compareAnalysis, tr("With candidate %1").arg(m_comparePair),
                                     m_corpus->pairs[static_cast<std::size_t>(m_comparePair)]));
    }
    const auto &r = nodes->nodes[static_cast<std::size_t>(m_nodeId)];
    QString text;
    for (int w = r.span.first; w < r.span.second && w < static_cast<int>(words.size()); ++w)
        text += (text.isEmpty() ? QString() : QStringLiteral(" ")) + QString::fromStdString(words[static_cast<std::size_t>(w)]);
    if (text.size() > 60)
        text = text.left(59) + QChar(0x2026);
    m_tatNode->setPanels(tr("%1 phrase %2 “%3” (node %4)")
                             .arg(m_nodeSide == 0 ? tr("Question") : tr("Candidate"),
                                  QString::fromStdString(tatNodeLabel(m_nodeId, *sentence->constituency)), text)
                             .arg(m_nodeId),
                         std::move(panels));
}

} // namespace treelens
