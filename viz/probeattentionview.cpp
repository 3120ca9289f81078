#include "viz/probeattentionview.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMouseEvent>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "viz/plotstyle.h"
#include "viz/qcustomplot.h"
#include "viz/worddiagram.h"

namespace treelens {

namespace {

/// "+2" / "-1" for an offset.
QString signedOffset(int offset) { return offset > 0 ? QStringLiteral("+%1").arg(offset) : QString::number(offset); }

QString directionText(ArcDirection direction)
{
    return direction == ArcDirection::DepToHead ? QObject::tr("dependent → head") : QObject::tr("head → dependent");
}

} // namespace

ProbeAttentionView::ProbeAttentionView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Analysis:")));
    m_task = new QComboBox;
    top->addWidget(m_task, 1);
    layout->addLayout(top);
    // Head accuracy: relation, direction, and layers × heads or heads × relations at one layer.
    m_headControls = new QWidget;
    auto *row = new QHBoxLayout(m_headControls);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(tr("Relation:")));
    m_relation = new QComboBox;
    m_relation->setObjectName(QStringLiteral("relationCombo"));
    m_relation->setToolTip(tr("Universal dependency relation (arcs in the corpus); \"all\" pools every relation"));
    m_relation->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    row->addWidget(m_relation);
    m_direction = new QComboBox;
    m_direction->setObjectName(QStringLiteral("directionCombo"));
    m_direction->addItem(tr("dependent → head"));
    m_direction->addItem(tr("head → dependent"));
    m_direction->setToolTip(tr("dependent → head: the dependent attends most to its head; "
                               "head → dependent: the head attends most to the dependent"));
    row->addWidget(m_direction);
    m_mode = new QComboBox;
    m_mode->setObjectName(QStringLiteral("heatModeCombo"));
    m_mode->addItem(tr("layers × heads"));
    m_mode->addItem(tr("heads × relations"));
    row->addWidget(m_mode);
    m_relationLayer = new QSpinBox;
    m_relationLayer->setObjectName(QStringLiteral("relationLayerSpin"));
    m_relationLayer->setRange(1, 1);
    m_relationLayer->setPrefix(tr("at layer "));
    m_relationLayer->setToolTip(tr("Encoder layer of the heads × relations map, numbered from 1 as in the View dock "
                                   "and the JSON"));
    row->addWidget(m_relationLayer);
    row->addStretch(1);
    layout->addWidget(m_headControls);

    auto *split = new QSplitter(Qt::Horizontal);
    m_plot = new QCustomPlot;
    m_plot->setMinimumSize(260, 220);
    styleAxis(m_plot->xAxis);
    styleAxis(m_plot->yAxis);
    m_plot->xAxis->setLabel(tr("head"));
    m_plot->yAxis->setLabel(tr("layer"));
    m_plot->yAxis->setRangeReversed(true);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setGradient(viridisGradient());
    m_map->setInterpolate(false);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_map->setColorScale(m_scale);
    m_scale->setGradient(viridisGradient()); // the scale's gradient is the map's once attached
    auto *marginGroup = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup);
    styleAxis(m_scale->axis());
    // A title above the map (it travels with the exports): task, relation, baseline.
    m_title = addPlotTitle(m_plot, QString(), plotFont(kPlotTickPt));
    QScrollArea *scroll = newScrollArea(m_plot);
    scroll->setMinimumWidth(340);
    split->addWidget(scroll);
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
    split->addWidget(listBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({600, 400}); // the map first: the list's long label would claim most of it
    layout->addWidget(split, 1);

    connect(m_task, &QComboBox::currentTextChanged, this, [this] { updateMap(); });
    connect(m_relation, &QComboBox::currentIndexChanged, this, [this] { updateMap(); });
    connect(m_direction, &QComboBox::currentIndexChanged, this, [this] { updateMap(); });
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] { updateMap(); });
    connect(m_relationLayer, &QSpinBox::valueChanged, this, [this] { updateMap(); });
    connect(m_plot, &QCustomPlot::mousePress, this, &ProbeAttentionView::cellClicked);
    connect(m_sentences, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { activateSentence(m_sentences->row(item)); });
    updateMap();
}

void ProbeAttentionView::setAttention(std::shared_ptr<const ProbeRunAttention> attention, const QString &model)
{
    m_attention = std::move(attention);
    m_model = model;
    fillChoices();
    updateMap();
}

void ProbeAttentionView::fillChoices()
{
    const QString current = m_task->currentText();
    QSignalBlocker block(m_task);
    m_task->clear();
    if (m_attention && m_attention->headAccuracy)
        m_task->addItem(QStringLiteral("head-accuracy"));
    if (m_attention && m_attention->constituentMass)
        m_task->addItem(QStringLiteral("constituent-mass"));
    if (m_attention && m_attention->attentionMst)
        m_task->addItem(QStringLiteral("attention-mst"));
    const int idx = m_task->findText(current);
    m_task->setCurrentIndex(idx >= 0 ? idx : 0);

    // Head accuracy: the report's relations ("all" first) with their arcs, and its layers.
    QSignalBlocker blockRelation(m_relation), blockLayer(m_relationLayer);
    const QString currentRelation = relation();
    m_relation->clear();
    if (m_attention && m_attention->headAccuracy) {
        for (const auto &rel : m_attention->headAccuracy->relations)
            m_relation->addItem(QStringLiteral("%1 (%2)").arg(QString::fromStdString(rel.relation)).arg(rel.count),
                                QString::fromStdString(rel.relation));
        const int r = m_relation->findData(currentRelation);
        m_relation->setCurrentIndex(r >= 0 ? r : 0);
        m_relationLayer->setRange(1, std::max(1, m_attention->headAccuracy->layers));
    }
}

QString ProbeAttentionView::task() const { return m_task->currentText(); }

void ProbeAttentionView::setTask(const QString &task)
{
    const int i = m_task->findText(task);
    if (i >= 0)
        m_task->setCurrentIndex(i);
}

void ProbeAttentionView::setMode(Mode mode) { m_mode->setCurrentIndex(mode == Mode::HeadsByRelations ? 1 : 0); }

ProbeAttentionView::Mode ProbeAttentionView::mode() const
{
    return m_mode->currentIndex() == 1 ? Mode::HeadsByRelations : Mode::LayersByHeads;
}

void ProbeAttentionView::setRelation(const QString &relation)
{
    const int i = m_relation->findData(relation);
    if (i >= 0)
        m_relation->setCurrentIndex(i);
}

QString ProbeAttentionView::relation() const
{
    return m_relation->currentIndex() >= 0 ? m_relation->currentData().toString() : QStringLiteral("all");
}

void ProbeAttentionView::setDirection(ArcDirection direction)
{
    m_direction->setCurrentIndex(direction == ArcDirection::HeadToDep ? 1 : 0);
}

ArcDirection ProbeAttentionView::direction() const
{
    return m_direction->currentIndex() == 1 ? ArcDirection::HeadToDep : ArcDirection::DepToHead;
}

void ProbeAttentionView::setRelationLayer(int layer) { m_relationLayer->setValue(layer + 1); }
int ProbeAttentionView::relationLayer() const { return m_relationLayer->value() - 1; }

QString ProbeAttentionView::title() const { return m_title->text(); }

bool ProbeAttentionView::hasCells() const { return m_map->data()->keySize() > 0 && !m_map->data()->isEmpty(); }

const RelationHeadAccuracy *ProbeAttentionView::currentRelation() const
{
    if (!m_attention || !m_attention->headAccuracy)
        return nullptr;
    return m_attention->headAccuracy->find(relation().toStdString());
}

void ProbeAttentionView::updateTitle()
{
    const QString task = this->task();
    QString title;
    if (task == QLatin1String("head-accuracy")) {
        const QString dir = directionText(direction());
        if (const RelationHeadAccuracy *rel = currentRelation()) {
            const QString name = QString::fromStdString(rel->relation);
            title = mode() == Mode::HeadsByRelations
                        ? tr("Head accuracy at layer %1, %2").arg(relationLayer() + 1).arg(dir)
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
    if (!title.isEmpty() && !m_model.isEmpty())
        title = m_model + QStringLiteral(": ") + title;
    m_title->setText(title);
    m_title->setVisible(!title.isEmpty());
}

void ProbeAttentionView::updateMap()
{
    m_sentences->clear();
    m_cellLayer = m_cellHead = -1;
    const QString task = this->task();
    const bool ha = m_attention && m_attention->headAccuracy && task == QLatin1String("head-accuracy");
    m_headControls->setVisible(ha);
    const bool byRelation = ha && mode() == Mode::HeadsByRelations;
    m_relationLayer->setEnabled(byRelation);
    m_relationLayer->setVisible(byRelation);
    updateTitle();

    // rows × heads values; rows are layers, or relations at one layer.
    int rows = 0, heads = 0;
    std::function<double(int, int)> value;
    QString label;
    QStringList rowLabels; // relations (heads × relations)
    if (ha) {
        const auto &rep = *m_attention->headAccuracy;
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
    } else if (m_attention) {
        const LayerHeadGrid *grid = nullptr;
        if (task == QLatin1String("constituent-mass") && m_attention->constituentMass) {
            grid = &m_attention->constituentMass->difference;
            label = tr("mass − baseline");
        } else if (task == QLatin1String("attention-mst") && m_attention->attentionMst) {
            grid = &m_attention->attentionMst->uuas;
            label = tr("MST UUAS %");
        }
        if (grid) {
            rows = grid->layers;
            heads = grid->heads;
            value = [grid](int l, int h) { return grid->at(l, h); };
        }
    }
    for (QCPItemText *t : m_cellTexts)
        m_plot->removeItem(t);
    m_cellTexts.clear();
    if (!value || rows <= 0 || heads <= 0) {
        m_map->data()->clear();
        m_plot->setMinimumHeight(220);
        m_plot->replot();
        return;
    }
    // Cells are centred on 1-based heads and layers (the View dock's numbers) or on
    // the relation rows 0..R−1 (text ticks).
    m_map->data()->setSize(heads, rows);
    const double rowBase = byRelation ? 0.0 : 1.0;
    m_map->data()->setRange(QCPRange(1, heads), QCPRange(rowBase, rowBase + rows - 1));
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < heads; ++h)
            m_map->data()->setCell(h, r, value(r, h));
    m_map->rescaleDataRange(true);
    if (ha) // accuracies: the full percent scale, so relations and layers compare
        m_map->setDataRange(QCPRange(0, 100));
    // Each cell's number on it (percent with one decimal, the mass difference with three),
    // dark on the bright end of the scale; not on grids too dense to read.
    if (rows * heads <= 400) {
        const QCPRange range = m_map->dataRange();
        const QFont cellFont = plotFont(rows * heads > 144 ? kPlotTickPt - 1.5 : kPlotTickPt);
        for (int r = 0; r < rows; ++r)
            for (int h = 0; h < heads; ++h) {
                const double v = value(r, h);
                if (!std::isfinite(v))
                    continue;
                auto *t = new QCPItemText(m_plot);
                t->position->setCoords(h + 1, rowBase + r);
                t->setText(ha || task == QLatin1String("attention-mst") ? QString::number(v, 'f', 1)
                                                                        : QString::number(v, 'f', 3));
                t->setFont(cellFont);
                t->setTextAlignment(Qt::AlignCenter);
                // Dark text on a light cell, light on a dark one (the cell's own colour decides).
                const QColor cell = QColor::fromRgb(m_map->gradient().color(v, range));
                t->setColor(cell.lightnessF() > 0.55 ? QColor(20, 20, 20) : QColor(250, 250, 250));
                t->setSelectable(false);
                m_cellTexts.push_back(t);
            }
    }
    m_scale->axis()->setLabel(label);
    m_plot->xAxis->setRange(0.5, heads + 0.5);
    m_plot->yAxis->setRange(rowBase - 0.5, rowBase + rows - 0.5);
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setLabel(tr("head"));
    if (byRelation) {
        QSharedPointer<QCPAxisTickerText> text(new QCPAxisTickerText);
        for (int r = 0; r < rows; ++r)
            text->addTick(r, rowLabels[r]);
        m_plot->yAxis->setTicker(text);
        m_plot->yAxis->setLabel(tr("relation (arcs) · best offset: accuracy %"));
        m_plot->setMinimumHeight(std::max(220, rows * 18 + 110));
    } else {
        m_plot->yAxis->setTicker(ticker);
        m_plot->yAxis->setLabel(tr("layer"));
        m_plot->setMinimumHeight(220);
    }
    m_cellLabel->setText(tr("Click a cell to list its sentences, worst first."));
    m_plot->replot();
}

void ProbeAttentionView::cellClicked(QMouseEvent *event)
{
    if (m_map->data()->keySize() == 0)
        return;
    int head = -1, row = -1;
    m_map->data()->coordToCell(m_plot->xAxis->pixelToCoord(event->pos().x()), m_plot->yAxis->pixelToCoord(event->pos().y()),
                               &head, &row);
    if (head < 0 || row < 0 || head >= m_map->data()->keySize() || row >= m_map->data()->valueSize())
        return;
    if (task() == QLatin1String("head-accuracy") && mode() == Mode::HeadsByRelations) {
        // Row = relation: make it current (the map stays), then list the cell.
        {
            QSignalBlocker block(m_relation);
            m_relation->setCurrentIndex(row);
        }
        updateTitle();
        selectCell(relationLayer(), head);
    } else {
        selectCell(row, head);
    }
}

void ProbeAttentionView::selectCell(int layer, int head)
{
    m_sentences->clear();
    if (!m_attention)
        return;
    const ProbeRunAttention &a = *m_attention;
    const std::string task = this->task().toStdString();
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
        what = QStringLiteral(" · %1, %2").arg(QString::fromStdString(rel->relation), directionText(dir));
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
    // Numbered as in the View dock and the JSON, from 1.
    m_cellLabel->setText(tr("Layer %1, head %2%3: %n sentence(s), worst first. "
                            "Double-click one to open it at this layer and head.",
                            nullptr, static_cast<int>(order.size()))
                             .arg(layer + 1)
                             .arg(head + 1)
                             .arg(what));
}

void ProbeAttentionView::activateSentence(int row)
{
    auto *item = m_sentences->item(row);
    if (!item || m_cellLayer < 0)
        return;
    Q_EMIT sentenceActivated(item->data(Qt::UserRole).toString(), m_cellLayer, m_cellHead);
}

QStringList ProbeAttentionView::cellTexts() const
{
    QStringList out;
    for (const QCPItemText *t : m_cellTexts)
        out << t->text();
    return out;
}

} // namespace treelens
