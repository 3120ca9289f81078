#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QPdfWriter>

#include <gtest/gtest.h>

#include "viz/attentionheatmap.h"
#include "viz/attentionoverview.h"
#include "viz/priorheatmap.h"
#include "viz/qcustomplot.h"
#include "testanalysis.h"

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

using test::attnValue;
using test::makeAnalysis;
using test::priorValue;
using test::rawValue;

const std::vector<std::string> kShort = {"the", "cat", "sat", "on", "the", "mat", "today", "."};

std::vector<std::string> longSentence(int n)
{
    static const char *pool[] = {"the", "committee", "said", "that", "its", "members", "would", "consider",
                                 "a", "new", "proposal", "on", "Friday", "after", "lengthy", "debate", ","};
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
        out.push_back(pool[i % 17]);
    out.back() = ".";
    return out;
}

QImage renderImage(ExportableView &view, double scale = 1.0)
{
    const QSizeF size = view.exportSize();
    QImage img((size * scale).toSize(), QImage::Format_ARGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    view.renderTo(&p, QRectF(QPointF(0, 0), size * scale));
    p.end();
    return img;
}

int nonWhitePixels(const QImage &img)
{
    int count = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            if ((img.pixel(x, y) & 0xFFFFFF) != 0xFFFFFF)
                ++count;
    return count;
}

/// Lays a view out on the offscreen screen so pixel positions are real.
void showAndLayout(QWidget &w, QCustomPlot *plot)
{
    w.resize(900, 760);
    w.show();
    QApplication::processEvents();
    plot->replot();
    QApplication::processEvents();
    plot->replot();
}

/// A fresh prior (true) or attention (false) heatmap, for tests that check both.
std::unique_ptr<HeatmapView> makeHeatmap(bool prior)
{
    if (prior)
        return std::make_unique<PriorHeatmap>();
    return std::make_unique<AttentionHeatmap>();
}

void sendMouse(QWidget *target, QEvent::Type type, const QPointF &pos)
{
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    const Qt::MouseButtons buttons = type == QEvent::MouseButtonPress ? Qt::LeftButton : Qt::NoButton;
    QMouseEvent ev(type, pos, target->mapToGlobal(pos), button, buttons, Qt::NoModifier);
    QApplication::sendEvent(target, &ev);
}

} // namespace

TEST(HeatmapView, PriorCellsAreTheMatrixOfTheSelectedLayer)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 3, 2);
    PriorHeatmap view;
    view.setData({nullptr, a});
    const int n = static_cast<int>(a->tokens.size());
    for (int layer = 0; layer < 3; ++layer) {
        ViewState s;
        s.layer = layer;
        view.setState(s);
        ASSERT_EQ(view.rowCount(), n);
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c)
                ASSERT_FLOAT_EQ(view.cellValue(r, c), a->constituentPrior[layer].at(r, c)) << layer << " " << r << " " << c;
    }
    // Layer 0 and layer 1 differ (hand values), and the view follows.
    ViewState s;
    s.layer = 1;
    view.setState(s);
    EXPECT_FLOAT_EQ(view.cellValue(2, 5), priorValue(1, 2, 5));
    EXPECT_NE(view.cellValue(2, 5), priorValue(0, 2, 5));
    // Row 0 is drawn at the top: the y axis is reversed.
    EXPECT_TRUE(view.plot()->yAxis->rangeReversed());
    EXPECT_EQ(view.exportName(), QStringLiteral("prior"));
}

TEST(HeatmapView, AttentionFollowsHeadAndWeighting)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 2, 3);
    AttentionHeatmap view;
    view.setData({nullptr, a});
    const int n = static_cast<int>(a->tokens.size());
    for (bool weighted : {true, false}) {
        ViewState s;
        s.layer = 1;
        s.head = 2;
        s.weightedAttention = weighted;
        view.setState(s);
        ASSERT_EQ(view.rowCount(), n);
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) {
                const float expected = weighted ? a->attention[1][2].at(r, c) : a->attentionRaw[1][2].at(r, c);
                ASSERT_FLOAT_EQ(view.cellValue(r, c), expected);
            }
    }
    // A head that does not exist: nothing plotted.
    ViewState s;
    s.head = 7;
    view.setState(s);
    EXPECT_EQ(view.rowCount(), 0);
    EXPECT_TRUE(std::isnan(view.cellValue(0, 0)));
}

TEST(HeatmapView, BracketBoxesAreTheInducedBracketsOverTokens)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 2, 1);
    a->inducedBrackets = {{0, 2}, {2, 6}, {3, 6}, {4, 6}};
    PriorHeatmap prior;
    prior.setData({nullptr, a});
    EXPECT_EQ(prior.bracketBoxes(), a->inducedBrackets);

    // The boxes sit on the tokens of their words: with [CLS] first, word w is token w + 1,
    // so [0, 2) covers token cells 1..2, i.e. coordinates 0.5 .. 2.5.
    std::set<std::pair<double, double>> corners;
    for (int i = 0; i < prior.plot()->itemCount(); ++i)
        if (auto *rect = qobject_cast<QCPItemRect *>(prior.plot()->item(i)))
            corners.insert({rect->topLeft->coords().x(), rect->bottomRight->coords().x()});
    const std::set<std::pair<double, double>> expected = {{0.5, 2.5}, {2.5, 6.5}, {3.5, 6.5}, {4.5, 6.5}};
    EXPECT_EQ(corners, expected);

    // Attention maps carry no brackets (nor any other item).
    AttentionHeatmap attention;
    attention.setData({nullptr, a});
    EXPECT_EQ(attention.plot()->itemCount(), 0);
}

TEST(HeatmapView, HoverReportsTheExactValue)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 2, 1);
    PriorHeatmap view;
    view.setData({nullptr, a});
    ViewState s;
    s.layer = 1;
    view.setState(s);
    showAndLayout(view, view.plot());
    QString text;
    QObject::connect(&view, &HeatmapView::hovered, [&](const QString &t) { text = t; });
    // Row 2 (token "cat"), column 3 (token "sat").
    const QPointF pos(view.plot()->xAxis->coordToPixel(3), view.plot()->yAxis->coordToPixel(2));
    sendMouse(view.plot(), QEvent::MouseMove, pos);
    const QString value = QString::number(static_cast<double>(priorValue(1, 2, 3)), 'f', 4);
    EXPECT_EQ(text, QStringLiteral("C[cat][sat] = %1, layer 2").arg(value));
}

TEST(HeatmapView, LargeMatrixBuilds)
{
    ensureApp();
    auto a = makeAnalysis(longSentence(255), 1, 1); // 256 tokens with [CLS]
    QElapsedTimer timer;
    timer.start();
    AttentionHeatmap view;
    view.setData({nullptr, a});
    view.resize(900, 800);
    view.plot()->replot();
    const qint64 built = timer.elapsed();
    EXPECT_EQ(view.rowCount(), 256);
    EXPECT_FLOAT_EQ(view.cellValue(255, 17), a->attention[0][0].at(255, 17));
    timer.restart();
    const QImage img = renderImage(view);
    std::printf("256x256 heatmap: built and plotted in %lld ms, rendered in %lld ms\n",
                static_cast<long long>(built), static_cast<long long>(timer.elapsed()));
    EXPECT_GT(nonWhitePixels(img), img.width() * img.height() / 4);
    img.save(QStringLiteral("/tmp/heatmap-attention-256.png"));
}

TEST(HeatmapView, RenderToPaints)
{
    ensureApp();
    for (const auto &words : {kShort, longSentence(40)}) {
        auto a = makeAnalysis(words, 3, 2);
        // Brackets in the spirit of a binary tree over the sentence.
        const int nw = static_cast<int>(words.size());
        for (int span = 2; span < nw; span *= 2)
            for (int s = 0; s + span <= nw; s += span)
                a->inducedBrackets.push_back({s, s + span});
        std::sort(a->inducedBrackets.begin(), a->inducedBrackets.end());
        for (bool prior : {true, false}) {
            const auto view = makeHeatmap(prior);
            view->setData({nullptr, a});
            ViewState s;
            s.layer = 1;
            s.head = 1;
            view->setState(s);
            const QImage img = renderImage(*view);
            EXPECT_GT(nonWhitePixels(img), img.width() * img.height() / 10);
            img.save(QStringLiteral("/tmp/heatmap-%1-%2.png").arg(view->exportName()).arg(nw));
            // Shown in a window as well (the widget path, not only export).
            if (prior) {
                showAndLayout(*view, view->plot());
                view->grab().save(QStringLiteral("/tmp/heatmap-widget-%1.png").arg(nw));
            }
        }
    }
}

TEST(HeatmapView, RenderToPdfIsVector)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 2, 1);
    a->inducedBrackets = {{0, 2}, {2, 6}};
    PriorHeatmap view;
    view.setData({nullptr, a});
    const QString path = QStringLiteral("/tmp/heatmap-prior.pdf");
    {
        QPdfWriter pdf(path);
        const QSizeF size = view.exportSize();
        pdf.setPageSize(QPageSize(size, QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        QPainter p(&pdf);
        view.renderTo(&p, QRectF(QPointF(0, 0), size));
    }
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_GT(f.size(), 1000);
}

TEST(AttentionOverview, GridMatchesLayersAndHeads)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 3, 4);
    AttentionOverview view;
    view.setData({nullptr, a});
    EXPECT_EQ(view.gridLayers(), 3);
    EXPECT_EQ(view.gridHeads(), 4);
    EXPECT_FLOAT_EQ(view.cellValue(2, 1, 4, 6), a->attention[2][1].at(4, 6));
    EXPECT_FLOAT_EQ(view.cellValue(0, 3, 8, 0), a->attention[0][3].at(8, 0));
    ViewState s;
    s.weightedAttention = false;
    view.setState(s);
    EXPECT_FLOAT_EQ(view.cellValue(2, 1, 4, 6), a->attentionRaw[2][1].at(4, 6));
    // 12 x 12 still works.
    auto big = makeAnalysis(longSentence(40), 12, 12);
    QElapsedTimer timer;
    timer.start();
    view.setData({nullptr, big});
    std::printf("12x12 overview of 41 tokens built in %lld ms\n", static_cast<long long>(timer.elapsed()));
    EXPECT_EQ(view.gridLayers(), 12);
    EXPECT_EQ(view.gridHeads(), 12);
    EXPECT_FLOAT_EQ(view.cellValue(11, 11, 40, 39), big->attentionRaw[11][11].at(40, 39));
}

TEST(AttentionOverview, ClickingACellActivatesItsLayerAndHead)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 3, 4);
    AttentionOverview view;
    view.setData({nullptr, a});
    showAndLayout(view, view.plot());
    std::vector<std::pair<int, int>> activated;
    QObject::connect(&view, &AttentionOverview::cellActivated, [&](int l, int h) { activated.emplace_back(l, h); });
    QString hover;
    QObject::connect(&view, &AttentionOverview::hovered, [&](const QString &t) { hover = t; });

    // Identify every map by its data (values are distinct per layer/head), then
    // click the middle of its axis rect.
    int clicked = 0;
    for (QCPAxisRect *rect : view.plot()->axisRects()) {
        auto plottables = rect->plottables();
        if (plottables.isEmpty())
            continue;
        auto *map = qobject_cast<QCPColorMap *>(plottables.front());
        ASSERT_NE(map, nullptr);
        int layer = -1, head = -1;
        for (int l = 0; l < 3; ++l)
            for (int h = 0; h < 4; ++h)
                if (map->data()->cell(2, 1) == static_cast<double>(a->attention[l][h].at(1, 2)) &&
                    map->data()->cell(5, 3) == static_cast<double>(a->attention[l][h].at(3, 5)))
                    layer = l, head = h;
        ASSERT_GE(layer, 0);
        activated.clear();
        sendMouse(view.plot(), QEvent::MouseButtonPress, QPointF(rect->rect().center()));
        sendMouse(view.plot(), QEvent::MouseButtonRelease, QPointF(rect->rect().center()));
        ASSERT_EQ(activated.size(), 1u);
        EXPECT_EQ(activated.front(), std::make_pair(layer, head));
        ++clicked;
        if (layer == 2 && head == 1) {
            // Hover over row 3 ("sat"), column 5 ("the"): token indices, [CLS] is token 0.
            const QPointF pos(rect->axis(QCPAxis::atBottom)->coordToPixel(5), rect->axis(QCPAxis::atLeft)->coordToPixel(3));
            sendMouse(view.plot(), QEvent::MouseMove, pos);
            EXPECT_TRUE(hover.startsWith(QStringLiteral("Layer 3, head 2: attention[sat \u2192 the] = %1")
                                             .arg(static_cast<double>(a->attention[2][1].at(3, 5)), 0, 'f', 4)))
                << hover.toStdString();
        }
    }
    EXPECT_EQ(clicked, 12);
}

TEST(AttentionOverview, RenderToPaints)
{
    ensureApp();
    for (int words : {8, 40}) {
        auto a = makeAnalysis(longSentence(words), words == 8 ? 3 : 12, words == 8 ? 4 : 12);
        AttentionOverview view;
        view.setData({nullptr, a});
        ViewState s;
        s.layer = 1;
        s.head = 2;
        view.setState(s);
        const QImage img = renderImage(view);
        EXPECT_GT(nonWhitePixels(img), img.width() * img.height() / 10);
        img.save(QStringLiteral("/tmp/heatmap-overview-%1.png").arg(words));
        showAndLayout(view, view.plot());
        view.grab().save(QStringLiteral("/tmp/heatmap-overview-widget-%1.png").arg(words));
    }
}
// The band under each map: how syntactic the head is on the sentence's tree, worked
// out by hand. "the cat sat down ." with the arcs the→cat, cat→sat, down→sat, .→sat
// (sat is the root). Head 0: every word attends to its head, sat to down: d→h 4 of 4
// (100%), h→d 1 (sat→down). Head 1: every word attends to the next, . to the:
// d→h the→cat, cat→sat = 2 of 4 (50%); h→d only sat→down = 1. Fixed offsets of the
// arcs: +1, +1, −1, −2: the best is +1 with 2 of 4 (50%).
TEST(AttentionOverview, BandsSayHowSyntacticEachHeadIs)
{
    ensureApp();
    auto sentence = std::make_shared<Sentence>();
    for (const char *w : {"the", "cat", "sat", "down", "."}) {
        Token t;
        t.text = w;
        sentence->tokens.push_back(t);
    }
    sentence->dependency = DependencyTree{{2, 3, 0, 3, 3}, {"det", "nsubj", "root", "compound:prt", "punct"}};
    auto a = std::make_shared<Analysis>();
    a->words = sentence->words();
    a->tokens = a->words;
    a->wordToken = {0, 1, 2, 3, 4};
    a->layers = 1;
    a->heads = 2;
    Matrix toHead(5, 5, 0.0f), toNext(5, 5, 0.0f);
    const int head[] = {1, 2, 3, 2, 2};
    for (int i = 0; i < 5; ++i) {
        toHead.at(i, head[i]) = 1.0f;
        toNext.at(i, (i + 1) % 5) = 1.0f;
    }
    a->attention = {{toHead, toNext}};
    AttentionOverview view;
    view.setData({sentence, a});
    EXPECT_DOUBLE_EQ(view.syntacticScore(0, 0), 1.0);
    EXPECT_EQ(view.syntacticLabel(0, 0), QStringLiteral("100% d\u2192h"));
    EXPECT_DOUBLE_EQ(view.syntacticScore(0, 1), 0.5);
    EXPECT_EQ(view.syntacticLabel(0, 1), QStringLiteral("50% d\u2192h"));
    EXPECT_DOUBLE_EQ(view.offsetBaseline(), 0.5);
    const QString note = view.titleLines().join(QLatin1Char('\n'));
    EXPECT_TRUE(note.contains(QStringLiteral("of the 4 arcs of the parsed dependency tree"))) << note.toStdString();
    EXPECT_TRUE(note.contains(QStringLiteral("best fixed offset (+1: 50%)"))) << note.toStdString();
    sentence->setMetadata("dependency_source", "gold");
    view.setData({sentence, a});
    EXPECT_TRUE(view.titleLines().join(QLatin1Char('\n')).contains(QStringLiteral("gold dependency tree")));
    sentence->setMetadata("dependency_source", "edited");
    view.setData({sentence, a});
    EXPECT_TRUE(view.titleLines().join(QLatin1Char('\n')).contains(QStringLiteral("edited dependency tree")));
    renderImage(view).save(QStringLiteral("/tmp/overview-bands.png"));

    // Without a tree, or with one of other words, there is no band.
    auto bare = std::make_shared<Sentence>(*sentence);
    bare->dependency.reset();
    view.setData({bare, a});
    EXPECT_TRUE(std::isnan(view.syntacticScore(0, 0)));
    EXPECT_TRUE(view.syntacticLabel(0, 0).isEmpty());
    auto shorter = std::make_shared<Sentence>(*sentence);
    shorter->dependency = DependencyTree{{2, 0}, {"det", "root"}};
    view.setData({shorter, a});
    EXPECT_TRUE(std::isnan(view.syntacticScore(0, 1)));
    EXPECT_TRUE(std::isnan(view.offsetBaseline()));
}

namespace {
/// Bottom-right corner of the painted content.
QPoint paintedExtent(ExportableView &view, int dpi)
{
    const QSizeF size = view.exportSize();
    QImage img(size.toSize(), QImage::Format_ARGB32);
    img.setDotsPerMeterX(static_cast<int>(std::lround(dpi / 0.0254)));
    img.setDotsPerMeterY(static_cast<int>(std::lround(dpi / 0.0254)));
    img.fill(Qt::white);
    {
        QPainter p(&img);
        view.renderTo(&p, QRectF(QPointF(0, 0), size));
    }
    QPoint extent(0, 0);
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            if ((img.pixel(x, y) & 0xFFFFFF) != 0xFFFFFF)
                extent = QPoint(std::max(extent.x(), x), std::max(extent.y(), y));
    return extent;
}
} // namespace

// The exporter paints PDF at 72 dpi and PNG at 300 dpi: the plot must fill the
// same target whatever the device resolution.
TEST(HeatmapView, RenderFillsTargetAtAnyDpi)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 2, 2);
    PriorHeatmap heatmap;
    heatmap.setData({nullptr, a});
    AttentionOverview overview;
    overview.setData({nullptr, a});
    for (ExportableView *view : std::initializer_list<ExportableView *>{&heatmap, &overview}) {
        const QPoint at96 = paintedExtent(*view, 96);
        const QSizeF size = view->exportSize();
        EXPECT_GT(at96.x(), size.width() * 0.9);
        EXPECT_GT(at96.y(), size.height() * 0.9);
        for (int dpi : {72, 300}) {
            const QPoint other = paintedExtent(*view, dpi);
            EXPECT_NEAR(other.x(), at96.x(), 3) << dpi;
            EXPECT_NEAR(other.y(), at96.y(), 3) << dpi;
        }
    }
}

TEST(HeatmapView, TheBracketBoxesHaveAKeyAndTheScaleSaysWhatRowsSumTo)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 2, 1);
    PriorHeatmap prior;
    prior.setData({nullptr, a});
    EXPECT_TRUE(prior.titleLines().isEmpty()); // no boxes, no key
    a->inducedBrackets = {{0, 2}, {2, 6}};
    prior.setData({nullptr, a});
    ASSERT_EQ(prior.titleLines().size(), 1);
    EXPECT_TRUE(prior.titleLines()[0].startsWith(QStringLiteral("the model's induced tree: one box per bracket")))
        << prior.titleLines()[0].toStdString();

    AttentionHeatmap attention;
    attention.setData({nullptr, a});
    ViewState s;
    s.weightedAttention = true;
    attention.setState(s);
    // The colour scale names the quantity; what a row sums to is a line under the title
    // (a long scale label ran past both ends of the bar).
    EXPECT_EQ(attention.scaleLabel(), QStringLiteral("attention \u00d7 C"));
    EXPECT_TRUE(attention.titleLines().join(QLatin1Char('|')).contains(QStringLiteral("colour: attention \u00d7 C (rows sum to less than 1)")))
        << attention.titleLines().join(QLatin1Char('|')).toStdString();
    s.weightedAttention = false;
    attention.setState(s);
    EXPECT_EQ(attention.scaleLabel(), QStringLiteral("attention weight"));
    EXPECT_TRUE(attention.titleLines().join(QLatin1Char('|')).contains(QStringLiteral("colour: attention weight (rows sum to 1)")))
        << attention.titleLines().join(QLatin1Char('|')).toStdString();
}

TEST(HeatmapView, APlainTransformerHasNoPriorToShowAndSaysSo)
{
    ensureApp();
    auto a = makeAnalysis(kShort, 2, 1);
    a->constituentPrior.clear();
    a->attentionRaw.clear();
    a->architecture = "a plain Transformer"; // as the Tree Transformer with its prior off says
    PriorHeatmap prior;
    prior.setData({nullptr, a});
    EXPECT_EQ(prior.rowCount(), 0);
    EXPECT_TRUE(prior.titleLines().contains(QStringLiteral("This model has no constituent prior (a plain Transformer): no "
                                                           "prior C, no cohesion, no link probabilities and no induced "
                                                           "tree to show")))
        << prior.titleLines().join(QLatin1Char('|')).toStdString();
    // Its attention is a plain softmax: rows sum to 1.
    AttentionHeatmap attention;
    attention.setData({nullptr, a});
    EXPECT_EQ(attention.scaleLabel(), QStringLiteral("attention weight"));
    EXPECT_EQ(attention.titleLines().size(), 1);
    EXPECT_TRUE(attention.titleLines().value(0).startsWith(QStringLiteral("colour: attention weight (rows sum to 1)")))
        << attention.titleLines().join(QLatin1Char('|')).toStdString();
}

TEST(HeatmapView, EveryScaleLabelFitsItsBarAndEightWordsKeepEveryLabelInASmallPane)
{
    // Issue 30: colour-bar titles were cut at both ends; the app's heatmaps dropped every
    // other token label even for 8 words (the plots' tab is short under the trees).
    ensureApp();
    auto a = makeAnalysis(kShort, 2, 1);
    for (bool prior : {true, false}) {
        const auto view = makeHeatmap(prior);
        view->resize(520, 300);
        view->setData({nullptr, a});
        view->show();
        view->plot()->replot();
        QApplication::processEvents();
        view->plot()->replot();
        const QFontMetricsF fm(view->plot()->axisRect()->axis(QCPAxis::atBottom)->labelFont());
        const double labelWidth = fm.horizontalAdvance(view->scaleLabel());
        const double barHeight = view->plot()->axisRect()->height();
        EXPECT_LE(labelWidth, barHeight) << view->scaleLabel().toStdString() << " (" << labelWidth << " px) on a "
                                         << barHeight << " px bar";
        EXPECT_EQ(view->tickStep(), 1) << "tokens " << view->rowCount() << ", tick font " << view->tickPointSize() << " pt";
        EXPECT_GE(view->tickPointSize(), 6.5);
    }
}

TEST(HeatmapView, AWideShortPaneLabelsEveryColumnOfSeventeenTokens)
{
    // Issue 47: in the app at 1600 x 1000 the plots' pane is wide and short; both axes were
    // thinned for the shorter one, so 9 of 17 tokens had labels on the columns as well.
    ensureApp();
    const std::vector<std::string> words = {"The", "committee", "members", "who", "had", "argued", "about", "the",
                                            "budget", "finally", "agreed", "on", "a", "new", "library", "."};
    auto a = makeAnalysis(words, 2, 1); // 17 tokens with [CLS]
    for (bool prior : {true, false}) {
        const auto view = makeHeatmap(prior);
        view->resize(900, 230);
        view->setData({nullptr, a});
        view->show();
        view->plot()->replot();
        QApplication::processEvents();
        view->plot()->replot();
        ASSERT_EQ(view->rowCount(), 17);
        EXPECT_EQ(view->columnTickStep(), 1) << view->plot()->axisRect()->width() << " px wide";
        EXPECT_GE(view->tickStep(), 1);
    }
}

TEST(HeatmapView, GroupAttentionSaysWhatItsBlocksAre)
{
    // Issue 30: the GGSA attention figure's block edges (its groups) were not explained.
    ensureApp();
    auto a = makeAnalysis(kShort, 1, 2);
    const int n = static_cast<int>(a->tokens.size());
    NamedArray gid{{2, n}, {}};
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < n; ++i)
            gid.data.push_back(static_cast<float>(h == 0 ? i / 4 : (i + 2) / 4)); // head 2: offset 2
    a->gates["token_groups.group_id"] = gid;
    a->gates["token_groups.offsets"] = NamedArray{{2}, {0.0f, 2.0f}};
    AttentionHeatmap attention;
    attention.setData({nullptr, a});
    ViewState s;
    s.head = 1;
    attention.setState(s);
    const QString lines = attention.titleLines().join(QLatin1Char('|'));
    EXPECT_TRUE(lines.contains(QStringLiteral("groups of up to 4 tokens, this head's first group cut at offset 2")))
        << lines.toStdString();
    a->gates.clear();
    attention.setData({nullptr, a});
    EXPECT_FALSE(attention.titleLines().join(QLatin1Char('|')).contains(QStringLiteral("group attention")));
}

namespace {
/// Dark pixels in the two outermost columns on each side: text there runs off the figure.
int edgeInk(const QImage &img)
{
    int ink = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x : {0, 1, img.width() - 2, img.width() - 1})
            ink += qGray(img.pixel(x, y)) < 200;
    return ink;
}
} // namespace

TEST(HeatmapView, AShortSentencesFigureIsWideEnoughForItsTitleLines)
{
    // Issue 30: the prior's key (and the attention figures' titles) were cut at the figure's
    // edges for short sentences: the lines wrap at a fixed width wider than the figure.
    ensureApp();
    auto a = makeAnalysis({"Dogs", "bark", "."}, 2, 1);
    a->inducedBrackets = {{1, 3}};
    a->unknownWords = std::vector<int>{0};
    for (bool prior : {true, false}) {
        const auto view = makeHeatmap(prior);
        view->setData({nullptr, a});
        const QImage img = renderImage(*view);
        EXPECT_EQ(edgeInk(img), 0) << view->exportName().toStdString() << ": " << img.width() << " px wide";
    }
    AttentionOverview overview;
    overview.setData({nullptr, a});
    const QImage img = renderImage(overview);
    EXPECT_EQ(edgeInk(img), 0) << "overview: " << img.width() << " px wide";
}

TEST(HeatmapView, AWordPieceModelsRowsSayWhenPartOfThemIsElsewhere)
{
    // Issue 32: a word-piece model's word matrix with its special tokens folded away (or one
    // sentence of a pair) keeps only part of each row; the note says so, from the rows.
    ensureApp();
    auto a = std::make_shared<Analysis>();
    a->tokens = {"a", "b"};
    a->words = {"a", "b"};
    a->wordToken = {0, 1};
    a->pieces = {"[CLS]", "a", "b", "[SEP]"};
    a->pieceToken = {-1, 0, 1, -1};
    a->layers = a->heads = 1;
    Matrix whole(2, 2, 0.5f), part(2, 2, 0.25f);
    a->attention = {{whole}};
    AttentionHeatmap attention;
    attention.setData({nullptr, a});
    EXPECT_TRUE(attention.titleLines().value(0).startsWith(QStringLiteral("colour: attention weight (rows sum to 1)")))
        << attention.titleLines().join(QLatin1Char('|')).toStdString();
    a->attention = {{part}};
    attention.setData({nullptr, a});
    EXPECT_TRUE(attention.titleLines().value(0).startsWith(QStringLiteral("colour: attention weight (rows sum to less than 1)")))
        << attention.titleLines().join(QLatin1Char('|')).toStdString();
}

TEST(PieceHeatmap, ShowsThePiecesAttentionLabelledWithThePieces)
{
    // The word-piece view: the attention between the pieces of the selected layer/head, as the
    // model computed it (its hover names pieces, not words; its title no ×C variant).
    ensureApp();
    auto a = makeAnalysis(kShort, 2, 2);
    a->pieces = {"[CLS]", "the", "cat", "sa", "##t", "."};
    const int n = static_cast<int>(a->pieces.size());
    a->pieceAttention.assign(2, std::vector<Matrix>(2, Matrix(n, n, 0.0f)));
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h)
            for (int r = 0; r < n; ++r)
                a->pieceAttention[l][h].at(r, (r + l + h) % n) = 1.0f;
    PieceHeatmap view;
    view.setData({nullptr, a});
    ViewState s;
    s.layer = 1;
    s.head = 0;
    view.setState(s);
    ASSERT_EQ(view.rowCount(), n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            ASSERT_FLOAT_EQ(view.cellValue(r, c), a->pieceAttention[1][0].at(r, c)) << r << " " << c;
    EXPECT_EQ(view.exportName(), QStringLiteral("pieces"));
    EXPECT_EQ(view.plot()->xAxis->label(), QStringLiteral("key piece (attended to)"));
    EXPECT_EQ(view.plot()->yAxis->label(), QStringLiteral("query piece (attending)"));
    EXPECT_TRUE(view.titleLines().contains(
        QStringLiteral("as the model computed it; the trees and the Attention tab pool it per word")))
        << view.titleLines().join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(view.cellText(3, 4).startsWith(QStringLiteral("attention[sa \u2192 ##t] = 1.0000, layer 2, head 1")))
        << view.cellText(3, 4).toStdString();
    EXPECT_TRUE(view.cellText(3, 4).endsWith(QStringLiteral("; row sum 1.000"))) << view.cellText(3, 4).toStdString();

    // Without pieces' attention: nothing to show, and the title says so.
    a->pieceAttention.clear();
    view.setData({nullptr, a});
    EXPECT_EQ(view.rowCount(), 0);
    EXPECT_TRUE(view.cellText(0, 0).isEmpty());
}
