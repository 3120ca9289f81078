#include "ui/probingresults.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <QCoreApplication>
#include <QHeaderView>
#include <QTableWidget>

#include "core/base/numbering.h"
#include "core/probing/probecompare.h"
#include "core/probing/proberunconfig.h"

namespace treelens {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("ProbingPanel", text); }

const QString kNone = QString::fromUtf8(kCompareMissing); // the model's run lacks it

QString qs(const std::string &s) { return QString::fromStdString(s); }

// ---------------------------------------------------------------------------
// Results

/// A number of the report as its JSON writes it; "" for none (NaN, JSON null).
QString number(double v) { return std::isnan(v) ? QString() : QString::number(v, 'g', 10); }

void addResultRow(QTableWidget *table, const QStringList &cells)
{
    const int r = table->rowCount();
    table->insertRow(r);
    for (int c = 0; c < cells.size(); ++c) {
        auto *item = new QTableWidgetItem(cells[c]);
        if (c >= 4)
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table->setItem(r, c, item);
    }
}

void sentenceRows(QTableWidget *table, const SentenceProbeTask &t, const std::vector<SentenceProbeLayer> &layers,
                  const QString &label)
{
    const bool reg = t.regression;
    auto metric = [reg](const ProbeMetrics &m) { return reg ? reportRounded(m.r2, 4) : reportPercent(m.accuracy); };
    const double base = reg ? reportRounded(t.baseline.meanR2, 4) : reportPercent(t.baseline.majorityAccuracy);
    for (const SentenceProbeLayer &layer : layers)
        for (const char *pooling : {"cls", "mean"}) {
            const SentenceProbeCell *cell = layer.find(pooling);
            if (!cell)
                continue;
            const double sel = !cell->control ? kNoValue : reg ? reportRounded(cell->selectivity, 4)
                                                               : reportRounded(cell->selectivity, 2);
            addResultRow(table, {label, qs(probedLayerName(layer.layer)), QString::fromLatin1(pooling),
                                 reg ? tr("R²") : tr("accuracy %"), number(metric(cell->result.dev)),
                                 number(metric(cell->result.test)), number(sel), number(base)});
        }
}

void structuralRows(QTableWidget *table, const StructuralProbeTask &t, const std::vector<StructuralProbeLayer> &layers,
                    const QString &label)
{
    const bool dist = t.kind == StructuralProbeKind::Distance;
    for (const StructuralProbeLayer &layer : layers) {
        const StructuralProbeResult &r = layer.result;
        addResultRow(table, {label, qs(probedLayerName(layer.layer)), QString(), dist ? tr("UUAS %") : tr("root accuracy %"),
                             number(reportPercent(dist ? r.dev.uuas : r.dev.rootAccuracy)),
                             number(reportPercent(dist ? r.test.uuas : r.test.rootAccuracy)), QString(), QString()});
    }
}

/// An attention task's best head, numbered from 1 (as the View dock and the JSON).
void attentionRow(QTableWidget *table, const QString &task, const BestCell &best, const QString &metric, double value,
                  double base)
{
    addResultRow(table, {task, QString::number(best.layer + 1), tr("head %1").arg(best.head + 1), metric, QString(),
                         number(value), QString(), number(base)});
    const QString tip = tr("Layer %1, head %2, numbered from 1 as in the View dock and the JSON")
                            .arg(best.layer + 1)
                            .arg(best.head + 1);
    for (int c = 0; c < 3; ++c)
        table->item(table->rowCount() - 1, c)->setToolTip(tip);
}

void attentionRows(QTableWidget *table, const ProbeRunReport &r, const std::string &name)
{
    const ProbeRunAttention &a = r.attention;
    const auto summary = a.summaries.find(name);
    if (summary == a.summaries.end())
        return;
    const BestCell &best = summary->second.best;
    if (name == "head-accuracy" && a.headAccuracy && !a.headAccuracy->relations.empty()) {
        const RelationHeadAccuracy &all = a.headAccuracy->relations.front();
        attentionRow(table, qs(name), all.bestDepToHead, tr("best dep→head accuracy %"),
                     reportRounded(all.bestDepToHead.accuracy, 2), reportRounded(all.bestOffset.accuracy, 2));
    } else if (name == "constituent-mass" && a.constituentMass && best.layer >= 0) {
        // The report's "best" entry: its first number by name after layer and head.
        const double baseline = reportRounded(a.constituentMass->baseline.at(best.layer, best.head), 4);
        const double difference = reportRounded(best.accuracy, 4);
        const double mass = reportRounded(a.constituentMass->mass.at(best.layer, best.head), 4);
        const std::pair<const char *, double> entries[] = {{"baseline", baseline}, {"difference", difference}, {"mass", mass}};
        for (const auto &[key, v] : entries)
            if (!std::isnan(v)) {
                attentionRow(table, qs(name), best, QStringLiteral("best ") + QString::fromLatin1(key), v, kNoValue);
                return;
            }
        attentionRow(table, qs(name), best, QString(), kNoValue, kNoValue);
    } else if (name == "attention-mst" && a.attentionMst) {
        const double uuas = reportRounded(best.accuracy, 2);
        attentionRow(table, qs(name), best, std::isnan(uuas) ? QString() : QStringLiteral("best uuas"), uuas, kNoValue);
    }
}

// ---------------------------------------------------------------------------
// Compare

/// The Compare table under construction.
struct Compare {
    QTableWidget *table;
    const std::vector<std::shared_ptr<const ProbeRunReport>> &reports;

    void row(const QString &task, const QString &metric, const QStringList &cells, const QString &base) const
    {
        const int r = table->rowCount();
        table->insertRow(r);
        QStringList all = {task, metric};
        all << cells << base;
        for (int c = 0; c < static_cast<int>(all.size()); ++c) {
            auto *item = new QTableWidgetItem(all[c]);
            if (c >= 2) {
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                item->setToolTip(all[c]);
            }
            table->setItem(r, c, item);
        }
    }
    bool has(const std::string &task) const
    {
        return std::any_of(reports.begin(), reports.end(), [&](const auto &r) { return r->hasTask(task); });
    }
    /// A cell per report: `cell(report)` where the report has `task`, else "—".
    QStringList cells(const std::string &task, const std::function<QString(const ProbeRunReport &)> &cell) const
    {
        QStringList out;
        for (const auto &r : reports)
            out << (r->hasTask(task) ? cell(*r) : kNone);
        return out;
    }
};

bool anyShown(const QStringList &cells)
{
    return std::any_of(cells.begin(), cells.end(), [](const QString &c) { return c != kNone; });
}

void compareSentenceTasks(const Compare &c)
{
    for (const auto &task : probeRunSentenceTasks()) {
        if (!c.has(task))
            continue;
        const QString name = qs(task);
        std::vector<SentenceProbeCells> cells;
        QString majority;
        for (const auto &r : c.reports) {
            const SentenceProbeTask *t = r->sentenceTask(task);
            cells.push_back(t ? sentenceProbeCells(*t) : SentenceProbeCells{kCompareMissing, kCompareMissing,
                                                                             kCompareMissing, kCompareMissing});
            if (t && majority.isNull()) // the first model's, as probe-tables
                majority = qs(majorityBaselineCell(*t));
        }
        auto column = [&](std::string SentenceProbeCells::*field) {
            QStringList out;
            for (const auto &cell : cells)
                out << qs(cell.*field);
            return out;
        };
        const QString what = task == "sentlen" ? tr("test R²") : tr("test accuracy %");
        const QStringList mean = column(&SentenceProbeCells::mean), cls = column(&SentenceProbeCells::cls),
                          sel = column(&SentenceProbeCells::selectivity), random = column(&SentenceProbeCells::randomInit);
        if (anyShown(mean))
            c.row(name, tr("%1, mean pooling (best layer by dev)").arg(what), mean, majority);
        if (anyShown(cls))
            c.row(name, tr("%1, [CLS] (best layer by dev)").arg(what), cls, majority);
        if (anyShown(sel))
            c.row(name, tr("selectivity (task − control), mean pooling at that layer"), sel, QString());
        if (anyShown(random))
            c.row(name, tr("%1, random-init encoder, mean pooling (layer)").arg(what), random, majority);
    }
}

void compareStructuralTasks(const Compare &c)
{
    for (const auto &task : probeRunStructuralTasks()) {
        if (!c.has(task))
            continue;
        const QString label = task == "structural-distance" ? tr("test UUAS % / DSpr") : tr("test root accuracy % / NSpr");
        QStringList model, random;
        bool anyRandom = false;
        for (const auto &r : c.reports) {
            const StructuralProbeTask *t = r->structuralTask(task);
            const StructuralProbeCells cells = t ? structuralProbeCells(*t) : StructuralProbeCells{kCompareMissing, kCompareMissing};
            model << qs(cells.model);
            random << qs(cells.randomInit);
            anyRandom = anyRandom || (t && t->randomInit && !t->randomInitLayers.empty());
        }
        c.row(qs(task), tr("%1 (best layer by dev loss)").arg(label), model, QString());
        if (anyRandom)
            c.row(qs(task), tr("%1, random-init encoder (layer)").arg(label), random, QString());
    }
}

void compareAttentionTasks(const Compare &c)
{
    if (c.has("head-accuracy")) {
        QStringList head, offset;
        for (const auto &r : c.reports) {
            const auto cells = r->attention.headAccuracy ? headAccuracyCells(*r->attention.headAccuracy) : std::nullopt;
            head << (cells ? qs(cells->first) : kNone);
            offset << (cells ? qs(cells->second) : kNone);
        }
        c.row(QStringLiteral("head-accuracy"), tr("best head dependent → head, all relations: accuracy % (layer/head)"),
              head, QString());
        c.row(QStringLiteral("head-accuracy"), tr("best fixed-offset baseline (head = dependent + k): k: accuracy %"),
              offset, QString());
    }
    if (c.has("constituent-mass"))
        c.row(QStringLiteral("constituent-mass"), tr("best head: mass / distance-matched baseline (layer/head)"),
              c.cells("constituent-mass",
                      [](const ProbeRunReport &r) {
                          return qs(constituentMassCell(*r.attention.constituentMass,
                                                        r.attention.summaries.at("constituent-mass")));
                      }),
              QString());
    if (c.has("attention-mst"))
        c.row(QStringLiteral("attention-mst"), tr("best head: UUAS % of the attention's MST (layer/head)"),
              c.cells("attention-mst",
                      [](const ProbeRunReport &r) { return qs(attentionMstCell(r.attention.summaries.at("attention-mst"))); }),
              QString());
    if (!c.has("link-probs"))
        return;
    // A row per layer (numbered from 1): mean link probability (Spearman with −size).
    std::size_t layers = 0;
    for (const auto &r : c.reports)
        if (r->attention.linkProbs)
            layers = std::max(layers, r->attention.linkProbs->perLayer.size());
    for (std::size_t l = 0; l < layers; ++l)
        c.row(QStringLiteral("link-probs"), tr("layer %1: mean link probability (Spearman with −constituent size)").arg(l + 1),
              c.cells("link-probs",
                      [l](const ProbeRunReport &r) {
                          const auto cells = linkProbabilityCells(*r.attention.linkProbs);
                          return l < cells.size() ? qs(cells[l]) : QStringLiteral("n/a");
                      }),
              QString());
}

void compareInduction(const Compare &c)
{
    if (!c.has("unsupervised-parsing"))
        return;
    const std::pair<QString, const char *> parsers[] = {{tr("model (start at the top layer)"), "model"},
                                                        {tr("right-branching"), "right_branching"},
                                                        {tr("left-branching"), "left_branching"},
                                                        {tr("random binary"), "random"}};
    for (const auto &[label, parser] : parsers) {
        QStringList f1, short10;
        for (const auto &r : c.reports) {
            if (!r->induction) {
                f1 << kNone;
                short10 << kNone;
                continue;
            }
            const auto cells = inductionCells(*r->induction, parser);
            f1 << (cells ? qs(cells->f1) : QStringLiteral("n/a"));
            short10 << (cells ? qs(cells->short10) : QStringLiteral("n/a"));
        }
        c.row(QStringLiteral("unsupervised-parsing"), tr("%1: F1 sentence / corpus").arg(label), f1, QString());
        c.row(QStringLiteral("unsupervised-parsing"), tr("%1: sentence F1, ≤10 words").arg(label), short10, QString());
    }
    // The model's tree from each start layer (numbered from 1).
    std::size_t starts = 0;
    for (const auto &r : c.reports)
        if (r->induction)
            starts = std::max(starts, inductionStartLayerCells(*r->induction).size());
    for (std::size_t k = 0; k < starts; ++k)
        c.row(QStringLiteral("unsupervised-parsing"), tr("model starting at layer %1: F1 sentence / corpus").arg(k + 1),
              c.cells("unsupervised-parsing",
                      [k](const ProbeRunReport &r) {
                          const auto cells = inductionStartLayerCells(*r.induction);
                          return k < cells.size() ? qs(cells[k].f1) : QStringLiteral("n/a");
                      }),
              QString());
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

void setUpProbeResultsTable(QTableWidget *table)
{
    table->setColumnCount(8);
    table->setHorizontalHeaderLabels(
        {tr("task"), tr("layer"), tr("pooling"), tr("metric"), tr("dev"), tr("test"), tr("selectivity"), tr("baseline")});
    table->horizontalHeaderItem(1)->setToolTip(
        tr("Numbered as in the View dock and the JSON: embeddings, then k = encoder layer k, from 1 (heads from 1 "
           "too)."));
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
}

void fillProbeResultsTable(QTableWidget *table, const ProbeRunReport &report)
{
    table->setRowCount(0);
    for (const auto *list : {&probeRunSentenceTasks(), &probeRunStructuralTasks(), &probeRunAttentionTasks()})
        for (const auto &name : *list) {
            if (const SentenceProbeTask *t = report.sentenceTask(name)) {
                sentenceRows(table, *t, t->layers, qs(name));
                if (t->randomInit)
                    sentenceRows(table, *t, t->randomInitLayers, qs(name) + QStringLiteral(" [random-init]"));
            } else if (const StructuralProbeTask *st = report.structuralTask(name)) {
                structuralRows(table, *st, st->layers, qs(name));
                if (st->randomInit)
                    structuralRows(table, *st, st->randomInitLayers, qs(name) + QStringLiteral(" [random-init]"));
            } else {
                attentionRows(table, report, name);
            }
        }
}

QString fillProbeCompareTable(QTableWidget *table, const std::vector<std::shared_ptr<const ProbeRunReport>> &reports,
                              const QStringList &names)
{
    table->clear();
    table->setRowCount(0);
    QStringList header = {tr("task"), tr("metric")};
    for (int i = 0; i < static_cast<int>(reports.size()); ++i)
        header << names.value(i);
    header << tr("majority baseline");
    table->setColumnCount(static_cast<int>(header.size()));
    table->setHorizontalHeaderLabels(header);
    for (int i = 0; i < static_cast<int>(reports.size()); ++i)
        table->horizontalHeaderItem(2 + i)->setToolTip(qs(reports[static_cast<std::size_t>(i)]->model.path));
    table->horizontalHeaderItem(1)->setToolTip(
        tr("Layers numbered as in the View dock and the JSON: embeddings, then k = encoder layer k, from 1; "
           "attention: layer/head from 1."));
    const Compare compare{table, reports};
    compareSentenceTasks(compare);
    compareStructuralTasks(compare);
    compareAttentionTasks(compare);
    compareInduction(compare);
    table->resizeColumnsToContents();
    if (reports.empty())
        return QString();
    // The data, as probe-tables states it (the first model's run).
    const ProbeRunData &d = reports.front()->data;
    return tr("%1 models, one column each. Data: %2 train / %3 dev / %4 test sentences (%5); trees: dependency %6, "
              "constituency %7. Sentence tasks: test metric at the best layer by dev; structural probes: lowest dev "
              "loss; attention: best head over the whole corpus.")
        .arg(reports.size())
        .arg(QString::number(d.train), QString::number(d.dev), QString::number(d.test), qs(d.split),
             qs(d.dependencyTrees), qs(d.constituencyTrees));
}

QString probeTableCsv(const QTableWidget *table)
{
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
    return out;
}

} // namespace treelens
