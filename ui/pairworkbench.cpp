// The pair workbench (see pairworkbench.h): the window, its toolbar, panes and menus,
// opening and scoring a corpus (the systems' scores come from pairscoring.h), exports
// of the views and drops. The lists are filled in pairworkbenchlists.cpp, the metrics,
// slice and comparison tabs in pairworkbenchmetrics.cpp, the pair view in
// pairworkbenchpair.cpp.
#include "ui/pairworkbench.h"

#include <algorithm>
#include <string>
#include <utility>

#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
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
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "core/encoders/encoder.h"
#include "core/parsing/pairparsing.h"
#include "core/parsing/parser.h"
#include "ui/backgroundjobs.h"
#include "ui/modelfiledialog.h"
#include "ui/pairworkbenchparts.h"
#include "ui/rankexplainpanel.h"
#include "ui/session/analysisdocument.h"
#include "ui/session/jobrunner.h"
#include "ui/session/settings.h"
#include "ui/viewhost.h"
#include "ui/viewregistry.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/pairviews.h"
#include "viz/tatnodeview.h"
#include "viz/viewexport.h"

namespace treelens {

using namespace pairworkbench;

namespace {

constexpr int kMaxWords = 250;

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
    for (AnalysisDocument *&doc : m_sideDocs) {
        doc = new AnalysisDocument(this);
        ViewState selection;
        selection.threshold = 0.15;
        doc->setSelection(selection);
    }
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
    box->addItem(tr("IDF word-overlap baseline"), kIdfSystem);
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
    m_systemB->setCurrentIndex(std::max(0, m_systemB->findData(kIdfSystem)));
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
    connect(m_layer, &QSpinBox::valueChanged, this, &PairWorkbench::updateSelection);
    connect(m_head, &QSpinBox::valueChanged, this, &PairWorkbench::updateSelection);
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
    // constituency tree (with the attention from the focus word), as tabs; the views
    // come from the view registry through each side's ViewHost, the bridge with the first
    // side's (its document carries the pair).
    auto *trees = new QSplitter(Qt::Horizontal);
    const QString sideName[2] = {tr("Question / text"), tr("Candidate / hypothesis")};
    ConstituencyView *consts[2] = {nullptr, nullptr};
    for (int i = 0; i < 2; ++i) {
        auto *side = new QTabWidget;
        m_sideTabs[i] = side;
        side->setDocumentMode(true);
        QStringList views = {QStringLiteral("dependency"), QStringLiteral("constituency")};
        if (i == 0)
            views << QStringLiteral("bridge");
        auto *host = new ViewHost(m_sideDocs[i], side, views, backgroundWorkOf(m_jobs, JobRunner::Lane::Layout), this);
        m_sideViews[i] = host;
        // The pair's sentences are short (kMaxWords) and the views few: all stay current, shown or not.
        host->setSyncsHiddenViews(true);
        host->setSavesViewOptions(false); // the main window's tree options stay its own
        host->setConstituencyMode(static_cast<int>(ConstituencyView::Mode::Parser));
        host->setConstituencyOverlay(static_cast<int>(ConstituencyView::Overlay::FocusAttention));
        qobject_cast<DependencyView *>(host->widget(QStringLiteral("dependency")))->setShowAttention(true);
        consts[i] = qobject_cast<ConstituencyView *>(host->widget(QStringLiteral("constituency")));
        side->addTab(host->widget(QStringLiteral("dependency")), tr("%1: dependency").arg(sideName[i]));
        side->addTab(consts[i], tr("constituency"));
        trees->addWidget(side);
    }
    auto *bridgeScroll = new QScrollArea;
    bridgeScroll->setWidget(m_sideViews[0]->widget(QStringLiteral("bridge")));
    bridgeScroll->setWidgetResizable(true);
    m_tatNode = new TatNodeView;
    auto *nodeScroll = new QScrollArea;
    nodeScroll->setWidget(m_tatNode);
    nodeScroll->setWidgetResizable(true);
    m_detailTabs = new QTabWidget;
    m_detailTabs->setDocumentMode(true);
    m_detailTabs->addTab(bridgeScroll, QCoreApplication::translate("ViewRegistry", findViewSpec(QStringLiteral("bridge"))->tabLabel));
    m_detailTabs->addTab(nodeScroll, tr("Phrase (tree aggregation)"));
    m_rankPanel = new RankExplainPanel(m_jobs);
    m_detailTabs->addTab(m_rankPanel, tr("Why this rank"));
    connect(m_rankPanel, &RankExplainPanel::attributionsReady, this, [this](int pair) { applyAttributions(pair); });
    connect(m_rankPanel, &RankExplainPanel::showPairRequested, this, [this](int pair) {
        if (m_currentRow >= 0)
            selectQuestion(m_currentRow, pair); // the candidate list follows, and shows the pair
        else
            showPair(pair);
    });
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
    file->addAction(tr("Export pair view (PNG/SVG/PDF)…"), this, [this] { exportSideView(0, QStringLiteral("bridge")); });
    file->addAction(tr("Export question tree (PNG/SVG/PDF)…"), this, [this] { exportSideView(0, QStringLiteral("dependency")); });
    file->addAction(tr("Export candidate tree (PNG/SVG/PDF)…"), this, [this] { exportSideView(1, QStringLiteral("dependency")); });
    file->addAction(tr("Export question constituency tree (PNG/SVG/PDF)…"), this,
                    [this] { exportSideView(0, QStringLiteral("constituency")); });
    file->addAction(tr("Export candidate constituency tree (PNG/SVG/PDF)…"), this,
                    [this] { exportSideView(1, QStringLiteral("constituency")); });
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
            box->insertItem(0, v == kIdfSystem ? QStringLiteral("IDF") : QFileInfo(v).completeBaseName(), v);
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
    return path == kIdfSystem ? QString::fromLatin1(kIdfBaselineName) : QFileInfo(path).completeBaseName();
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
            m_rankPanel->setCorpus(m_corpus, QString()); // no system until it is scored
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
    m_jobs.submit<PairScores>(
        JobRunner::Lane::Background, kGroup, this,
        [corpus, a, b, jobs, corpusPath](const RunControl &control) {
            return scorePairSystems(jobs->encoders(), *corpus, a, b, corpusPath, control);
        },
        [this](quint64, std::shared_ptr<const PairScores> scores) {
            m_scores = std::move(scores);
            m_rankPanel->setCorpus(m_corpus, systemPath(m_systemA));
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
            m_rankPanel->setCorpus(m_corpus, QString()); // nothing scored: nothing to explain
            m_status->setText(tr("Error: %1").arg(message));
            Q_EMIT failed(message);
        },
        [this](const JobProgress &p) {
            m_progress->setRange(0, p.total);
            m_progress->setValue(p.done);
        });
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

void PairWorkbench::exportSideView(int side, const QString &name)
{
    if (ExportableView *view = sideViews(side).exportableView(name))
        exportView(view);
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
