// The Minimal pairs dock's two views (issue 46), on hand-made data: the pair on its tree
// (minimalpairview.h) and the head sweep's heatmap (sweepheatmap.h).
#include <cmath>
#include <limits>

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <gtest/gtest.h>

#include "viz/minimalpairview.h"
#include "viz/sweepheatmap.h"
#include "ui/uitestapp.h"

using namespace treelens;

namespace {

void ensureApp() { test::uiApp(); }

QImage rendered(ExportableView &view)
{
    const QSizeF s = view.exportSize();
    QImage img(QSize(static_cast<int>(s.width()), static_cast<int>(s.height())), QImage::Format_RGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    view.renderTo(&p, QRectF(QPointF(0, 0), s));
    return img;
}

PairDrawing keysPair()
{
    PairDrawing d;
    d.id = QStringLiteral("7");
    d.phenomenon = QStringLiteral("agreement");
    d.goodWords = {"The", "keys", "are", "here"};
    d.badWords = {"The", "keys", "is", "here"};
    d.goodSurprisal = {std::numeric_limits<double>::quiet_NaN(), 4.0, 1.5, 2.0};
    d.badSurprisal = {std::numeric_limits<double>::quiet_NaN(), 4.0, 5.25, 2.5};
    d.goodLogprob = -7.5;
    d.badLogprob = -11.75;
    d.score = QStringLiteral("log-probability");
    d.diverge = 2;
    DependencyTree t;
    t.heads = {2, 4, 4, 0};
    t.deprels = {"det", "nsubj", "cop", "root"};
    d.tree = t;
    return d;
}

} // namespace

TEST(MinimalPairView, SaysWhichSentenceTheModelPrefersAndTheSurprisalsWhereTheyDiffer)
{
    ensureApp();
    MinimalPairView v;
    v.setPair(keysPair());
    const QStringList lines = v.titleLines();
    ASSERT_FALSE(lines.isEmpty());
    EXPECT_TRUE(lines.front().contains(QStringLiteral("prefers the good sentence by 4.25 nats"))) << lines.front().toStdString();
    EXPECT_FALSE(lines.join(' ').contains(QStringLiteral("ablated")));
    // bad − good at the framed word: 5.25 − 1.5.
    EXPECT_TRUE(v.divergenceLine().contains(QStringLiteral("“are” 1.50 nats in the good sentence, “is” 5.25 nats in the bad")))
        << v.divergenceLine().toStdString();
    EXPECT_TRUE(v.divergenceLine().contains(QStringLiteral("bad − good: 3.75")));
    const QImage img = rendered(v);
    EXPECT_GT(img.width(), 200);
    EXPECT_GT(img.height(), 150);

    // Made with a head switched off: the badge is a line of the title.
    PairDrawing off = keysPair();
    off.ablated = {{2, 1}, {3, -1}};
    off.badLogprob = -6.0;
    v.setPair(off);
    EXPECT_TRUE(v.titleLines().front().contains(QStringLiteral("prefers the bad sentence by 1.50 nats")));
    EXPECT_TRUE(v.titleLines().contains(QStringLiteral("L3 H2, L4 (every head) ablated")));
    // A pair the model could not read says why and draws no words.
    PairDrawing skipped = keysPair();
    skipped.skipped = QStringLiteral("bad: 300 word pieces, the model takes at most 128");
    v.setPair(skipped);
    EXPECT_EQ(v.titleLines().size(), 1);
    EXPECT_TRUE(v.divergenceLine().isEmpty());
}

TEST(SweepHeatmap, CellsSitWhereTheyAreClickedAndWorseIsRed)
{
    ensureApp();
    SweepFigure f;
    f.model = QStringLiteral("m");
    f.pairs = QStringLiteral("pairs.jsonl");
    f.layers = 2;
    f.heads = 3;
    f.baseline = 0.75;
    f.baselinePairs = 40;
    for (int l = 0; l < 2; ++l)
        for (int h = -1; h < 3; ++h) {
            SweepCell c;
            c.layer = l;
            c.head = h;
            c.pairs = 40;
            c.accuracyChange.valid = true;
            c.accuracyChange.change = (l == 1 && h == 2) ? -0.10 : (l == 0 && h == -1) ? 0.05 : 0.0;
            f.cells.push_back(c);
        }
    SweepHeatmap v;
    v.setFigure(f);
    v.resize(v.sizeHint());
    int layer = -9, head = -9;
    ASSERT_TRUE(v.cellAt(v.cellCentre(1, 2), &layer, &head));
    EXPECT_EQ(layer, 1);
    EXPECT_EQ(head, 2);
    ASSERT_TRUE(v.cellAt(v.cellCentre(0, -1), &layer, &head));
    EXPECT_EQ(head, -1); // the whole layer's column
    EXPECT_DOUBLE_EQ(v.pointsAt(1, 2), -10.0);
    EXPECT_DOUBLE_EQ(v.pointsAt(0, -1), 5.0);
    EXPECT_TRUE(std::isnan(v.pointsAt(5, 0)));
    // Sampled beside each cell's centre (its number is written there): red, blue, white.
    const QImage img = v.grab().toImage();
    auto colourNear = [&](int l, int h) { return img.pixelColor((v.cellCentre(l, h) + QPointF(-22, -12)).toPoint()); };
    const QColor worse = colourNear(1, 2), better = colourNear(0, -1), same = colourNear(0, 0);
    EXPECT_GT(worse.red(), worse.blue() + 80);
    EXPECT_GT(better.blue(), better.red() + 30);
    EXPECT_GT(same.red(), 230);
    EXPECT_GT(same.blue(), 230);
}
