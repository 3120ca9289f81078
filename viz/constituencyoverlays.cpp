// What the constituency view's overlays show (see constituencyview.h): cohesion, the
// attention from the focus word, the comparison with the induced brackets, a TAT's or
// recursive model's node attention and a TAT phrase's hover lines; and the notes and
// legends drawn above the trees.
#include "viz/constituencyview.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <set>

#include <QFontMetricsF>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QPainterPath>

#include "core/data/overlays.h"
#include "core/eval/inductioneval.h"
#include "viz/constituencystyle.h"
#include "viz/patternmarks.h"
#include "viz/surprisalscale.h"

namespace treelens {

using namespace constituency;

namespace {

/// A TAT head as the views name it: heads 1..H/2 of the analysis are the semantic
/// stream's, the rest the syntactic stream's ("semantic head 2").
QString tatHeadName(int head, int heads)
{
    const int perStream = std::max(1, heads / 2);
    return head < perStream ? QStringLiteral("semantic head %1").arg(head + 1)
                            : QStringLiteral("syntactic head %1").arg(head - perStream + 1);
}

} // namespace

bool ConstituencyView::hasCohesion() const
{
    const Analysis *a = m_data.analysis.get();
    return a && m_state.layer >= 0 && m_state.layer < static_cast<int>(a->constituentPrior.size()) &&
           !a->constituentPrior[static_cast<std::size_t>(m_state.layer)].empty() && !a->wordToken.empty();
}

std::optional<double> ConstituencyView::cohesion(std::pair<int, int> span) const
{
    // One word has no cohesion: C of a word with itself is 0 by construction.
    if (!hasCohesion() || span.second - span.first < 2)
        return std::nullopt;
    const Analysis *a = m_data.analysis.get();
    const Matrix &c = a->constituentPrior[static_cast<std::size_t>(m_state.layer)];
    const int words = static_cast<int>(a->wordToken.size());
    if (span.first < 0 || span.second > words)
        return std::nullopt;
    const int r = a->wordToken[static_cast<std::size_t>(span.first)];
    const int col = a->wordToken[static_cast<std::size_t>(span.second - 1)];
    if (r < 0 || col < 0 || r >= c.rows || col >= c.cols)
        return std::nullopt;
    return c.at(r, col);
}

std::optional<double> ConstituencyView::focusAttention(std::pair<int, int> span) const
{
    const Analysis *a = m_data.analysis.get();
    const int words = a ? static_cast<int>(a->wordToken.size()) : 0;
    if (!a || !selectedAttention(*a, m_state) || m_state.focusWord < 0 || m_state.focusWord >= words ||
        span.first < 0 || span.second > words || span.first >= span.second)
        return std::nullopt;
    // A constituent receives what its words receive.
    double sum = 0.0;
    for (int w = span.first; w < span.second; ++w)
        sum += wordAttention(*a, m_state, m_state.focusWord, w);
    return sum;
}

bool ConstituencyView::overlayActive() const
{
    switch (m_overlay) {
    case Overlay::None:
        return false;
    case Overlay::Cohesion:
        return hasCohesion();
    case Overlay::FocusAttention:
        return focusAttention({0, 1}).has_value();
    }
    return false;
}

std::pair<int, int> ConstituencyView::comparedSpan(std::pair<int, int> span) const
{
    if (span.first < 0 || span.second >= static_cast<int>(m_keptIndex.size()) || span.first >= span.second)
        return {0, 0};
    return {m_keptIndex[static_cast<std::size_t>(span.first)], m_keptIndex[static_cast<std::size_t>(span.second)]};
}

void ConstituencyView::clearComparison()
{
    m_shared.clear();
    m_missing.clear();
    m_extra.clear();
    m_kept.clear();
    m_keptIndex.clear();
    m_sharedKept.clear();
    m_missingKept.clear();
    m_scoreText.clear();
    m_protocolText.clear();
}

void ConstituencyView::classifySpans()
{
    clearComparison();
    const ConstituencyTree *parser = parserTree();
    const Analysis *a = m_data.analysis.get();
    if (!parser || !a)
        return;
    const ConstituencyTree *induced = inducedTree();
    if (a->inducedBrackets.empty() && !induced && !a->withoutPunctuation)
        return;
    // eval-induction's protocol (inductioneval.h), so the header's F1 is the one it
    // reports: punctuation out, unlabelled, single words and the whole sentence not
    // compared. The model's brackets are the ones it makes without the punctuation
    // when the pipeline ran it so; else its brackets with the punctuation taken out.
    const std::vector<int> kept = inductionKeptWords(*parser);
    PunctuationFreeParse model;
    if (a->withoutPunctuation && a->withoutPunctuation->words == kept) {
        model = *a->withoutPunctuation;
    } else {
        std::vector<std::pair<int, int>> brackets = a->inducedBrackets;
        if (brackets.empty() && induced)
            for (const auto &sp : induced->spans(true))
                brackets.emplace_back(sp.start, sp.end);
        model = removePunctuation(*parser, brackets);
    }
    const InductionGold gold = inductionGold(*parser);
    const int n = static_cast<int>(gold.words.size());
    m_kept = kept;
    m_keptIndex.assign(static_cast<std::size_t>(parser->wordCount()) + 1, 0);
    for (std::size_t i = 0, k = 0; i < m_keptIndex.size(); ++i) {
        while (k < kept.size() && static_cast<std::size_t>(kept[k]) < i)
            ++k;
        m_keptIndex[i] = static_cast<int>(k);
    }
    const std::set<std::pair<int, int>> goldSet(gold.brackets.begin(), gold.brackets.end());
    const std::set<std::pair<int, int>> modelSet(model.brackets.begin(), model.brackets.end());
    std::vector<std::pair<int, int>> extraKept;
    std::set_intersection(goldSet.begin(), goldSet.end(), modelSet.begin(), modelSet.end(),
                          std::inserter(m_sharedKept, m_sharedKept.end()));
    std::set_difference(goldSet.begin(), goldSet.end(), modelSet.begin(), modelSet.end(),
                        std::inserter(m_missingKept, m_missingKept.end()));
    std::set_difference(modelSet.begin(), modelSet.end(), goldSet.begin(), goldSet.end(), std::back_inserter(extraKept));
    // Back onto the words as drawn: from the first kept word to the last.
    auto drawn = [&](std::pair<int, int> k) {
        return std::make_pair(kept[static_cast<std::size_t>(k.first)], kept[static_cast<std::size_t>(k.second) - 1] + 1);
    };
    for (const auto &k : m_sharedKept)
        m_shared.push_back(drawn(k));
    for (const auto &k : m_missingKept)
        m_missing.push_back(drawn(k));
    for (const auto &k : extraKept)
        m_extra.push_back(drawn(k));
    const InductionScore score = scoreBrackets({gold.brackets}, {model.brackets}, {n});
    m_scoreText = QStringLiteral("Parser vs. induced brackets: P %1  R %2  F1 %3 (%)")
                      .arg(score.precision, 0, 'f', 2)
                      .arg(score.recall, 0, 'f', 2)
                      .arg(score.perSentence.front(), 0, 'f', 2);
    m_protocolText =
        model.rerun
            ? QStringLiteral("Scored as eval-induction scores it: punctuation removed before the model reads the words; "
                             "unlabelled; single words and the whole sentence not compared")
            : QStringLiteral("Scored like eval-induction, but the model read the punctuation (taken out of its brackets "
                             "afterwards), so eval-induction may differ; unlabelled; single words and the whole sentence "
                             "not compared");
}

bool ConstituencyView::nodeAttentionActive() const
{
    if (!m_data.analysis || m_data.analysis->nodeAttention.empty())
        return false;
    if (overlay::hasAggregationNodes(*m_data.analysis))
        return true;
    // The recursive constituency models (CTT, binary Tree-LSTM): their nodes carry spans, no head word.
    return recursiveNodes();
}

bool ConstituencyView::recursiveNodes() const
{
    return m_data.analysis && overlay::hasComposition(*m_data.analysis) &&
           m_data.analysis->nodeAttention.front().headWord < 0 && m_data.analysis->nodeAttention.front().start >= 0;
}

bool ConstituencyView::recursivePendingEdge(const TreeGraph &graph, int parent) const
{
    if (!recursiveNodes() || m_state.aggregationStep <= 0)
        return false;
    const auto &nodes = m_data.analysis->nodeAttention;
    const auto heights = recursiveNodeHeights(nodes);
    const auto span = graph.nodes[static_cast<std::size_t>(parent)].span;
    for (std::size_t v = 0; v < nodes.size(); ++v)
        if (nodes[v].start == span.first && nodes[v].end == span.second)
            return recursivePending(heights[v], m_state.aggregationStep);
    return false;
}

QString ConstituencyView::nodeHeadName() const
{
    if (recursiveNodes())
        return m_data.analysis->heads > 1 ? QStringLiteral("branch %1").arg(m_state.head + 1) : QStringLiteral("attention over the children");
    return tatHeadName(m_state.head, m_data.analysis->heads);
}

double ConstituencyView::nodeAttentionWeight(const TreeGraph &graph, int parent, int child) const
{
    const auto &nodes = m_data.analysis->nodeAttention;
    const auto &p = graph.nodes[static_cast<std::size_t>(parent)];
    const auto &c = graph.nodes[static_cast<std::size_t>(child)];
    if (recursiveNodes()) {
        // The model's tree drops preterminals and collapses unary chains: its nodes are found by span
        // (a unary chain's phrases share the node; a binarization dummy has no drawn phrase).
        auto bySpan = [&](std::pair<int, int> span) -> const NodeAttention * {
            for (const auto &na : nodes)
                if (na.start == span.first && na.end == span.second)
                    return &na;
            return nullptr;
        };
        const NodeAttention *pn = bySpan(p.span);
        if (!pn || m_state.head < 0 || m_state.head >= static_cast<int>(pn->weights.size()))
            return -1;
        int target = 1 << 30;
        if (c.kind == TreeGraph::Kind::Word)
            target = -1 - c.word;
        else if (const NodeAttention *cn = bySpan(c.span); cn && cn != pn)
            target = cn->node;
        else if (c.span.second - c.span.first == 1)
            target = -1 - c.span.first; // a preterminal: its word
        for (std::size_t k = 0; k < pn->targets.size(); ++k)
            if (pn->targets[k] == target && k < pn->weights[static_cast<std::size_t>(m_state.head)].size())
                return static_cast<double>(pn->weights[static_cast<std::size_t>(m_state.head)][k]);
        return -1;
    }
    if (p.tatNode < 0 || p.tatNode >= static_cast<int>(nodes.size()))
        return -1;
    const NodeAttention &na = nodes[static_cast<std::size_t>(p.tatNode)];
    const int target = c.kind == TreeGraph::Kind::Word ? -1 - c.word : c.tatNode;
    if (m_state.head < 0 || m_state.head >= static_cast<int>(na.weights.size()))
        return -1;
    for (std::size_t k = 0; k < na.targets.size(); ++k)
        if (na.targets[k] == target && k < na.weights[static_cast<std::size_t>(m_state.head)].size())
            return static_cast<double>(na.weights[static_cast<std::size_t>(m_state.head)][k]);
    return -1;
}

QStringList ConstituencyView::collectNotes() const
{
    QStringList notes;
    if (m_data.sentence && parserTree() && m_mode != Mode::Induced)
        notes << treeSourceNote(*m_data.sentence, TreeKind::Constituency);
    notes << unknownWordsNote(m_data.analysis.get());
    notes.prepend(ablationBadge(m_data.analysis.get()));
    if (!m_tat)
        notes << noPriorNote(m_data.analysis.get());
    if (m_tat && m_state.aggregationStep > 0) {
        const int step = std::min(m_state.aggregationStep, m_tat->steps());
        const int level = m_tat->levelAt(step);
        int here = 0;
        for (const auto &n : m_tat->nodes)
            here += n.level == level ? 1 : 0;
        notes << QStringLiteral("Aggregation step %1 of %2: level %3 (%4 phrase%5 of this sentence, outlined, in the step's one "
                                "batched call); grey phrases wait for their children")
                     .arg(step)
                     .arg(m_tat->steps())
                     .arg(level)
                     .arg(here)
                     .arg(here == 1 ? QString() : QStringLiteral("s"));
    }
    if (surprisalShown())
        notes << SurprisalScale::bandNote();
    if (m_data.analysis && m_data.analysis->causalAttention && m_overlay == Overlay::FocusAttention)
        notes << QStringLiteral("Grey words after the focus word: ") + causalNote();
    if (m_data.analysis && overlay::wordAttribution(*m_data.analysis))
        notes << QStringLiteral("Badges on the nodes: the attribution to the prediction summed over each node's words "
                                "(Explain dock): red raises it, blue lowers it");
    if (patternMarksShown())
        notes << patternMarksNote(*m_data.marks);
    notes.removeAll(QString());
    return notes;
}

double ConstituencyView::drawNotes(double top, double width)
{
    m_notes = collectNotes();
    double y = top;
    // Wrapped to the tree's width: a long note would otherwise set the scene's width,
    // and a short tree would be drawn small in a wide figure.
    const QString badge = ablationBadge(m_data.analysis.get());
    for (const QString &note : m_notes)
        for (const QString &line : wrapToWidth(note, legendFont(), width)) {
            auto *t = addText(scene(), line, legendFont(), !badge.isEmpty() && note == badge ? ablationColor() : noteColor(),
                              QPointF(0.0, y));
            t->setData(kHoverKey, note);
            y = t->sceneBoundingRect().bottom() + 1.0;
        }
    return m_notes.isEmpty() ? top : y + 10.0;
}

QRectF ConstituencyView::addColourBar(const QRectF &bar)
{
    QGraphicsScene *s = scene();
    QRectF used = s->addRect(bar, QPen(kBorder, 0.5), QBrush(sequentialGradient(bar.topLeft(), bar.topRight())))->sceneBoundingRect();
    for (double v : {0.0, 0.5, 1.0}) {
        const QString label = QString::number(v);
        const double lx = bar.left() + v * bar.width();
        s->addLine(lx, bar.bottom(), lx, bar.bottom() + 3.0, QPen(kInk, 0.6));
        auto *tick = addText(s, label, smallFont(), kInk,
                             QPointF(lx - QFontMetricsF(smallFont()).horizontalAdvance(label) / 2.0, bar.bottom() + 3.0));
        used = used.united(tick->sceneBoundingRect());
    }
    return used;
}

QRectF ConstituencyView::drawLegends(QPointF topLeft, double width)
{
    QGraphicsScene *s = scene();
    QRectF used(topLeft, QSizeF(0, 0));
    double x = topLeft.x();
    const double y = topLeft.y();
    const QFontMetricsF fm(legendFont());

    if (nodeAttentionActive()) {
        // The TAT's node attention on the edges: the key above any overlay's.
        const QString what = recursiveNodes()
                                 ? QStringLiteral("Edges: how each node of the model's tree composes its children (attention each child "
                                                  "receives, mean over the querying members), %1; colour and width = weight")
                                 : QStringLiteral("Edges: how each phrase aggregates its children (attention of its start token), %1; "
                                                  "colour and width = weight");
        auto *t = addText(s, what.arg(nodeHeadName()),
                          legendFont(), kInk, QPointF(x, y));
        t->setData(0, QStringLiteral("node-attention-legend"));
        used = used.united(t->sceneBoundingRect());
        return used.united(addColourBar(QRectF(x, y + 16.0, 150.0, 9.0)));
    }
    // Colour scale: title, viridis bar 0..1, ticks and the unit. A model without a prior has
    // no cohesion to key: the note (noPriorNote) says so once, so no key either.
    const bool noPrior = m_overlay == Overlay::Cohesion && m_data.analysis && m_data.analysis->constituentPrior.empty();
    if (m_overlay != Overlay::None && m_data.analysis && !noPrior) {
        QString title, unit, note;
        if (m_overlay == Overlay::Cohesion) {
            title = QStringLiteral("Cohesion of each constituent: prior C(first word, last word), layer %1")
                        .arg(m_state.layer + 1);
            unit = QStringLiteral("probability");
            if (!overlayActive())
                note = QStringLiteral("(no constituent prior for this layer)");
        } else {
            const bool haveFocus = m_state.focusWord >= 0 && m_state.focusWord < static_cast<int>(m_words.size());
            // Which attention, for a model that has more than one ("after ×C"; none for a plain Transformer's).
            const QString variant = attentionVariantName(*m_data.analysis, m_state);
            title = haveFocus ? QStringLiteral("Attention from “%1”, layer %2, head %3%4")
                                    .arg(m_words[static_cast<std::size_t>(m_state.focusWord)])
                                    .arg(m_state.layer + 1)
                                    .arg(m_state.head + 1)
                                    .arg(variant.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(variant))
                              : QStringLiteral("Attention from a word");
            unit = QStringLiteral("attention weight; phrases: sum over their words");
            if (!haveFocus)
                note = QStringLiteral("(click a word to choose it)");
            else if (!overlayActive())
                note = QStringLiteral("(no attention for this layer/head)");
        }
        auto *t = addText(s, title, legendFont(), kInk, QPointF(x, y));
        if (!note.isEmpty()) {
            auto *n = addText(s, note, legendFont(), kPos, QPointF(x, y + 14.0));
            used = used.united(n->sceneBoundingRect());
        } else {
            const QRectF bar(x, y + 16.0, 150.0, 9.0);
            used = used.united(addColourBar(bar));
            auto *u = addText(s, unit, smallFont(), kPos, QPointF(bar.right() + 8.0, bar.top()));
            used = used.united(u->sceneBoundingRect());
            if (m_overlay == Overlay::Cohesion) {
                // One-word constituents: C of a word with itself is 0 by construction, not a measurement.
                const QRectF swatch(u->sceneBoundingRect().right() + 14.0, bar.top(), 16.0, bar.height());
                s->addRect(swatch, QPen(kBorder, 0.5), kNotApplicable);
                auto *na = addText(s, QStringLiteral("n/a: one word"), smallFont(), kPos,
                                   QPointF(swatch.right() + 4.0, bar.top()));
                used = used.united(na->sceneBoundingRect());
            }
        }
        used = used.united(t->sceneBoundingRect());
        x = used.right() + 28.0;
    }

    // Compare key: what the outlines and red brackets mean, with counts. Beside the colour
    // scale when both fit the tree's width, else under it (a short tree's figure stays
    // narrow: the legends do not set its width).
    if (m_mode == Mode::Compare && (!m_shared.empty() || !m_missing.empty() || !m_extra.empty())) {
        const double sw = 22.0;
        const double keyWidth = std::max(fm.horizontalAdvance(m_scoreText), 380.0);
        double yc = y;
        if (x > topLeft.x() && x + keyWidth > topLeft.x() + width) {
            x = topLeft.x();
            yc = used.bottom() + 10.0;
        }
        const double right = std::max(x + keyWidth, topLeft.x() + width);
        auto *head = addText(s, m_scoreText, legendFont(), kInk, QPointF(x, yc));
        used = used.united(head->sceneBoundingRect());
        double py = yc + 14.0;
        for (const QString &line : wrapToWidth(m_protocolText, smallFont(), right - x)) {
            auto *protocol = addText(s, line, smallFont(), kPos, QPointF(x, py));
            used = used.united(protocol->sceneBoundingRect());
            py = protocol->sceneBoundingRect().bottom();
        }
        double ry = py + 2.0;
        double cx = x;
        // One key: its glyph (drawn at the key's place) and its text; a key that would pass
        // the right edge starts a new row.
        auto key = [&](const QString &text, const std::function<void(double, double)> &glyph) {
            if (cx > x && cx + sw + 5.0 + QFontMetricsF(legendFont()).horizontalAdvance(text) > right) {
                cx = x;
                ry = used.bottom() + 4.0;
            }
            glyph(cx, ry);
            auto *k = addText(s, text, legendFont(), kInk, QPointF(cx + sw + 5.0, ry));
            used = used.united(k->sceneBoundingRect());
            cx = k->sceneBoundingRect().right() + 16.0;
        };
        key(QStringLiteral("shared (%1)").arg(m_shared.size()), [&](double gx, double gy) {
            QPainterPath box;
            box.addRoundedRect(QRectF(gx, gy + 1.0, sw, 11.0), 3.0, 3.0);
            s->addPath(box, QPen(kShared, 2.2), Qt::white);
        });
        key(QStringLiteral("missing: parser only (%1)").arg(m_missing.size()), [&](double gx, double gy) {
            QPainterPath box;
            box.addRoundedRect(QRectF(gx, gy + 1.0, sw, 11.0), 3.0, 3.0);
            s->addPath(box, QPen(kMissing, 1.6, Qt::DashLine), Qt::white);
        });
        key(QStringLiteral("extra: induced only, under the words (%1)").arg(m_extra.size()), [&](double gx, double gy) {
            QPainterPath br;
            br.moveTo(gx + 1.0, gy + 3.0);
            br.lineTo(gx + 1.0, gy + 8.0);
            br.lineTo(gx + sw - 1.0, gy + 8.0);
            br.lineTo(gx + sw - 1.0, gy + 3.0);
            s->addPath(br, QPen(kExtra, 1.4));
        });
    }
    return used;
}

QStringList ConstituencyView::tatHoverLines(int id) const
{
    QStringList lines;
    if (!m_tat || id < 0 || id >= static_cast<int>(m_tat->nodes.size()))
        return lines;
    const AggregationNode &r = m_tat->nodes[static_cast<std::size_t>(id)];
    lines << QStringLiteral("TAT node %1, level %2: aggregated at step %3 of %4 (click for the node view)")
                 .arg(id)
                 .arg(r.level)
                 .arg(m_tat->stepOf(r.level))
                 .arg(m_tat->steps());
    std::vector<std::string> words;
    for (const QString &w : m_words)
        words.push_back(w.toStdString());
    const ConstituencyTree *tree = parserTree();
    const auto labels = tree ? phrasePositionLabels(*m_tat, id, *tree, words) : std::vector<std::string>();
    auto rows = [&](const std::vector<std::vector<float>> &heads, const QString &stream) {
        for (std::size_t h = 0; h < heads.size(); ++h) {
            QStringList cells;
            for (std::size_t i = 0; i < heads[h].size(); ++i)
                cells << QStringLiteral("%1 %2")
                             .arg(i < labels.size() ? QString::fromStdString(labels[i]) : QString::number(i))
                             .arg(heads[h][i], 0, 'f', 2);
            lines << QStringLiteral("%1 head %2: %3").arg(stream).arg(h + 1).arg(cells.join(QStringLiteral(" | ")));
        }
    };
    rows(r.sem, QStringLiteral("semantic"));
    rows(r.syn, QStringLiteral("syntactic"));
    QStringList norms;
    if (r.normSem >= 0)
        norms << QStringLiteral("‖w^e‖ = %1").arg(r.normSem, 0, 'f', 3);
    if (r.normSyn >= 0)
        norms << QStringLiteral("‖w^n‖ = %1").arg(r.normSyn, 0, 'f', 3);
    if (!norms.isEmpty())
        lines << norms.join(QStringLiteral(", "));
    return lines;
}

} // namespace treelens
