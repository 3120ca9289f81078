#include "viz/surprisalscale.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QPainter>
#include <QPainterPath>
#include <QPen>
#include <QStringList>

#include "viz/viewcommon.h"

namespace treelens {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Words of context the hover names before "…".
constexpr int kContextWords = 4;

/// “text”, as the hover texts quote words and pieces.
QString quoted(const QString &text)
{
    return QStringLiteral("\u201c%1\u201d").arg(text);
}

QString nats(double v)
{
    return QString::number(v, 'f', 2);
}

} // namespace

SurprisalScale::SurprisalScale(const Analysis *analysis) : m_a(analysis)
{
    if (!m_a)
        return;
    m_words = static_cast<int>(m_a->surprisal.size());
    double largest = 0.0;
    for (double v : m_a->surprisal)
        if (std::isfinite(v))
            largest = std::max(largest, v);
    // Ticks a reader can count: 1 nat apart up to 5, then 2, 5, 10, ...
    for (double step : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0}) {
        m_step = step;
        if (largest <= 6.0 * step)
            break;
    }
    m_top = std::max(m_step, std::ceil(largest / m_step - 1e-9) * m_step);
}

double SurprisalScale::value(int word) const
{
    if (word < 0 || word >= m_words)
        return kNaN;
    return m_a->surprisal[static_cast<std::size_t>(word)];
}

bool SurprisalScale::predicted(int word) const
{
    return std::isfinite(value(word));
}

QColor SurprisalScale::color(double v) const
{
    return sequentialColor(v / m_top);
}

QString SurprisalScale::word(int word) const
{
    if (m_a && word >= 0 && word < static_cast<int>(m_a->words.size()))
        return QString::fromStdString(m_a->words[static_cast<std::size_t>(word)]);
    return QStringLiteral("word %1").arg(word + 1);
}

std::vector<int> SurprisalScale::pieces(int word) const
{
    std::vector<int> out;
    if (!m_a || word < 0 || word >= static_cast<int>(m_a->wordToken.size()))
        return out;
    const int unit = m_a->wordToken[static_cast<std::size_t>(word)];
    for (std::size_t p = 0; p < m_a->pieceToken.size() && p < m_a->pieces.size(); ++p)
        if (unit >= 0 && m_a->pieceToken[p] == unit)
            out.push_back(static_cast<int>(p));
    return out;
}

QString SurprisalScale::pieceText(int piece) const
{
    if (!m_a || piece < 0 || piece >= static_cast<int>(m_a->pieces.size()))
        return QString();
    const bool readable = m_a->pieceText.size() == m_a->pieces.size();
    return QString::fromStdString(readable ? m_a->pieceText[static_cast<std::size_t>(piece)]
                                           : m_a->pieces[static_cast<std::size_t>(piece)]);
}

double SurprisalScale::pieceValue(int piece) const
{
    if (!m_a || piece < 0 || piece >= static_cast<int>(m_a->pieceSurprisal.size()))
        return kNaN;
    return m_a->pieceSurprisal[static_cast<std::size_t>(piece)];
}

QString SurprisalScale::context(int word) const
{
    if (word <= 0)
        return QStringLiteral("the beginning of the text");
    QStringList before;
    for (int w = std::max(0, word - kContextWords); w < word; ++w)
        before << SurprisalScale::word(w);
    return quoted((word > kContextWords ? QStringLiteral("\u2026 ") : QString()) + before.join(QLatin1Char(' ')));
}

QString SurprisalScale::noPredictionReason(int word) const
{
    if (word < 0 || word >= m_words || predicted(word))
        return QString();
    if (pieces(word).empty())
        return QStringLiteral("no prediction: the tokenizer gave this word no piece");
    return QStringLiteral("no prediction: its pieces include the sequence's first piece, which nothing before it predicts "
                          "(the model puts no beginning-of-sequence token in front)");
}

QString SurprisalScale::wordText(int word) const
{
    if (word < 0 || word >= m_words)
        return QString();
    const QString w = quoted(SurprisalScale::word(word));
    if (!predicted(word))
        return QStringLiteral("%1: %2").arg(w, noPredictionReason(word));
    QString text = QStringLiteral("surprisal of %1: %2 nats = \u2212log p(%1 | %3)").arg(w, nats(value(word)), context(word));
    const std::vector<int> own = pieces(word);
    if (own.size() > 1) {
        QStringList parts;
        for (int p : own)
            parts << QStringLiteral("%1 %2").arg(quoted(pieceText(p)), nats(pieceValue(p)));
        text += QStringLiteral("; its pieces: ") + parts.join(QStringLiteral(" + "));
    }
    return text;
}

QString SurprisalScale::pieceHover(int word, int piece) const
{
    const QString w = quoted(SurprisalScale::word(word));
    const QString own = QStringLiteral("piece %1 of %2: %3 nats = \u2212log p(%1 | everything before it)")
                            .arg(quoted(pieceText(piece)), w, nats(pieceValue(piece)));
    return predicted(word) ? own + QStringLiteral("; the word: %1 nats").arg(nats(value(word))) : own;
}

int SurprisalScale::predictedCount() const
{
    int n = 0;
    for (int w = 0; w < m_words; ++w)
        n += predicted(w) ? 1 : 0;
    return n;
}

double SurprisalScale::mean() const
{
    double sum = 0.0;
    const int n = predictedCount();
    for (int w = 0; w < m_words; ++w)
        if (predicted(w))
            sum += value(w);
    return n > 0 ? sum / n : kNaN;
}

std::optional<double> SurprisalScale::logprob() const
{
    return m_a ? m_a->logprob : std::nullopt;
}

QString SurprisalScale::unit()
{
    return QStringLiteral("surprisal, nats");
}

QString SurprisalScale::noPredictionLabel()
{
    return QStringLiteral("no prediction (first piece)");
}

QString SurprisalScale::bandNote()
{
    return QStringLiteral("Band under the words: each word's surprisal, \u2212log p(word | the words before it), in nats "
                          "(the language model's; hover for the value); hatched: nothing predicts the word");
}

// ---------------------------------------------------------------------------

SurprisalBandItem::SurprisalBandItem(const QRectF &rect, int word, const SurprisalScale &scale)
    : QGraphicsRectItem(rect), m_word(word), m_nats(scale.value(word)), m_text(scale.wordText(word))
{
    setPen(QPen(QColor(150, 150, 150), 0.4));
    setBrush(hatched() ? QBrush(hatchFill()) : QBrush(scale.color(m_nats)));
    setToolTip(m_text);
    setAcceptHoverEvents(true);
}

void SurprisalBandItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget)
{
    if (!hatched()) {
        QGraphicsRectItem::paint(painter, option, widget);
        return;
    }
    QPainterPath area;
    area.addRect(rect());
    paintHatch(*painter, area, 3.0);
    painter->setPen(pen());
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(rect());
}

void SurprisalBandItem::hoverEnterEvent(QGraphicsSceneHoverEvent *event)
{
    QGraphicsRectItem::hoverEnterEvent(event);
    if (onHover)
        onHover(m_text);
}

std::vector<SurprisalBandItem *> addSurprisalBand(QGraphicsScene &scene, const SurprisalScale &scale,
                                                  const std::vector<QRectF> &wordRects, double top, double height)
{
    std::vector<SurprisalBandItem *> out;
    for (int w = 0; w < scale.wordCount() && w < static_cast<int>(wordRects.size()); ++w) {
        const QRectF &r = wordRects[static_cast<std::size_t>(w)];
        if (r.isEmpty())
            continue;
        auto *item = new SurprisalBandItem(QRectF(r.left() + 1.0, top, std::max(2.0, r.width() - 2.0), height), w, scale);
        scene.addItem(item);
        out.push_back(item);
    }
    return out;
}

SurprisalKey addSurprisalKey(QGraphicsScene &scene, const SurprisalScale &scale, const QPointF &topLeft, const QFont &font,
                             const QColor &ink)
{
    SurprisalKey key;
    const QFontMetricsF fm(font);
    const double barW = 160.0, barH = 9.0;
    const QRectF bar(topLeft, QSizeF(barW, barH));
    auto text = [&](const QString &s, const QPointF &at) {
        QGraphicsSimpleTextItem *t = scene.addSimpleText(s, font);
        t->setBrush(ink);
        t->setPos(at);
        key.items.push_back(t);
        key.rect = key.rect.united(t->sceneBoundingRect());
        return t;
    };
    key.items.push_back(scene.addRect(bar, QPen(QColor(120, 120, 120), 0.5), QBrush(sequentialGradient(bar.topLeft(), bar.topRight()))));
    key.rect = bar;
    for (double v = 0.0; v <= scale.top() + 1e-9; v += scale.tickStep()) {
        const double x = bar.left() + v / scale.top() * barW;
        key.items.push_back(scene.addLine(x, bar.bottom(), x, bar.bottom() + 3.0, QPen(QColor(120, 120, 120), 0.6)));
        const QString label = QString::number(v, 'g', 4);
        text(label, QPointF(x - fm.horizontalAdvance(label) / 2.0, bar.bottom() + 3.0));
    }
    const QGraphicsSimpleTextItem *unit = text(SurprisalScale::unit(), QPointF(bar.right() + 8.0, bar.top() - 2.0));
    bool unpredicted = false;
    for (int w = 0; w < scale.wordCount(); ++w)
        unpredicted = unpredicted || !scale.predicted(w);
    if (unpredicted) {
        const QRectF swatch(unit->sceneBoundingRect().right() + 14.0, bar.top(), 16.0, barH);
        auto *hatch = new SurprisalBandItem(swatch, -1, scale); // no such word: hatched
        hatch->setToolTip(QString());
        hatch->setAcceptHoverEvents(false);
        scene.addItem(hatch);
        key.items.push_back(hatch);
        text(SurprisalScale::noPredictionLabel(), QPointF(swatch.right() + 4.0, bar.top() - 2.0));
    }
    return key;
}

} // namespace treelens
