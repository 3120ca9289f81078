#include "ui/probingpanel.h"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include "viz/plotstyle.h"
#include "viz/qcustomplot.h"

namespace treelens {

namespace {

constexpr int kCurveProbesShown = 3;

const QStringList kHeatmapTasks = {QStringLiteral("head-accuracy"), QStringLiteral("constituent-mass"),
                                   QStringLiteral("attention-mst")};

QStringList allTaskNames()
{
    QStringList names;
    for (const auto *list : {&probeRunSentenceTasks(), &probeRunStructuralTasks(), &probeRunAttentionTasks()})
        for (const auto &t : *list)
            names << QString::fromStdString(t);
    return names;
}

QString curveKey(const ProbeCurvePoint &p)
{
    QString k = QString::fromStdString(p.task);
    if (!p.variant.empty())
        k += QStringLiteral(" [%1]").arg(QString::fromStdString(p.variant));
    k += QStringLiteral(" L%1").arg(p.layer);
    if (!p.pooling.empty())
        k += QStringLiteral(" %1").arg(QString::fromStdString(p.pooling));
    return k;
}

QColor curveColor(int i)
{
    static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c),
                                    QColor(0x94, 0x67, 0xbd)};
    return colors[i % 4];
}

QString csvField(const QString &s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n')))
        return s;
    QString q = s;
    q.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

} // namespace

ProbingPanel::ProbingPanel(QWidget *parent) : QWidget(parent)
{
    // ---- controls
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
    fileRow(m_model, tr("Model:"), tr("the shipped default model"));

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
    m_layers->setToolTip(tr("\"all\" or a comma list; 0 = embeddings, k = output of encoder layer k"));
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

    m_run = new QPushButton(tr("Run"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setEnabled(false);
    m_export = new QPushButton(tr("Export…"));
    m_export->setEnabled(false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_export);
    buttons->addStretch(1);
    form->addRow(buttons);
    m_status = new QLabel(tr("Ready."));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(m_status);

    auto *scroll = new QScrollArea;
    scroll->setWidget(controls);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(340);

    // ---- curves
    m_curvePlot = new QCustomPlot;
    m_curvePlot->setMinimumSize(320, 220);
    styleAxis(m_curvePlot->xAxis);
    styleAxis(m_curvePlot->yAxis);
    styleAxis(m_curvePlot->yAxis2);
    m_curvePlot->xAxis->setLabel(tr("epoch"));
    m_curvePlot->yAxis->setLabel(tr("train loss (solid)"));
    m_curvePlot->yAxis2->setLabel(tr("dev metric (dashed)"));
    m_curvePlot->yAxis2->setVisible(true);
    m_curvePlot->legend->setVisible(true);
    m_curvePlot->legend->setFont(plotFont(kPlotTickPt));
    m_curvePlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

    // ---- results
    m_table = new QTableWidget(0, 8);
    m_table->setHorizontalHeaderLabels(
        {tr("task"), tr("layer"), tr("pooling"), tr("metric"), tr("dev"), tr("test"), tr("selectivity"), tr("baseline")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);

    // ---- attention heatmap + sentences
    auto *attention = new QWidget;
    auto *attLayout = new QVBoxLayout(attention);
    auto *attTop = new QHBoxLayout;
    attTop->addWidget(new QLabel(tr("Analysis:")));
    m_heatTask = new QComboBox;
    attTop->addWidget(m_heatTask, 1);
    attLayout->addLayout(attTop);
    auto *attSplit = new QSplitter(Qt::Horizontal);
    m_heatPlot = new QCustomPlot;
    m_heatPlot->setMinimumSize(260, 220);
    styleAxis(m_heatPlot->xAxis);
    styleAxis(m_heatPlot->yAxis);
    m_heatPlot->xAxis->setLabel(tr("head"));
    m_heatPlot->yAxis->setLabel(tr("layer"));
    m_heatPlot->yAxis->setRangeReversed(true);
    m_heatMap = new QCPColorMap(m_heatPlot->xAxis, m_heatPlot->yAxis);
    m_heatMap->setGradient(viridisGradient());
    m_heatMap->setInterpolate(false);
    m_heatScale = new QCPColorScale(m_heatPlot);
    m_heatPlot->plotLayout()->addElement(0, 1, m_heatScale);
    m_heatMap->setColorScale(m_heatScale);
    m_heatScale->setGradient(viridisGradient()); // the scale's gradient is the map's once attached
    auto *marginGroup = new QCPMarginGroup(m_heatPlot);
    m_heatPlot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup);
    m_heatScale->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup);
    styleAxis(m_heatScale->axis());
    attSplit->addWidget(m_heatPlot);
    auto *listBox = new QWidget;
    auto *listLayout = new QVBoxLayout(listBox);
    listLayout->setContentsMargins(0, 0, 0, 0);
    m_cellLabel = new QLabel(tr("Click a cell to list its sentences, worst first."));
    m_cellLabel->setWordWrap(true);
    m_cellLabel->setObjectName(QStringLiteral("cellLabel"));
    m_sentences = new QListWidget;
    m_sentences->setToolTip(tr("Double-click to open the sentence at this layer and head"));
    listLayout->addWidget(m_cellLabel);
    listLayout->addWidget(m_sentences, 1);
    attSplit->addWidget(listBox);
    attSplit->setStretchFactor(0, 3);
    attSplit->setStretchFactor(1, 2);
    attLayout->addWidget(attSplit, 1);

    auto *tabs = new QTabWidget;
    tabs->addTab(m_curvePlot, tr("Learning curves"));
    tabs->addTab(m_table, tr("Results"));
    tabs->addTab(attention, tr("Attention"));
    tabs->setObjectName(QStringLiteral("probingTabs"));

    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(scroll);
    split->addWidget(tabs);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    connect(m_run, &QPushButton::clicked, this, &ProbingPanel::run);
    connect(m_cancel, &QPushButton::clicked, this, &ProbingPanel::cancel);
    connect(m_export, &QPushButton::clicked, this, [this] {
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
    });
    connect(m_heatTask, &QComboBox::currentTextChanged, this, [this] { updateHeatmap(); });
    connect(m_heatPlot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (m_heatMap->data()->keySize() == 0)
            return;
        int head = -1, layer = -1;
        m_heatMap->data()->coordToCell(m_heatPlot->xAxis->pixelToCoord(event->pos().x()),
                                       m_heatPlot->yAxis->pixelToCoord(event->pos().y()), &head, &layer);
        if (head >= 0 && layer >= 0 && head < m_heatMap->data()->keySize() && layer < m_heatMap->data()->valueSize())
            selectCell(layer, head);
    });
    connect(m_sentences, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { activateSentence(m_sentences->row(item)); });
}

ProbingPanel::~ProbingPanel()
{
    if (m_thread) {
        if (m_cancelFlag)
            m_cancelFlag->store(true);
        m_thread->wait();
        delete m_thread;
    }
}

void ProbingPanel::browse(QLineEdit *edit)
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose a file"), edit->text());
    if (!path.isEmpty())
        edit->setText(path);
}

void ProbingPanel::setModelPath(const QString &path) { m_model->setText(path); }
QString ProbingPanel::modelPath() const { return m_model->text(); }

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
    c.model = m_model->text().trimmed().toStdString();
    if (m_useCorpus->isChecked() && m_corpusSource) {
        if (auto corpus = m_corpusSource())
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
    c.commandLine = "treelens (probing panel)";
    return c;
}

void ProbingPanel::run()
{
    if (m_running)
        return;
    const ProbeRunConfig cfg = config();
    if (cfg.tasks.empty()) {
        finish(false, tr("Choose at least one task."));
        return;
    }
    if (cfg.train.empty() && cfg.trainSentences.empty()) {
        finish(false, tr("Choose a training file (or use the open corpus)."));
        return;
    }
    if (m_thread) { // the previous run's thread has returned (m_running is false)
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
    const quint64 gen = ++m_generation;
    m_running = true;
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    m_export->setEnabled(false);
    m_status->setText(tr("Starting…"));
    m_curvePlot->clearGraphs();
    m_curvePlot->setProperty("colorIndex", 0);
    m_curvePlot->replot();
    m_curveKeys.clear();
    m_curvePoints = 0;
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);

    auto flag = m_cancelFlag;
    m_thread = QThread::create([this, cfg, flag, gen] {
        ProbeRunCallbacks cb;
        cb.progress = [this, gen](const std::string &line) {
            const QString text = QString::fromStdString(line);
            QMetaObject::invokeMethod(
                this,
                [this, gen, text] {
                    if (gen != m_generation)
                        return;
                    m_status->setText(text);
                    Q_EMIT progressText(text);
                },
                Qt::QueuedConnection);
        };
        cb.curve = [this, gen](const ProbeCurvePoint &p) {
            QMetaObject::invokeMethod(
                this,
                [this, gen, p] {
                    if (gen == m_generation)
                        addCurvePoint(p);
                },
                Qt::QueuedConnection);
        };
        RunControl rc;
        rc.cancelled = [flag] { return flag->load(); };
        auto result = runProbes(cfg, cb, &rc);
        if (result) {
            auto report = std::make_shared<ProbeRunReport>(std::move(*result));
            QMetaObject::invokeMethod(
                this,
                [this, gen, report] {
                    if (gen != m_generation)
                        return;
                    showReport(report);
                    finish(true, tr("Done."));
                },
                Qt::QueuedConnection);
        } else {
            const QString message = flag->load() ? tr("Cancelled.") : QString::fromStdString(result.message());
            QMetaObject::invokeMethod(
                this,
                [this, gen, message] {
                    if (gen == m_generation)
                        finish(false, message);
                },
                Qt::QueuedConnection);
        }
    });
    m_thread->start();
}

void ProbingPanel::cancel()
{
    if (!m_running || !m_cancelFlag)
        return;
    m_cancelFlag->store(true);
    m_cancel->setEnabled(false);
    m_status->setText(tr("Cancelling…"));
}

void ProbingPanel::finish(bool ok, const QString &message)
{
    m_running = false;
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    m_export->setEnabled(!m_reportJson.isEmpty());
    m_status->setText(ok ? message : tr("Stopped: %1").arg(message));
    Q_EMIT finished(ok, message);
}

void ProbingPanel::addCurvePoint(const ProbeCurvePoint &p)
{
    const QString key = curveKey(p);
    QCPGraph *train = nullptr, *dev = nullptr;
    for (int i = 0; i < m_curvePlot->graphCount(); ++i) {
        QCPGraph *g = m_curvePlot->graph(i);
        if (g->property("probeKey").toString() == key)
            (g->property("dev").toBool() ? dev : train) = g;
    }
    if (!train) {
        // A new probe: drop the oldest one shown.
        m_curveKeys.push_back(key.toStdString());
        if (static_cast<int>(m_curveKeys.size()) > kCurveProbesShown) {
            const QString old = QString::fromStdString(m_curveKeys.front());
            m_curveKeys.erase(m_curveKeys.begin());
            for (int i = m_curvePlot->graphCount() - 1; i >= 0; --i)
                if (m_curvePlot->graph(i)->property("probeKey").toString() == old)
                    m_curvePlot->removeGraph(i);
        }
        const int colorIndex = m_curvePlot->property("colorIndex").toInt();
        m_curvePlot->setProperty("colorIndex", colorIndex + 1);
        const QColor color = curveColor(colorIndex);
        train = m_curvePlot->addGraph(m_curvePlot->xAxis, m_curvePlot->yAxis);
        train->setProperty("probeKey", key);
        train->setProperty("dev", false);
        train->setName(key + tr(" train loss"));
        train->setPen(QPen(color, 1.6));
        train->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
        dev = m_curvePlot->addGraph(m_curvePlot->xAxis, m_curvePlot->yAxis2);
        dev->setProperty("probeKey", key);
        dev->setProperty("dev", true);
        dev->setName(key + tr(" dev metric"));
        dev->setPen(QPen(color, 1.6, Qt::DashLine));
        dev->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    }
    train->addData(p.epoch, p.trainLoss);
    if (std::isfinite(p.devMetric))
        dev->addData(p.epoch, p.devMetric);
    ++m_curvePoints;
    m_curvePlot->rescaleAxes();
    m_curvePlot->replot(QCustomPlot::rpQueuedReplot);
    Q_EMIT curvePointAdded();
}

void ProbingPanel::showReport(const std::shared_ptr<ProbeRunReport> &report)
{
    m_report = report;
    m_reportJson = QString::fromStdString(report->json);
    m_reportText = QString::fromStdString(report->text);
    const QJsonObject root = QJsonDocument::fromJson(m_reportJson.toUtf8()).object();
    fillTable(root.value(QStringLiteral("tasks")).toObject());

    const QString current = m_heatTask->currentText();
    QSignalBlocker block(m_heatTask);
    m_heatTask->clear();
    const auto &a = report->attention;
    if (a.headAccuracy)
        m_heatTask->addItem(QStringLiteral("head-accuracy"));
    if (a.constituentMass)
        m_heatTask->addItem(QStringLiteral("constituent-mass"));
    if (a.attentionMst)
        m_heatTask->addItem(QStringLiteral("attention-mst"));
    const int idx = m_heatTask->findText(current);
    m_heatTask->setCurrentIndex(idx >= 0 ? idx : 0);
    updateHeatmap();
}

void ProbingPanel::fillTable(const QJsonObject &tasks)
{
    m_table->setRowCount(0);
    auto addRow = [this](const QString &task, const QString &layer, const QString &pooling, const QString &metric,
                         const QJsonValue &dev, const QJsonValue &test, const QJsonValue &sel, const QJsonValue &base) {
        const int r = m_table->rowCount();
        m_table->insertRow(r);
        auto text = [](const QJsonValue &v) { return v.isDouble() ? QString::number(v.toDouble(), 'g', 10) : QString(); };
        const QStringList cells = {task, layer, pooling, metric, text(dev), text(test), text(sel), text(base)};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            if (c >= 4)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(r, c, item);
        }
    };
    // Canonical task order.
    for (const auto &name : allTaskNames()) {
        if (!tasks.contains(name))
            continue;
        const QJsonObject t = tasks.value(name).toObject();
        const QString kind = t.value(QStringLiteral("kind")).toString();
        if (kind == QLatin1String("sentence")) {
            const bool reg = t.value(QStringLiteral("regression")).toBool();
            const QString m = reg ? QStringLiteral("r2") : QStringLiteral("accuracy");
            const QJsonObject bl = t.value(QStringLiteral("baselines")).toObject();
            const QJsonValue base = reg ? bl.value(QStringLiteral("mean")).toObject().value(QStringLiteral("r2"))
                                        : bl.value(QStringLiteral("majority")).toObject().value(QStringLiteral("accuracy"));
            auto rows = [&](const QJsonArray &layers, const QString &label) {
                for (const auto &lv : layers) {
                    const QJsonObject lj = lv.toObject();
                    for (const QString &p : {QStringLiteral("cls"), QStringLiteral("mean")}) {
                        if (!lj.contains(p))
                            continue;
                        const QJsonObject pj = lj.value(p).toObject();
                        addRow(label, QString::number(lj.value(QStringLiteral("layer")).toInt()), p,
                               reg ? tr("R²") : tr("accuracy %"), pj.value(QStringLiteral("dev")).toObject().value(m),
                               pj.value(QStringLiteral("test")).toObject().value(m),
                               pj.value(QStringLiteral("selectivity")), base);
                    }
                }
            };
            rows(t.value(QStringLiteral("layers")).toArray(), name);
            if (t.contains(QStringLiteral("random_init")))
                rows(t.value(QStringLiteral("random_init")).toObject().value(QStringLiteral("layers")).toArray(),
                     name + QStringLiteral(" [random-init]"));
        } else if (kind == QLatin1String("structural")) {
            const bool dist = name == QLatin1String("structural-distance");
            const QString m = dist ? QStringLiteral("uuas") : QStringLiteral("root_accuracy");
            auto rows = [&](const QJsonArray &layers, const QString &label) {
                for (const auto &lv : layers) {
                    const QJsonObject lj = lv.toObject();
                    addRow(label, QString::number(lj.value(QStringLiteral("layer")).toInt()), QString(),
                           dist ? tr("UUAS %") : tr("root accuracy %"), lj.value(QStringLiteral("dev")).toObject().value(m),
                           lj.value(QStringLiteral("test")).toObject().value(m), QJsonValue(), QJsonValue());
                }
            };
            rows(t.value(QStringLiteral("layers")).toArray(), name);
            if (t.contains(QStringLiteral("random_init")))
                rows(t.value(QStringLiteral("random_init")).toObject().value(QStringLiteral("layers")).toArray(),
                     name + QStringLiteral(" [random-init]"));
        } else if (name == QLatin1String("head-accuracy")) {
            const QJsonArray rels = t.value(QStringLiteral("relations")).toArray();
            if (!rels.isEmpty()) {
                const QJsonObject all = rels.first().toObject();
                const QJsonObject best = all.value(QStringLiteral("best_dep_to_head")).toObject();
                addRow(name, QString::number(best.value(QStringLiteral("layer")).toInt()),
                       tr("head %1").arg(best.value(QStringLiteral("head")).toInt()), tr("best dep→head accuracy %"),
                       QJsonValue(), best.value(QStringLiteral("accuracy")), QJsonValue(),
                       all.value(QStringLiteral("best_offset")).toObject().value(QStringLiteral("accuracy")));
            }
        } else if (t.contains(QStringLiteral("best"))) {
            const QJsonObject best = t.value(QStringLiteral("best")).toObject();
            QJsonValue value;
            QString metric;
            for (auto it = best.begin(); it != best.end(); ++it)
                if (it.key() != QLatin1String("layer") && it.key() != QLatin1String("head") && it.value().isDouble() &&
                    metric.isEmpty()) {
                    metric = QStringLiteral("best ") + it.key();
                    value = it.value();
                }
            addRow(name, QString::number(best.value(QStringLiteral("layer")).toInt()),
                   tr("head %1").arg(best.value(QStringLiteral("head")).toInt()), metric, QJsonValue(), value,
                   QJsonValue(), QJsonValue());
        }
    }
}

QString ProbingPanel::heatmapTask() const { return m_heatTask->currentText(); }

void ProbingPanel::setHeatmapTask(const QString &task)
{
    const int i = m_heatTask->findText(task);
    if (i >= 0)
        m_heatTask->setCurrentIndex(i);
}

void ProbingPanel::updateHeatmap()
{
    m_sentences->clear();
    m_cellLayer = m_cellHead = -1;
    const LayerHeadGrid *grid = nullptr;
    QString label;
    if (m_report) {
        const auto &a = m_report->attention;
        const QString task = m_heatTask->currentText();
        if (task == QLatin1String("head-accuracy") && a.headAccuracy) {
            if (const auto *all = a.headAccuracy->find("all")) {
                grid = &all->depToHead;
                label = tr("dep→head accuracy %");
            }
        } else if (task == QLatin1String("constituent-mass") && a.constituentMass) {
            grid = &a.constituentMass->difference;
            label = tr("mass − baseline");
        } else if (task == QLatin1String("attention-mst") && a.attentionMst) {
            grid = &a.attentionMst->uuas;
            label = tr("MST UUAS %");
        }
    }
    if (!grid || grid->layers <= 0 || grid->heads <= 0) {
        m_heatMap->data()->clear();
        m_heatPlot->replot();
        return;
    }
    m_heatMap->data()->setSize(grid->heads, grid->layers);
    m_heatMap->data()->setRange(QCPRange(0, grid->heads - 1), QCPRange(0, grid->layers - 1));
    for (int l = 0; l < grid->layers; ++l)
        for (int h = 0; h < grid->heads; ++h)
            m_heatMap->data()->setCell(h, l, grid->at(l, h));
    m_heatMap->rescaleDataRange(true);
    m_heatScale->axis()->setLabel(label);
    m_heatPlot->xAxis->setRange(-0.5, grid->heads - 0.5);
    m_heatPlot->yAxis->setRange(-0.5, grid->layers - 0.5);
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    m_heatPlot->xAxis->setTicker(ticker);
    m_heatPlot->yAxis->setTicker(ticker);
    m_cellLabel->setText(tr("Click a cell to list its sentences, worst first."));
    m_heatPlot->replot();
}

void ProbingPanel::selectCell(int layer, int head)
{
    m_sentences->clear();
    if (!m_report)
        return;
    const auto &a = m_report->attention;
    const std::string task = m_heatTask->currentText().toStdString();
    const auto idsIt = a.sentenceIds.find(task);
    if (idsIt == a.sentenceIds.end())
        return;
    const auto &ids = idsIt->second;
    std::vector<int> order;
    std::function<QString(int)> score;
    if (task == "head-accuracy" && a.headAccuracy) {
        const auto &rep = *a.headAccuracy;
        if (layer >= rep.layers || head >= rep.heads)
            return;
        order = sentencesForCell(rep, layer, head);
        const auto *all = rep.find("all");
        const int cell = layer * rep.heads + head;
        score = [all, cell](int s) {
            for (const auto &x : all->sentences)
                if (x.sentence == s)
                    return QStringLiteral("%1/%2 arcs").arg(x.depToHead[cell]).arg(x.total);
            return QString();
        };
    } else if (task == "constituent-mass" && a.constituentMass) {
        const auto &rep = *a.constituentMass;
        if (layer >= rep.layers || head >= rep.heads)
            return;
        order = sentencesForCell(rep, layer, head);
        const int cell = layer * rep.heads + head;
        score = [&rep, cell](int s) {
            for (const auto &x : rep.sentences)
                if (x.sentence == s)
                    return QStringLiteral("mass − baseline %1").arg(x.mass(cell) - x.baseline(cell), 0, 'f', 3);
            return QString();
        };
    } else if (task == "attention-mst" && a.attentionMst) {
        const auto &rep = *a.attentionMst;
        if (layer >= rep.layers || head >= rep.heads)
            return;
        order = sentencesForCell(rep, layer, head);
        const int cell = rep.cell(layer, head);
        score = [&rep, cell](int s) {
            for (const auto &x : rep.sentences)
                if (x.sentence == s)
                    return QStringLiteral("%1/%2 edges").arg(x.correct[cell]).arg(x.edges);
            return QString();
        };
    } else {
        return;
    }
    m_cellLayer = layer;
    m_cellHead = head;
    for (int s : order) {
        const QString id = s >= 0 && s < static_cast<int>(ids.size()) ? QString::fromStdString(ids[s])
                                                                      : QStringLiteral("#%1").arg(s);
        auto *item = new QListWidgetItem(QStringLiteral("%1  (%2)").arg(id, score(s)), m_sentences);
        item->setData(Qt::UserRole, id);
    }
    m_cellLabel->setText(tr("Layer %1, head %2: %n sentence(s), worst first", nullptr, static_cast<int>(order.size()))
                             .arg(layer)
                             .arg(head));
}

void ProbingPanel::activateSentence(int row)
{
    auto *item = m_sentences->item(row);
    if (!item || m_cellLayer < 0)
        return;
    Q_EMIT openSentence(item->data(Qt::UserRole).toString(), m_cellLayer, m_cellHead);
}

bool ProbingPanel::exportJson(const QString &path, QString *error) const
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(m_reportJson.toUtf8() + '\n') < 0 || !f.commit()) {
        if (error)
            *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

bool ProbingPanel::exportCsv(const QString &path, QString *error) const
{
    QString out;
    QStringList header;
    for (int c = 0; c < m_table->columnCount(); ++c)
        header << csvField(m_table->horizontalHeaderItem(c)->text());
    out += header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (int r = 0; r < m_table->rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < m_table->columnCount(); ++c)
            row << csvField(m_table->item(r, c) ? m_table->item(r, c)->text() : QString());
        out += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(out.toUtf8()) < 0 || !f.commit()) {
        if (error)
            *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

} // namespace treelens
