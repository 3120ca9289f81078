// The Minimal pairs dock's list, pair view and head sweep (minimalpairspanel.h).
#include <algorithm>
#include <cmath>

#include <QFileDialog>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>

#include "core/encoders/common/encodercache.h"
#include "ui/ablationcontrol.h"
#include "ui/minimalpairspanel.h"
#include "ui/session/jobrunner.h"
#include "viz/minimalpairview.h"
#include "viz/sweepheatmap.h"
#include "viz/viewexport.h"

namespace treelens {

namespace {

const QString kSweepGroup = QStringLiteral("ablation-sweep");

std::string phenomenonKey(const MinimalPair &p) { return p.phenomenon.empty() ? "(none)" : p.phenomenon; }

/// The sweep's work: the baseline with the heads switched off now, then every cell on top of them.
Result<SweepFigure> sweepAll(EncoderCache &encoders, const std::string &model, const std::vector<MinimalPair> &pairs,
                             const QString &source, const std::vector<HeadAblation> &base, const RunControl &control)
{
    auto enc = encoders.get(model);
    if (!enc)
        return enc.error();
    const EncoderInfo &info = (*enc)->info();
    const std::string name = pairModelName(info, model);
    if (auto st = languageModelOnly(info, name); !st)
        return st.error();
    if (info.layers <= 0 || info.heads <= 0)
        return Error{name + " has no attention heads to switch off"};
    AnalyzeOptions options;
    options.attention = false;
    options.ablate = base;
    const std::size_t cells = static_cast<std::size_t>(info.layers) * static_cast<std::size_t>(info.heads + 1);
    control.report(0, cells + 1, "Sweeping heads: the baseline");
    auto baseline = pairOutcomes(**enc, pairs, options, source.toStdString(), name, &control);
    if (!baseline)
        return baseline.error();
    SweepFigure figure;
    figure.model = QString::fromStdString(name);
    figure.pairs = source;
    figure.layers = info.layers;
    figure.heads = info.heads;
    for (const HeadAblation &a : base)
        figure.ablated.emplace_back(a.layer, a.head);
    int hits = 0;
    for (int c : baseline->correct)
        if (c >= 0) {
            hits += c;
            ++figure.baselinePairs;
        }
    figure.baseline = figure.baselinePairs ? static_cast<double>(hits) / figure.baselinePairs : 0.0;
    std::size_t done = 1;
    for (int l = 0; l < info.layers; ++l)
        for (int h = 0; h <= info.heads; ++h) {
            if (control.isCancelled())
                return Error{"cancelled"};
            const HeadAblation cell{l, h < info.heads ? h : -1};
            const bool offAlready = std::any_of(base.begin(), base.end(), [&](const HeadAblation &b) {
                return b.layer == l && (b.head < 0 || b.head == cell.head);
            });
            if (offAlready) { // in the baseline already: no cell (the heatmap hatches it)
                control.report(++done, cells + 1, "Sweeping heads");
                continue;
            }
            options.ablate = base;
            options.ablate.push_back(cell);
            auto ablated = pairOutcomes(**enc, pairs, options, source.toStdString(), name, &control);
            if (!ablated)
                return ablated.error();
            figure.cells.push_back(sweepCell(cell.layer, cell.head, *baseline, *ablated));
            control.report(++done, cells + 1, "Sweeping heads");
        }
    if (figure.cells.empty())
        return Error{"every head of " + name + " is switched off already: nothing to sweep"};
    return figure;
}

} // namespace

void MinimalPairsPanel::fillPairTable()
{
    m_shown.clear();
    for (std::size_t i = 0; i < m_set.pairs.size(); ++i) {
        if (m_flipped && std::find(m_flipped->begin(), m_flipped->end(), i) == m_flipped->end())
            continue;
        if (!m_filter.isEmpty() && phenomenonKey(m_set.pairs[i]) != m_filter.toStdString())
            continue;
        m_shown.push_back(i);
    }
    const QSignalBlocker block(m_pairs);
    m_pairs->setRowCount(static_cast<int>(m_shown.size()));
    for (int r = 0; r < static_cast<int>(m_shown.size()); ++r) {
        const std::size_t i = m_shown[static_cast<std::size_t>(r)];
        const MinimalPair &p = m_set.pairs[i];
        m_pairs->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(p.id)));
        m_pairs->setItem(r, 1, new QTableWidgetItem(QString::fromStdString(p.phenomenon)));
        m_pairs->setItem(r, 2, new QTableWidgetItem(QString::fromStdString(p.good)));
        m_pairs->setItem(r, 3, new QTableWidgetItem(QString::fromStdString(p.bad)));
        QString margin, mark;
        if (m_scoring && i < m_scoring->rows.size()) {
            const PairScoring::Row &row = m_scoring->rows[i];
            if (row.skipped.empty()) {
                margin = QString::number(row.goodLogprob - row.badLogprob, 'f', 2);
                mark = row.goodLogprob > row.badLogprob ? QStringLiteral("\u2713") : QStringLiteral("\u2717");
            } else {
                mark = tr("not read");
            }
        }
        m_pairs->setItem(r, 4, new QTableWidgetItem(margin));
        auto *markItem = new QTableWidgetItem(mark);
        markItem->setForeground(mark == QStringLiteral("\u2717") ? QColor(0xb0, 0x10, 0x10) : QColor(0x10, 0x70, 0x10));
        m_pairs->setItem(r, 5, markItem);
    }
    m_pairs->resizeColumnToContents(0);
    m_pairs->resizeColumnToContents(1);
    m_pairs->resizeColumnToContents(4);
    m_pairs->resizeColumnToContents(5);
    m_showAll->setEnabled(m_flipped.has_value() || !m_filter.isEmpty());
    m_listNote->setText(listNote());
}

QString MinimalPairsPanel::listNote() const
{
    if (m_flipped)
        return tr("The %1 pairs that switching off %2 flips (their marks: as scored now, without the sweep's head off)")
            .arg(m_shown.size())
            .arg(m_flippedBy);
    if (!m_filter.isEmpty())
        return tr("The %1 pairs of %2").arg(m_shown.size()).arg(m_filter);
    return tr("All %1 pairs").arg(m_shown.size());
}

void MinimalPairsPanel::selectPair(int index)
{
    if (index < 0 || index >= static_cast<int>(m_set.pairs.size()))
        return;
    const std::size_t i = static_cast<std::size_t>(index);
    m_current = index;
    const MinimalPair &p = m_set.pairs[i];
    PairDrawing d;
    d.id = QString::fromStdString(p.id);
    d.phenomenon = QString::fromStdString(p.phenomenon);
    d.goodWords = pairWords(p.good);
    d.badWords = pairWords(p.bad);
    d.diverge = firstDifference(d.goodWords, d.badWords).value_or(-1);
    if (i < m_set.trees.size() && m_set.trees[i] && m_set.trees[i]->size() == d.goodWords.size()) {
        d.tree = m_set.trees[i];
        d.treeSource = tr("the treebank's");
    }
    if (m_scoring && i < m_scoring->rows.size()) {
        const PairScoring::Row &row = m_scoring->rows[i];
        d.goodSurprisal = row.goodSurprisal;
        d.badSurprisal = row.badSurprisal;
        d.goodLogprob = row.goodLogprob;
        d.badLogprob = row.badLogprob;
        d.skipped = QString::fromStdString(row.skipped);
        d.score = m_scoring->score;
        d.ablated = m_scoring->ablated;
    } else {
        d.skipped = tr("not scored yet");
    }
    m_view->setPair(std::move(d));
    m_view->resize(m_view->sizeHint());
}

void MinimalPairsPanel::showFlipped(int layer, int head)
{
    m_filter.clear();
    m_flipped.reset();
    m_flippedBy.clear();
    if (layer >= 0)
        for (const SweepCell &c : m_cells)
            if (c.layer == layer && c.head == head) {
                std::vector<std::size_t> both = c.flippedToWrong;
                both.insert(both.end(), c.flippedToRight.begin(), c.flippedToRight.end());
                std::sort(both.begin(), both.end());
                m_flipped = std::move(both);
                m_flippedBy = head < 0 ? tr("L%1 (every head)").arg(layer + 1) : tr("L%1 H%2").arg(layer + 1).arg(head + 1);
                Q_EMIT statusMessage(tr("Switching off %1 flips %2 pairs to wrong and %3 to right: listed")
                                         .arg(m_flippedBy)
                                         .arg(c.flippedToWrong.size())
                                         .arg(c.flippedToRight.size()));
            }
    if (layer < 0)
        m_heatmap->setSelected(-1, -1);
    fillPairTable();
}

void MinimalPairsPanel::sweep()
{
    if (m_sweeping) { // the button reads "Stop the sweep" meanwhile
        dropSweep();
        fillPairTable();
        Q_EMIT statusMessage(tr("Head sweep stopped."));
        Q_EMIT sweepFailed(tr("Head sweep stopped."));
        return;
    }
    if (m_modelPath.isEmpty() || m_set.pairs.empty()) {
        const QString why = tr("The sweep needs pairs and a language model.");
        Q_EMIT statusMessage(why);
        Q_EMIT sweepFailed(why);
        return;
    }
    auto pairs = std::make_shared<const std::vector<MinimalPair>>(m_set.pairs);
    const std::string model = m_modelPath.toStdString();
    const QString source = m_set.source;
    const std::vector<HeadAblation> base = m_ablation->heads();
    JobRunner *jobs = m_jobs;
    m_sweeping = true;
    m_sweepButton->setText(tr("Stop the sweep"));
    m_tabs->setCurrentIndex(1);
    jobs->submit<SweepFigure>(
        JobRunner::Lane::Background, kSweepGroup, this,
        [jobs, pairs, model, source, base](const RunControl &control) {
            return sweepAll(jobs->encoders(), model, *pairs, source, base, control);
        },
        [this](quint64, std::shared_ptr<const SweepFigure> figure) {
            m_sweeping = false;
            m_cells = figure->cells;
            m_heatmap->setFigure(*figure);
            m_heatmap->resize(m_heatmap->sizeHint());
            m_sweepButton->setText(tr("Sweep heads"));
            m_exportButton->setEnabled(true);
            Q_EMIT statusMessage(tr("Head sweep done: %1 cells").arg(figure->cells.size()));
            Q_EMIT sweepFinished();
        },
        [this](quint64, const QString &message) {
            m_sweeping = false;
            m_sweepButton->setText(tr("Sweep heads"));
            Q_EMIT statusMessage(message);
            Q_EMIT sweepFailed(message);
        },
        [this](const JobProgress &p) { Q_EMIT statusMessage(tr("Sweeping heads: %1 of %2 cells…").arg(p.done).arg(p.total)); });
}

void MinimalPairsPanel::exportSweep()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the head sweep"), QStringLiteral("ablation-sweep.png"),
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    Q_EMIT statusMessage(exportView(*m_heatmap, path, &error) ? tr("Wrote %1").arg(path) : error);
}

} // namespace treelens
