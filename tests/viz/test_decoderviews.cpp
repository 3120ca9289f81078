// The views of a decoder-only language model's analysis (issue 45): a causal model's
// attention to later words drawn as not possible (hatched heatmap cells, no arcs), the heads
// overview's causal arc scores, the surprisal band under both trees and the surprisal view.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <QApplication>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QPainter>

#include <gtest/gtest.h>

#include "core/formats/ptb.h"
#include "viz/attentionheatmap.h"
#include "viz/attentionoverview.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/plotstyle.h"
#include "viz/surprisalscale.h"
#include "viz/surprisalview.h"

using namespace treelens;

namespace {

void ensureApp()
{
    static int argc = 1;
    static char arg0[] = "test";
    static char *argv[] = {arg0, nullptr};
    if (!QApplication::instance())
        new QApplication(argc, argv); // lives for the whole test binary
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<std::string> kWords = {"The", "keys", "to", "the", "cabinet", "are"};
/// GPT-2's pieces of kWords: "cabinet" in two.
const std::vector<std::vector<std::string>> kPieces = {{"The"}, {"\xc4\xa0keys"}, {"\xc4\xa0to"},
                                                       {"\xc4\xa0the"}, {"\xc4\xa0" "cab", "inet"}, {"\xc4\xa0" "are"}};

/// The sentence of kWords with a dependency tree (keys ← are, The ← keys, cabinet ← keys,
/// to ← cabinet, the ← cabinet) and a constituency tree.
std::shared_ptr<Sentence> keysSentence()
{
    auto parsed = readPtbSentences("(S (NP (NP (DT The) (NNS keys)) (PP (TO to) (NP (DT the) (NN cabinet)))) (VP (VBP are)))",
                                   "t");
    EXPECT_TRUE(parsed.ok());
    auto s = std::make_shared<Sentence>(parsed->front());
    s->dependency = DependencyTree{{2, 6, 5, 5, 2, 0}, {"det", "nsubj", "case", "det", "nmod", "root"}};
    return s;
}

/// A GPT-2-like analysis of kWords: one unit per word, the pieces above (read as " keys"),
/// one layer of two heads over the units: head 1 spreads each row evenly over the word and
/// the words before it, head 2 is `head2` (or the same). Each piece after the first has the
/// surprisal 1 + 0.5·k; a word's is the sum of its pieces'; the first word has none.
std::shared_ptr<Analysis> decoderAnalysis(bool causal = true, Matrix head2 = Matrix())
{
    auto a = std::make_shared<Analysis>();
    a->family = "pretrained-transformer";
    a->causalAttention = causal;
    a->words = kWords;
    a->tokens = kWords;
    const int n = static_cast<int>(kWords.size());
    for (int w = 0; w < n; ++w) {
        a->wordToken.push_back(w);
        for (const std::string &piece : kPieces[static_cast<std::size_t>(w)]) {
            a->pieces.push_back(piece);
            std::string text = piece;
            if (text.rfind("\xc4\xa0", 0) == 0)
                text = " " + text.substr(2);
            a->pieceText.push_back(text);
            a->pieceToken.push_back(w);
        }
    }
    for (std::size_t k = 0; k < a->pieces.size(); ++k)
        a->pieceSurprisal.push_back(k == 0 ? kNaN : 1.0 + 0.5 * static_cast<double>(k));
    double total = 0.0;
    for (int w = 0; w < n; ++w) {
        double s = 0.0;
        for (std::size_t k = 0; k < a->pieces.size(); ++k)
            if (a->pieceToken[k] == w)
                s += a->pieceSurprisal[k];
        a->surprisal.push_back(s); // NaN for the first word
        total += std::isfinite(s) ? s : 0.0;
    }
    a->logprob = -total;
    a->layers = 1;
    a->heads = 2;
    Matrix lower(n, n, 0.0f);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c <= r; ++c)
            lower.at(r, c) = 1.0f / static_cast<float>(r + 1);
    const int pieces = static_cast<int>(a->pieces.size());
    Matrix pieceLower(pieces, pieces, 0.0f);
    for (int r = 0; r < pieces; ++r)
        for (int c = 0; c <= r; ++c)
            pieceLower.at(r, c) = 1.0f / static_cast<float>(r + 1);
    a->attention = {{lower, head2.empty() ? lower : head2}};
    a->pieceAttention = {{pieceLower, pieceLower}};
    return a;
}

/// Grey pixels (r = g = b, not white: the hatching; no viridis colour is grey) in the middle
/// third of cell (r, c) of a heatmap's map.
int greyPixelsInCell(const QImage &img, QCustomPlot *plot, int r, int c)
{
    const double x0 = plot->xAxis->coordToPixel(c - 0.5), x1 = plot->xAxis->coordToPixel(c + 0.5);
    const double y0 = plot->yAxis->coordToPixel(r - 0.5), y1 = plot->yAxis->coordToPixel(r + 0.5);
    const QRectF cell = QRectF(QPointF(x0, y0), QPointF(x1, y1)).normalized();
    const QRect middle = cell.adjusted(cell.width() / 3, cell.height() / 3, -cell.width() / 3, -cell.height() / 3).toRect();
    int grey = 0;
    for (int y = middle.top(); y <= middle.bottom(); ++y)
        for (int x = middle.left(); x <= middle.right(); ++x) {
            const QColor px = img.pixelColor(x, y);
            grey += px.red() == px.green() && px.green() == px.blue() && px.red() < 250;
        }
    return grey;
}

QImage renderImage(ExportableView &view)
{
    const QSizeF size = view.exportSize();
    QImage img(size.toSize(), QImage::Format_ARGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    view.renderTo(&p, QRectF(QPointF(0, 0), size));
    p.end();
    return img;
}

std::vector<QGraphicsItem *> itemsOfKind(const QGraphicsScene *scene, const QString &kind)
{
    std::vector<QGraphicsItem *> out;
    for (QGraphicsItem *item : scene->items())
        if (item->data(0).toString() == kind)
            out.push_back(item);
    return out;
}

} // namespace

// A causal model's cells after the diagonal are hatched, never coloured as 0, exactly there;
// a bidirectional model's map has no hatching.
TEST(DecoderViews, TheHeatmapHatchesExactlyTheCellsACausalModelCannotHave)
{
    ensureApp();
    for (bool causal : {true, false}) {
        AttentionHeatmap view;
        view.setData({keysSentence(), decoderAnalysis(causal)});
        view.resize(900, 760);
        view.show();
        QApplication::processEvents();
        view.plot()->replot();
        const QImage img = view.plot()->toPixmap(view.plot()->width(), view.plot()->height()).toImage();
        const int n = view.rowCount();
        ASSERT_EQ(n, 6);
        EXPECT_EQ(view.causalHatch() != nullptr, causal);
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) {
                const bool later = causal && c > r;
                EXPECT_EQ(view.notPossible(r, c), later) << r << "," << c;
                EXPECT_EQ(std::isnan(view.cellValue(r, c)), later) << r << "," << c;
                const int grey = greyPixelsInCell(img, view.plot(), r, c);
                if (later)
                    EXPECT_GT(grey, 10) << "cell " << r << "," << c << " not hatched";
                else
                    EXPECT_EQ(grey, 0) << "cell " << r << "," << c << " hatched";
                const QString hover = view.cellText(r, c);
                EXPECT_EQ(hover.contains(QStringLiteral("not possible")), later) << hover.toStdString();
            }
        const QString lines = view.titleLines().join(QLatin1Char('\n'));
        EXPECT_EQ(lines.contains(QStringLiteral("not possible: a causal model's word attends only to itself and the words before it")),
                  causal)
            << lines.toStdString();
        EXPECT_TRUE(view.cellText(3, 1).contains(QStringLiteral("= 0.2500"))) << view.cellText(3, 1).toStdString();
        if (causal)
            renderImage(view).save(QStringLiteral("/tmp/decoder-attention.png"));
    }
}

// The pieces view: hatched the same way, its axes the pieces as a person reads them.
TEST(DecoderViews, ThePiecesViewShowsReadablePiecesAndHatchesLaterOnes)
{
    ensureApp();
    PieceHeatmap view;
    view.setData({keysSentence(), decoderAnalysis()});
    view.resize(900, 760); // room for every label (a small pane thins them)
    view.show();
    QApplication::processEvents();
    view.plot()->replot();
    ASSERT_EQ(view.rowCount(), 7);
    ASSERT_NE(view.causalHatch(), nullptr);
    EXPECT_TRUE(view.notPossible(4, 5));
    EXPECT_FALSE(view.notPossible(5, 4));
    EXPECT_TRUE(view.cellText(4, 5).contains(QStringLiteral("a causal model's piece attends only to itself and the pieces before it")));
    auto *ticker = dynamic_cast<QCPAxisTickerText *>(view.plot()->xAxis->ticker().data());
    ASSERT_NE(ticker, nullptr);
    QStringList labels;
    for (const QString &label : ticker->ticks())
        labels << label;
    EXPECT_TRUE(labels.contains(QStringLiteral(" cab"))) << labels.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(labels.contains(QStringLiteral("inet")));
    EXPECT_FALSE(labels.join(QString()).contains(QStringLiteral("\u0120"))) << "the vocabulary's spelling (\u0120) on the axis";
}

// The overview's bands score each arc as a causal head sees it: the later word attending to
// the earlier one; a head doing that for every arc gets 1.0, and the caption says so.
TEST(DecoderViews, TheOverviewScoresACausalHeadInTheOnlyDirectionItSees)
{
    ensureApp();
    // Head 2: each word attends one word at or before it (rows sum to 1): keys → The,
    // cabinet → keys, are → keys; the others themselves.
    Matrix laterToEarlier(6, 6, 0.0f);
    const int earlier[] = {0, 0, 2, 3, 1, 1};
    for (int r = 0; r < 6; ++r)
        laterToEarlier.at(r, earlier[r]) = 1.0f;
    AttentionOverview view;
    view.setData({keysSentence(), decoderAnalysis(true, laterToEarlier)});
    ASSERT_EQ(view.gridLayers(), 1);
    ASSERT_EQ(view.gridHeads(), 2);
    // The arcs as (earlier, later): (The, keys) keys → The, hit; (keys, are) are → keys, hit;
    // (to, cabinet) and (the, cabinet) missed (cabinet → keys); (keys, cabinet) hit.
    EXPECT_DOUBLE_EQ(view.syntacticScore(0, 1), 3.0 / 5.0);
    // A chain (each word's head the word before it) and a head that attends the word before:
    // the later word attends the earlier one on every arc.
    Matrix everyArc(6, 6, 0.0f);
    for (int r = 0; r < 6; ++r)
        everyArc.at(r, std::max(0, r - 1)) = 1.0f;
    auto chain = keysSentence();
    chain->dependency = DependencyTree{{0, 1, 2, 3, 4, 5}, {"root", "dep", "dep", "dep", "dep", "dep"}};
    view.setData({chain, decoderAnalysis(true, everyArc)});
    EXPECT_DOUBLE_EQ(view.syntacticScore(0, 1), 1.0);
    EXPECT_EQ(view.syntacticLabel(0, 1), QStringLiteral("100% later\u2192earlier"));
    const QString caption = view.titleLines().join(QLatin1Char('\n'));
    EXPECT_TRUE(caption.contains(QStringLiteral("later word attends most (among the words before it) to the earlier one")))
        << caption.toStdString();
    EXPECT_TRUE(caption.contains(QStringLiteral("the only direction a causal head can see an arc in"))) << caption.toStdString();
    EXPECT_TRUE(caption.contains(QStringLiteral("best leftward fixed offset (-1: 100%)"))) << caption.toStdString();
    EXPECT_TRUE(caption.contains(QStringLiteral("hatched: not possible"))) << caption.toStdString();
    EXPECT_TRUE(std::isnan(view.cellValue(0, 1, 2, 4)));
    EXPECT_DOUBLE_EQ(view.cellValue(0, 1, 4, 3), 1.0);
    // The same attention read as a bidirectional model's: the usual dependent/head directions.
    view.setData({chain, decoderAnalysis(false, everyArc)});
    EXPECT_FALSE(view.syntacticLabel(0, 1).contains(QStringLiteral("later")));
    EXPECT_FALSE(view.titleLines().join(QLatin1Char('\n')).contains(QStringLiteral("causal")));
}

// The dependency view draws no attention arc to a later word of a causal model, whatever the
// threshold, colours a tree arc by its later word's attention to the earlier one, and says so.
TEST(DecoderViews, TheDependencyViewDrawsNoArcToALaterWord)
{
    ensureApp();
    DependencyView view;
    ViewState state;
    state.threshold = 0.0; // every pair, the zero weights too
    view.setState(state);
    view.setData({keysSentence(), decoderAnalysis()});
    const auto arcs = view.attentionArcItems();
    EXPECT_EQ(arcs.size(), 15u); // 6·5/2 pairs, each later word to each earlier one
    for (const auto &arc : arcs)
        EXPECT_LT(arc.to, arc.from) << arc.from << " -> " << arc.to;
    // The, keys: the dependent comes first; keys sees it as keys → The (weight 1/2).
    for (const auto &[item, pair] : view.treeArcItems())
        if (pair == std::make_pair(0, 1)) {
            EXPECT_EQ(static_cast<QGraphicsPathItem *>(item)->pen().color(), sequentialColor(0.5));
            EXPECT_TRUE(item->toolTip().contains(QStringLiteral("attention keys \u2192 The 0.500"))) << item->toolTip().toStdString();
            EXPECT_TRUE(item->toolTip().contains(QStringLiteral("the only direction a causal head sees this arc in")));
        }
    QStringList legend;
    for (QGraphicsItem *item : itemsOfKind(view.scene(), QStringLiteral("legend")))
        if (auto *text = dynamic_cast<QGraphicsSimpleTextItem *>(item))
            legend << text->text();
    EXPECT_TRUE(legend.join(QLatin1Char('\n')).contains(QStringLiteral("Attention to later words: not possible")))
        << legend.join(QLatin1Char('\n')).toStdString();
    // A bidirectional model's zero weights to later words are arcs at threshold 0, as before.
    view.setData({keysSentence(), decoderAnalysis(false)});
    EXPECT_EQ(view.attentionArcItems().size(), 30u);
}

// The band under the dependency view's words: one cell per word with the analysis' surprisal,
// its hover text, the first word hatched with the reason; the key with its unit; off on request.
TEST(DecoderViews, TheDependencyViewsSurprisalBandHasTheAnalysisValues)
{
    ensureApp();
    DependencyView view;
    const auto a = decoderAnalysis();
    view.setData({keysSentence(), a});
    const auto bands = view.surprisalBands();
    ASSERT_EQ(bands.size(), kWords.size());
    QString hovered;
    QObject::connect(&view, &DependencyView::hovered, [&](const QString &t) { hovered = t; });
    for (std::size_t w = 0; w < bands.size(); ++w) {
        auto *band = dynamic_cast<SurprisalBandItem *>(bands[w]);
        ASSERT_NE(band, nullptr);
        EXPECT_EQ(band->word(), static_cast<int>(w));
        EXPECT_EQ(band->data(1).toInt(), static_cast<int>(w));
        const QRectF word = view.wordItems()[w]->sceneBoundingRect();
        EXPECT_GE(band->rect().top(), word.bottom()) << "the band is under the word";
        EXPECT_EQ(band->toolTip(), band->text());
        QGraphicsSceneHoverEvent enter(QEvent::GraphicsSceneHoverEnter);
        view.scene()->sendEvent(band, &enter);
        EXPECT_EQ(hovered, band->text());
        if (w == 0) {
            EXPECT_TRUE(band->hatched());
            EXPECT_TRUE(band->text().contains(QStringLiteral("no prediction: its pieces include the sequence's first piece")))
                << band->text().toStdString();
            continue;
        }
        EXPECT_DOUBLE_EQ(band->nats(), a->surprisal[w]);
        EXPECT_FALSE(band->hatched());
        EXPECT_EQ(band->brush().color(), SurprisalScale(a.get()).color(a->surprisal[w]));
    }
    EXPECT_EQ(dynamic_cast<SurprisalBandItem *>(bands[1])->text(),
              QStringLiteral("surprisal of \u201ckeys\u201d: 1.50 nats = \u2212log p(\u201ckeys\u201d | \u201cThe\u201d)"));
    // cabinet: pieces 4 and 5 (1 + 0.5·4 = 3, 3.5): 6.50 nats.
    EXPECT_EQ(dynamic_cast<SurprisalBandItem *>(bands[4])->text(),
              QStringLiteral("surprisal of \u201ccabinet\u201d: 6.50 nats = \u2212log p(\u201ccabinet\u201d | \u201cThe keys to the\u201d); "
                             "its pieces: \u201c cab\u201d 3.00 + \u201cinet\u201d 3.50"));
    QStringList key;
    for (QGraphicsItem *item : itemsOfKind(view.scene(), QStringLiteral("surprisal-key")))
        if (auto *text = dynamic_cast<QGraphicsSimpleTextItem *>(item))
            key << text->text();
    EXPECT_TRUE(key.contains(QStringLiteral("surprisal, nats"))) << key.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(key.contains(QStringLiteral("no prediction (first piece)")));
    EXPECT_TRUE(view.notes().join(QLatin1Char('\n')).contains(QStringLiteral("surprisal")));
    renderImage(view).save(QStringLiteral("/tmp/decoder-dependency.png"));

    view.setShowSurprisal(false);
    EXPECT_TRUE(view.surprisalBands().empty());
    EXPECT_TRUE(itemsOfKind(view.scene(), QStringLiteral("surprisal-key")).empty());
    view.setShowSurprisal(true);
    auto bare = std::make_shared<Analysis>(*a);
    bare->surprisal.clear();
    view.setData({keysSentence(), bare});
    EXPECT_TRUE(view.surprisalBands().empty());
}

// The same band under the constituency view's leaves.
TEST(DecoderViews, TheConstituencyViewsSurprisalBandHasTheAnalysisValues)
{
    ensureApp();
    ConstituencyView view;
    const auto a = decoderAnalysis();
    view.setData({keysSentence(), a});
    const auto bands = view.surprisalBands();
    ASSERT_EQ(bands.size(), kWords.size());
    const auto leaves = view.leafItems();
    ASSERT_EQ(leaves.size(), kWords.size());
    for (std::size_t w = 0; w < bands.size(); ++w) {
        EXPECT_EQ(bands[w]->word(), static_cast<int>(w));
        EXPECT_GE(bands[w]->rect().top(), leaves[w]->sceneBoundingRect().bottom()) << "the band is under the leaf";
        EXPECT_EQ(bands[w]->data(0).toString(), bands[w]->text()); // the view's hover text
        EXPECT_EQ(bands[w]->text(), SurprisalScale(a.get()).wordText(static_cast<int>(w)));
        if (w == 0)
            EXPECT_TRUE(bands[w]->hatched());
        else
            EXPECT_DOUBLE_EQ(bands[w]->nats(), a->surprisal[w]);
    }
    EXPECT_TRUE(view.notes().join(QLatin1Char('\n')).contains(QStringLiteral("surprisal")));
    renderImage(view).save(QStringLiteral("/tmp/decoder-constituency.png"));
    view.setShowSurprisal(false);
    EXPECT_TRUE(view.surprisalBands().empty());
}

// The surprisal view: one bar per word, stacked by its pieces, the unpredicted word marked.
TEST(DecoderViews, TheSurprisalViewHasOneBarPerWordStackedByPieces)
{
    ensureApp();
    SurprisalView view;
    const auto a = decoderAnalysis();
    view.setData({keysSentence(), a});
    const QSizeF size = view.sizeHint();
    const auto bars = view.bars(size);
    ASSERT_EQ(bars.size(), kWords.size());
    EXPECT_FALSE(bars[0].predicted);
    EXPECT_TRUE(bars[0].segments.empty());
    EXPECT_TRUE(view.textAt(bars[0].rect.center(), size).contains(QStringLiteral("no prediction")));
    double perNat = 0.0;
    int piece = 1;
    for (std::size_t w = 1; w < bars.size(); ++w) {
        const auto &bar = bars[w];
        EXPECT_TRUE(bar.predicted);
        EXPECT_DOUBLE_EQ(bar.nats, a->surprisal[w]);
        ASSERT_EQ(bar.segments.size(), kPieces[w].size()) << "word " << w;
        double bottom = bar.rect.bottom();
        for (const auto &s : bar.segments) {
            EXPECT_EQ(s.piece, piece);
            EXPECT_DOUBLE_EQ(s.nats, a->pieceSurprisal[static_cast<std::size_t>(piece)]);
            EXPECT_NEAR(s.rect.bottom(), bottom, 1e-6) << "stacked from the bottom";
            bottom = s.rect.top();
            EXPECT_TRUE(view.textAt(s.rect.center(), size).startsWith(QStringLiteral("piece")));
            ++piece;
        }
        EXPECT_NEAR(bottom, bar.rect.top(), 1e-6) << "the pieces make the bar";
        // One scale: the height per nat is the same for every bar.
        if (perNat == 0.0)
            perNat = bar.rect.height() / bar.nats;
        EXPECT_NEAR(bar.rect.height() / bar.nats, perNat, 1e-6);
    }
    EXPECT_TRUE(view.textAt(bars[4].segments[1].rect.center(), size).contains(QStringLiteral("\u201cinet\u201d")));
    EXPECT_TRUE(view.title().contains(QStringLiteral("log p(sentence) = \u2212%1 nats").arg(-*a->logprob, 0, 'f', 2)))
        << view.title().toStdString();
    EXPECT_TRUE(view.title().contains(QStringLiteral("mean surprisal"))) << view.title().toStdString();
    EXPECT_EQ(SurprisalView::axisLabel(), QStringLiteral("surprisal (nats)"));
    const QImage img = renderImage(view);
    img.save(QStringLiteral("/tmp/decoder-surprisal.png"));
    // The unpredicted word's column is hatched (grey), not a bar of 0.
    const QPointF c = bars[0].rect.center() * (img.width() / size.width());
    int grey = 0;
    for (int dy = -20; dy <= 20; ++dy) {
        const QColor px = img.pixelColor(static_cast<int>(c.x()), static_cast<int>(c.y()) + dy);
        grey += px.red() == px.green() && px.green() == px.blue() && px.red() < 250;
    }
    EXPECT_GT(grey, 10);
    // No surprisal: no bars.
    auto bare = std::make_shared<Analysis>(*a);
    bare->surprisal.clear();
    view.setData({keysSentence(), bare});
    EXPECT_TRUE(view.bars(size).empty());
}
