// Building the main window (see mainwindow.h): the views and their tabs, the docks
// with their panels and how they are wired to the window, the menus and their
// actions, and the first-run placement when no geometry was saved.
#include "ui/mainwindow.h"

#include <algorithm>
#include <utility>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QUndoStack>
#include <QFileInfo>
#include <QGuiApplication>
#include <QKeySequence>
#include <QLabel>
#include <QStatusBar>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>

#include "ui/aboutdialog.h"
#include "ui/ablationcontrol.h"
#include "ui/backgroundjobs.h"
#include "ui/controlpanel.h"
#include "ui/corpuspanel.h"
#include "ui/exportactions.h"
#include "ui/explainpanel.h"
#include "ui/exportservice.h"
#include "ui/minimalpairspanel.h"
#include "ui/modelpanel.h"
#include "ui/probingpanel.h"
#include "ui/queryattentionpanel.h"
#include "ui/sentencepanel.h"
#include "ui/session/settings.h"
#include "ui/statusline.h"
#include "ui/treeeditor.h"
#include "ui/viewhost.h"
#include "ui/viewregistry.h"
#include "ui/viewtabs.h"
#include "ui/whatifpanel.h"
#include "viz/attentionoverview.h"
#include "viz/linkstripview.h"

namespace treelens {

namespace {

/// A dock of `window` titled `title`; `objectName` keys it in the saved window state.
QDockWidget *newDock(QMainWindow *window, const QString &title, const QString &objectName)
{
    auto *dock = new QDockWidget(title, window);
    dock->setObjectName(objectName);
    return dock;
}

} // namespace

void MainWindow::createViews()
{
    m_views = std::make_unique<ViewHost>(&m_document, this, ViewHost::allViewNames(),
                                         backgroundWorkOf(m_jobs, JobRunner::Lane::Layout));
    m_export = std::make_unique<ExportService>(m_document, *m_views);
    m_tabs = new ViewTabs(m_document, *m_views, this);
    connect(m_views.get(), &ViewHost::viewsUpdated, this, &MainWindow::viewsUpdated);
    setCentralWidget(m_tabs->splitter());
}

void MainWindow::createDocks()
{
    // Sentence input with its history.
    auto *inputDock = newDock(this, tr("Sentence"), QStringLiteral("sentenceDock"));
    m_sentence = new SentencePanel(inputDock);
    inputDock->setWidget(m_sentence);
    addDockWidget(Qt::LeftDockWidgetArea, inputDock);
    connect(m_sentence, &SentencePanel::analyseRequested, this, &MainWindow::analyse);

    auto *corpusDock = newDock(this, tr("Corpus"), QStringLiteral("corpusDock"));
    m_corpus = new CorpusPanel(corpusDock);
    corpusDock->setWidget(m_corpus);
    addDockWidget(Qt::LeftDockWidgetArea, corpusDock);
    connect(m_corpus, &CorpusPanel::openRequested, this, &MainWindow::openFileDialog);
    connect(m_corpus, &CorpusPanel::scoreRequested, this, &MainWindow::scoreCorpus);
    m_corpus->setJobRunner(&m_jobs);
    // The corpus query's occurrences in the sentence opened, outlined on its trees.
    connect(m_corpus, &CorpusPanel::sentenceActivated, this, [this](std::shared_ptr<const Sentence> s, int row) {
        m_views->setPatternMarks(m_corpus->patternMarks(row));
        analyseSentence(std::move(s));
    });
    connect(m_corpus, &CorpusPanel::queryChanged, this,
            [this] { m_views->setPatternMarks(m_corpus->patternMarks(m_corpus->currentRow())); });

    auto *controlsDock = newDock(this, tr("View"), QStringLiteral("viewDock"));
    m_controls = new ControlPanel(controlsDock);
    controlsDock->setWidget(m_controls);
    addDockWidget(Qt::RightDockWidgetArea, controlsDock);
    connect(m_controls, &ControlPanel::stateChanged, &m_document, &AnalysisDocument::setSelection);
    connect(m_controls, &ControlPanel::parserChosen, this, &MainWindow::setParser);
    // The views' display options (the view registry's), as saved, into the dock; the user's choices back.
    m_views->restoreViewOptions();
    for (const ViewOption *option : viewOptions(ViewOption::Scope::Display))
        m_controls->setViewOption(option->key(), m_views->viewOption(option->key()));
    m_controls->setFoldSpecialTokens(m_views->foldSpecialTokens());
    connect(m_controls, &ControlPanel::viewOptionChanged, m_views.get(), &ViewHost::setViewOption);
    m_controls->setSurprisalBand(m_views->surprisalBand());
    connect(m_controls, &ControlPanel::foldSpecialTokensChanged, m_views.get(), &ViewHost::setFoldSpecialTokens);
    connect(m_controls, &ControlPanel::surprisalBandChanged, m_views.get(), &ViewHost::setSurprisalBand);

    auto *modelDock = newDock(this, tr("Model"), QStringLiteral("modelDock"));
    m_model = new ModelPanel(modelDock);
    m_model->setRecent(Settings::recentModels());
    modelDock->setWidget(m_model);
    addDockWidget(Qt::RightDockWidgetArea, modelDock);
    connect(m_model, &ModelPanel::loadRequested, this, &MainWindow::loadModelDialog);
    connect(m_model, &ModelPanel::modelChosen, this, [this](const QString &p) {
        setModelPath(p);
        if (const auto s = m_document.sentence())
            analyseSentence(s);
    });

    auto *inspectorDock = newDock(this, tr("Inspector"), QStringLiteral("inspectorDock"));
    m_inspector = new QTextBrowser(inspectorDock);
    m_inspector->setPlaceholderText(tr("Move the mouse over a tree node, an arc or a heatmap cell to see its exact values."));
    inspectorDock->setWidget(m_inspector);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
    tabifyDockWidget(modelDock, inspectorDock);
    inspectorDock->raise();

    // Probing over whole corpora (issue 6): hidden until asked for from the Window menu.
    auto *probingDock = newDock(this, tr("Probing"), QStringLiteral("probingDock"));
    m_probing = new ProbingPanel(probingDock);
    m_probing->setJobRunner(&m_jobs);
    probingDock->setWidget(m_probing);
    addDockWidget(Qt::BottomDockWidgetArea, probingDock);
    probingDock->hide();
    m_probing->setCorpusSource([this] { return m_corpus->model()->corpus(); });
    if (m_probing->modelPaths().isEmpty()) // else the dock's own models, restored from the settings
        m_probing->setModelPath(m_jobs.modelPath());
    connect(m_probing, &ProbingPanel::openSentence, this, &MainWindow::openProbedSentence);

    connect(m_views.get(), &ViewHost::hovered, this, [this](const QString &text) {
        if (!text.isEmpty())
            m_inspector->setPlainText(text);
    });

    // What if the tree were different (issue 33): the tree views edit, the editor checks
    // and re-analyses, the dock compares. Hidden until the first edit or the Edit menu.
    m_editor = new TreeEditor(&m_document, this);
    m_views->setTreesEditable(true);
    connect(m_views.get(), &ViewHost::treeEditRequested, m_editor, [this](const QString &edit) { m_editor->edit(edit); });
    connect(m_editor, &TreeEditor::analysisRequested, this, [this](std::shared_ptr<const Sentence> s) { analyseSentence(std::move(s)); });
    auto *whatIfDock = newDock(this, tr("What if"), QStringLiteral("whatIfDock"));
    m_whatIf = new WhatIfPanel(m_editor, &m_document, whatIfDock);
    whatIfDock->setWidget(m_whatIf);
    addDockWidget(Qt::BottomDockWidgetArea, whatIfDock);
    whatIfDock->hide();
    connect(m_editor, &TreeEditor::refused, this, [this, whatIfDock](const QString &message) {
        m_status->setText(tr("Edit refused: %1").arg(message));
        whatIfDock->show();
    });
    connect(m_editor->undoStack(), &QUndoStack::indexChanged, whatIfDock, [whatIfDock] { whatIfDock->show(); whatIfDock->raise(); });

    // Why did the model decide (issue 34): attributions on the words and subtrees.
    auto *explainDock = newDock(this, tr("Explain"), QStringLiteral("explainDock"));
    m_explain = new ExplainPanel(&m_document, &m_jobs, explainDock);
    explainDock->setWidget(m_explain);
    addDockWidget(Qt::RightDockWidgetArea, explainDock);
    tabifyDockWidget(inspectorDock, explainDock);
    inspectorDock->raise();
    createMinimalPairsDock();
    createQueryAttentionDock();
}

void MainWindow::createQueryAttentionDock()
{
    // The attention between two nodes of the corpus query (issue 48): asked for in the Corpus
    // dock, drawn here; an occurrence opens its sentence at the cell's layer and head.
    auto *dock = newDock(this, tr("Query attention"), QStringLiteral("queryAttentionDock"));
    m_queryAttention = new QueryAttentionPanel(&m_jobs, dock);
    dock->setWidget(m_queryAttention);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide();
    connect(m_corpus, &CorpusPanel::attentionRequested, this, [this, dock](int from, int to) {
        if (dock->isHidden() && !dock->isFloating()) {
            // Beside a bottom dock already open (Probing, Minimal pairs, What if) rather than under it:
            // two stacked docks leave the trees no room at 1600 x 1000.
            for (QDockWidget *other : findChildren<QDockWidget *>())
                if (other != dock && other->isVisible() && !other->isFloating() &&
                    dockWidgetArea(other) == Qt::BottomDockWidgetArea) {
                    tabifyDockWidget(other, dock);
                    break;
                }
        }
        dock->show();
        dock->raise();
        m_queryAttention->run(m_corpus->queryResult(), from, to, m_jobs.modelPath(), m_jobs.parserConfig());
    });
    connect(m_queryAttention, &QueryAttentionPanel::occurrenceActivated, this, [this](int row, int layer, int head) {
        const auto q = m_queryAttention->query();
        if (!q || !q->corpus || row < 0 || static_cast<std::size_t>(row) >= q->corpus->size())
            return;
        const auto s = std::shared_ptr<const Sentence>(q->corpus, &(*q->corpus)[static_cast<std::size_t>(row)]);
        openProbedSentence(QString::fromStdString(s->id), std::max(layer, 0), std::max(head, 0), s);
    });
    // "Only sentences matching the corpus query" in the Probing and Minimal pairs docks.
    m_probing->setQuerySliceSource([this] { return m_corpus->matchedSentences(); });
    m_minimalPairs->setQuerySliceSource([this] { return m_corpus->matchedSentences(); });
}

void MainWindow::createMinimalPairsDock()
{
    // Which heads make the model prefer the grammatical sentence (issue 46): the heads switched
    // off, one undo step each; the dock scores pairs and sweeps heads. Hidden until asked for.
    m_ablation = new AblationControl(this);
    m_ablationBadge = new QLabel(this);
    m_ablationBadge->setStyleSheet(QStringLiteral("QLabel { color: white; background: #b01010; padding: 1px 6px; "
                                                  "border-radius: 3px; font-weight: bold; }"));
    m_ablationBadge->setToolTip(tr("The window's sentence (every view, figure and prediction), the Explain dock and the "
                                   "Minimal pairs dock are computed with these heads switched off (corpus scoring, probing "
                                   "and the pair workbench use the whole model); Edit ▸ Undo head switch-off goes back"));
    m_ablationBadge->hide();
    statusBar()->addPermanentWidget(m_ablationBadge);
    connect(m_ablation, &AblationControl::changed, this, &MainWindow::ablationChanged);
    auto *overview = qobject_cast<AttentionOverview *>(m_views->widget(QStringLiteral("overview")));
    if (overview)
        connect(overview, &AttentionOverview::ablationToggled, m_ablation, &AblationControl::toggle);

    auto *dock = newDock(this, tr("Minimal pairs"), QStringLiteral("minimalPairsDock"));
    m_minimalPairs = new MinimalPairsPanel(&m_jobs, m_ablation, dock);
    dock->setWidget(m_minimalPairs);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide();
    m_minimalPairs->setCorpusSource([this] { return m_corpus->model()->corpus(); });
    m_minimalPairs->setModelPath(m_jobs.modelPath());
    connect(m_minimalPairs, &MinimalPairsPanel::clickAblatesChanged, this, [overview](bool on) {
        if (overview)
            overview->setClickAblates(on);
    });
    connect(m_minimalPairs, &MinimalPairsPanel::statusMessage, this, [this](const QString &text) {
        if (m_status)
            m_status->setText(text);
    });
}

void MainWindow::createActions()
{
    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->addAction(tr("&Open corpus…"), QKeySequence::Open, this, &MainWindow::openFileDialog);
    auto *recent = fileMenu->addMenu(tr("Open &recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        for (const QString &p : Settings::recentFiles())
            recent->addAction(QFileInfo(p).fileName(), this, [this, p] {
                QString error;
                if (!openCorpus(p, &error))
                    QMessageBox::warning(this, tr("Open corpus"), error);
            })->setToolTip(p);
        recent->setEnabled(!recent->isEmpty());
    });
    fileMenu->addAction(tr("Load &model…"), QKeySequence(tr("Ctrl+M")), this, &MainWindow::loadModelDialog);
    auto *precisionMenu = fileMenu->addMenu(tr("Inference p&recision"));
    auto *precisionGroup = new QActionGroup(precisionMenu);
    const std::pair<QString, QString> precisions[] = {
        {QStringLiteral("fp32"), tr("fp32 — the reference numerics")},
        {QStringLiteral("int8"), tr("int8 — quantized projections, faster on CPUs")},
        {QStringLiteral("bf16"), tr("bf16 — fast with AVX512-BF16/AMX or a GPU")},
        {QStringLiteral("auto"), tr("Auto — the fastest measured on this machine")}};
    for (const auto &[name, label] : precisions) {
        QAction *a = precisionMenu->addAction(label, this, [this, name = name] { setPrecision(name); });
        a->setCheckable(true);
        a->setData(name);
        precisionGroup->addAction(a);
    }
    connect(precisionMenu, &QMenu::aboutToShow, this, [this, precisionGroup] {
        for (QAction *a : precisionGroup->actions())
            a->setChecked(a->data().toString() == precision());
    });
    fileMenu->addAction(tr("&Pair workbench…"), QKeySequence(tr("Ctrl+Shift+P")), this, [this] { pairWorkbench(); });
    fileMenu->addSeparator();
    auto *exports = new ExportActions(this, m_document, *m_export, [this] {
        return m_tabs->currentTreeView() == QLatin1String("dependency") ? QStringLiteral("dependency")
                                                                        : QStringLiteral("constituency");
    });
    exports->addTo(fileMenu);
    connect(exports, &ExportActions::statusMessage, this, [this](const QString &text) { m_status->setText(text); });
    fileMenu->addSeparator();
    fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);

    auto *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *undo = m_editor->undoStack()->createUndoAction(this, tr("&Undo tree edit"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_editor->undoStack()->createRedoAction(this, tr("&Redo tree edit"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addAction(tr("&Edit the tree…"), QKeySequence(tr("Ctrl+T")), this, [this] {
        if (auto *dock = qobject_cast<QDockWidget *>(m_whatIf->parentWidget())) {
            dock->show();
            dock->raise();
        }
        m_whatIf->editLine()->setFocus();
    });
    edit->addAction(tr("Re&vert the tree edits"), this, [this] { m_editor->revert(); });
    edit->addSeparator();
    QAction *undoAblation = m_ablation->undoStack()->createUndoAction(this, tr("Undo head switch-off"));
    undoAblation->setShortcut(QKeySequence(tr("Ctrl+Alt+Z")));
    edit->addAction(undoAblation);
    edit->addAction(m_ablation->undoStack()->createRedoAction(this, tr("Redo head switch-off")));
    edit->addAction(tr("Switch every head &on"), this, [this] { m_ablation->clear(); });

    auto *nav = menuBar()->addMenu(tr("&Navigate"));
    nav->addAction(tr("&Next sentence"), QKeySequence(tr("Alt+Down")), this, [this] { m_corpus->step(+1); });
    nav->addAction(tr("&Previous sentence"), QKeySequence(tr("Alt+Up")), this, [this] { m_corpus->step(-1); });
    nav->addSeparator();
    nav->addAction(tr("Layer &up"), QKeySequence(tr("Ctrl+Up")), this, [this] { m_controls->stepLayer(+1); });
    nav->addAction(tr("Layer &down"), QKeySequence(tr("Ctrl+Down")), this, [this] { m_controls->stepLayer(-1); });
    nav->addAction(tr("Next &head"), QKeySequence(tr("Ctrl+Right")), this, [this] { m_controls->stepHead(+1); });
    nav->addAction(tr("Previous h&ead"), QKeySequence(tr("Ctrl+Left")), this, [this] { m_controls->stepHead(-1); });
    nav->addSeparator();
    nav->addAction(tr("Play layer &animation"), QKeySequence(tr("Ctrl+P")), this, [this] {
        m_tabs->plotTabs()->setCurrentWidget(m_views->widget(QStringLiteral("links")));
        linkView()->play();
    });
    nav->addAction(tr("&Focus the input"), QKeySequence(tr("Ctrl+L")), m_sentence, &SentencePanel::focusInput);
    nav->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancel);

    auto *viewMenu = menuBar()->addMenu(tr("&Window"));
    for (auto *dock : findChildren<QDockWidget *>())
        viewMenu->addAction(dock->toggleViewAction());

    auto *helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&About TreeLens"), this, [this] { showAboutDialog(this); });
}

void MainWindow::placeOnFirstRun()
{
    // No saved geometry: the screen's available area (less room for a window
    // manager's frame), the docks narrow and most of the height for the trees.
    const QScreen *screen = QGuiApplication::primaryScreen();
    const QRect available = screen ? screen->availableGeometry() : QRect(0, 0, 1280, 820);
    const QSize size(std::max(640, available.width() - 16), std::max(480, available.height() - 48));
    setGeometry(QRect(available.topLeft() + QPoint((available.width() - size.width()) / 2, 32), size));
    // 56/44: at 1600 x 1000 the plots under the trees label every token of a 17-word
    // sentence on both axes (64/36 thinned the rows to every other one).
    m_tabs->splitter()->setSizes({size.height() * 56 / 100, size.height() * 44 / 100});
    QList<QDockWidget *> left, right;
    for (QDockWidget *dock : findChildren<QDockWidget *>()) {
        if (dock->isHidden())
            continue;
        (dockWidgetArea(dock) == Qt::LeftDockWidgetArea ? left : right) << dock;
    }
    const int side = std::clamp(size.width() * 16 / 100, 220, 340);
    resizeDocks(left, QList<int>(left.size(), side), Qt::Horizontal);
    resizeDocks(right, QList<int>(right.size(), side), Qt::Horizontal);
}

bool MainWindow::showDock(const QString &name)
{
    // "what-if" -> "whatIfDock", "minimal-pairs" -> "minimalPairsDock".
    QString objectName;
    bool upper = false;
    for (const QChar c : name) {
        if (c == QLatin1Char('-')) {
            upper = true;
            continue;
        }
        objectName += upper ? c.toUpper() : c.toLower();
        upper = false;
    }
    auto *dock = findChild<QDockWidget *>(objectName + QStringLiteral("Dock"));
    if (!dock)
        return false;
    dock->show();
    dock->raise();
    return true;
}

} // namespace treelens
