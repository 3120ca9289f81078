// The pair workbench's pair view (see pairworkbench.h): its panels (both sentences' trees,
// the views below them), the trees with the model's analysis of the pair (each side an
// AnalysisDocument with its ViewHost), the aggregation steps (a model that aggregates
// phrases level by level) or composition steps (recursive models), and the phrase view
// with the question's phrase in a second pair.
#include "ui/pairworkbench.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "core/data/overlays.h"
#include "core/encoders/encoder.h"
#include "ui/backgroundjobs.h"
#include "ui/pairscoring.h"
#include "ui/pairworkbenchparts.h"
#include "ui/rankexplainpanel.h"
#include "ui/session/analysisdocument.h"
#include "ui/session/jobrunner.h"
#include "ui/viewhost.h"
#include "ui/viewregistry.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/pairviews.h"
#include "viz/aggregationnodes.h"
#include "viz/phraseview.h"

namespace treelens {

using namespace pairworkbench;

namespace {

/// The aggregation steps of a pair analysis with aggregation nodes: the levels of its deeper tree (0 without).
int aggregationPairSteps(const Analysis &a)
{
    int steps = 0;
    if (!overlay::hasAggregationNodes(a))
        return 0;
    for (const Analysis *side : {&a, a.second.empty() ? nullptr : &a.second.front()})
        if (side)
            if (auto n = aggregationNodesOf(*side))
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

/// The registry's tree views on each side of a pair, in their tab order (ViewSpec::pairTreeTab).
std::vector<const ViewSpec *> pairTreeSpecs()
{
    std::vector<const ViewSpec *> specs;
    for (const ViewSpec &spec : viewRegistry())
        if (spec.pairTreeTab >= 0)
            specs.push_back(&spec);
    std::sort(specs.begin(), specs.end(), [](const ViewSpec *a, const ViewSpec *b) { return a->pairTreeTab < b->pairTreeTab; });
    return specs;
}

} // namespace

void PairWorkbench::buildPairView()
{
    m_viewTabs = new QTabWidget;
    m_pairCaption = new QLabel;
    auto *pairPage = new QWidget;
    auto *pl = new QVBoxLayout(pairPage);
    pl->setContentsMargins(2, 2, 2, 2);
    QWidget *trees = buildSideTrees();
    buildDetailTabs();
    m_pairSplit = new QSplitter(Qt::Vertical);
    m_pairSplit->addWidget(trees);
    m_pairSplit->addWidget(m_detailTabs);
    m_pairSplit->setStretchFactor(0, 1);
    m_pairSplit->setStretchFactor(1, 1);
    auto *captionRow = new QHBoxLayout;
    captionRow->addWidget(m_pairCaption, 1);
    captionRow->addWidget(new QLabel(tr("Compare the question's phrases with:")));
    m_compare = new QComboBox;
    m_compare->setMinimumContentsLength(28);
    m_compare->setToolTip(tr("Another candidate of the same question: the phrase view shows the question's phrase in both pairs"));
    captionRow->addWidget(m_compare);
    connect(m_compare, &QComboBox::activated, this, [this](int index) { setComparePair(m_compare->itemData(index).toInt()); });
    pl->addLayout(captionRow);
    pl->addWidget(m_pairSplit, 1);
    m_viewTabs->addTab(pairPage, tr("Pair"));
}

QWidget *PairWorkbench::buildSideTrees()
{
    // Each side: its trees as tabs (the registry's entries with a pairTreeTab: the dependency
    // tree with the model's attention as arcs, the constituency tree with the attention from
    // the focus word); the views come from the view registry through each side's ViewHost,
    // and the first side's also has the Pair views a document feeds (the bridge: its
    // document carries the pair).
    auto *trees = new QSplitter(Qt::Horizontal);
    const QString sideName[2] = {tr("Question / text"), tr("Candidate / hypothesis")};
    const std::vector<const ViewSpec *> treeSpecs = pairTreeSpecs();
    m_treeViewNames.clear();
    for (const ViewSpec *spec : treeSpecs)
        m_treeViewNames << spec->name;
    for (int i = 0; i < 2; ++i) {
        auto *side = new QTabWidget;
        m_sideTabs[i] = side;
        side->setDocumentMode(true);
        QStringList views = m_treeViewNames;
        if (i == 0)
            for (const ViewSpec &spec : viewRegistry())
                if (spec.pane == ViewSpec::Pane::Pair && spec.create)
                    views << spec.name;
        auto *host = new ViewHost(m_sideDocs[i], side, views, backgroundWorkOf(m_jobs, JobRunner::Lane::Layout), this);
        m_sideViews[i] = host;
        // The pair's sentences are short (kMaxWords) and the views few: all stay current, shown or not.
        host->setSyncsHiddenViews(true);
        host->setSavesViewOptions(false); // the main window's tree options stay its own
        host->setViewOption(QStringLiteral("constituency.mode"), static_cast<int>(ConstituencyView::Mode::Parser));
        host->setViewOption(QStringLiteral("constituency.overlay"), static_cast<int>(ConstituencyView::Overlay::FocusAttention));
        qobject_cast<DependencyView *>(host->widget(QStringLiteral("dependency")))->setShowAttention(true);
        for (std::size_t t = 0; t < treeSpecs.size(); ++t)
            side->addTab(host->widget(treeSpecs[t]->name),
                         t == 0 ? QStringLiteral("%1: %2").arg(sideName[i], treeSpecs[t]->name) : treeSpecs[t]->name);
        // A phrase clicked on either constituency tree: the phrase view shows it.
        connect(qobject_cast<ConstituencyView *>(host->widget(QStringLiteral("constituency"))), &ConstituencyView::phraseClicked,
                this, [this, i](int id) {
                    selectPhrase(i, id);
                    showDetail(QStringLiteral("phrase"));
                });
        trees->addWidget(side);
    }
    return trees;
}

void PairWorkbench::buildDetailTabs()
{
    // Below the trees: the registry's Pair views, each scrolled (the bridge from the first
    // side's ViewHost; the phrase view, which this window fills, built through the registry),
    // then the Why this rank tab.
    m_detailTabs = new QTabWidget;
    m_detailTabs->setDocumentMode(true);
    m_detailNames.clear();
    for (const ViewSpec &spec : viewRegistry()) {
        if (spec.pane != ViewSpec::Pane::Pair)
            continue;
        auto *scroll = new QScrollArea;
        scroll->setWidget(spec.create ? m_sideViews[0]->widget(spec.name) : buildView<QWidget>(spec.name));
        scroll->setWidgetResizable(true);
        m_detailTabs->addTab(scroll, viewTabLabel(spec.name));
        m_detailNames << spec.name;
    }
    m_phraseView = dynamic_cast<PhraseView *>(detailView(QStringLiteral("phrase")));
    m_rankPanel = new RankExplainPanel(m_jobs);
    m_detailTabs->addTab(m_rankPanel, tr("Why this rank"));
    connect(m_rankPanel, &RankExplainPanel::attributionsReady, this, [this](int pair) { applyAttributions(pair); });
    connect(m_rankPanel, &RankExplainPanel::showPairRequested, this, [this](int pair) {
        if (m_currentRow >= 0)
            selectQuestion(m_currentRow, pair); // the candidate list follows, and shows the pair
        else
            showPair(pair);
    });
}

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
            // Aggregation nodes: a step aggregates one level on both trees (the pair is one batch), so the deeper tree sets the steps.
            const int aggregationSteps = aggregationPairSteps(*a);
            for (int side = 0; side < 2; ++side)
                sideViews(side).constituencyView()->setAggregationDepth(aggregationSteps - 1);
            // The recursive models: a step composes one height on both trees.
            const int steps = aggregationSteps > 0 ? aggregationSteps : recursivePairSteps(*a);
            bridgeOf(sideViews(0))->setCaption(gold + QStringLiteral(" — ") + systemName(systemPath(m_systemA)));
            m_sideDocs[0]->setResult(first, a); // the pair: the bridge reads Analysis::second
            m_sideDocs[1]->setResult(second, secondAnalysis);
            m_docsPair = m_currentPair; // the latest showPair's job (older ones are superseded)
            applyAttributions(m_currentPair); // explained before: its attributions on the trees again
            updateSelection();
            // Aggregation nodes: the question's root in the phrase view.
            m_step->setRange(0, steps);
            m_step->setEnabled(steps > 0);
            m_play->setEnabled(steps > 0);
            if (aggregationSteps > 0) {
                if (auto n = aggregationNodesOf(*a))
                    selectPhrase(0, static_cast<int>(n->nodes.size()) - 1);
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
            showConstituencyTrees(true); // phrases are aggregated over constituency trees
        m_step->setValue(1);
        m_playTimer->start();
    } else {
        m_playTimer->stop();
    }
}

void PairWorkbench::showDetail(const QString &name)
{
    if (const int index = static_cast<int>(m_detailNames.indexOf(name)); index >= 0)
        m_detailTabs->setCurrentIndex(index);
}

QString PairWorkbench::shownDetail() const
{
    return m_detailNames.value(m_detailTabs->currentIndex());
}

ExportableView *PairWorkbench::detailView(const QString &name) const
{
    const int index = static_cast<int>(m_detailNames.indexOf(name));
    auto *scroll = index >= 0 ? qobject_cast<QScrollArea *>(m_detailTabs->widget(index)) : nullptr;
    return scroll ? dynamic_cast<ExportableView *>(scroll->widget()) : nullptr;
}

void PairWorkbench::showTreeView(const QString &name)
{
    if (const int index = static_cast<int>(m_treeViewNames.indexOf(name)); index >= 0)
        for (QTabWidget *t : m_sideTabs)
            if (t)
                t->setCurrentIndex(index);
}

void PairWorkbench::applyViewOptions(const std::vector<ViewOptionValue> &values)
{
    std::vector<ViewOptionValue> eachPair;
    for (const ViewOptionValue &v : values) {
        if (!v.option || v.option->scope != ViewOption::Scope::Pairs || !v.option->applyToPairs)
            continue;
        if (v.option->eachPair)
            eachPair.push_back(v);
        else
            v.option->applyToPairs(*this, v.value);
    }
    if (!eachPair.empty())
        connect(this, &PairWorkbench::pairReady, this, [this, eachPair] {
            for (const ViewOptionValue &v : eachPair)
                v.option->applyToPairs(*this, v.value);
        });
}

void PairWorkbench::selectPhrase(int side, int id)
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
        m_phraseView->clear(tr("The phrase view shows a Tree Aggregation Transformer's pair: score the corpus with one (system A)."));
        return;
    }
    const Analysis *side = m_nodeSide == 0 ? a : (a->second.empty() ? nullptr : &a->second.front());
    const SentencePair *pair = m_corpus && m_currentPair >= 0 ? &m_corpus->pairs[static_cast<std::size_t>(m_currentPair)] : nullptr;
    const Sentence *sentence = pair ? (m_nodeSide == 0 ? &pair->first : &pair->second) : nullptr;
    auto nodes = side ? aggregationNodesOf(*side) : std::nullopt;
    if (!nodes || !sentence || !sentence->constituency || m_nodeId < 0 || m_nodeId >= static_cast<int>(nodes->nodes.size())) {
        m_phraseView->clear(tr("Click a phrase of either constituency tree."));
        return;
    }
    const auto words = sentence->words();
    auto panelOf = [&](const AggregationNodes &n, const Analysis &whole, const QString &who, const SentencePair &p) {
        PhraseView::Panel panel;
        panel.node = n.nodes[static_cast<std::size_t>(m_nodeId)];
        panel.labels = phrasePositionLabels(n, m_nodeId, *sentence->constituency, words);
        panel.steps = aggregationPairSteps(whole);
        const double score = whole.prediction ? whole.prediction->score : std::nan("");
        panel.caption = tr("%1 (%2), P(relevant) %3")
                            .arg(who, p.label == "1" ? tr("correct") : tr("wrong"))
                            .arg(score, 0, 'f', 3);
        return panel;
    };
    std::vector<PhraseView::Panel> panels;
    panels.push_back(panelOf(*nodes, *a, tr("With candidate %1").arg(m_currentPair), *pair));
    // The question's tree is the same in every pair of the question: its phrase in the comparison pair.
    if (m_nodeSide == 0 && m_compareAnalysis && m_comparePair >= 0) {
        auto other = aggregationNodesOf(*m_compareAnalysis);
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
    m_phraseView->setPanels(tr("%1 phrase %2 “%3” (node %4)")
                             .arg(m_nodeSide == 0 ? tr("Question") : tr("Candidate"),
                                  QString::fromStdString(phraseLabel(m_nodeId, *sentence->constituency)), text)
                             .arg(m_nodeId),
                         std::move(panels));
}

} // namespace treelens
