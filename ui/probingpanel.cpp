#include "ui/probingpanel.h"

#include <algorithm>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/encoders/encoder.h"
#include "core/formats/corpus.h"
#include "core/probing/probejson.h"
#include "core/probing/runreport.h"
#include "ui/probingmodels.h"
#include "ui/probingresults.h"
#include "ui/session/settings.h"
#include "ui/viewregistry.h"
#include "viz/inductionview.h"
#include "viz/linkprobabilityplot.h"
#include "viz/plotstyle.h"
#include "viz/probeattentionview.h"
#include "viz/probecurveplot.h"
#include "viz/qcustomplot.h"
#include "viz/structuralview.h"
#include "viz/viewexport.h"
#include "viz/worddiagram.h"

namespace treelens {

namespace {

/// The job group of probing runs: a new run supersedes an older one.
QString probingGroup() { return QStringLiteral("probing"); }

QStringList allTaskNames()
{
    QStringList names;
    for (const auto *list : {&probeRunSentenceTasks(), &probeRunStructuralTasks(), &probeRunAttentionTasks()})
        for (const auto &t : *list)
            names << QString::fromStdString(t);
    return names;
}

/// A QCustomPlot as an ExportableView, so the plots export like the main views
/// (viz/viewexport.h: PNG at a dpi, vector SVG and PDF, written atomically).
class PlotExport : public ExportableView {
public:
    PlotExport(QCustomPlot *plot, const QSize &size, const QString &name) : m_plot(plot), m_size(size), m_name(name) {}
    QSizeF exportSize() const override { return QSizeF(m_size); }
    void renderTo(QPainter *painter, const QRectF &target) override
    {
        painter->fillRect(target, Qt::white);
        paintPlot(m_plot, painter, target, m_size);
    }
    QString exportName() const override { return m_name; }

private:
    QCustomPlot *m_plot;
    QSize m_size;
    QString m_name;
};

/// `text` to `path` atomically; false with the reason in `*error`.
bool writeText(const QString &path, const QByteArray &text, QString *error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) < 0 || !f.commit()) {
        if (error)
            *error = QCoreApplication::translate("ProbingPanel", "Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

/// The file name a save dialog chose, with the chosen filter's extension when it has none.
QString withFilterExtension(QString path, const QString &filter)
{
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + filter.section(QStringLiteral("*."), 1).section(QLatin1Char(')'), 0, 0);
    return path;
}

} // namespace

ProbingPanel::ProbingPanel(QWidget *parent) : QWidget(parent)
{
    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(buildForm());
    split->addWidget(buildResults());
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    // The inputs persist: restored now, saved on every change.
    restoreSettings();
    auto save = [this] {
        if (!m_restoring)
            saveSettings();
    };
    for (QLineEdit *e : {m_train, m_dev, m_test, m_layers})
        connect(e, &QLineEdit::textChanged, this, save);
    connect(m_models, &ProbingModelList::changed, this, save);
    for (QCheckBox *c : {m_useCorpus, m_control, m_randomInit})
        connect(c, &QCheckBox::toggled, this, save);
    connect(m_tasks, &QListWidget::itemChanged, this, save);
    connect(m_pooling, &QComboBox::currentIndexChanged, this, save);
    for (QSpinBox *s : {m_seed, m_epochs, m_rank})
        connect(s, &QSpinBox::valueChanged, this, save);
    updateExportActions();
}

ProbingPanel::~ProbingPanel()
{
    if (m_jobs)
        m_jobs->cancelGroup(probingGroup());
    if (m_ownsJobs)
        delete m_jobs.data(); // waits for a run still stopping, while this panel is whole
}

void ProbingPanel::setJobRunner(JobRunner *jobs)
{
    if (m_ownsJobs && m_jobs && !m_running) {
        delete m_jobs.data();
        m_ownsJobs = false;
    }
    if (!m_running)
        m_jobs = jobs;
}

JobRunner &ProbingPanel::jobs()
{
    if (!m_jobs) {
        m_jobs = new JobRunner(this);
        m_ownsJobs = true;
    }
    return *m_jobs;
}

// ---------------------------------------------------------------------------
// The form

QWidget *ProbingPanel::buildForm()
{
    auto *controls = new QWidget;
    auto *form = new QFormLayout(controls);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto fileRow = [&](QLineEdit *&edit, const QString &label, const QString &placeholder) {
        edit = new QLineEdit;
        edit->setPlaceholderText(placeholder);
        auto *browse = new QPushButton(tr("Browse…"));
        connect(browse, &QPushButton::clicked, this, [this, e = edit] { this->browse(e); });
        auto *row = new QHBoxLayout;
        row->addWidget(edit, 1);
        row->addWidget(browse);
        form->addRow(label, row);
    };
    fileRow(m_train, tr("Training:"), tr("CoNLL-U / PTB / JSON file"));
    fileRow(m_dev, tr("Dev:"), tr("optional"));
    fileRow(m_test, tr("Test:"), tr("optional (train alone is split 80/10/10)"));
    m_useCorpus = new QCheckBox(tr("Use the open corpus (split 80/10/10)"));
    m_useCorpus->setEnabled(false);
    form->addRow(QString(), m_useCorpus);
    m_slice = new QuerySliceBox;
    form->addRow(QString(), m_slice);
    connect(m_slice, &QCheckBox::toggled, this, [this](bool on) { m_useCorpus->setChecked(on || m_useCorpus->isChecked()); });
    m_models = new ProbingModelList;
    form->addRow(tr("Models:"), m_models);

    m_tasks = new QListWidget;
    for (const auto &name : allTaskNames()) {
        auto *item = new QListWidgetItem(name, m_tasks);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(name == QLatin1String("sentlen") || name == QLatin1String("head-accuracy") ? Qt::Checked
                                                                                                        : Qt::Unchecked);
    }
    m_tasks->setMinimumHeight(m_tasks->sizeHintForRow(0) * 6);
    form->addRow(tr("Tasks:"), m_tasks);

    m_layers = new QLineEdit(QStringLiteral("all"));
    m_layers->setToolTip(tr("\"all\" or a comma list such as embeddings,2,4: embeddings, and k = the output of "
                            "encoder layer k, numbered from 1"));
    form->addRow(tr("Layers:"), m_layers);
    m_pooling = new QComboBox;
    m_pooling->addItems({QStringLiteral("both"), QStringLiteral("cls"), QStringLiteral("mean")});
    form->addRow(tr("Pooling:"), m_pooling);
    m_control = new QCheckBox(tr("Control task (selectivity)"));
    m_randomInit = new QCheckBox(tr("Random-init encoder baseline"));
    form->addRow(QString(), m_control);
    form->addRow(QString(), m_randomInit);
    m_seed = new QSpinBox;
    m_seed->setRange(0, 1000000);
    m_seed->setValue(1);
    form->addRow(tr("Seed:"), m_seed);
    m_epochs = new QSpinBox;
    m_epochs->setRange(0, 1000);
    m_epochs->setSpecialValueText(tr("default"));
    form->addRow(tr("Epochs:"), m_epochs);
    m_rank = new QSpinBox;
    m_rank->setObjectName(QStringLiteral("structuralRank"));
    m_rank->setRange(0, 4096);
    m_rank->setSpecialValueText(tr("full (d_model)"));
    m_rank->setToolTip(tr("Structural probes: the rank of B (rows of the projection); 0 = the model's width, as Hewitt & Manning's experiments"));
    form->addRow(tr("Probe rank:"), m_rank);

    m_run = new QPushButton(tr("Run"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setEnabled(false);
    m_export = new QPushButton(tr("Export"));
    m_export->setToolTip(tr("Save the report (JSON, table as CSV) or a plot (PNG, SVG, PDF)"));
    m_exportMenu = new QMenu(m_export);
    m_exportMenu->addAction(tr("Report as JSON + table as CSV…"), this, &ProbingPanel::exportReportDialog)
        ->setObjectName(QStringLiteral("exportReport"));
    m_exportMenu->addSeparator();
    m_exportMenu->addAction(tr("Learning curves as PNG / SVG / PDF…"), this,
                            [this] { exportPlotDialog(curvePlot(), QStringLiteral("probe-curves")); })
        ->setObjectName(QStringLiteral("exportCurves"));
    m_exportMenu->addAction(tr("Attention heatmap as PNG / SVG / PDF…"), this,
                            [this] { exportPlotDialog(heatmapPlot(), QStringLiteral("probe-heatmap")); })
        ->setObjectName(QStringLiteral("exportHeatmap"));
    m_exportMenu->addAction(tr("Link-probability chart as PNG / SVG / PDF…"), this,
                            [this] { exportPlotDialog(linkPlot(), QStringLiteral("probe-link-probs")); })
        ->setObjectName(QStringLiteral("exportLinks"));
    m_exportMenu->addAction(tr("Structural probe sentence as PNG / SVG / PDF…"), this,
                            [this] { exportViewDialog(QStringLiteral("structural")); })
        ->setObjectName(QStringLiteral("exportStructural"));
    m_exportMenu->addAction(tr("Unsupervised parsing as PNG / SVG / PDF…"), this,
                            [this] { exportViewDialog(QStringLiteral("induction")); })
        ->setObjectName(QStringLiteral("exportInduction"));
    connect(m_exportMenu, &QMenu::aboutToShow, this, &ProbingPanel::updateExportActions);
    m_export->setMenu(m_exportMenu);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_export);
    buttons->addStretch(1);
    m_status = new QLabel(tr("Ready."));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_run, &QPushButton::clicked, this, &ProbingPanel::run);
    connect(m_cancel, &QPushButton::clicked, this, &ProbingPanel::cancel);

    // The form scrolls; Run, Cancel, Export and the status stay under it, always in view
    // (issue 47: docked at 1600 x 1000 the Run button was below the screen's edge).
    QScrollArea *scroll = newScrollArea(controls);
    scroll->setMinimumHeight(80);
    auto *column = new QWidget;
    auto *columnLayout = new QVBoxLayout(column);
    columnLayout->setContentsMargins(0, 0, 0, 0);
    columnLayout->addWidget(scroll, 1);
    columnLayout->addLayout(buttons);
    columnLayout->addWidget(m_status);
    column->setMinimumWidth(340);
    return column;
}

// ---------------------------------------------------------------------------
// The views

QWidget *ProbingPanel::buildResults()
{
    // The views come from the view registry (its Probing entries); their tabs carry its labels.
    m_curves = buildView<ProbeCurvePlot>(QStringLiteral("probe-curves"));
    m_table = new QTableWidget(0, 8);
    setUpProbeResultsTable(m_table);
    m_attention = buildView<ProbeAttentionView>(QStringLiteral("probe-heatmap"));
    connect(m_attention, &ProbeAttentionView::sentenceActivated, this,
            [this](const QString &id, int layer, int head) { Q_EMIT openSentence(id, layer, head, runSentence(id)); });
    m_links = buildView<LinkProbabilityPlot>(QStringLiteral("probe-link-probs"));

    auto *tabs = m_tabs = new QTabWidget;
    tabs->addTab(m_curves, viewTabLabel(QStringLiteral("probe-curves")));
    tabs->addTab(m_table, tr("Results"));
    tabs->addTab(m_attention, viewTabLabel(QStringLiteral("probe-heatmap")));
    tabs->addTab(m_links, viewTabLabel(QStringLiteral("probe-link-probs")));

    // Structural probes: the test sentences' gold vs predicted distances / depths.
    auto *structural = new QWidget;
    auto *v = new QVBoxLayout(structural);
    v->setContentsMargins(4, 4, 4, 4);
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Probe:")));
    m_structTask = new QComboBox;
    m_structTask->setObjectName(QStringLiteral("structuralTask"));
    m_structTask->setToolTip(tr("The structural probe whose test predictions are shown"));
    row->addWidget(m_structTask);
    row->addStretch(1);
    v->addLayout(row);
    m_structuralView = buildView<StructuralView>(QStringLiteral("structural"));
    v->addWidget(m_structuralView, 1);
    connect(m_structTask, &QComboBox::currentIndexChanged, this, [this] { updateStructuralView(); });
    connect(m_structuralView, &StructuralView::openSentence, this, &ProbingPanel::openStructuralSentence);
    tabs->addTab(structural, viewTabLabel(QStringLiteral("structural")));
    m_inductionView = buildView<InductionView>(QStringLiteral("induction"));
    connect(m_inductionView, &InductionView::openSentence, this, &ProbingPanel::openInductionSentence);
    tabs->addTab(m_inductionView, viewTabLabel(QStringLiteral("induction")));
    tabs->setObjectName(QStringLiteral("probingTabs"));
    // An explicit minimum: the tallest page's (the structural probe's sentence, 600 px) made
    // the docked dock taller than a 1000 px screen, Run and the status below its edge
    // (issue 47); a short dock now squeezes the page, a drag or Float gives it room.
    tabs->setMinimumHeight(160);

    // Compare: the models side by side (a tab only after a run of several models).
    m_compareTab = new QWidget(this);
    auto *cv = new QVBoxLayout(m_compareTab);
    cv->setContentsMargins(4, 4, 4, 4);
    m_compareData = new QLabel;
    m_compareData->setWordWrap(true);
    m_compareData->setTextInteractionFlags(Qt::TextSelectableByMouse);
    cv->addWidget(m_compareData);
    m_compare = new QTableWidget(0, 0);
    m_compare->setObjectName(QStringLiteral("compareTable"));
    m_compare->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_compare->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_compare->verticalHeader()->setVisible(false);
    m_compare->setWordWrap(false);
    m_compare->verticalHeader()->setDefaultSectionSize(m_compare->fontMetrics().height() + 8);
    m_compare->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_compare->horizontalHeader()->setStretchLastSection(true);
    cv->addWidget(m_compare, 1);
    m_compareTab->hide();

    // Above the result tabs: which model's report they show.
    auto *right = new QWidget;
    auto *rv = new QVBoxLayout(right);
    rv->setContentsMargins(0, 0, 0, 0);
    m_modelRow = new QWidget;
    auto *modelRow = new QHBoxLayout(m_modelRow);
    modelRow->setContentsMargins(0, 0, 0, 0);
    modelRow->addWidget(new QLabel(tr("Model:")));
    m_modelSelect = new QComboBox;
    m_modelSelect->setObjectName(QStringLiteral("modelSelector"));
    m_modelSelect->setToolTip(tr("The model whose report the Results, Attention, Link probabilities, Structural "
                                 "probes and Unsupervised parsing tabs show"));
    m_modelSelect->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    modelRow->addWidget(m_modelSelect);
    modelRow->addStretch(1);
    m_modelRow->hide(); // shown after a run of several models
    rv->addWidget(m_modelRow);
    rv->addWidget(tabs, 1);
    connect(m_modelSelect, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0 && i < static_cast<int>(m_reports.size()) && m_reports[static_cast<std::size_t>(i)] != m_report)
            showReport();
    });
    return right;
}

QCustomPlot *ProbingPanel::curvePlot() const { return m_curves; }
QCustomPlot *ProbingPanel::heatmapPlot() const { return m_attention->plot(); }
QCustomPlot *ProbingPanel::linkPlot() const { return m_links; }
QCPColorMap *ProbingPanel::heatmap() const { return m_attention->map(); }
QStringList ProbingPanel::heatmapCellTexts() const { return m_attention->cellTexts(); }
QComboBox *ProbingPanel::relationCombo() const { return m_attention->relationCombo(); }
QListWidget *ProbingPanel::sentenceList() const { return m_attention->sentenceList(); }
int ProbingPanel::curvePointCount() const { return m_curves->pointCount(); }

// ---------------------------------------------------------------------------
// Configuration

void ProbingPanel::browse(QLineEdit *edit)
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose a file"), edit->text());
    if (!path.isEmpty())
        edit->setText(path);
}

void ProbingPanel::setModelPath(const QString &path)
{
    setModelPaths(path.trimmed().isEmpty() ? QStringList() : QStringList{path.trimmed()});
}

QString ProbingPanel::modelPath() const
{
    const QStringList paths = modelPaths();
    return paths.isEmpty() ? QString() : paths.front();
}

void ProbingPanel::setModelPaths(const QStringList &paths) { m_models->setCheckedPaths(paths); }
QStringList ProbingPanel::modelPaths() const { return m_models->checkedPaths(); }
QStringList ProbingPanel::listedModelPaths() const { return m_models->listedPaths(); }
void ProbingPanel::addModel(const QString &path) { m_models->addPath(path); }
QListWidget *ProbingPanel::modelList() const { return m_models->list(); }

void ProbingPanel::setFiles(const QString &train, const QString &dev, const QString &test)
{
    m_train->setText(train);
    m_dev->setText(dev);
    m_test->setText(test);
}

void ProbingPanel::setTasks(const QStringList &tasks)
{
    for (int i = 0; i < m_tasks->count(); ++i)
        m_tasks->item(i)->setCheckState(tasks.contains(m_tasks->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
}

QStringList ProbingPanel::checkedTasks() const
{
    QStringList out;
    for (int i = 0; i < m_tasks->count(); ++i)
        if (m_tasks->item(i)->checkState() == Qt::Checked)
            out << m_tasks->item(i)->text();
    return out;
}

void ProbingPanel::setLayers(const QString &layers) { m_layers->setText(layers); }
void ProbingPanel::setPooling(const QString &pooling) { m_pooling->setCurrentText(pooling); }
void ProbingPanel::setControl(bool on) { m_control->setChecked(on); }
void ProbingPanel::setRandomInit(bool on) { m_randomInit->setChecked(on); }
void ProbingPanel::setSeed(int seed) { m_seed->setValue(seed); }
void ProbingPanel::setEpochs(int epochs) { m_epochs->setValue(epochs); }
void ProbingPanel::setRank(int rank) { m_rank->setValue(rank); }

void ProbingPanel::setCorpusSource(std::function<std::shared_ptr<const std::vector<Sentence>>()> source)
{
    m_corpusSource = std::move(source);
    m_useCorpus->setEnabled(static_cast<bool>(m_corpusSource));
}

void ProbingPanel::setUseOpenCorpus(bool on) { m_useCorpus->setChecked(on); }

ProbeRunConfig ProbingPanel::config() const
{
    ProbeRunConfig c;
    c.tasks = checkedTasks().join(QLatin1Char(',')).toStdString();
    c.model = modelPath().toStdString();
    if (m_useCorpus->isChecked() && m_corpusSource) {
        if (auto corpus = m_slice->apply(m_corpusSource()))
            c.trainSentences = *corpus;
    } else {
        auto add = [](std::vector<std::string> &v, const QLineEdit *e) {
            if (!e->text().trimmed().isEmpty())
                v.push_back(e->text().trimmed().toStdString());
        };
        add(c.train, m_train);
        add(c.dev, m_dev);
        add(c.test, m_test);
    }
    c.layers = m_layers->text().trimmed().isEmpty() ? std::string("all") : m_layers->text().trimmed().toStdString();
    c.pooling = m_pooling->currentText().toStdString();
    c.control = m_control->isChecked();
    c.randomInit = m_randomInit->isChecked();
    c.seed = static_cast<unsigned>(m_seed->value());
    c.epochs = m_epochs->value();
    c.rank = m_rank->value();
    c.commandLine = "treelens (probing panel)";
    return c;
}

void ProbingPanel::restoreSettings()
{
    m_restoring = true;
    const ProbingSettings s = Settings::probing();
    m_train->setText(s.train);
    m_dev->setText(s.dev);
    m_test->setText(s.test);
    if (s.models) {
        // The list as the user left it (a removed shipped model stays removed).
        m_models->clear();
        for (const QString &p : *s.models)
            addModel(p);
        setModelPaths(s.checkedModels);
    } else if (s.model) { // settings of a version with one model
        setModelPath(*s.model);
    }
    m_useCorpus->setChecked(s.useOpenCorpus);
    if (s.tasks)
        setTasks(*s.tasks);
    m_layers->setText(s.layers);
    const int pooling = m_pooling->findText(s.pooling);
    if (pooling >= 0)
        m_pooling->setCurrentIndex(pooling);
    m_control->setChecked(s.control);
    m_randomInit->setChecked(s.randomInit);
    m_seed->setValue(s.seed);
    m_epochs->setValue(s.epochs);
    m_rank->setValue(s.rank);
    m_restoring = false;
}

void ProbingPanel::saveSettings() const
{
    ProbingSettings s;
    s.train = m_train->text();
    s.dev = m_dev->text();
    s.test = m_test->text();
    s.models = listedModelPaths();
    s.checkedModels = modelPaths();
    s.useOpenCorpus = m_useCorpus->isChecked();
    s.tasks = checkedTasks();
    s.layers = m_layers->text();
    s.pooling = m_pooling->currentText();
    s.control = m_control->isChecked();
    s.randomInit = m_randomInit->isChecked();
    s.seed = m_seed->value();
    s.epochs = m_epochs->value();
    s.rank = m_rank->value();
    Settings::setProbing(s);
}

// ---------------------------------------------------------------------------
// Running

std::vector<ProbingPanel::ModelRun> ProbingPanel::modelRuns(const ProbeRunConfig &config) const
{
    // One configuration per checked model ("" = the shipped default model), named
    // by the file's base name (made unique).
    QStringList paths = modelPaths();
    if (paths.isEmpty())
        paths << QString();
    QStringList names;
    for (const QString &p : paths) {
        QString base = QFileInfo(p.isEmpty() ? QString::fromStdString(defaultModelPath()) : p).completeBaseName();
        if (base.isEmpty())
            base = tr("default model");
        QString name = base;
        for (int k = 2; names.contains(name); ++k)
            name = QStringLiteral("%1 (%2)").arg(base).arg(k);
        names << name;
    }
    const int n = static_cast<int>(paths.size());
    std::vector<ModelRun> runs;
    for (int i = 0; i < n; ++i) {
        auto c = std::make_shared<ProbeRunConfig>(config);
        c->model = paths[i].toStdString();
        ModelRun r{std::move(c), names[i], QString(), QString()};
        if (n > 1) {
            r.prefix = tr("model %1/%2: %3: ").arg(i + 1).arg(n).arg(names[i]);
            r.curveModel = names[i];
        }
        runs.push_back(std::move(r));
    }
    return runs;
}

void ProbingPanel::run()
{
    if (m_running)
        return;
    ProbeRunConfig cfg = config();
    cfg.encoders = &jobs().encoders(); // the model the app already loaded, shared
    if (cfg.tasks.empty()) {
        finish(false, tr("Choose at least one task."));
        return;
    }
    if (cfg.train.empty() && cfg.trainSentences.empty()) {
        finish(false, tr("Choose a training file (or use the open corpus)."));
        return;
    }
    m_queue = modelRuns(cfg);
    m_done.clear();
    m_doneNames.clear();
    // What this run reads, kept with its reports for runSentence().
    m_pendingSource = RunSource{};
    m_pendingSource.format = cfg.from;
    if (cfg.train.empty()) {
        m_pendingSource.corpus = m_slice->apply(m_corpusSource ? m_corpusSource() : nullptr);
    } else {
        for (const auto *files : {&cfg.train, &cfg.dev, &cfg.test})
            m_pendingSource.files.insert(m_pendingSource.files.end(), files->begin(), files->end());
    }
    m_cancelRequested = false;
    m_running = true;
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    m_status->setText(tr("Starting…"));
    m_curves->clearCurves();
    m_current = std::move(m_queue.front());
    m_queue.erase(m_queue.begin());
    startRun(m_current.config);
}

void ProbingPanel::startRun(std::shared_ptr<const ProbeRunConfig> config)
{
    const QString prefix = m_current.prefix, curveModel = m_current.curveModel;
    QPointer<ProbingPanel> self(this);
    QPointer<JobRunner> runner(&jobs());
    auto job = std::make_shared<std::atomic<quint64>>(0);
    // Messages from the worker come back queued and are dropped there once this
    // job is no longer the group's latest (checked on the GUI thread, after
    // submit() has returned and `job` is set).
    auto post = [self, runner, job](std::function<void()> f) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, runner, job, f = std::move(f)] {
                if (self && runner && runner->isCurrent(probingGroup(), job->load()))
                    f();
            },
            Qt::QueuedConnection);
    };
    ProbeRunCallbacks cb;
    cb.progress = [this, post, prefix](const std::string &line) {
        const QString text = prefix + QString::fromStdString(line);
        post([this, text] {
            m_status->setText(text);
            Q_EMIT progressText(text);
        });
    };
    cb.curve = [this, post, curveModel](const ProbeCurvePoint &p) {
        post([this, p, curveModel] {
            m_curves->addPoint(p, curveModel);
            Q_EMIT curvePointAdded();
        });
    };
    m_job = jobs().submit<ProbeRunReport>(
        JobRunner::Lane::Background, probingGroup(), this,
        [config, cb](const RunControl &control) { return runProbes(*config, cb, &control); },
        [this](quint64, std::shared_ptr<const ProbeRunReport> report) { reportReady(std::move(report)); },
        [this, prefix](quint64, const QString &message) {
            finish(false, m_cancelRequested ? tr("Cancelled.") : prefix + message);
        });
    job->store(m_job);
}

void ProbingPanel::reportReady(std::shared_ptr<const ProbeRunReport> report)
{
    m_done.push_back(std::move(report));
    m_doneNames << m_current.name;
    if (!m_queue.empty()) {
        if (m_cancelRequested) { // cancelled between two models: the series stops
            finish(false, tr("Cancelled."));
            return;
        }
        m_current = std::move(m_queue.front());
        m_queue.erase(m_queue.begin());
        startRun(m_current.config);
        return;
    }
    m_runSource = m_pendingSource;
    m_runSentences.reset();
    m_runIndex.clear();
    m_reports = std::move(m_done);
    m_reportNames = m_doneNames;
    m_done.clear();
    showReports();
    finish(true, tr("Done."));
}

void ProbingPanel::cancel()
{
    if (!m_running)
        return;
    m_cancelRequested = true;
    jobs().requestStop(probingGroup()); // the run stops within ~200 ms and says so
    m_cancel->setEnabled(false);
    m_status->setText(tr("Cancelling…"));
}

void ProbingPanel::finish(bool ok, const QString &message)
{
    m_running = false;
    m_queue.clear();
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    updateExportActions();
    m_status->setText(ok ? message : tr("Stopped: %1").arg(message));
    Q_EMIT finished(ok, message);
}

// ---------------------------------------------------------------------------
// Showing the reports

void ProbingPanel::showReports()
{
    std::vector<const ProbeRunReport *> reports;
    for (const auto &r : m_reports)
        reports.push_back(r.get());
    if (m_reports.size() == 1) {
        m_reportJson = QString::fromStdString(probeReportJson(*m_reports.front()));
        m_reportText = QString::fromStdString(probeReportText(*m_reports.front()));
    } else {
        // {"models": [report, ...]}: each report byte for byte as `probe --json` prints it.
        m_reportJson = QString::fromStdString(probeReportsJson(reports));
        m_reportText.clear();
        for (std::size_t i = 0; i < m_reports.size(); ++i)
            m_reportText += QStringLiteral("== %1 ==\n").arg(m_reportNames.value(static_cast<int>(i))) +
                            QString::fromStdString(probeReportText(*m_reports[i])) + QLatin1Char('\n');
    }
    const bool several = m_reports.size() > 1;
    {
        const QString previous = m_modelSelect->currentText();
        QSignalBlocker block(m_modelSelect);
        m_modelSelect->clear();
        for (std::size_t i = 0; i < m_reports.size(); ++i) {
            m_modelSelect->addItem(m_reportNames.value(static_cast<int>(i)));
            m_modelSelect->setItemData(static_cast<int>(i), QString::fromStdString(m_reports[i]->model.path),
                                       Qt::ToolTipRole);
        }
        const int keep = m_modelSelect->findText(previous);
        m_modelSelect->setCurrentIndex(keep >= 0 ? keep : 0);
    }
    m_modelRow->setVisible(several);
    m_compareData->setText(fillProbeCompareTable(m_compare, m_reports, m_reportNames));
    const int compareAt = m_tabs->indexOf(m_compareTab);
    if (several && compareAt < 0) {
        const bool onCurves = m_tabs->currentWidget() == m_curves;
        m_tabs->insertTab(1, m_compareTab, tr("Compare")); // the first of the result tabs
        if (onCurves)
            m_tabs->setCurrentWidget(m_compareTab);
    } else if (!several && compareAt >= 0) {
        m_tabs->removeTab(compareAt);
        m_compareTab->hide();
    }
    showReport();
}

std::shared_ptr<const ProbeRunReport> ProbingPanel::report(int index) const
{
    if (index < 0 || index >= static_cast<int>(m_reports.size()))
        return nullptr;
    return m_reports[static_cast<std::size_t>(index)];
}

QString ProbingPanel::reportModelName(int index) const { return m_reportNames.value(index); }

int ProbingPanel::currentReport() const { return m_reports.empty() ? -1 : m_modelSelect->currentIndex(); }

void ProbingPanel::setCurrentReport(int index)
{
    if (index >= 0 && index < m_modelSelect->count())
        m_modelSelect->setCurrentIndex(index);
}

void ProbingPanel::showReport()
{
    if (m_reports.empty())
        return;
    const int index = std::clamp(m_modelSelect->currentIndex(), 0, static_cast<int>(m_reports.size()) - 1);
    m_report = m_reports[static_cast<std::size_t>(index)];
    fillProbeResultsTable(m_table, *m_report);
    // After a run of several models the titles say which model (they travel with the exports).
    const QString model = m_reports.size() > 1 ? m_modelSelect->currentText() : QString();
    m_attention->setAttention(std::shared_ptr<const ProbeRunAttention>(m_report, &m_report->attention), model);
    m_links->setReport(m_report->attention.linkProbs ? &*m_report->attention.linkProbs : nullptr, model);
    {
        const QString currentProbe = m_structTask->currentText();
        QSignalBlocker blockProbe(m_structTask);
        m_structTask->clear();
        for (const auto &[name, view] : m_report->structural)
            m_structTask->addItem(QString::fromStdString(name));
        const int p = m_structTask->findText(currentProbe);
        m_structTask->setCurrentIndex(p >= 0 ? p : 0);
    }
    updateStructuralView();
    m_inductionView->setResult(m_report->induction
                                   ? std::shared_ptr<const ProbeRunInduction>(m_report, &*m_report->induction)
                                   : std::shared_ptr<const ProbeRunInduction>());
    updateExportActions();
}

QString ProbingPanel::structuralTask() const { return m_structTask->currentText(); }

void ProbingPanel::setStructuralTask(const QString &task)
{
    const int i = m_structTask->findText(task);
    if (i >= 0)
        m_structTask->setCurrentIndex(i);
}

void ProbingPanel::updateStructuralView()
{
    const std::string name = m_structTask->currentText().toStdString();
    if (!m_report || !m_report->structural.count(name)) {
        m_structuralView->setResult(nullptr);
        return;
    }
    m_structuralView->setResult(std::shared_ptr<const ProbeRunStructural>(m_report, &m_report->structural.at(name)));
}

void ProbingPanel::openStructuralSentence(int index)
{
    const std::string name = m_structTask->currentText().toStdString();
    if (!m_report || !m_report->structural.count(name))
        return;
    const ProbeRunStructural &r = m_report->structural.at(name);
    if (index < 0 || index >= static_cast<int>(r.sentences.size()))
        return;
    const Sentence &s = r.sentences[static_cast<std::size_t>(index)];
    // Probe layer k (0 = embeddings) is the output of encoder layer k: show the
    // attention of that layer (0-based k - 1), the first head.
    const int layer = std::max(0, m_structuralView->layer() - 1);
    Q_EMIT openSentence(QString::fromStdString(s.id), layer, 0, std::make_shared<const Sentence>(s));
}

void ProbingPanel::openInductionSentence(int index)
{
    if (!m_report || !m_report->induction)
        return;
    const ProbeRunInduction &r = *m_report->induction;
    if (index < 0 || index >= static_cast<int>(r.sentenceIds.size()))
        return;
    const QString id = QString::fromStdString(r.sentenceIds[static_cast<std::size_t>(index)]);
    // The induced tree starts at the configured layer (-1 = the top one).
    const int layers = static_cast<int>(r.report.byStartLayer.size());
    const int start = r.report.config.startLayer >= 0 ? r.report.config.startLayer : std::max(0, layers - 1);
    Q_EMIT openSentence(id, start, 0, runSentence(id));
}

// The attention heatmap: the view's state.
QString ProbingPanel::heatmapTask() const { return m_attention->task(); }
void ProbingPanel::setHeatmapTask(const QString &task) { m_attention->setTask(task); }
void ProbingPanel::setHeatmapMode(HeatmapMode mode)
{
    m_attention->setMode(mode == HeatmapMode::HeadsByRelations ? ProbeAttentionView::Mode::HeadsByRelations
                                                               : ProbeAttentionView::Mode::LayersByHeads);
}
ProbingPanel::HeatmapMode ProbingPanel::heatmapMode() const
{
    return m_attention->mode() == ProbeAttentionView::Mode::HeadsByRelations ? HeatmapMode::HeadsByRelations
                                                                            : HeatmapMode::LayersByHeads;
}
void ProbingPanel::setRelation(const QString &relation) { m_attention->setRelation(relation); }
QString ProbingPanel::relation() const { return m_attention->relation(); }
void ProbingPanel::setDirection(ArcDirection direction) { m_attention->setDirection(direction); }
ArcDirection ProbingPanel::direction() const { return m_attention->direction(); }
void ProbingPanel::setRelationLayer(int layer) { m_attention->setRelationLayer(layer); }
int ProbingPanel::relationLayer() const { return m_attention->relationLayer(); }
QString ProbingPanel::heatmapTitle() const { return m_attention->title(); }
void ProbingPanel::selectCell(int layer, int head) { m_attention->selectCell(layer, head); }
void ProbingPanel::activateSentence(int row) { m_attention->activateSentence(row); }

std::shared_ptr<const Sentence> ProbingPanel::runSentence(const QString &id)
{
    if (!m_runSentences) {
        if (m_runSource.corpus) {
            m_runSentences = m_runSource.corpus;
        } else if (!m_runSource.files.empty()) {
            // Read as the main window reads a corpus (the views show words: no traces).
            QApplication::setOverrideCursor(Qt::WaitCursor);
            auto all = std::make_shared<std::vector<Sentence>>();
            for (const auto &file : m_runSource.files) {
                CorpusFormat format = formatFromPath(file);
                if (!m_runSource.format.empty())
                    if (auto f = parseCorpusFormat(m_runSource.format))
                        format = *f;
                CorpusReadOptions options;
                options.stripTraces = true;
                options.stripFunctionTags = true;
                auto r = readCorpusFile(file, format, options);
                if (!r) {
                    m_status->setText(tr("Cannot read %1 again: %2")
                                          .arg(QString::fromStdString(file), QString::fromStdString(r.message())));
                    continue;
                }
                for (auto &s : *r)
                    all->push_back(std::move(s));
            }
            QApplication::restoreOverrideCursor();
            m_runSentences = std::move(all);
        } else {
            return nullptr;
        }
        m_runIndex.clear();
        for (std::size_t i = 0; i < m_runSentences->size(); ++i)
            m_runIndex.emplace((*m_runSentences)[i].id, i); // the first of a repeated id
    }
    const auto it = m_runIndex.find(id.toStdString());
    if (it == m_runIndex.end() || it->second >= m_runSentences->size())
        return nullptr;
    return std::make_shared<const Sentence>((*m_runSentences)[it->second]);
}

// ---------------------------------------------------------------------------
// Exports

void ProbingPanel::updateExportActions()
{
    for (QAction *a : m_exportMenu->actions()) {
        const QString name = a->objectName();
        if (name == QLatin1String("exportReport")) {
            a->setEnabled(!m_reportJson.isEmpty());
            a->setText(m_reports.size() > 1 ? tr("Reports as JSON + comparison table as CSV…")
                                            : tr("Report as JSON + table as CSV…"));
        } else if (name == QLatin1String("exportCurves")) {
            a->setEnabled(m_curves->graphCount() > 0);
        } else if (name == QLatin1String("exportHeatmap")) {
            a->setEnabled(m_attention->hasCells());
        } else if (name == QLatin1String("exportLinks")) {
            a->setEnabled(m_links->graphCount() > 0);
        } else if (name == QLatin1String("exportStructural")) {
            a->setEnabled(m_report && !m_report->structural.empty());
        } else if (name == QLatin1String("exportInduction")) {
            a->setEnabled(m_report && m_report->induction.has_value());
        }
    }
}

void ProbingPanel::exportReportDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export probing report"), QStringLiteral("probe.json"),
                                                      tr("JSON report (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    QString csv = path;
    if (csv.endsWith(QLatin1String(".json")))
        csv.chop(5);
    csv += QStringLiteral(".csv");
    if (!exportJson(path, &error) || !exportCsv(csv, &error))
        m_status->setText(error);
    else
        m_status->setText(tr("Wrote %1 and %2").arg(path, csv));
}

void ProbingPanel::exportViewDialog(const QString &which)
{
    QString filter;
    const QString name = which == QLatin1String("structural") ? QStringLiteral("probe-structural")
                                                               : QStringLiteral("probe-unsupervised-parsing");
    const QString path = withFilterExtension(
        QFileDialog::getSaveFileName(this, tr("Export plot"), name + QStringLiteral(".pdf"),
                                     tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png)"), &filter),
        filter);
    if (path.isEmpty())
        return;
    QString error;
    const bool ok = which == QLatin1String("structural") ? m_structuralView->exportPlots(path, &error)
                                                          : m_inductionView->exportPlots(path, &error);
    m_status->setText(ok ? tr("Wrote %1").arg(path) : error);
}

void ProbingPanel::exportPlotDialog(QCustomPlot *plot, const QString &name)
{
    QString filter;
    const QString path = withFilterExtension(
        QFileDialog::getSaveFileName(this, tr("Export plot"), name + QStringLiteral(".pdf"),
                                     tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png)"), &filter),
        filter);
    if (path.isEmpty())
        return;
    QString error;
    m_status->setText(exportPlot(plot, path, &error) ? tr("Wrote %1").arg(path) : error);
}

bool ProbingPanel::exportPlot(QCustomPlot *plot, const QString &path, QString *error) const
{
    if (!plot) {
        if (error)
            *error = tr("No plot to export.");
        return false;
    }
    // The plot as laid out on screen; a plot never shown (or squeezed) gets a
    // readable page. Never smaller than its layout needs (titles, legend, the
    // heads × relations map's rows): nothing is clipped.
    QSize size = plot->size();
    if (!plot->isVisible() || size.width() < 320 || size.height() < 220)
        size = QSize(640, 420);
    size = size.expandedTo(plot->minimumSize()).expandedTo(static_cast<const QWidget *>(plot)->minimumSizeHint());
    QString name = QStringLiteral("probing");
    if (plot == curvePlot())
        name = QStringLiteral("probing learning curves");
    else if (plot == heatmapPlot())
        name = QStringLiteral("probing %1").arg(heatmapTask());
    else if (plot == linkPlot())
        name = QStringLiteral("probing link probabilities");
    PlotExport view(plot, size, name);
    return exportView(view, path, error);
}

bool ProbingPanel::exportJson(const QString &path, QString *error) const
{
    return writeText(path, m_reportJson.toUtf8() + '\n', error);
}

bool ProbingPanel::exportCsv(const QString &path, QString *error) const
{
    // After a run of several models: the Compare table.
    return writeText(path, probeTableCsv(m_reports.size() > 1 ? m_compare : m_table).toUtf8(), error);
}

} // namespace treelens
