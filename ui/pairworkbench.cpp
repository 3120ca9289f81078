// The pair workbench (see pairworkbench.h).
#include "ui/pairworkbench.h"

#include <chrono>
#include <cmath>
#include <set>

#include <QAction>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "core/data/overlays.h"
#include "core/encoders/encoder.h"
#include "core/eval/paireval.h"
#include "core/parsing/pairparsing.h"
#include "core/parsing/parser.h"
#include "ui/session/jobrunner.h"
#include "ui/session/settings.h"
#include "ui/backgroundjobs.h"
#include "ui/modelfiledialog.h"
#include "core/model/trainingdata.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/pairviews.h"
#include "viz/tatnodes.h"
#include "viz/tatnodeview.h"
#include "viz/viewexport.h"

namespace treelens {

namespace {

const QString kGroup = QStringLiteral("pairs");
const QString kViewGroup = QStringLiteral("pairs-view");
const QString kCompareGroup = QStringLiteral("pairs-view-compare");

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
const QString kIdf = QStringLiteral("idf");
constexpr int kMaxWords = 250;

QTableWidgetItem *item(const QString &text)
{
    auto *i = new QTableWidgetItem(text);
    i->setFlags(i->flags() & ~Qt::ItemIsEditable);
    return i;
}

QTableWidgetItem *number(double v, int digits = 3)
{
    auto *i = new QTableWidgetItem;
    i->setData(Qt::DisplayRole, std::isfinite(v) ? QVariant(QString::number(v, 'f', digits).toDouble()) : QVariant());
    i->setFlags(i->flags() & ~Qt::ItemIsEditable);
    return i;
}

QString sentenceText(const Sentence &s)
{
    return QString::fromStdString(s.text.empty() ? [&] {
        std::string t;
        for (const auto &w : s.words())
            t += (t.empty() ? "" : " ") + w;
        return t;
    }() : s.text);
}

/// Reads a pair corpus and parses both sides with the configured backend (a
/// backend that cannot be created leaves the corpus without trees).
Result<PairCorpus> readAndParse(const std::string &path, const ParserConfig &config, const RunControl &control)
{
    auto corpus = readPairCorpus(path);
    if (!corpus)
        return corpus.error();
    auto parser = createParser(config);
    if (!parser)
        return *corpus;
    auto parsed = parsePairCorpus(*corpus, **parser, control, kMaxWords);
    if (!parsed)
        return parsed.error();
    return *corpus;
}

} // namespace

PairWorkbench::PairWorkbench(JobRunner &jobs, QWidget *parent) : QMainWindow(parent), m_jobs(jobs)
{
    setWindowTitle(tr("TreeLens — Pair workbench"));
    setAcceptDrops(true);
    m_state.threshold = 0.15;
    buildUi();
    buildMenus();
    resize(1500, 950);
}

void PairWorkbench::fillSystemBox(QComboBox *box, bool allowNone)
{
    if (allowNone)
        box->addItem(tr("(none)"), QString());
    for (const char *name : {"iggsa-en-wikiqa.safetensors", "ggsa-en-wikiqa.safetensors"}) {
        const std::string path = findShippedModel(name);
        if (!path.empty())
            box->addItem(QFileInfo(QString::fromStdString(path)).completeBaseName(), QString::fromStdString(path));
    }
    box->addItem(tr("IDF word-overlap baseline"), kIdf);
    for (const QString &m : Settings::recentModels())
        if (box->findData(m) < 0)
            box->addItem(QFileInfo(m).completeBaseName(), m);
    box->addItem(tr("Other model file…"), QStringLiteral("?"));
    connect(box, &QComboBox::activated, this, [this, box](int index) {
        if (box->itemData(index).toString() != QLatin1String("?"))
            return;
        const QString path = chooseEncoderFile(this, tr("Pair model"), {});
        if (path.isEmpty()) {
            box->setCurrentIndex(0);
            return;
        }
        box->insertItem(index, QFileInfo(path).completeBaseName(), path);
        box->setCurrentIndex(index);
        Settings::addRecentModel(path);
    });
}

void PairWorkbench::buildUi()
{
    auto *bar = addToolBar(tr("Pairs"));
    bar->setObjectName(QStringLiteral("pairsToolbar"));
    bar->addAction(tr("Open pairs…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a pair corpus"), {},
                                                          tr("Pair corpora (*.tsv *.txt *.xml *.json a.toks);;All files (*)"));
        if (!path.isEmpty())
            openCorpus(QFileInfo(path).fileName() == QLatin1String("a.toks") ? QFileInfo(path).absolutePath() : path);
    });
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" System A: ")));
    m_systemA = new QComboBox;
    fillSystemBox(m_systemA, false);
    bar->addWidget(m_systemA);
    bar->addWidget(new QLabel(tr("  B: ")));
    m_systemB = new QComboBox;
    fillSystemBox(m_systemB, true);
    m_systemB->setCurrentIndex(std::max(0, m_systemB->findData(kIdf)));
    bar->addWidget(m_systemB);
    m_scoreButton = new QPushButton(tr("Score"));
    bar->addWidget(m_scoreButton);
    connect(m_scoreButton, &QPushButton::clicked, this, &PairWorkbench::score);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Layer ")));
    m_layer = new QSpinBox;
    m_layer->setRange(1, 1);
    bar->addWidget(m_layer);
    bar->addWidget(new QLabel(tr(" Head ")));
    m_head = new QSpinBox;
    m_head->setRange(1, 1);
    bar->addWidget(m_head);
    auto stateChanged = [this] {
        m_state.layer = m_layer->value() - 1;
        m_state.head = m_head->value() - 1;
        m_bridge->setState(m_state);
        m_firstTree->setState(m_state);
        m_secondTree->setState(m_state);
        m_firstConst->setState(m_state);
        m_secondConst->setState(m_state);
    };
    connect(m_layer, &QSpinBox::valueChanged, this, stateChanged);
    connect(m_head, &QSpinBox::valueChanged, this, stateChanged);
    // The TAT's level-by-level aggregation, stepped or played (deepest level first).
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Step ")));
    m_step = new QSpinBox;
    m_step->setRange(0, 0);
    m_step->setSpecialValueText(tr("all"));
    m_step->setToolTip(tr("Tree Aggregation Transformer: show the aggregation up to this step (1 = the deepest level); recursive tree "
                          "models: the composition up to this height (1 = the nodes just above the words)"));
    bar->addWidget(m_step);
    m_play = new QPushButton(tr("Play"));
    m_play->setCheckable(true);
    m_play->setToolTip(tr("Step through the aggregation or composition from the leaves to the root"));
    bar->addWidget(m_play);
    m_playTimer = new QTimer(this);
    m_playTimer->setInterval(900);
    connect(m_step, &QSpinBox::valueChanged, this, [this](int v) { setAggregationStep(v); });
    connect(m_play, &QPushButton::toggled, this, [this](bool on) { playAggregation(on); });
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        if (m_step->value() >= m_step->maximum()) {
            m_play->setChecked(false); // the root is done: stop on "all"
            m_step->setValue(0);
            return;
        }
        m_step->setValue(m_step->value() + 1);
    });

    // Left: the question list with its filter.
    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter: text in the question or a candidate"));
    m_filter->setClearButtonEnabled(true);
    leftLayout->addWidget(m_filter);
    m_questions = new QTableWidget;
    m_questions->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_questions->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_questions->setSortingEnabled(true);
    m_questions->verticalHeader()->hide();
    leftLayout->addWidget(m_questions);
    connect(m_filter, &QLineEdit::textChanged, this, [this] {
        rebuildTables();
        updateMetrics();
        updateSlices();
    });
    connect(m_questions, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_questions->selectionModel()->selectedRows();
        if (rows.isEmpty())
            return;
        const int r = m_questions->item(rows.front().row(), 0)->data(Qt::UserRole).toInt();
        if (r != m_currentRow)
            selectQuestion(r);
        updateMetrics();
    });

    // Middle: candidates of the question.
    m_candidates = new QTableWidget;
    m_candidates->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_candidates->setSelectionMode(QAbstractItemView::SingleSelection);
    m_candidates->verticalHeader()->hide();
    connect(m_candidates, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_candidates->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            showPair(m_candidates->item(rows.front().row(), 0)->data(Qt::UserRole).toInt());
    });

    // Right: metrics, slices, comparison.
    m_tabs = new QTabWidget;
    auto *metricsPage = new QWidget;
    auto *ml = new QVBoxLayout(metricsPage);
    m_metrics = new QLabel;
    m_metrics->setTextFormat(Qt::RichText);
    m_metrics->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_metrics->setWordWrap(true);
    ml->addWidget(m_metrics);
    m_confusion = new QTableWidget;
    m_confusion->setToolTip(tr("Click a cell to list its pairs"));
    ml->addWidget(m_confusion, 1);
    connect(m_confusion, &QTableWidget::cellClicked, this, [this](int gold, int predicted) {
        if (!m_corpus || !m_scores || m_corpus->task == kRankingTask)
            return;
        m_selectedPairs.clear();
        for (std::size_t i = 0; i < m_corpus->pairs.size(); ++i)
            if (m_corpus->pairs[i].label == m_corpus->labels[static_cast<std::size_t>(gold)] &&
                m_scores->a.predicted[i] == m_corpus->labels[static_cast<std::size_t>(predicted)])
                m_selectedPairs.push_back(static_cast<int>(i));
        rebuildTables();
    });
    m_tabs->addTab(metricsPage, tr("Metrics"));

    auto *slicePage = new QWidget;
    auto *sl = new QVBoxLayout(slicePage);
    auto *sliceBar = new QHBoxLayout;
    m_sliceKind = new QComboBox;
    for (SliceKind k : {SliceKind::QuestionWord, SliceKind::QuestionLength, SliceKind::CandidateLength,
                        SliceKind::Overlap, SliceKind::TreeDepth})
        m_sliceKind->addItem(QString::fromStdString(sliceKindName(k)), static_cast<int>(k));
    m_sliceMetric = new QComboBox;
    sliceBar->addWidget(new QLabel(tr("Slice by")));
    sliceBar->addWidget(m_sliceKind, 1);
    sliceBar->addWidget(m_sliceMetric);
    sl->addLayout(sliceBar);
    m_sliceNote = new QLabel;
    m_sliceNote->setWordWrap(true);
    m_sliceNote->setStyleSheet(QStringLiteral("color:#a04a00"));
    m_sliceNote->hide();
    sl->addWidget(m_sliceNote);
    m_sliceTable = new QTableWidget;
    m_sliceTable->verticalHeader()->hide();
    sl->addWidget(m_sliceTable, 1);
    m_sliceChart = new SliceBarChart;
    sl->addWidget(m_sliceChart, 1);
    connect(m_sliceKind, &QComboBox::currentIndexChanged, this, &PairWorkbench::updateSlices);
    connect(m_sliceMetric, &QComboBox::currentIndexChanged, this, &PairWorkbench::updateSlices);
    m_tabs->addTab(slicePage, tr("Slices"));

    auto *comparePage = new QWidget;
    auto *cl = new QVBoxLayout(comparePage);
    m_scatter = new ScoreScatterPlot;
    cl->addWidget(m_scatter, 1);
    m_compareNote = new QLabel;
    m_compareNote->setWordWrap(true);
    m_compareNote->setStyleSheet(QStringLiteral("color:#a04a00"));
    m_compareNote->hide();
    cl->addWidget(m_compareNote);
    cl->addWidget(new QLabel(tr("Questions where A and B put different answers first (ΔAP = B − A):")));
    m_disagreements = new QTableWidget;
    m_disagreements->verticalHeader()->hide();
    m_disagreements->setSelectionBehavior(QAbstractItemView::SelectRows);
    cl->addWidget(m_disagreements, 1);
    connect(m_scatter, &ScoreScatterPlot::pairClicked, this, [this](int pair) {
        if (!m_corpus)
            return;
        for (std::size_t r = 0; r < m_rows.size(); ++r)
            for (int p : m_rows[r].ranked)
                if (p == pair) {
                    selectQuestion(static_cast<int>(r), pair);
                    return;
                }
        showPair(pair);
    });
    connect(m_disagreements, &QTableWidget::cellClicked, this, [this](int row, int) {
        selectQuestion(m_disagreements->item(row, 0)->data(Qt::UserRole).toInt());
    });
    m_tabs->addTab(comparePage, tr("Compare"));

    // Bottom: the pair view.
    m_viewTabs = new QTabWidget;
    m_pairCaption = new QLabel;
    auto *pairPage = new QWidget;
    auto *pl = new QVBoxLayout(pairPage);
    pl->setContentsMargins(2, 2, 2, 2);
    // Each side: its dependency tree (with the model's attention as arcs) and its
    // constituency tree (with the attention from the focus word), as tabs.
    auto *trees = new QSplitter(Qt::Horizontal);
    m_firstTree = new DependencyView;
    m_secondTree = new DependencyView;
    m_firstConst = new ConstituencyView;
    m_secondConst = new ConstituencyView;
    for (ConstituencyView *v : {m_firstConst, m_secondConst}) {
        v->setBackgroundWork(backgroundWorkOf(m_jobs, JobRunner::Lane::Layout));
        v->setMode(ConstituencyView::Mode::Parser);
        v->setOverlay(ConstituencyView::Overlay::FocusAttention);
    }
    const QString sideName[2] = {tr("Question / text"), tr("Candidate / hypothesis")};
    DependencyView *deps[2] = {m_firstTree, m_secondTree};
    ConstituencyView *consts[2] = {m_firstConst, m_secondConst};
    for (int i = 0; i < 2; ++i) {
        deps[i]->setShowAttention(true);
        auto *side = new QTabWidget;
        m_sideTabs[i] = side;
        side->setDocumentMode(true);
        side->addTab(deps[i], tr("%1: dependency").arg(sideName[i]));
        side->addTab(consts[i], tr("constituency"));
        trees->addWidget(side);
    }
    m_bridge = new PairBridgeView;
    auto *bridgeScroll = new QScrollArea;
    bridgeScroll->setWidget(m_bridge);
    bridgeScroll->setWidgetResizable(true);
    m_tatNode = new TatNodeView;
    auto *nodeScroll = new QScrollArea;
    nodeScroll->setWidget(m_tatNode);
    nodeScroll->setWidgetResizable(true);
    m_detailTabs = new QTabWidget;
    m_detailTabs->setDocumentMode(true);
    m_detailTabs->addTab(bridgeScroll, tr("Between the sentences"));
    m_detailTabs->addTab(nodeScroll, tr("Phrase (tree aggregation)"));
    for (int i = 0; i < 2; ++i)
        connect(consts[i], &ConstituencyView::phraseClicked, this, [this, i](int id) {
            selectTatNode(i, id);
            showNodeView(true);
        });
    auto *pairSplit = new QSplitter(Qt::Vertical);
    pairSplit->addWidget(trees);
    pairSplit->addWidget(m_detailTabs);
    pairSplit->setStretchFactor(0, 1);
    pairSplit->setStretchFactor(1, 1);
    auto *captionRow = new QHBoxLayout;
    captionRow->addWidget(m_pairCaption, 1);
    captionRow->addWidget(new QLabel(tr("Compare the question's phrases with:")));
    m_compare = new QComboBox;
    m_compare->setMinimumContentsLength(28);
    m_compare->setToolTip(tr("Another candidate of the same question: the phrase view shows the question's phrase in both pairs"));
    captionRow->addWidget(m_compare);
    connect(m_compare, &QComboBox::activated, this, [this](int index) { setComparePair(m_compare->itemData(index).toInt()); });
    pl->addLayout(captionRow);
    pl->addWidget(pairSplit, 1);
    m_viewTabs->addTab(pairPage, tr("Pair"));

    auto *top = new QSplitter(Qt::Horizontal);
    top->addWidget(left);
    top->addWidget(m_candidates);
    top->addWidget(m_tabs);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 3);
    top->setStretchFactor(2, 3);
    auto *main = new QSplitter(Qt::Vertical);
    main->addWidget(top);
    main->addWidget(m_viewTabs);
    setCentralWidget(main);
    // Once laid out: a third for the lists, the rest for the pair (trees above the bridge).
    QTimer::singleShot(0, this, [main, pairSplit] {
        const int h = main->height();
        main->setSizes({h * 30 / 100, h * 70 / 100});
        const int p = pairSplit->height();
        pairSplit->setSizes({p * 38 / 100, p * 62 / 100});
    });

    m_status = new QLabel(tr("Open a pair corpus: WikiQA folder, ranking TSV, RTE XML or pairs JSON (or drop it here)."));
    statusBar()->addWidget(m_status, 1);
    m_progress = new QProgressBar;
    m_progress->setMaximumWidth(220);
    m_progress->hide();
    statusBar()->addPermanentWidget(m_progress);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_jobs.cancelGroup(kGroup);
        setBusy(false);
        m_status->setText(tr("Cancelled."));
    });
}

void PairWorkbench::buildMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open pair corpus…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a pair corpus"), {},
                                                          tr("Pair corpora (*.tsv *.txt *.xml *.json a.toks);;All files (*)"));
        if (!path.isEmpty())
            openCorpus(QFileInfo(path).fileName() == QLatin1String("a.toks") ? QFileInfo(path).absolutePath() : path);
    });
    file->addAction(tr("Open &WikiQA folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("WikiQA folder (a.toks, b.toks, id.txt, sim.txt)"));
        if (!dir.isEmpty())
            openCorpus(dir);
    });
    auto *recent = file->addMenu(tr("Open &recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        for (const QString &p : Settings::value(QStringLiteral("pairs/recent")).toStringList())
            recent->addAction(p, this, [this, p] { openCorpus(p); });
    });
    file->addSeparator();
    file->addAction(tr("Export question table (CSV/JSON)…"), this, [this] { exportTable(true); });
    file->addAction(tr("Export slice table (CSV/JSON)…"), this, [this] { exportTable(false); });
    file->addAction(tr("Export pair view (PNG/SVG/PDF)…"), this, [this] { exportView(m_bridge); });
    file->addAction(tr("Export question tree (PNG/SVG/PDF)…"), this, [this] { exportView(m_firstTree); });
    file->addAction(tr("Export candidate tree (PNG/SVG/PDF)…"), this, [this] { exportView(m_secondTree); });
    file->addAction(tr("Export question constituency tree (PNG/SVG/PDF)…"), this, [this] { exportView(m_firstConst); });
    file->addAction(tr("Export candidate constituency tree (PNG/SVG/PDF)…"), this, [this] { exportView(m_secondConst); });
    file->addAction(tr("Export phrase view (PNG/SVG/PDF)…"), this, [this] { exportView(m_tatNode); });
    file->addAction(tr("Export slice chart (PNG/SVG/PDF)…"), this, [this] { exportView(m_sliceChart); });
    file->addAction(tr("Export score scatter plot (PNG/SVG/PDF)…"), this, [this] { exportView(m_scatter); });
    file->addSeparator();
    file->addAction(tr("&Close"), QKeySequence::Close, this, &QWidget::close);
}

void PairWorkbench::setSystems(const QString &a, const QString &b)
{
    auto put = [](QComboBox *box, const QString &v) {
        int i = box->findData(v);
        if (i < 0 && !v.isEmpty()) {
            box->insertItem(0, v == kIdf ? QStringLiteral("IDF") : QFileInfo(v).completeBaseName(), v);
            i = 0;
        }
        box->setCurrentIndex(std::max(0, i));
    };
    put(m_systemA, a);
    put(m_systemB, b);
}

QString PairWorkbench::systemPath(const QComboBox *box) const
{
    const QString v = box->currentData().toString();
    return v == QLatin1String("?") ? QString() : v;
}

QString PairWorkbench::systemName(const QString &path) const
{
    return path == kIdf ? QString::fromLatin1(kIdfBaselineName) : QFileInfo(path).completeBaseName();
}

bool PairWorkbench::isBusy() const
{
    return m_jobs.isRunning(kGroup) || m_jobs.isRunning(kViewGroup) || m_jobs.isRunning(kCompareGroup);
}

void PairWorkbench::setBusy(bool busy, const QString &what)
{
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_scoreButton->setEnabled(!busy);
    if (busy) {
        m_progress->setRange(0, 0);
        m_status->setText(what);
    }
}

void PairWorkbench::openCorpus(const QString &path)
{
    m_path = path;
    QStringList recent = Settings::value(QStringLiteral("pairs/recent")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    Settings::setValue(QStringLiteral("pairs/recent"), recent.mid(0, 10));
    setBusy(true, tr("Reading and parsing %1…").arg(QFileInfo(path).fileName()));
    const std::string p = path.toStdString();
    const ParserConfig config = m_jobs.parserConfig();
    m_jobs.submit<PairCorpus>(
        JobRunner::Lane::Background, kGroup, this,
        [p, config](const RunControl &control) { return readAndParse(p, config, control); },
        [this](quint64, std::shared_ptr<const PairCorpus> corpus) {
            m_corpus = std::move(corpus);
            m_scores.reset();
            m_rows.clear();
            m_selectedPairs.clear();
            setBusy(false);
            setWindowTitle(tr("TreeLens — Pair workbench — %1").arg(QFileInfo(m_path).fileName()));
            m_status->setText(tr("%1: %2 pairs (%3). Scoring…")
                                  .arg(QFileInfo(m_path).fileName())
                                  .arg(m_corpus->pairs.size())
                                  .arg(QString::fromStdString(m_corpus->task)));
            Q_EMIT corpusReady();
            score();
        },
        [this](quint64, const QString &message) {
            setBusy(false);
            m_status->setText(tr("Error: %1").arg(message));
            Q_EMIT failed(message);
        },
        [this](const JobProgress &p) {
            m_progress->setRange(0, p.total);
            m_progress->setValue(p.done);
            m_status->setText(QStringLiteral("%1: %2 / %3").arg(p.stage).arg(p.done).arg(p.total));
        });
}

void PairWorkbench::score()
{
    if (!m_corpus)
        return;
    const QString a = systemPath(m_systemA), b = systemPath(m_systemB);
    if (a.isEmpty())
        return;
    setBusy(true, tr("Scoring with %1%2…").arg(systemName(a), b.isEmpty() ? QString() : tr(" and %1").arg(systemName(b))));
    auto corpus = m_corpus;
    JobRunner *jobs = &m_jobs;
    const std::string corpusPath = m_path.toStdString();
    m_jobs.submit<Scores>(
        JobRunner::Lane::Background, kGroup, this,
        [corpus, a, b, jobs, corpusPath](const RunControl &control) -> Result<Scores> {
            const auto t0 = std::chrono::steady_clock::now();
            Scores out;
            auto run = [&](const QString &path) -> Result<PairSystem> {
                if (path == kIdf)
                    return idfBaselineSystem(*corpus, *corpus);
                DeviceConfig dc;
                auto enc = jobs->encoders().get(path.toStdString(), dc);
                if (!enc)
                    return enc.error();
                // A corpus the model was trained or chosen on: every figure of it says so.
                if (const DataUse use = corpusUseByModel((*enc)->info().configJson, path.toStdString(), corpusPath);
                    !use.note.empty())
                    out.dataNotes.push_back(use.note);
                if (!(*enc)->info().pairInput) {
                    // A single-sentence encoder cannot score pairs: the list is ranked by the
                    // baseline and the pair view shows the encoder's analysis of each side.
                    PairSystem s = idfBaselineSystem(*corpus, *corpus);
                    s.name = std::string(kIdfBaselineName) + " (" + QFileInfo(path).completeBaseName().toStdString() +
                             " reads single sentences: shown on both sides)";
                    return s;
                }
                auto s = scorePairCorpus(**enc, *corpus, &control, 128);
                if (s)
                    s->name = QFileInfo(path).completeBaseName().toStdString();
                return s;
            };
            auto sa = run(a);
            if (!sa)
                return sa.error();
            out.a = std::move(*sa);
            if (!b.isEmpty()) {
                auto sb = run(b);
                if (!sb)
                    return sb.error();
                out.b = std::move(*sb);
            }
            out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return out;
        },
        [this](quint64, std::shared_ptr<const Scores> scores) {
            m_scores = std::move(scores);
            setBusy(false);
            m_selectedPairs.clear();
            rebuildTables();
            updateMetrics();
            updateSlices();
            updateComparison();
            m_status->setText(tr("%1 pairs scored in %2 s.").arg(m_corpus->pairs.size()).arg(m_scores->seconds, 0, 'f', 1));
            Q_EMIT scoresReady();
            if (m_questions->rowCount() > 0)
                m_questions->selectRow(0);
        },
        [this](quint64, const QString &message) {
            setBusy(false);
            m_status->setText(tr("Error: %1").arg(message));
            Q_EMIT failed(message);
        },
        [this](const JobProgress &p) {
            m_progress->setRange(0, p.total);
            m_progress->setValue(p.done);
        });
}

void PairWorkbench::rebuildTables()
{
    if (!m_corpus || !m_scores)
        return;
    const QString filter = m_filter->text().trimmed();
    auto matches = [&](const SentencePair &p) {
        return filter.isEmpty() || sentenceText(p.first).contains(filter, Qt::CaseInsensitive) ||
               sentenceText(p.second).contains(filter, Qt::CaseInsensitive);
    };
    m_questions->setSortingEnabled(false);
    m_questions->clear();
    if (m_corpus->task == kRankingTask) {
        auto rows = treelens::questionRows(*m_corpus, m_scores->a, m_scores->b ? &*m_scores->b : nullptr);
        if (!rows) {
            m_status->setText(QString::fromStdString(rows.message()));
            return;
        }
        m_rows = std::move(*rows);
        sortWorstFirst(m_rows);
        const bool b = m_scores->b.has_value();
        QStringList head = {tr("qid"), tr("question"), tr("cands"), tr("AP"), tr("RR"), tr("1st correct")};
        if (b)
            head << tr("AP (B)") << tr("ΔAP");
        m_questions->setColumnCount(head.size());
        m_questions->setHorizontalHeaderLabels(head);
        m_questions->setRowCount(0);
        for (std::size_t r = 0; r < m_rows.size(); ++r) {
            const QuestionRow &q = m_rows[r];
            bool any = false;
            for (int p : q.ranked)
                any = any || matches(m_corpus->pairs[static_cast<std::size_t>(p)]);
            if (!any)
                continue;
            const int row = m_questions->rowCount();
            m_questions->insertRow(row);
            auto *id = item(QString::fromStdString(q.group));
            id->setData(Qt::UserRole, static_cast<int>(r));
            m_questions->setItem(row, 0, id);
            m_questions->setItem(row, 1, item(QString::fromStdString(q.question)));
            m_questions->item(row, 1)->setToolTip(QString::fromStdString(q.question));
            m_questions->setItem(row, 2, number(q.candidates, 0));
            m_questions->setItem(row, 3, q.used ? number(q.ap) : item(tr("—")));
            m_questions->setItem(row, 4, q.used ? number(q.rr) : item(tr("—")));
            m_questions->setItem(row, 5, q.firstCorrectRank ? number(q.firstCorrectRank, 0) : item(tr("none")));
            if (b) {
                m_questions->setItem(row, 6, q.used ? number(q.apB) : item(tr("—")));
                m_questions->setItem(row, 7, q.used ? number(q.deltaAp()) : item(tr("—")));
            }
            if (q.used && q.ap < 0.5)
                for (int c = 0; c < m_questions->columnCount(); ++c)
                    if (m_questions->item(row, c))
                        m_questions->item(row, c)->setBackground(QColor(253, 236, 234));
        }
    } else {
        // Classification: one row per pair, wrong predictions first.
        m_rows.clear();
        const QStringList head = {tr("id"), tr("text / hypothesis"), tr("gold"), tr("predicted")};
        m_questions->setColumnCount(head.size());
        m_questions->setHorizontalHeaderLabels(head);
        m_questions->setRowCount(0);
        std::vector<int> order;
        if (!m_selectedPairs.empty())
            order = m_selectedPairs;
        else
            for (std::size_t i = 0; i < m_corpus->pairs.size(); ++i)
                order.push_back(static_cast<int>(i));
        std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
            const bool wx = m_scores->a.predicted[static_cast<std::size_t>(x)] != m_corpus->pairs[static_cast<std::size_t>(x)].label;
            const bool wy = m_scores->a.predicted[static_cast<std::size_t>(y)] != m_corpus->pairs[static_cast<std::size_t>(y)].label;
            return wx > wy;
        });
        for (int i : order) {
            const auto &p = m_corpus->pairs[static_cast<std::size_t>(i)];
            if (!matches(p))
                continue;
            QuestionRow q;
            q.group = p.group;
            q.question = p.first.text;
            q.ranked = {i};
            m_rows.push_back(q);
            const int row = m_questions->rowCount();
            m_questions->insertRow(row);
            auto *id = item(QString::fromStdString(p.group));
            id->setData(Qt::UserRole, static_cast<int>(m_rows.size() - 1));
            m_questions->setItem(row, 0, id);
            m_questions->setItem(row, 1, item(sentenceText(p.first) + QStringLiteral("  ⟶  ") + sentenceText(p.second)));
            m_questions->setItem(row, 2, item(QString::fromStdString(p.label)));
            m_questions->setItem(row, 3, item(QString::fromStdString(m_scores->a.predicted[static_cast<std::size_t>(i)])));
        }
    }
    m_questions->setSortingEnabled(true);
    m_questions->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_questions->resizeColumnToContents(0);
}

void PairWorkbench::selectQuestion(int row, int pair)
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return;
    m_currentRow = row;
    fillCandidates();
    const QuestionRow &q = m_rows[static_cast<std::size_t>(row)];
    const int target = pair >= 0 ? pair : q.ranked.front();
    for (int r = 0; r < m_candidates->rowCount(); ++r)
        if (m_candidates->item(r, 0)->data(Qt::UserRole).toInt() == target) {
            m_candidates->selectRow(r);
            break;
        }
}

void PairWorkbench::fillCandidates()
{
    m_candidates->clear();
    if (m_currentRow < 0 || !m_scores)
        return;
    const QuestionRow &q = m_rows[static_cast<std::size_t>(m_currentRow)];
    const bool b = m_scores->b.has_value();
    QStringList head = {tr("rank"), tr("gold"), tr("score A"), tr("candidate")};
    if (b)
        head.insert(3, tr("score B"));
    m_candidates->setColumnCount(head.size());
    m_candidates->setHorizontalHeaderLabels(head);
    m_candidates->setRowCount(static_cast<int>(q.ranked.size()));
    for (std::size_t k = 0; k < q.ranked.size(); ++k) {
        const int p = q.ranked[k];
        const auto &pair = m_corpus->pairs[static_cast<std::size_t>(p)];
        const int r = static_cast<int>(k);
        auto *rank = number(static_cast<double>(k + 1), 0);
        rank->setData(Qt::UserRole, p);
        m_candidates->setItem(r, 0, rank);
        const bool correct = pair.label == "1" || pair.label == "YES";
        m_candidates->setItem(r, 1, item(correct ? tr("✔ %1").arg(QString::fromStdString(pair.label))
                                                 : QString::fromStdString(pair.label)));
        m_candidates->setItem(r, 2, number(m_scores->a.scores[static_cast<std::size_t>(p)], 4));
        int c = 3;
        if (b)
            m_candidates->setItem(r, c++, number(m_scores->b->scores[static_cast<std::size_t>(p)], 4));
        m_candidates->setItem(r, c, item(sentenceText(pair.second)));
        m_candidates->item(r, c)->setToolTip(sentenceText(pair.second));
        if (correct)
            for (int col = 0; col < m_candidates->columnCount(); ++col)
                m_candidates->item(r, col)->setBackground(QColor(228, 244, 234));
    }
    m_candidates->horizontalHeader()->setSectionResizeMode(m_candidates->columnCount() - 1, QHeaderView::Stretch);
    m_candidates->resizeColumnsToContents();
}

void PairWorkbench::showPair(int pair)
{
    if (!m_corpus || pair < 0 || pair >= static_cast<int>(m_corpus->pairs.size()))
        return;
    m_currentPair = pair;
    m_jobs.cancelGroup(kCompareGroup); // a comparison of the previous pair is no longer wanted
    const SentencePair &p = m_corpus->pairs[static_cast<std::size_t>(pair)];
    auto first = std::make_shared<const Sentence>(p.first);
    auto second = std::make_shared<const Sentence>(p.second);
    const QString gold = tr("pair %1 (group %2), gold label %3").arg(pair).arg(QString::fromStdString(p.group),
                                                                              QString::fromStdString(p.label));
    m_pairCaption->setText(gold);
    m_compareAnalysis.reset();
    fillCompareChoices();
    const QString path = systemPath(m_systemA);
    if (path.isEmpty() || path == kIdf) {
        m_pairAnalysis.reset();
        m_firstTree->setData({first, nullptr});
        m_secondTree->setData({second, nullptr});
        m_firstConst->setData({first, nullptr});
        m_secondConst->setData({second, nullptr});
        m_bridge->setAnalysis(nullptr, gold);
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
            m_layer->setRange(1, std::max(1, a->layers));
            m_head->setRange(1, std::max(1, a->heads));
            m_state.layer = m_layer->value() - 1;
            m_state.head = m_head->value() - 1;
            auto secondAnalysis = a->second.empty() ? nullptr : std::make_shared<const Analysis>(a->second.front());
            // The TAT: a step aggregates one level on both trees (the pair is one batch), so the deeper tree sets the steps.
            const int tatSteps = tatPairSteps(*a);
            for (auto *v : {m_firstConst, m_secondConst})
                v->setAggregationDepth(tatSteps - 1);
            // The recursive models: a step composes one height on both trees.
            const int steps = tatSteps > 0 ? tatSteps : recursivePairSteps(*a);
            m_firstTree->setData({first, a});
            m_secondTree->setData({second, secondAnalysis});
            m_firstConst->setData({first, a});
            m_secondConst->setData({second, secondAnalysis});
            for (auto *v : {m_firstTree, m_secondTree})
                v->setState(m_state);
            for (auto *v : {m_firstConst, m_secondConst})
                v->setState(m_state);
            m_bridge->setState(m_state);
            m_bridge->setAnalysis(a, gold + QStringLiteral(" — ") + systemName(systemPath(m_systemA)));
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

void PairWorkbench::setAggregationStep(int step)
{
    if (m_step->value() != step) {
        m_step->setValue(step); // comes back here through valueChanged
        return;
    }
    m_state.aggregationStep = step;
    m_firstConst->setState(m_state);
    m_secondConst->setState(m_state);
    m_firstTree->setState(m_state);
    m_secondTree->setState(m_state);
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
    m_firstConst->setSelectedTatNode(m_nodeSide == 0 ? id : -1);
    m_secondConst->setSelectedTatNode(m_nodeSide == 1 ? id : -1);
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

void PairWorkbench::setFilter(const QString &text)
{
    m_filter->setText(text);
}

QString PairWorkbench::metricsText() const
{
    return m_metrics->text();
}

void PairWorkbench::updateMetrics()
{
    if (!m_corpus || !m_scores)
        return;
    auto fmt = [](double x) { return QString::number(x, 'f', 4); };
    QString html;
    // The list as filtered (when a filter is set) and the selection: the pairs of their rows.
    std::vector<int> filtered;
    if (!m_filter->text().trimmed().isEmpty())
        for (int r = 0; r < m_questions->rowCount(); ++r)
            for (int p : m_rows[static_cast<std::size_t>(m_questions->item(r, 0)->data(Qt::UserRole).toInt())].ranked)
                filtered.push_back(p);
    std::sort(filtered.begin(), filtered.end());
    std::vector<int> selected;
    for (const auto &index : m_questions->selectionModel()->selectedRows())
        for (int p : m_rows[static_cast<std::size_t>(m_questions->item(index.row(), 0)->data(Qt::UserRole).toInt())].ranked)
            selected.push_back(p);
    std::sort(selected.begin(), selected.end());
    auto systems = std::vector<const PairSystem *>{&m_scores->a};
    if (m_scores->b)
        systems.push_back(&*m_scores->b);
    if (m_corpus->task == kRankingTask) {
        html += tr("<b>%1</b>: %2 pairs; clean protocol<br><table cellspacing=6><tr><th></th><th>MAP</th><th>MRR</th><th>P@1</th><th>questions</th></tr>")
                    .arg(QFileInfo(m_path).fileName())
                    .arg(m_corpus->pairs.size());
        for (const PairSystem *s : systems) {
            auto e = evaluateRanking(*m_corpus, s->scores);
            if (e)
                html += QStringLiteral("<tr><td>%1 (all)</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                            .arg(QString::fromStdString(s->name), fmt(e->map), fmt(e->mrr), fmt(e->precisionAt1))
                            .arg(e->groupsUsed);
            if (!filtered.empty()) {
                auto ef = evaluateRankingSlice(*m_corpus, s->scores, PairSlice{"filter", filtered});
                if (ef)
                    html += QStringLiteral("<tr><td>%1 (filter '%6')</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                                .arg(QString::fromStdString(s->name), fmt(ef->map), fmt(ef->mrr), fmt(ef->precisionAt1))
                                .arg(ef->groupsUsed)
                                .arg(m_filter->text().trimmed().toHtmlEscaped());
            }
            if (!selected.empty()) {
                auto es = evaluateRankingSlice(*m_corpus, s->scores, PairSlice{"selection", selected});
                if (es)
                    html += QStringLiteral("<tr><td>%1 (selection)</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                                .arg(QString::fromStdString(s->name), fmt(es->map), fmt(es->mrr), fmt(es->precisionAt1))
                                .arg(es->groupsUsed);
            }
        }
        html += QStringLiteral("</table>");
        m_confusion->hide();
    } else {
        auto e = evaluateClassification(*m_corpus, m_scores->a.predicted);
        if (!e) {
            m_metrics->setText(QString::fromStdString(e.message()));
            return;
        }
        html += tr("<b>%1</b> with %2: accuracy %3, macro-F1 %4 (%5 pairs)<br>")
                    .arg(QFileInfo(m_path).fileName(), QString::fromStdString(m_scores->a.name), fmt(e->accuracy),
                         fmt(e->macroF1))
                    .arg(e->total);
        for (const auto &l : e->perLabel)
            html += tr("%1: P %2 R %3 F1 %4<br>").arg(QString::fromStdString(l.label), fmt(l.precision), fmt(l.recall), fmt(l.f1));
        html += tr("Confusion matrix (rows gold, columns predicted; click a cell):");
        m_confusion->show();
        const int n = static_cast<int>(e->labels.size());
        m_confusion->setRowCount(n);
        m_confusion->setColumnCount(n);
        QStringList names;
        for (const auto &l : e->labels)
            names << QString::fromStdString(l);
        m_confusion->setHorizontalHeaderLabels(names);
        m_confusion->setVerticalHeaderLabels(names);
        for (int g = 0; g < n; ++g)
            for (int pr = 0; pr < n; ++pr)
                m_confusion->setItem(g, pr, number(static_cast<double>(e->confusion[static_cast<std::size_t>(g)][static_cast<std::size_t>(pr)]), 0));
    }
    m_metrics->setText(dataNotesHtml() + html);
    m_compareNote->setText(dataNoteText());
    m_compareNote->setVisible(!m_compareNote->text().isEmpty());
}

QString PairWorkbench::dataNoteText() const
{
    if (!m_scores)
        return QString();
    QStringList lines;
    for (const auto &n : m_scores->dataNotes)
        lines << QString::fromStdString(n);
    return lines.join(QLatin1Char('\n'));
}

QString PairWorkbench::dataNotesHtml() const
{
    const QString text = dataNoteText();
    return text.isEmpty() ? QString()
                          : QStringLiteral("<p style='color:#a04a00'>%1</p>").arg(text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
}

QString PairWorkbench::sliceNoteText() const { return m_sliceNote ? m_sliceNote->text() : QString(); }

void PairWorkbench::updateSlices()
{
    if (!m_corpus || !m_scores)
        return;
    const bool ranking = m_corpus->task == kRankingTask;
    if (m_sliceMetric->count() == 0 || m_sliceMetric->property("ranking").toBool() != ranking) {
        QSignalBlocker block(m_sliceMetric);
        m_sliceMetric->clear();
        if (ranking)
            m_sliceMetric->addItems({QStringLiteral("MAP"), QStringLiteral("MRR"), QStringLiteral("P@1")});
        else
            m_sliceMetric->addItems({tr("accuracy"), tr("macro-F1")});
        m_sliceMetric->setProperty("ranking", ranking);
    }
    const auto kind = static_cast<SliceKind>(m_sliceKind->currentData().toInt());
    auto systems = std::vector<const PairSystem *>{&m_scores->a};
    if (m_scores->b && ranking)
        systems.push_back(&*m_scores->b);
    QStringList sliceNames, systemNames;
    std::vector<std::vector<double>> values;
    std::vector<std::vector<SliceRow>> all;
    for (const PairSystem *s : systems) {
        auto rows = sliceRows(*m_corpus, *s, kind);
        if (!rows)
            return;
        all.push_back(*rows);
        systemNames << QString::fromStdString(s->name);
    }
    const int metric = m_sliceMetric->currentIndex();
    m_sliceTable->clear();
    QStringList head = {tr("slice"), tr("pairs")};
    if (ranking)
        head << tr("questions");
    for (const QString &s : systemNames)
        head << QStringLiteral("%1 %2").arg(s, m_sliceMetric->currentText());
    m_sliceTable->setColumnCount(head.size());
    m_sliceTable->setHorizontalHeaderLabels(head);
    m_sliceTable->setRowCount(static_cast<int>(all.front().size()));
    values.resize(all.size());
    for (std::size_t r = 0; r < all.front().size(); ++r) {
        const SliceRow &row = all.front()[r];
        sliceNames << QString::fromStdString(row.slice);
        m_sliceTable->setItem(static_cast<int>(r), 0, item(QString::fromStdString(row.slice)));
        m_sliceTable->setItem(static_cast<int>(r), 1, number(static_cast<double>(row.pairs), 0));
        int c = 2;
        if (ranking)
            m_sliceTable->setItem(static_cast<int>(r), c++, number(row.questions, 0));
        for (std::size_t s = 0; s < all.size(); ++s) {
            const SliceRow &x = all[s][r];
            const bool empty = ranking ? x.questions == 0 : x.pairs == 0;
            const double v = empty ? NAN
                             : ranking ? (metric == 0 ? x.map : metric == 1 ? x.mrr : x.p1)
                                       : (metric == 0 ? x.accuracy : x.macroF1);
            values[s].push_back(v);
            m_sliceTable->setItem(static_cast<int>(r), c++, number(v, 4));
        }
    }
    m_sliceTable->resizeColumnsToContents();
    // Why candidate-side slices run above the whole set, and whose training data this is.
    QStringList notes;
    if (ranking && sliceSplitsQuestions(kind)) { // otherwise sliceProtocolNote says nothing
        int questionSlices = 0;
        for (const SliceRow &row : all.front())
            questionSlices += row.questions;
        auto whole = evaluateRanking(*m_corpus, m_scores->a.scores);
        const std::string note = sliceProtocolNote(kind, questionSlices, whole ? whole->groupsUsed : 0);
        if (!note.empty())
            notes << tr("Ranked within each slice: %1.").arg(QString::fromStdString(note));
    }
    if (const QString data = dataNoteText(); !data.isEmpty())
        notes << data;
    m_sliceNote->setText(notes.join(QLatin1Char('\n')));
    m_sliceNote->setVisible(!notes.isEmpty());
    m_sliceChart->setData(tr("%1 per %2 slice%3")
                              .arg(m_sliceMetric->currentText(), m_sliceKind->currentText(),
                                   m_scores->dataNotes.empty() ? QString() : tr(" (on the model's own training or development data)")),
                          m_sliceMetric->currentText(), sliceNames, systemNames, values);
}

void PairWorkbench::updateComparison()
{
    m_disagreements->clear();
    if (!m_corpus || !m_scores || !m_scores->b || m_corpus->task != kRankingTask) {
        m_tabs->setTabEnabled(2, false);
        return;
    }
    m_tabs->setTabEnabled(2, true);
    std::vector<bool> correct;
    for (const auto &p : m_corpus->pairs)
        correct.push_back(p.label == "1");
    m_scatter->setData(QString::fromStdString(m_scores->a.name), QString::fromStdString(m_scores->b->name),
                       m_scores->a.scores, m_scores->b->scores, correct);
    const QStringList head = {tr("qid"), tr("question"), tr("AP A"), tr("AP B"), tr("ΔAP")};
    m_disagreements->setColumnCount(head.size());
    m_disagreements->setHorizontalHeaderLabels(head);
    std::vector<std::size_t> order;
    for (std::size_t r = 0; r < m_rows.size(); ++r)
        if (m_rows[r].topDisagrees())
            order.push_back(r);
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return std::abs(m_rows[x].deltaAp()) > std::abs(m_rows[y].deltaAp());
    });
    m_disagreements->setRowCount(static_cast<int>(order.size()));
    for (std::size_t i = 0; i < order.size(); ++i) {
        const QuestionRow &q = m_rows[order[i]];
        auto *id = item(QString::fromStdString(q.group));
        id->setData(Qt::UserRole, static_cast<int>(order[i]));
        m_disagreements->setItem(static_cast<int>(i), 0, id);
        m_disagreements->setItem(static_cast<int>(i), 1, item(QString::fromStdString(q.question)));
        m_disagreements->setItem(static_cast<int>(i), 2, number(q.ap));
        m_disagreements->setItem(static_cast<int>(i), 3, number(q.apB));
        m_disagreements->setItem(static_cast<int>(i), 4, number(q.deltaAp()));
    }
    m_disagreements->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
}

void PairWorkbench::exportTable(bool questions)
{
    if (!m_corpus || !m_scores)
        return;
    const QString path = QFileDialog::getSaveFileName(this, questions ? tr("Export question table") : tr("Export slice table"),
                                                      {}, tr("CSV (*.csv);;JSON (*.json)"));
    if (path.isEmpty())
        return;
    const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
    std::string text;
    if (questions) {
        text = json ? questionRowsJson(m_rows) : questionRowsCsv(m_rows);
    } else {
        auto rows = sliceRows(*m_corpus, m_scores->a, static_cast<SliceKind>(m_sliceKind->currentData().toInt()));
        if (!rows)
            return;
        const bool ranking = m_corpus->task == kRankingTask;
        text = json ? sliceRowsJson(*rows, ranking) : sliceRowsCsv(*rows, ranking);
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) < 0 || !f.commit())
        QMessageBox::warning(this, tr("Export"), tr("Could not write %1: %2").arg(path, f.errorString()));
}

void PairWorkbench::exportView(ExportableView *view)
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view"), view->exportName() + QStringLiteral(".png"),
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!treelens::exportView(*view, path, &error))
        QMessageBox::warning(this, tr("Export"), error);
}

void PairWorkbench::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void PairWorkbench::dropEvent(QDropEvent *event)
{
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty())
        return;
    QFileInfo info(urls.front().toLocalFile());
    openCorpus(info.fileName() == QLatin1String("a.toks") ? info.absolutePath() : info.absoluteFilePath());
}

} // namespace treelens
