#include "ui/probingpanel.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <tuple>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include "core/encoders/encoder.h"
#include "core/formats/corpus.h"
#include "core/formats/probejson.h"
#include "core/probing/runreport.h"
#include "ui/inductionview.h"
#include "ui/structuralview.h"
#include "viz/plotstyle.h"
#include "viz/qcustomplot.h"
#include "viz/viewcommon.h"
#include "viz/viewexport.h"

namespace treelens {

namespace {

/// One spelling per file: "resources/models/m.safetensors" and its absolute path are one model.
QString normalModelPath(const QString &path)
{
    const QString p = path.trimmed();
    return p.isEmpty() ? p : QDir::cleanPath(QFileInfo(p).absoluteFilePath());
}

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

/// "+2" / "-1" for an offset.
QString signedOffset(int offset) { return offset > 0 ? QStringLiteral("+%1").arg(offset) : QString::number(offset); }

/// `x` with `decimals` digits as Python's f"{x:.2f}" writes it (probing_tables.py):
/// exact ties to even, the sign of −0.0 kept, whatever the C locale. QString::number
/// rounds ties away from zero (12.25 → "12.3" where Python writes "12.2").
QString pythonFixed(double x, int decimals)
{
    char buf[128];
    const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, decimals);
    if (r.ec != std::errc())
        return QString::number(x, 'f', decimals);
    return QString::fromLatin1(buf, static_cast<int>(r.ptr - buf));
}

/// The settings keys of the dock's inputs.
const QString kSettingsGroup = QStringLiteral("probing");

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
    // Models: a checkable list; the checked ones run one after another.
    {
        m_models = new QListWidget;
        m_models->setObjectName(QStringLiteral("modelList"));
        m_models->setToolTip(tr("Encoders to probe: the checked ones run one after another with the same settings "
                                "and are compared side by side in the Compare tab"));
        m_models->setTextElideMode(Qt::ElideMiddle);
        m_models->setSelectionMode(QAbstractItemView::ExtendedSelection);
        m_models->setMinimumHeight(m_models->sizeHintForRow(0) > 0 ? m_models->sizeHintForRow(0) * 3 + 6 : 60);
        m_models->setMaximumHeight(110);
        for (const char *name : {"tree-transformer-en-small.safetensors", "transformer-en-small.safetensors"}) {
            const std::string path = findShippedModel(name);
            if (!path.empty())
                addModel(QString::fromStdString(path));
        }
        setModelPaths({}); // shipped, not chosen
        auto *add = new QPushButton(tr("Add…"));
        add->setObjectName(QStringLiteral("addModel"));
        add->setToolTip(tr("Add model files (.safetensors) to the list"));
        connect(add, &QPushButton::clicked, this, &ProbingPanel::addModelsDialog);
        m_removeModel = new QPushButton(tr("Remove"));
        m_removeModel->setObjectName(QStringLiteral("removeModel"));
        m_removeModel->setToolTip(tr("Remove the selected models from the list"));
        m_removeModel->setEnabled(false);
        connect(m_removeModel, &QPushButton::clicked, this, &ProbingPanel::removeSelectedModels);
        connect(m_models, &QListWidget::itemSelectionChanged, this,
                [this] { m_removeModel->setEnabled(!m_models->selectedItems().isEmpty()); });
        m_modelHint = new QLabel;
        m_modelHint->setWordWrap(true);
        m_modelHint->setObjectName(QStringLiteral("modelHint"));
        auto *buttonsCol = new QVBoxLayout;
        buttonsCol->addWidget(add);
        buttonsCol->addWidget(m_removeModel);
        buttonsCol->addStretch(1);
        auto *row = new QHBoxLayout;
        row->addWidget(m_models, 1);
        row->addLayout(buttonsCol);
        auto *col = new QVBoxLayout;
        col->addLayout(row);
        col->addWidget(m_modelHint);
        form->addRow(tr("Models:"), col);
        connect(m_models, &QListWidget::itemChanged, this, [this] { updateModelHint(); });
        updateModelHint();
    }

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
                            [this] { exportPlotDialog(m_curvePlot, QStringLiteral("probe-curves")); })
        ->setObjectName(QStringLiteral("exportCurves"));
    m_exportMenu->addAction(tr("Attention heatmap as PNG / SVG / PDF…"), this,
                            [this] { exportPlotDialog(m_heatPlot, QStringLiteral("probe-heatmap")); })
        ->setObjectName(QStringLiteral("exportHeatmap"));
    m_exportMenu->addAction(tr("Link-probability chart as PNG / SVG / PDF…"), this,
                            [this] { exportPlotDialog(m_linkPlot, QStringLiteral("probe-link-probs")); })
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
    // Losses fall by orders of magnitude in the first epochs: a log scale keeps
    // the later epochs readable.
    m_curvePlot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_curvePlot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    m_curvePlot->yAxis->setLabel(tr("train loss (solid, log scale)"));
    m_curvePlot->legend->setVisible(true);
    m_curvePlot->legend->setFont(plotFont(kPlotTickPt));
    // The legend under the axes (two columns), off the curves.
    m_curvePlot->axisRect()->insetLayout()->take(m_curvePlot->legend);
    m_curvePlot->plotLayout()->addElement(1, 0, m_curvePlot->legend);
    m_curvePlot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_curvePlot->legend->setWrap(2);
    m_curvePlot->plotLayout()->setRowStretchFactor(1, 0.001);

    // ---- results
    m_table = new QTableWidget(0, 8);
    m_table->setHorizontalHeaderLabels(
        {tr("task"), tr("layer"), tr("pooling"), tr("metric"), tr("dev"), tr("test"), tr("selectivity"), tr("baseline")});
    m_table->horizontalHeaderItem(1)->setToolTip(
        tr("Numbered as in the View dock: 0 = embeddings, k = encoder layer k. The attention tasks' JSON counts "
           "encoder layers (and heads) from 0: JSON layer k − 1."));
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
    // Head accuracy: relation, direction, and layers × heads or heads × relations at one layer.
    m_haControls = new QWidget;
    auto *haRow = new QHBoxLayout(m_haControls);
    haRow->setContentsMargins(0, 0, 0, 0);
    haRow->addWidget(new QLabel(tr("Relation:")));
    m_relation = new QComboBox;
    m_relation->setObjectName(QStringLiteral("relationCombo"));
    m_relation->setToolTip(tr("Universal dependency relation (arcs in the corpus); \"all\" pools every relation"));
    m_relation->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    haRow->addWidget(m_relation);
    m_direction = new QComboBox;
    m_direction->setObjectName(QStringLiteral("directionCombo"));
    m_direction->addItem(tr("dependent → head"));
    m_direction->addItem(tr("head → dependent"));
    m_direction->setToolTip(tr("dependent → head: the dependent attends most to its head; "
                               "head → dependent: the head attends most to the dependent"));
    haRow->addWidget(m_direction);
    m_heatMode = new QComboBox;
    m_heatMode->setObjectName(QStringLiteral("heatModeCombo"));
    m_heatMode->addItem(tr("layers × heads"));
    m_heatMode->addItem(tr("heads × relations"));
    haRow->addWidget(m_heatMode);
    m_relLayer = new QSpinBox;
    m_relLayer->setObjectName(QStringLiteral("relationLayerSpin"));
    m_relLayer->setRange(1, 1);
    m_relLayer->setPrefix(tr("at layer "));
    m_relLayer->setToolTip(tr("Encoder layer of the heads × relations map, numbered from 1 as in the View dock "
                              "(the JSON's layer + 1)"));
    haRow->addWidget(m_relLayer);
    haRow->addStretch(1);
    attLayout->addWidget(m_haControls);
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
    // A title above the map (it travels with the exports): task, relation, baseline.
    m_heatPlot->plotLayout()->insertRow(0);
    m_heatTitle = new QCPTextElement(m_heatPlot, QString(), plotFont(kPlotTickPt));
    m_heatPlot->plotLayout()->addElement(0, 0, m_heatTitle);
    auto *heatScroll = new QScrollArea;
    heatScroll->setWidget(m_heatPlot);
    heatScroll->setWidgetResizable(true);
    heatScroll->setFrameShape(QFrame::NoFrame);
    heatScroll->setMinimumWidth(340);
    attSplit->addWidget(heatScroll);
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
    attSplit->setSizes({600, 400}); // the map first: the list's long label would claim most of it
    attLayout->addWidget(attSplit, 1);

    // ---- link probabilities by constituent size
    m_linkPlot = new QCustomPlot;
    m_linkPlot->setMinimumSize(320, 220);
    styleAxis(m_linkPlot->xAxis);
    styleAxis(m_linkPlot->yAxis);
    m_linkPlot->xAxis->setLabel(tr("size of the smallest gold constituent holding both words (words)"));
    m_linkPlot->yAxis->setLabel(tr("mean link probability"));
    m_linkPlot->legend->setVisible(true);
    m_linkPlot->legend->setFont(plotFont(kPlotTickPt));
    {
        // The legend under the axes in two columns (lines may run anywhere inside),
        // so the title above spans the whole width and nothing is clipped.
        m_linkPlot->axisRect()->insetLayout()->take(m_linkPlot->legend);
        m_linkPlot->plotLayout()->addElement(1, 0, m_linkPlot->legend);
        m_linkPlot->legend->setFillOrder(QCPLegend::foColumnsFirst);
        m_linkPlot->legend->setWrap(2);
        m_linkPlot->plotLayout()->setRowStretchFactor(1, 0.001);
    }
    m_linkPlot->plotLayout()->insertRow(0);
    m_linkPlot->plotLayout()->addElement(
        0, 0, new QCPTextElement(m_linkPlot, tr("Run the link-probs task to see this chart."), plotFont(kPlotAxisLabelPt)));
    m_linkPlot->xAxis->setRange(-0.4, LinkBucketCount - 0.6);

    auto *tabs = m_tabs = new QTabWidget;
    tabs->addTab(m_curvePlot, tr("Learning curves"));
    tabs->addTab(m_table, tr("Results"));
    tabs->addTab(attention, tr("Attention"));
    tabs->addTab(m_linkPlot, tr("Link probabilities"));

    // Structural probes: the test sentences' gold vs predicted distances / depths.
    auto *structural = new QWidget;
    {
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
        m_structuralView = new StructuralView;
        v->addWidget(m_structuralView, 1);
        connect(m_structTask, &QComboBox::currentIndexChanged, this, [this] { updateStructuralView(); });
        connect(m_structuralView, &StructuralView::openSentence, this, &ProbingPanel::openStructuralSentence);
    }
    tabs->addTab(structural, tr("Structural probes"));
    m_inductionView = new InductionView;
    connect(m_inductionView, &InductionView::openSentence, this, &ProbingPanel::openInductionSentence);
    tabs->addTab(m_inductionView, tr("Unsupervised parsing"));
    tabs->setObjectName(QStringLiteral("probingTabs"));

    // Compare: the models side by side (a tab only after a run of several models).
    m_compareTab = new QWidget(this);
    {
        auto *v = new QVBoxLayout(m_compareTab);
        v->setContentsMargins(4, 4, 4, 4);
        m_compareData = new QLabel;
        m_compareData->setWordWrap(true);
        m_compareData->setTextInteractionFlags(Qt::TextSelectableByMouse);
        v->addWidget(m_compareData);
        m_compare = new QTableWidget(0, 0);
        m_compare->setObjectName(QStringLiteral("compareTable"));
        m_compare->setEditTriggers(QAbstractItemView::NoEditTriggers);
        m_compare->setSelectionBehavior(QAbstractItemView::SelectRows);
        m_compare->verticalHeader()->setVisible(false);
        m_compare->setWordWrap(false);
        m_compare->verticalHeader()->setDefaultSectionSize(m_compare->fontMetrics().height() + 8);
        m_compare->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        m_compare->horizontalHeader()->setStretchLastSection(true);
        v->addWidget(m_compare, 1);
    }
    m_compareTab->hide();

    // Above the result tabs: which model's report they show.
    auto *right = new QWidget;
    {
        auto *v = new QVBoxLayout(right);
        v->setContentsMargins(0, 0, 0, 0);
        m_modelRow = new QWidget;
        auto *row = new QHBoxLayout(m_modelRow);
        row->setContentsMargins(0, 0, 0, 0);
        row->addWidget(new QLabel(tr("Model:")));
        m_modelSelect = new QComboBox;
        m_modelSelect->setObjectName(QStringLiteral("modelSelector"));
        m_modelSelect->setToolTip(tr("The model whose report the Results, Attention, Link probabilities, Structural "
                                     "probes and Unsupervised parsing tabs show"));
        m_modelSelect->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        row->addWidget(m_modelSelect);
        row->addStretch(1);
        m_modelRow->hide(); // shown after a run of several models
        v->addWidget(m_modelRow);
        v->addWidget(tabs, 1);
        connect(m_modelSelect, &QComboBox::currentIndexChanged, this, [this](int i) {
            if (i >= 0 && i < static_cast<int>(m_reports.size()) && m_reports[static_cast<std::size_t>(i)] != m_report)
                showReport();
        });
    }

    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(scroll);
    split->addWidget(right);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    connect(m_run, &QPushButton::clicked, this, &ProbingPanel::run);
    connect(m_cancel, &QPushButton::clicked, this, &ProbingPanel::cancel);
    connect(m_heatTask, &QComboBox::currentTextChanged, this, [this] { updateHeatmap(); });
    connect(m_relation, &QComboBox::currentIndexChanged, this, [this] { updateHeatmap(); });
    connect(m_direction, &QComboBox::currentIndexChanged, this, [this] { updateHeatmap(); });
    connect(m_heatMode, &QComboBox::currentIndexChanged, this, [this] { updateHeatmap(); });
    connect(m_relLayer, &QSpinBox::valueChanged, this, [this] { updateHeatmap(); });
    connect(m_heatPlot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (m_heatMap->data()->keySize() == 0)
            return;
        int head = -1, row = -1;
        m_heatMap->data()->coordToCell(m_heatPlot->xAxis->pixelToCoord(event->pos().x()),
                                       m_heatPlot->yAxis->pixelToCoord(event->pos().y()), &head, &row);
        if (head < 0 || row < 0 || head >= m_heatMap->data()->keySize() || row >= m_heatMap->data()->valueSize())
            return;
        if (heatmapTask() == QLatin1String("head-accuracy") && heatmapMode() == HeatmapMode::HeadsByRelations) {
            // Row = relation: make it current (the map stays), then list the cell.
            {
                QSignalBlocker block(m_relation);
                m_relation->setCurrentIndex(row);
            }
            updateHeatmapTitle();
            selectCell(relationLayer(), head);
        } else {
            selectCell(row, head);
        }
    });
    connect(m_sentences, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { activateSentence(m_sentences->row(item)); });

    // The inputs persist: restored now, saved on every change.
    restoreSettings();
    auto save = [this] {
        if (!m_restoring)
            saveSettings();
    };
    for (QLineEdit *e : {m_train, m_dev, m_test, m_layers})
        connect(e, &QLineEdit::textChanged, this, save);
    connect(m_models, &QListWidget::itemChanged, this, save);
    connect(m_models->model(), &QAbstractItemModel::rowsInserted, this, save);
    connect(m_models->model(), &QAbstractItemModel::rowsRemoved, this, save);
    for (QCheckBox *c : {m_useCorpus, m_control, m_randomInit})
        connect(c, &QCheckBox::toggled, this, save);
    connect(m_tasks, &QListWidget::itemChanged, this, save);
    connect(m_pooling, &QComboBox::currentIndexChanged, this, save);
    connect(m_seed, &QSpinBox::valueChanged, this, save);
    connect(m_epochs, &QSpinBox::valueChanged, this, save);
    connect(m_rank, &QSpinBox::valueChanged, this, save);
    updateHeatmap();
    updateLinkChart();
    updateExportActions();
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

void ProbingPanel::setModelPath(const QString &path)
{
    setModelPaths(path.trimmed().isEmpty() ? QStringList() : QStringList{path.trimmed()});
}

QString ProbingPanel::modelPath() const
{
    const QStringList paths = modelPaths();
    return paths.isEmpty() ? QString() : paths.front();
}

void ProbingPanel::setModelPaths(const QStringList &paths)
{
    for (const QString &p : paths)
        if (!p.trimmed().isEmpty())
            addModel(p);
    QStringList wanted;
    for (const QString &p : paths)
        wanted << normalModelPath(p);
    for (int i = 0; i < m_models->count(); ++i) {
        QListWidgetItem *item = m_models->item(i);
        const Qt::CheckState state =
            wanted.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked;
        if (item->checkState() != state)
            item->setCheckState(state);
    }
}

QStringList ProbingPanel::modelPaths() const
{
    QStringList out;
    for (int i = 0; i < m_models->count(); ++i)
        if (m_models->item(i)->checkState() == Qt::Checked)
            out << m_models->item(i)->data(Qt::UserRole).toString();
    return out;
}

QStringList ProbingPanel::listedModelPaths() const
{
    QStringList out;
    for (int i = 0; i < m_models->count(); ++i)
        out << m_models->item(i)->data(Qt::UserRole).toString();
    return out;
}

void ProbingPanel::addModel(const QString &rawPath)
{
    const QString path = normalModelPath(rawPath);
    if (path.isEmpty())
        return;
    for (int i = 0; i < m_models->count(); ++i)
        if (m_models->item(i)->data(Qt::UserRole).toString() == path) {
            m_models->item(i)->setCheckState(Qt::Checked);
            return;
        }
    // The file's name; its folder too where two listed files share a name.
    const QString name = QFileInfo(path).fileName();
    auto *item = new QListWidgetItem;
    item->setData(Qt::UserRole, path);
    item->setText(name.isEmpty() ? path : name);
    item->setToolTip(path);
    item->setFlags((item->flags() | Qt::ItemIsUserCheckable) & ~Qt::ItemIsEditable);
    item->setCheckState(Qt::Checked);
    for (int i = 0; i < m_models->count(); ++i)
        if (QFileInfo(m_models->item(i)->data(Qt::UserRole).toString()).fileName() == name) {
            QListWidgetItem *other = m_models->item(i);
            other->setText(QStringLiteral("%1 (%2)").arg(name, QFileInfo(other->data(Qt::UserRole).toString()).path()));
            item->setText(QStringLiteral("%1 (%2)").arg(name, QFileInfo(path).path()));
        }
    m_models->addItem(item);
}

void ProbingPanel::addModelsDialog()
{
    const QString start = modelPath().isEmpty() ? QString() : QFileInfo(modelPath()).absolutePath();
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Add models"), start,
                                                            tr("Models (*.safetensors);;All files (*)"));
    for (const QString &p : paths)
        addModel(p);
}

void ProbingPanel::removeSelectedModels()
{
    for (QListWidgetItem *item : m_models->selectedItems())
        delete m_models->takeItem(m_models->row(item));
    updateModelHint();
}

void ProbingPanel::updateModelHint()
{
    if (!m_modelHint)
        return;
    const int n = static_cast<int>(modelPaths().size());
    if (n == 0)
        m_modelHint->setText(tr("None checked: the shipped default model."));
    else if (n == 1)
        m_modelHint->setText(tr("1 model checked."));
    else
        m_modelHint->setText(tr("%1 models checked: they run one after another, compared in the Compare tab.").arg(n));
}

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
    c.rank = m_rank->value();
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
    // One configuration per checked model ("" = the shipped default model), named
    // by the file's base name (made unique).
    struct ModelRun {
        ProbeRunConfig config;
        QString name;   ///< for the columns, the selector and the curves
        QString prefix; ///< of its progress lines: "model 2/3: name: " ("" for one model)
    };
    auto runs = std::make_shared<std::vector<ModelRun>>();
    {
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
        for (int i = 0; i < n; ++i) {
            ModelRun r;
            r.config = cfg;
            r.config.model = paths[i].toStdString();
            r.name = names[i];
            if (n > 1)
                r.prefix = tr("model %1/%2: %3: ").arg(i + 1).arg(n).arg(names[i]);
            runs->push_back(std::move(r));
        }
    }
    // What this run reads, kept with its reports for runSentence().
    RunSource source;
    source.format = cfg.from;
    if (cfg.train.empty()) {
        source.corpus = m_corpusSource ? m_corpusSource() : nullptr;
    } else {
        for (const auto *files : {&cfg.train, &cfg.dev, &cfg.test})
            source.files.insert(source.files.end(), files->begin(), files->end());
    }
    const quint64 gen = ++m_generation;
    m_running = true;
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    m_status->setText(tr("Starting…"));
    m_curvePlot->clearGraphs();
    m_curvePlot->setProperty("colorIndex", 0);
    m_curvePlot->replot();
    m_curveKeys.clear();
    m_curvePoints = 0;
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);

    auto flag = m_cancelFlag;
    m_thread = QThread::create([this, runs, flag, gen, source] {
        // Runs on the worker: results and messages go back to the GUI thread queued,
        // and are dropped there when a newer run has started.
        auto post = [this, gen](std::function<void()> f) {
            QMetaObject::invokeMethod(
                this,
                [this, gen, f = std::move(f)] {
                    if (gen == m_generation)
                        f();
                },
                Qt::QueuedConnection);
        };
        const bool several = runs->size() > 1;
        std::vector<std::shared_ptr<ProbeRunReport>> reports;
        QStringList names;
        for (const ModelRun &run : *runs) {
            if (flag->load()) { // cancelled between two models: the series stops
                post([this] { finish(false, tr("Cancelled.")); });
                return;
            }
            ProbeRunCallbacks cb;
            const QString prefix = run.prefix;
            cb.progress = [this, post, prefix](const std::string &line) {
                const QString text = prefix + QString::fromStdString(line);
                post([this, text] {
                    m_status->setText(text);
                    Q_EMIT progressText(text);
                });
            };
            const QString curveModel = several ? run.name : QString();
            cb.curve = [this, post, curveModel](const ProbeCurvePoint &p) {
                post([this, p, curveModel] { addCurvePoint(p, curveModel); });
            };
            RunControl rc;
            rc.cancelled = [flag] { return flag->load(); };
            auto result = runProbes(run.config, cb, &rc);
            if (!result) {
                const QString message =
                    flag->load() ? tr("Cancelled.") : prefix + QString::fromStdString(result.message());
                post([this, message] { finish(false, message); });
                return;
            }
            reports.push_back(std::make_shared<ProbeRunReport>(std::move(*result)));
            names << run.name;
        }
        post([this, reports, names, source] {
            m_runSource = source;
            m_runSentences.reset();
            m_runIndex.clear();
            showReports(reports, names);
            finish(true, tr("Done."));
        });
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
    updateExportActions();
    m_status->setText(ok ? message : tr("Stopped: %1").arg(message));
    Q_EMIT finished(ok, message);
}

void ProbingPanel::addCurvePoint(const ProbeCurvePoint &p, const QString &model)
{
    // In a run of several models, the same probe of two models is two curves.
    const QString key = model.isEmpty() ? curveKey(p) : model + QStringLiteral(" · ") + curveKey(p);
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

void ProbingPanel::showReports(const std::vector<std::shared_ptr<ProbeRunReport>> &reports, const QStringList &names)
{
    m_reports = reports;
    m_reportNames = names;
    if (reports.size() == 1) {
        m_reportJson = QString::fromStdString(probeReportJson(*reports.front()));
        m_reportText = QString::fromStdString(probeReportText(*reports.front()));
    } else {
        // {"models": [report, ...]}: each report byte for byte as `probe --json` prints it.
        std::string json = "{\"models\":[";
        QString text;
        for (std::size_t i = 0; i < reports.size(); ++i) {
            json += (i ? "," : "") + probeReportJson(*reports[i]);
            text += QStringLiteral("== %1 ==\n").arg(names.value(static_cast<int>(i))) +
                    QString::fromStdString(probeReportText(*reports[i])) + QLatin1Char('\n');
        }
        m_reportJson = QString::fromStdString(json + "]}");
        m_reportText = text;
    }
    const bool several = reports.size() > 1;
    {
        const QString previous = m_modelSelect->currentText();
        QSignalBlocker block(m_modelSelect);
        m_modelSelect->clear();
        for (std::size_t i = 0; i < reports.size(); ++i) {
            m_modelSelect->addItem(names.value(static_cast<int>(i)));
            const QJsonObject model = QJsonDocument::fromJson(QByteArray::fromStdString(probeReportJson(*reports[i])))
                                          .object()
                                          .value(QStringLiteral("model"))
                                          .toObject();
            m_modelSelect->setItemData(static_cast<int>(i), model.value(QStringLiteral("path")).toString(),
                                       Qt::ToolTipRole);
        }
        const int keep = m_modelSelect->findText(previous);
        m_modelSelect->setCurrentIndex(keep >= 0 ? keep : 0);
    }
    m_modelRow->setVisible(several);
    fillCompare();
    const int compareAt = m_tabs->indexOf(m_compareTab);
    if (several && compareAt < 0) {
        const bool onCurves = m_tabs->currentWidget() == m_curvePlot;
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
    const int index = std::clamp(m_modelSelect->currentIndex(), 0, std::max(0, static_cast<int>(m_reports.size()) - 1));
    if (m_reports.empty())
        return;
    const std::shared_ptr<ProbeRunReport> report = m_reports[static_cast<std::size_t>(index)];
    m_report = report;
    const QJsonObject root = QJsonDocument::fromJson(QByteArray::fromStdString(probeReportJson(*report))).object();
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

    // Head accuracy: the report's relations ("all" first) with their arcs, and its layers.
    {
        QSignalBlocker blockRelation(m_relation), blockLayer(m_relLayer);
        const QString currentRelation = relation();
        m_relation->clear();
        if (a.headAccuracy) {
            for (const auto &rel : a.headAccuracy->relations)
                m_relation->addItem(QStringLiteral("%1 (%2)").arg(QString::fromStdString(rel.relation)).arg(rel.count),
                                    QString::fromStdString(rel.relation));
            const int r = m_relation->findData(currentRelation);
            m_relation->setCurrentIndex(r >= 0 ? r : 0);
            m_relLayer->setRange(1, std::max(1, a.headAccuracy->layers));
        }
    }
    updateHeatmap();
    updateLinkChart();
    {
        const QString currentProbe = m_structTask->currentText();
        QSignalBlocker blockProbe(m_structTask);
        m_structTask->clear();
        for (const auto &[name, view] : report->structural)
            m_structTask->addItem(QString::fromStdString(name));
        const int p = m_structTask->findText(currentProbe);
        m_structTask->setCurrentIndex(p >= 0 ? p : 0);
    }
    updateStructuralView();
    m_inductionView->setResult(report->induction
                                   ? std::shared_ptr<const ProbeRunInduction>(report, &*report->induction)
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

void ProbingPanel::fillCompare()
{
    // The rules of scripts/probing_tables.py: sentence tasks at the best layer by
    // dev (accuracy; SentLen: lowest MSE), structural probes at the lowest dev loss,
    // the attention analyses' best head; the first of equal scores wins (Python's max).
    // Numbers are formatted as it formats them.
    m_compare->clear();
    m_compare->setRowCount(0);
    const int n = static_cast<int>(m_reports.size());
    std::vector<QJsonObject> roots, tasks;
    for (const auto &r : m_reports) {
        roots.push_back(QJsonDocument::fromJson(QByteArray::fromStdString(probeReportJson(*r))).object());
        tasks.push_back(roots.back().value(QStringLiteral("tasks")).toObject());
    }
    QStringList header = {tr("task"), tr("metric")};
    for (int i = 0; i < n; ++i)
        header << m_reportNames.value(i);
    header << tr("majority baseline");
    m_compare->setColumnCount(static_cast<int>(header.size()));
    m_compare->setHorizontalHeaderLabels(header);
    for (int i = 0; i < n; ++i)
        m_compare->horizontalHeaderItem(2 + i)->setToolTip(
            roots[static_cast<std::size_t>(i)].value(QStringLiteral("model")).toObject().value(QStringLiteral("path")).toString());
    m_compare->horizontalHeaderItem(1)->setToolTip(
        tr("Sentence and structural probes: layer 0 = embeddings, k = encoder layer k. Attention: layer/head "
           "numbered from 1 as in the View dock (the JSON's + 1)."));
    const QString none = QStringLiteral("—"); // the model's run lacks it

    auto addRow = [this](const QString &task, const QString &metric, const QStringList &cells, const QString &base) {
        const int r = m_compare->rowCount();
        m_compare->insertRow(r);
        QStringList all = {task, metric};
        all << cells << base;
        for (int c = 0; c < static_cast<int>(all.size()); ++c) {
            auto *item = new QTableWidgetItem(all[c]);
            if (c >= 2) {
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                item->setToolTip(all[c]);
            }
            m_compare->setItem(r, c, item);
        }
    };
    auto num = [](const QJsonValue &v, int decimals) {
        return v.isDouble() ? pythonFixed(v.toDouble(), decimals) : QStringLiteral("n/a");
    };
    auto has = [&](const QString &task) {
        return std::any_of(tasks.begin(), tasks.end(), [&](const QJsonObject &t) { return t.contains(task); });
    };
    auto best = [](const QJsonArray &layers, const std::function<double(const QJsonObject &)> &score,
                   const QString &need = QString()) {
        QJsonObject out;
        double top = 0.0;
        bool found = false;
        for (const auto &lv : layers) {
            const QJsonObject lj = lv.toObject();
            if (!need.isEmpty() && !lj.contains(need))
                continue;
            const double s = score(lj);
            if (!found || s > top) {
                out = lj;
                top = s;
                found = true;
            }
        }
        return out;
    };
    auto dbl = [](const QJsonValue &v) {
        return v.isDouble() ? v.toDouble() : -std::numeric_limits<double>::infinity();
    };
    const QString L = QStringLiteral("layer");

    // ---- sentence probes
    for (const auto &task : probeRunSentenceTasks()) {
        const QString name = QString::fromStdString(task);
        if (!has(name))
            continue;
        const bool reg = name == QLatin1String("sentlen");
        const int dec = reg ? 3 : 1;
        const QString m = reg ? QStringLiteral("r2") : QStringLiteral("accuracy");
        auto devScore = [reg, dbl](const QString &pooling) {
            return [reg, dbl, pooling](const QJsonObject &lj) {
                const QJsonObject dev = lj.value(pooling).toObject().value(QStringLiteral("dev")).toObject();
                // A diverged probe (MSE null in the JSON) never wins.
                const QJsonValue mse = dev.value(QStringLiteral("mse"));
                return reg ? (mse.isDouble() ? -mse.toDouble() : -std::numeric_limits<double>::infinity())
                           : dbl(dev.value(QStringLiteral("accuracy")));
            };
        };
        auto cell = [&](const QJsonObject &b, const QString &pooling) {
            if (b.isEmpty())
                return none;
            return QStringLiteral("%1 (%2)")
                .arg(num(b.value(pooling).toObject().value(QStringLiteral("test")).toObject().value(m), dec))
                .arg(b.value(L).toInt());
        };
        QStringList mean, cls, sel, random;
        bool anyMean = false, anyCls = false, anySel = false, anyRandom = false;
        QString majority;
        for (const QJsonObject &ts : tasks) {
            if (!ts.contains(name)) {
                mean << none;
                cls << none;
                sel << none;
                random << none;
                continue;
            }
            const QJsonObject t = ts.value(name).toObject();
            const QJsonArray layers = t.value(QStringLiteral("layers")).toArray();
            const QJsonObject bm = best(layers, devScore(QStringLiteral("mean")), QStringLiteral("mean"));
            const QJsonObject bc = best(layers, devScore(QStringLiteral("cls")), QStringLiteral("cls"));
            anyMean = anyMean || !bm.isEmpty();
            anyCls = anyCls || !bc.isEmpty();
            mean << cell(bm, QStringLiteral("mean"));
            cls << cell(bc, QStringLiteral("cls"));
            const QJsonValue s = bm.value(QStringLiteral("mean")).toObject().value(QStringLiteral("selectivity"));
            anySel = anySel || s.isDouble();
            sel << (s.isDouble() ? num(s, dec) : none);
            const QJsonArray ri = t.value(QStringLiteral("random_init")).toObject().value(QStringLiteral("layers")).toArray();
            const QJsonObject rb = best(ri, devScore(QStringLiteral("mean")), QStringLiteral("mean"));
            anyRandom = anyRandom || !rb.isEmpty();
            random << cell(rb, QStringLiteral("mean"));
            if (majority.isNull()) { // the first model's, as probing_tables.py
                const QJsonObject b = t.value(QStringLiteral("baselines")).toObject();
                majority = reg ? QStringLiteral("R² ") + num(b.value(QStringLiteral("mean")).toObject().value(m), 3)
                               : num(b.value(QStringLiteral("majority")).toObject().value(m), 1);
            }
        }
        const QString what = reg ? tr("test R²") : tr("test accuracy %");
        if (anyMean)
            addRow(name, tr("%1, mean pooling (best layer by dev)").arg(what), mean, majority);
        if (anyCls)
            addRow(name, tr("%1, [CLS] (best layer by dev)").arg(what), cls, majority);
        if (anySel)
            addRow(name, tr("selectivity (task − control), mean pooling at that layer"), sel, QString());
        if (anyRandom)
            addRow(name, tr("%1, random-init encoder, mean pooling (layer)").arg(what), random, majority);
    }

    // ---- structural probes: the lowest dev loss
    for (const auto &[task, key, extra, label] :
         {std::make_tuple(QStringLiteral("structural-distance"), QStringLiteral("uuas"), QStringLiteral("dspr"),
                          tr("test UUAS % / DSpr")),
          std::make_tuple(QStringLiteral("structural-depth"), QStringLiteral("root_accuracy"), QStringLiteral("nspr"),
                          tr("test root accuracy % / NSpr"))}) {
        if (!has(task))
            continue;
        auto lowLoss = [](const QJsonObject &lj) {
            // A NaN/inf dev loss is null in the JSON: such a layer is never the best.
            const QJsonValue loss = lj.value(QStringLiteral("dev")).toObject().value(QStringLiteral("loss"));
            return loss.isDouble() ? -loss.toDouble() : -std::numeric_limits<double>::infinity();
        };
        auto cell = [&, key = key, extra = extra](const QJsonObject &b) {
            if (b.isEmpty())
                return none;
            const QJsonObject test = b.value(QStringLiteral("test")).toObject();
            return QStringLiteral("%1 / %2 (%3)").arg(num(test.value(key), 1), num(test.value(extra), 3)).arg(b.value(L).toInt());
        };
        QStringList model, random;
        bool anyRandom = false;
        for (const QJsonObject &ts : tasks) {
            const QJsonObject t = ts.value(task).toObject();
            model << (ts.contains(task) ? cell(best(t.value(QStringLiteral("layers")).toArray(), lowLoss)) : none);
            const QJsonArray ri = t.value(QStringLiteral("random_init")).toObject().value(QStringLiteral("layers")).toArray();
            anyRandom = anyRandom || !ri.isEmpty();
            random << cell(best(ri, lowLoss));
        }
        addRow(task, tr("%1 (best layer by dev loss)").arg(label), model, QString());
        if (anyRandom)
            addRow(task, tr("%1, random-init encoder (layer)").arg(label), random, QString());
    }

    // ---- attention: the best head (JSON 0-based, shown from 1)
    auto layerHead = [](const QJsonObject &b) {
        return QStringLiteral("(%1/%2)").arg(b.value(QStringLiteral("layer")).toInt() + 1).arg(b.value(QStringLiteral("head")).toInt() + 1);
    };
    if (has(QStringLiteral("head-accuracy"))) {
        QStringList head, offset;
        for (const QJsonObject &ts : tasks) {
            QJsonObject all;
            for (const auto &r : ts.value(QStringLiteral("head-accuracy")).toObject().value(QStringLiteral("relations")).toArray())
                if (r.toObject().value(QStringLiteral("relation")).toString() == QLatin1String("all")) {
                    all = r.toObject();
                    break;
                }
            if (all.isEmpty()) {
                head << none;
                offset << none;
                continue;
            }
            const QJsonObject bd = all.value(QStringLiteral("best_dep_to_head")).toObject();
            const QJsonObject bo = all.value(QStringLiteral("best_offset")).toObject();
            head << QStringLiteral("%1 %2").arg(num(bd.value(QStringLiteral("accuracy")), 1), layerHead(bd));
            const int k = bo.value(QStringLiteral("offset")).toInt();
            offset << QStringLiteral("%1%2: %3")
                          .arg(k >= 0 ? QStringLiteral("+") : QString())
                          .arg(k)
                          .arg(num(bo.value(QStringLiteral("accuracy")), 1));
        }
        addRow(QStringLiteral("head-accuracy"), tr("best head dependent → head, all relations: accuracy % (layer/head)"),
               head, QString());
        addRow(QStringLiteral("head-accuracy"), tr("best fixed-offset baseline (head = dependent + k): k: accuracy %"), offset,
               QString());
    }
    auto bestRow = [&](const QString &task, const QString &metric, const std::function<QString(const QJsonObject &)> &f) {
        if (!has(task))
            return;
        QStringList cells;
        for (const QJsonObject &ts : tasks)
            cells << (ts.contains(task) ? f(ts.value(task).toObject().value(QStringLiteral("best")).toObject()) : none);
        addRow(task, metric, cells, QString());
    };
    bestRow(QStringLiteral("constituent-mass"), tr("best head: mass / distance-matched baseline (layer/head)"),
            [&](const QJsonObject &b) {
                return QStringLiteral("%1 / %2 %3")
                    .arg(num(b.value(QStringLiteral("mass")), 3), num(b.value(QStringLiteral("baseline")), 3), layerHead(b));
            });
    bestRow(QStringLiteral("attention-mst"), tr("best head: UUAS % of the attention's MST (layer/head)"),
            [&](const QJsonObject &b) { return QStringLiteral("%1 %2").arg(num(b.value(QStringLiteral("uuas")), 1), layerHead(b)); });
    if (has(QStringLiteral("link-probs"))) {
        // A row per layer (numbered from 1): mean link probability (Spearman with −size).
        auto perLayer = [](const QJsonObject &ts) {
            return ts.value(QStringLiteral("link-probs")).toObject().value(QStringLiteral("per_layer")).toArray();
        };
        int layers = 0;
        for (const QJsonObject &ts : tasks)
            layers = std::max(layers, static_cast<int>(perLayer(ts).size()));
        for (int l = 0; l < layers; ++l) {
            QStringList cells;
            for (const QJsonObject &ts : tasks) {
                const QJsonArray per = perLayer(ts);
                if (l >= per.size()) {
                    cells << (ts.contains(QStringLiteral("link-probs")) ? QStringLiteral("n/a") : none);
                    continue;
                }
                const QJsonObject p = per[l].toObject();
                cells << QStringLiteral("%1 (%2)").arg(num(p.value(QStringLiteral("mean")), 2),
                                                      num(p.value(QStringLiteral("spearman")), 2));
            }
            addRow(QStringLiteral("link-probs"),
                   tr("layer %1: mean link probability (Spearman with −constituent size)").arg(l + 1), cells, QString());
        }
    }

    // ---- unsupervised parsing: "n/a" for a model that induces no trees
    if (has(QStringLiteral("unsupervised-parsing"))) {
        const std::pair<QString, QString> parsers[] = {
            {tr("model (start at the top layer)"), QStringLiteral("model")},
            {tr("right-branching"), QStringLiteral("right_branching")},
            {tr("left-branching"), QStringLiteral("left_branching")},
            {tr("random binary"), QStringLiteral("random")}};
        for (const auto &[label, key] : parsers) {
            QStringList f1, short10;
            for (const QJsonObject &ts : tasks) {
                if (!ts.contains(QStringLiteral("unsupervised-parsing"))) {
                    f1 << none;
                    short10 << none;
                    continue;
                }
                const QJsonObject t = ts.value(QStringLiteral("unsupervised-parsing")).toObject();
                const QJsonObject all = t.value(QStringLiteral("all")).toObject();
                if (!all.contains(key)) {
                    f1 << QStringLiteral("n/a");
                    short10 << QStringLiteral("n/a");
                    continue;
                }
                const QJsonObject a = all.value(key).toObject();
                f1 << QStringLiteral("%1 / %2").arg(num(a.value(QStringLiteral("sentence_f1")), 1),
                                                    num(a.value(QStringLiteral("corpus_f1")), 1));
                short10 << num(t.value(QStringLiteral("length_10")).toObject().value(key).toObject().value(QStringLiteral("sentence_f1")), 1);
            }
            addRow(QStringLiteral("unsupervised-parsing"), tr("%1: F1 sentence / corpus").arg(label), f1, QString());
            addRow(QStringLiteral("unsupervised-parsing"), tr("%1: sentence F1, ≤10 words").arg(label), short10, QString());
        }
        // The model's tree from each start layer (numbered from 1).
        int starts = 0;
        for (const QJsonObject &ts : tasks)
            starts = std::max(starts, static_cast<int>(ts.value(QStringLiteral("unsupervised-parsing")).toObject().value(QStringLiteral("by_start_layer")).toArray().size()));
        for (int k = 0; k < starts; ++k) {
            QStringList f1;
            for (const QJsonObject &ts : tasks) {
                const QJsonArray by = ts.value(QStringLiteral("unsupervised-parsing")).toObject().value(QStringLiteral("by_start_layer")).toArray();
                if (k >= by.size()) {
                    f1 << (ts.contains(QStringLiteral("unsupervised-parsing")) ? QStringLiteral("n/a") : none);
                    continue;
                }
                const QJsonObject a = by[k].toObject().value(QStringLiteral("all")).toObject();
                f1 << QStringLiteral("%1 / %2").arg(num(a.value(QStringLiteral("sentence_f1")), 1),
                                                    num(a.value(QStringLiteral("corpus_f1")), 1));
            }
            addRow(QStringLiteral("unsupervised-parsing"), tr("model starting at layer %1: F1 sentence / corpus").arg(k + 1),
                   f1, QString());
        }
    }

    // The data, as probing_tables.py states it (the first model's run).
    if (!roots.empty()) {
        const QJsonObject data = roots.front().value(QStringLiteral("data")).toObject();
        const QJsonObject sents = data.value(QStringLiteral("sentences")).toObject();
        auto count = [&](const char *k) {
            const QJsonValue v = sents.value(QLatin1String(k));
            return v.isDouble() ? QString::number(v.toInt()) : QStringLiteral("?");
        };
        m_compareData->setText(
            tr("%1 models, one column each. Data: %2 train / %3 dev / %4 test sentences (%5); trees: dependency %6, "
               "constituency %7. Sentence tasks: test metric at the best layer by dev; structural probes: lowest dev "
               "loss; attention: best head over the whole corpus.")
                .arg(n)
                .arg(count("train"), count("dev"), count("test"),
                     data.value(QStringLiteral("split")).toString(tr("files as given")),
                     data.value(QStringLiteral("dependency_trees")).toString(QStringLiteral("?")),
                     data.value(QStringLiteral("constituency_trees")).toString(QStringLiteral("?"))));
    } else {
        m_compareData->clear();
    }
    m_compare->resizeColumnsToContents();
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
    // The attention tasks' JSON counts layers and heads from 0; the table numbers
    // them as the View dock does (layer k = encoder layer k, as the probes' rows).
    auto addAttentionRow = [&](const QString &task, const QJsonObject &best, const QString &metric,
                               const QJsonValue &value, const QJsonValue &base) {
        const int layer = best.value(QStringLiteral("layer")).toInt(), head = best.value(QStringLiteral("head")).toInt();
        addRow(task, QString::number(layer + 1), tr("head %1").arg(head + 1), metric, QJsonValue(), value, QJsonValue(),
               base);
        const QString tip = tr("Layer %1, head %2 as in the View dock; in the JSON (0-based): layer %3, head %4")
                                .arg(layer + 1)
                                .arg(head + 1)
                                .arg(layer)
                                .arg(head);
        for (int c = 0; c < 3; ++c)
            m_table->item(m_table->rowCount() - 1, c)->setToolTip(tip);
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
                addAttentionRow(name, best, tr("best dep→head accuracy %"), best.value(QStringLiteral("accuracy")),
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
            addAttentionRow(name, best, metric, value, QJsonValue());
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

void ProbingPanel::setHeatmapMode(HeatmapMode mode)
{
    m_heatMode->setCurrentIndex(mode == HeatmapMode::HeadsByRelations ? 1 : 0);
}

ProbingPanel::HeatmapMode ProbingPanel::heatmapMode() const
{
    return m_heatMode->currentIndex() == 1 ? HeatmapMode::HeadsByRelations : HeatmapMode::LayersByHeads;
}

void ProbingPanel::setRelation(const QString &relation)
{
    const int i = m_relation->findData(relation);
    if (i >= 0)
        m_relation->setCurrentIndex(i);
}

QString ProbingPanel::relation() const
{
    return m_relation->currentIndex() >= 0 ? m_relation->currentData().toString() : QStringLiteral("all");
}

void ProbingPanel::setDirection(ArcDirection direction)
{
    m_direction->setCurrentIndex(direction == ArcDirection::HeadToDep ? 1 : 0);
}

ArcDirection ProbingPanel::direction() const
{
    return m_direction->currentIndex() == 1 ? ArcDirection::HeadToDep : ArcDirection::DepToHead;
}

void ProbingPanel::setRelationLayer(int layer) { m_relLayer->setValue(layer + 1); }
int ProbingPanel::relationLayer() const { return m_relLayer->value() - 1; }

QString ProbingPanel::heatmapTitle() const { return m_heatTitle->text(); }

const RelationHeadAccuracy *ProbingPanel::currentRelation() const
{
    if (!m_report || !m_report->attention.headAccuracy)
        return nullptr;
    return m_report->attention.headAccuracy->find(relation().toStdString());
}

void ProbingPanel::updateHeatmapTitle()
{
    const QString task = heatmapTask();
    QString title;
    if (task == QLatin1String("head-accuracy")) {
        const bool depToHead = direction() == ArcDirection::DepToHead;
        const QString dir = depToHead ? tr("dependent → head") : tr("head → dependent");
        if (const RelationHeadAccuracy *rel = currentRelation()) {
            const QString name = QString::fromStdString(rel->relation);
            title = heatmapMode() == HeatmapMode::HeadsByRelations
                        ? tr("Head accuracy at layer %1 (JSON layer %2), %3").arg(relationLayer() + 1).arg(relationLayer()).arg(dir)
                        : tr("Head accuracy, %1 (%2 arcs), %3").arg(name).arg(rel->count).arg(dir);
            // The fixed-offset baselines predict the head of a dependent: head = dependent + k.
            title += QLatin1Char('\n') + tr("best fixed offset for %1: head = dependent %2, %3 %")
                                             .arg(name, signedOffset(rel->bestOffset.offset))
                                             .arg(rel->bestOffset.accuracy, 0, 'f', 2);
        }
    } else if (task == QLatin1String("constituent-mass")) {
        title = tr("Attention inside the smallest constituent − distance-matched baseline");
    } else if (task == QLatin1String("attention-mst")) {
        title = tr("UUAS of the attention's maximum spanning tree");
    }
    // After a run of several models: which one (the title travels with the exports).
    if (!title.isEmpty() && m_reports.size() > 1)
        title = m_modelSelect->currentText() + QStringLiteral(": ") + title;
    m_heatTitle->setText(title);
    m_heatTitle->setVisible(!title.isEmpty());
}

void ProbingPanel::updateHeatmap()
{
    m_sentences->clear();
    m_cellLayer = m_cellHead = -1;
    const QString task = m_heatTask->currentText();
    const bool ha = m_report && m_report->attention.headAccuracy && task == QLatin1String("head-accuracy");
    m_haControls->setVisible(ha);
    const bool byRelation = ha && heatmapMode() == HeatmapMode::HeadsByRelations;
    m_relLayer->setEnabled(byRelation);
    m_relLayer->setVisible(byRelation);
    updateHeatmapTitle();

    // rows × heads values; rows are layers, or relations at one layer.
    int rows = 0, heads = 0;
    std::function<double(int, int)> value;
    QString label;
    QStringList rowLabels; // relations (heads × relations)
    if (m_report) {
        const auto &a = m_report->attention;
        if (ha) {
            const auto &rep = *a.headAccuracy;
            const bool depToHead = direction() == ArcDirection::DepToHead;
            label = depToHead ? tr("dependent → head accuracy %") : tr("head → dependent accuracy %");
            heads = rep.heads;
            if (byRelation) {
                const int layer = std::clamp(relationLayer(), 0, std::max(0, rep.layers - 1));
                rows = static_cast<int>(rep.relations.size());
                for (const auto &rel : rep.relations)
                    rowLabels << tr("%1 (%2) · %3: %4")
                                     .arg(QString::fromStdString(rel.relation))
                                     .arg(rel.count)
                                     .arg(signedOffset(rel.bestOffset.offset))
                                     .arg(rel.bestOffset.accuracy, 0, 'f', 1);
                value = [&rep, layer, depToHead](int r, int h) {
                    const auto &rel = rep.relations[static_cast<std::size_t>(r)];
                    return (depToHead ? rel.depToHead : rel.headToDep).at(layer, h);
                };
            } else if (const RelationHeadAccuracy *rel = currentRelation()) {
                rows = rep.layers;
                const LayerHeadGrid *grid = depToHead ? &rel->depToHead : &rel->headToDep;
                value = [grid](int l, int h) { return grid->at(l, h); };
            }
        } else if (task == QLatin1String("constituent-mass") && a.constituentMass) {
            const LayerHeadGrid *grid = &a.constituentMass->difference;
            rows = grid->layers;
            heads = grid->heads;
            value = [grid](int l, int h) { return grid->at(l, h); };
            label = tr("mass − baseline");
        } else if (task == QLatin1String("attention-mst") && a.attentionMst) {
            const LayerHeadGrid *grid = &a.attentionMst->uuas;
            rows = grid->layers;
            heads = grid->heads;
            value = [grid](int l, int h) { return grid->at(l, h); };
            label = tr("MST UUAS %");
        }
    }
    if (!value || rows <= 0 || heads <= 0) {
        m_heatMap->data()->clear();
        m_heatPlot->setMinimumHeight(220);
        m_heatPlot->replot();
        return;
    }
    // Cells are centred on 1-based heads and layers (the View dock's numbers) or on
    // the relation rows 0..R−1 (text ticks).
    m_heatMap->data()->setSize(heads, rows);
    const double rowBase = byRelation ? 0.0 : 1.0;
    m_heatMap->data()->setRange(QCPRange(1, heads), QCPRange(rowBase, rowBase + rows - 1));
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < heads; ++h)
            m_heatMap->data()->setCell(h, r, value(r, h));
    m_heatMap->rescaleDataRange(true);
    if (ha) // accuracies: the full percent scale, so relations and layers compare
        m_heatMap->setDataRange(QCPRange(0, 100));
    m_heatScale->axis()->setLabel(label);
    m_heatPlot->xAxis->setRange(0.5, heads + 0.5);
    m_heatPlot->yAxis->setRange(rowBase - 0.5, rowBase + rows - 0.5);
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_heatPlot->xAxis->setTicker(ticker);
    m_heatPlot->xAxis->setLabel(tr("head (JSON head + 1)"));
    if (byRelation) {
        QSharedPointer<QCPAxisTickerText> text(new QCPAxisTickerText);
        for (int r = 0; r < rows; ++r)
            text->addTick(r, rowLabels[r]);
        m_heatPlot->yAxis->setTicker(text);
        m_heatPlot->yAxis->setLabel(tr("relation (arcs) · best offset: accuracy %"));
        m_heatPlot->setMinimumHeight(std::max(220, rows * 18 + 110));
    } else {
        m_heatPlot->yAxis->setTicker(ticker);
        m_heatPlot->yAxis->setLabel(tr("layer (JSON layer + 1)"));
        m_heatPlot->setMinimumHeight(220);
    }
    m_cellLabel->setText(tr("Click a cell to list its sentences, worst first."));
    m_heatPlot->replot();
}

void ProbingPanel::updateLinkChart()
{
    m_linkPlot->clearGraphs();
    auto *title = qobject_cast<QCPTextElement *>(m_linkPlot->plotLayout()->element(0, 0));
    const LinkProbabilityReport *links =
        m_report && m_report->attention.linkProbs ? &*m_report->attention.linkProbs : nullptr;
    if (!links || links->layers <= 0 || links->perLayer.empty()) {
        if (title)
            title->setText(tr("Run the link-probs task to see this chart."));
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int k = 0; k < LinkBucketCount; ++k)
            ticker->addTick(k, QString::fromLatin1(linkBucketName(k)));
        m_linkPlot->xAxis->setTicker(ticker);
        m_linkPlot->yAxis->setRange(0, 1);
        m_linkPlot->legend->setVisible(false);
        m_linkPlot->replot();
        return;
    }
    m_linkPlot->legend->setVisible(true);
    // Every layer shares the gaps: the bucket counts go under the ticks.
    const LinkLayerStats &first = links->perLayer.front();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int k = 0; k < LinkBucketCount; ++k) {
        const long n = first.bucketCount[static_cast<std::size_t>(k)];
        ticker->addTick(k, (n == 1 ? tr("%1\n%2 gap") : tr("%1\n%2 gaps")).arg(QString::fromLatin1(linkBucketName(k))).arg(n));
    }
    m_linkPlot->xAxis->setTicker(ticker);
    const int L = links->layers;
    QCPColorGradient gradient = viridisGradient(); // color() is not const
    double lo = 1.0, hi = 0.0;
    for (int l = 0; l < L && l < static_cast<int>(links->perLayer.size()); ++l) {
        const LinkLayerStats &st = links->perLayer[static_cast<std::size_t>(l)];
        QCPGraph *g = m_linkPlot->addGraph();
        // Sequential colours (viridis without its pale yellow end): early layers dark.
        const QColor c = QColor::fromRgb(gradient.color(L > 1 ? 0.85 * l / (L - 1) : 0.0, QCPRange(0, 1)));
        g->setPen(QPen(c, 1.8));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, 6));
        g->setProperty("layer", l);
        // Empty buckets have no mean: the line joins the buckets that have gaps.
        for (int k = 0; k < LinkBucketCount; ++k)
            if (st.bucketCount[static_cast<std::size_t>(k)] > 0) {
                const double m = st.bucketMean[static_cast<std::size_t>(k)];
                g->addData(k, m);
                lo = std::min(lo, m);
                hi = std::max(hi, m);
            }
        const QString rho = std::isfinite(st.spearman) ? QString::number(st.spearman, 'f', 3) : QStringLiteral("n/a");
        g->setName(tr("layer %1 (JSON %2): mean %3, ρ = %4").arg(l + 1).arg(l).arg(st.mean, 0, 'f', 3).arg(rho));
    }
    if (title)
        title->setText((m_reports.size() > 1 ? m_modelSelect->currentText() + QStringLiteral("\n") : QString()) +
                       tr("Link probability between adjacent words by constituent size, %1 sentences\n"
                          "ρ: Spearman correlation of link probability and −size over every gap")
                           .arg(links->sentences.size()));
    m_linkPlot->xAxis->setRange(-0.4, LinkBucketCount - 0.6);
    if (hi < lo)
        m_linkPlot->yAxis->setRange(0, 1);
    else {
        const double pad = std::max(0.02, 0.08 * (hi - lo));
        m_linkPlot->yAxis->setRange(std::max(0.0, lo - pad), std::min(1.0, hi + pad));
    }
    m_linkPlot->replot();
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
    QString what; // relation and direction, for head accuracy
    if (task == "head-accuracy" && a.headAccuracy) {
        const auto &rep = *a.headAccuracy;
        const RelationHeadAccuracy *rel = currentRelation();
        if (!rel || layer < 0 || head < 0 || layer >= rep.layers || head >= rep.heads)
            return;
        const ArcDirection dir = direction();
        order = sentencesForCell(rep, layer, head, rel->relation, dir);
        // Per relation, every sentence with an arc of it has its own counts.
        auto byIndex = std::make_shared<std::map<int, const HeadAccuracySentence *>>();
        for (const auto &x : rel->sentences)
            byIndex->emplace(x.sentence, &x);
        const int cell = layer * rep.heads + head;
        score = [byIndex, cell, dir](int s) {
            const auto it = byIndex->find(s);
            if (it == byIndex->end())
                return QString();
            const auto &counts = dir == ArcDirection::DepToHead ? it->second->depToHead : it->second->headToDep;
            return QStringLiteral("%1/%2 arcs").arg(counts[static_cast<std::size_t>(cell)]).arg(it->second->total);
        };
        what = QStringLiteral(" · %1, %2")
                   .arg(QString::fromStdString(rel->relation),
                        dir == ArcDirection::DepToHead ? tr("dependent → head") : tr("head → dependent"));
    } else if (task == "constituent-mass" && a.constituentMass) {
        const auto &rep = *a.constituentMass;
        if (layer < 0 || head < 0 || layer >= rep.layers || head >= rep.heads)
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
        if (layer < 0 || head < 0 || layer >= rep.layers || head >= rep.heads)
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
    // Numbered as in the View dock (from 1); the JSON's 0-based indices alongside.
    m_cellLabel->setText(tr("Layer %1, head %2 (JSON layer %3, head %4)%5: %n sentence(s), worst first. "
                            "Double-click one to open it at this layer and head.",
                            nullptr, static_cast<int>(order.size()))
                             .arg(layer + 1)
                             .arg(head + 1)
                             .arg(layer)
                             .arg(head)
                             .arg(what));
}

void ProbingPanel::activateSentence(int row)
{
    auto *item = m_sentences->item(row);
    if (!item || m_cellLayer < 0)
        return;
    const QString id = item->data(Qt::UserRole).toString();
    Q_EMIT openSentence(id, m_cellLayer, m_cellHead, runSentence(id));
}

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

void ProbingPanel::updateExportActions()
{
    for (QAction *a : m_exportMenu->actions()) {
        const QString name = a->objectName();
        if (name == QLatin1String("exportReport")) {
            a->setEnabled(!m_reportJson.isEmpty());
            a->setText(m_reports.size() > 1 ? tr("Reports as JSON + comparison table as CSV…")
                                            : tr("Report as JSON + table as CSV…"));
        }
        else if (name == QLatin1String("exportCurves"))
            a->setEnabled(m_curvePlot->graphCount() > 0);
        else if (name == QLatin1String("exportHeatmap"))
            a->setEnabled(m_heatMap->data()->keySize() > 0 && !m_heatMap->data()->isEmpty());
        else if (name == QLatin1String("exportLinks"))
            a->setEnabled(m_linkPlot->graphCount() > 0);
        else if (name == QLatin1String("exportStructural"))
            a->setEnabled(m_report && !m_report->structural.empty());
        else if (name == QLatin1String("exportInduction"))
            a->setEnabled(m_report && m_report->induction.has_value());
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
    QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), name + QStringLiteral(".pdf"),
                                                tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png)"), &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + filter.section(QStringLiteral("*."), 1).section(QLatin1Char(')'), 0, 0);
    QString error;
    const bool ok = which == QLatin1String("structural") ? m_structuralView->exportPlots(path, &error)
                                                          : m_inductionView->exportPlots(path, &error);
    m_status->setText(ok ? tr("Wrote %1").arg(path) : error);
}

void ProbingPanel::exportPlotDialog(QCustomPlot *plot, const QString &name)
{
    QString filter;
    QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), name + QStringLiteral(".pdf"),
                                                tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png)"), &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty()) // the chosen filter's extension
        path += QLatin1Char('.') + filter.section(QStringLiteral("*."), 1).section(QLatin1Char(')'), 0, 0);
    QString error;
    if (exportPlot(plot, path, &error))
        m_status->setText(tr("Wrote %1").arg(path));
    else
        m_status->setText(error);
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
    if (plot == m_curvePlot)
        name = QStringLiteral("probing learning curves");
    else if (plot == m_heatPlot)
        name = QStringLiteral("probing %1").arg(heatmapTask());
    else if (plot == m_linkPlot)
        name = QStringLiteral("probing link probabilities");
    PlotExport view(plot, size, name);
    const Status st = exportView(view, path);
    if (!st && error)
        *error = QString::fromStdString(st.message());
    return static_cast<bool>(st);
}

void ProbingPanel::restoreSettings()
{
    m_restoring = true;
    QSettings s;
    s.beginGroup(kSettingsGroup);
    m_train->setText(s.value(QStringLiteral("train")).toString());
    m_dev->setText(s.value(QStringLiteral("dev")).toString());
    m_test->setText(s.value(QStringLiteral("test")).toString());
    if (s.contains(QStringLiteral("models"))) {
        // The list as the user left it (a removed shipped model stays removed).
        m_models->clear();
        for (const QString &p : s.value(QStringLiteral("models")).toStringList())
            addModel(p);
        setModelPaths(s.value(QStringLiteral("checkedModels")).toStringList());
    } else if (s.contains(QStringLiteral("model"))) { // settings of a version with one model
        setModelPath(s.value(QStringLiteral("model")).toString());
    }
    updateModelHint();
    m_useCorpus->setChecked(s.value(QStringLiteral("useOpenCorpus"), false).toBool());
    if (s.contains(QStringLiteral("tasks"))) // a comma list ("" = none checked)
        setTasks(s.value(QStringLiteral("tasks")).toString().split(QLatin1Char(','), Qt::SkipEmptyParts));
    m_layers->setText(s.value(QStringLiteral("layers"), QStringLiteral("all")).toString());
    const int pooling = m_pooling->findText(s.value(QStringLiteral("pooling")).toString());
    if (pooling >= 0)
        m_pooling->setCurrentIndex(pooling);
    m_control->setChecked(s.value(QStringLiteral("control"), false).toBool());
    m_randomInit->setChecked(s.value(QStringLiteral("randomInit"), false).toBool());
    m_seed->setValue(s.value(QStringLiteral("seed"), 1).toInt());
    m_epochs->setValue(s.value(QStringLiteral("epochs"), 0).toInt());
    m_rank->setValue(s.value(QStringLiteral("rank"), 0).toInt());
    s.endGroup();
    m_restoring = false;
}

void ProbingPanel::saveSettings() const
{
    QSettings s;
    s.beginGroup(kSettingsGroup);
    s.setValue(QStringLiteral("train"), m_train->text());
    s.setValue(QStringLiteral("dev"), m_dev->text());
    s.setValue(QStringLiteral("test"), m_test->text());
    s.setValue(QStringLiteral("model"), modelPath()); // read by a version with one model
    s.setValue(QStringLiteral("models"), listedModelPaths());
    s.setValue(QStringLiteral("checkedModels"), modelPaths());
    s.setValue(QStringLiteral("useOpenCorpus"), m_useCorpus->isChecked());
    s.setValue(QStringLiteral("tasks"), checkedTasks().join(QLatin1Char(',')));
    s.setValue(QStringLiteral("layers"), m_layers->text());
    s.setValue(QStringLiteral("pooling"), m_pooling->currentText());
    s.setValue(QStringLiteral("control"), m_control->isChecked());
    s.setValue(QStringLiteral("randomInit"), m_randomInit->isChecked());
    s.setValue(QStringLiteral("seed"), m_seed->value());
    s.setValue(QStringLiteral("epochs"), m_epochs->value());
    s.setValue(QStringLiteral("rank"), m_rank->value());
    s.endGroup();
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
    // After a run of several models: the Compare table.
    const QTableWidget *table = m_reports.size() > 1 ? m_compare : m_table;
    QString out;
    QStringList header;
    for (int c = 0; c < table->columnCount(); ++c)
        header << csvField(table->horizontalHeaderItem(c)->text());
    out += header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (int r = 0; r < table->rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < table->columnCount(); ++c)
            row << csvField(table->item(r, c) ? table->item(r, c)->text() : QString());
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
