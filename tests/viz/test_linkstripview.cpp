#include <cmath>
#include <cstdlib>
#include <memory>

#include <QApplication>
#include <QEventLoop>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <QTimer>

#include <gtest/gtest.h>

#include "viz/linkstripview.h"
#include "viz/qcustomplot.h"

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

const std::vector<std::string> kWords = {"the", "cat", "sat", "on", "the", "mat", "today", "."};

// Link probabilities over word gaps (the|cat, cat|sat, ..., today|.), by layer.
const std::vector<std::vector<float>> kGaps = {
    {0.9f, 0.1f, 0.2f, 0.3f, 0.8f, 0.1f, 0.05f},
    {0.95f, 0.2f, 0.6f, 0.55f, 0.9f, 0.3f, 0.1f},
    {0.97f, 0.7f, 0.8f, 0.75f, 0.95f, 0.5f, 0.2f},
};

/// [CLS] + one token per word; linkProbs over tokens, so the word gap g is
/// token link g + 1. The [CLS]|the link gets a value that must never show.
std::shared_ptr<Analysis> makeAnalysis()
{
    auto a = std::make_shared<Analysis>();
    a->family = "tree-transformer";
    a->words = kWords;
    a->tokens.push_back("[CLS]");
    for (std::size_t i = 0; i < kWords.size(); ++i) {
        a->tokens.push_back(kWords[i]);
        a->wordToken.push_back(static_cast<int>(i) + 1);
    }
    a->layers = static_cast<int>(kGaps.size());
    for (const auto &gaps : kGaps) {
        std::vector<float> links{0.99f};
        links.insert(links.end(), gaps.begin(), gaps.end());
        a->linkProbs.push_back(links);
    }
    return a;
}

std::shared_ptr<Analysis> makeLongAnalysis(int words, int layers)
{
    auto a = std::make_shared<Analysis>();
    static const char *pool[] = {"the", "committee", "said", "that", "its", "members", "would", "consider",
                                 "a", "new", "proposal", "on", "Friday", "after", "lengthy", "debate", ","};
    a->tokens.push_back("[CLS]");
    for (int i = 0; i < words; ++i) {
        a->words.push_back(i + 1 == words ? "." : pool[i % 17]);
        a->tokens.push_back(a->words.back());
        a->wordToken.push_back(i + 1);
    }
    a->layers = layers;
    for (int l = 0; l < layers; ++l) {
        std::vector<float> links;
        for (int k = 0; k < words; ++k)
            links.push_back(std::fmod(0.15f + 0.37f * static_cast<float>(k % 7) + 0.1f * static_cast<float>(l), 1.0f));
        a->linkProbs.push_back(links);
    }
    return a;
}

using Groups = std::vector<std::pair<int, int>>;

} // namespace

TEST(LinkStripView, GapValuesAreTheWordLinks)
{
    ensureApp();
    auto a = makeAnalysis();
    LinkStripView view;
    view.setData({nullptr, a});
    for (int l = 0; l < 3; ++l)
        for (int g = 0; g < 7; ++g)
            EXPECT_FLOAT_EQ(view.gapValue(l, g), kGaps[l][g]) << l << " " << g;
    EXPECT_TRUE(std::isnan(view.gapValue(3, 0)));
    EXPECT_TRUE(std::isnan(view.gapValue(0, 7)));
}

TEST(LinkStripView, WordPiecesLinkThroughTheLastPiece)
{
    ensureApp();
    // "unreal cat": tokens [CLS] un ##real cat; the word gap is the ##real|cat link.
    auto a = std::make_shared<Analysis>();
    a->tokens = {"[CLS]", "un", "##real", "cat"};
    a->words = {"unreal", "cat"};
    a->wordToken = {1, 3};
    a->linkProbs = {{0.1f, 0.9f, 0.3f}};
    LinkStripView view;
    view.setData({nullptr, a});
    EXPECT_FLOAT_EQ(view.gapValue(0, 0), 0.3f);
    EXPECT_EQ(view.groups(), (Groups{{0, 1}, {1, 2}}));
}

TEST(LinkStripView, GroupsAtEachLayer)
{
    ensureApp();
    auto a = makeAnalysis();
    LinkStripView view;
    view.setData({nullptr, a});
    ASSERT_DOUBLE_EQ(view.mergeThreshold(), 0.5);
    // Hand-computed for threshold 0.5 (> merges, as the induced tree splits a span at a
    // link of at most the threshold: the top layer's 0.5 link separates).
    const std::vector<Groups> expected = {
        {{0, 2}, {2, 3}, {3, 4}, {4, 6}, {6, 7}, {7, 8}},
        {{0, 2}, {2, 6}, {6, 7}, {7, 8}},
        {{0, 6}, {6, 7}, {7, 8}},
    };
    for (int l = 0; l < 3; ++l) {
        ViewState s;
        s.layer = l;
        view.setState(s);
        EXPECT_EQ(view.currentLayer(), l);
        EXPECT_EQ(view.groups(), expected[l]) << "layer " << l;
    }
    // A higher threshold also splits the top layer's first group at its 0.7 link.
    view.setMergeThreshold(0.72);
    EXPECT_EQ(view.groups(), (Groups{{0, 2}, {2, 6}, {6, 7}, {7, 8}}));
}

TEST(LinkStripView, PlayStepsToTheTopAndStops)
{
    ensureApp();
    auto a = makeLongAnalysis(10, 6);
    LinkStripView view;
    view.setData({nullptr, a});
    std::vector<int> seen;
    QObject::connect(&view, &LinkStripView::layerChanged, [&](int l) { seen.push_back(l); });
    view.setStepInterval(10);
    view.play();
    EXPECT_TRUE(view.isPlaying());
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (!view.isPlaying())
            loop.quit();
    });
    poll.start(5);
    QTimer::singleShot(5000, &loop, &QEventLoop::quit); // safety net
    loop.exec();
    EXPECT_FALSE(view.isPlaying());
    EXPECT_EQ(view.currentLayer(), 5);
    EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5}));

    // Playing again from the top starts over at layer 0.
    seen.clear();
    view.play();
    EXPECT_EQ(view.currentLayer(), 0);
    EXPECT_EQ(seen, (std::vector<int>{0}));
    view.stop();
    EXPECT_FALSE(view.isPlaying());
}

TEST(LinkStripView, SetStateDoesNotEmit)
{
    ensureApp();
    auto a = makeAnalysis();
    LinkStripView view;
    view.setData({nullptr, a});
    int emitted = 0;
    QObject::connect(&view, &LinkStripView::layerChanged, [&](int) { ++emitted; });
    ViewState s;
    s.layer = 2;
    view.setState(s);
    EXPECT_EQ(view.currentLayer(), 2);
    EXPECT_EQ(emitted, 0);
}

TEST(LinkStripView, RenderToPaints)
{
    ensureApp();
    for (auto a : {makeAnalysis(), makeLongAnalysis(40, 10), makeLongAnalysis(120, 10)}) {
        LinkStripView view;
        view.setData({nullptr, a});
        ViewState s;
        s.layer = 1;
        view.setState(s);
        const QSizeF size = view.exportSize();
        QImage img(size.toSize(), QImage::Format_ARGB32);
        img.fill(Qt::white);
        {
            QPainter p(&img);
            p.setRenderHint(QPainter::Antialiasing);
            view.renderTo(&p, QRectF(QPointF(0, 0), size));
        }
        int dark = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                if ((img.pixel(x, y) & 0xFFFFFF) != 0xFFFFFF)
                    ++dark;
        EXPECT_GT(dark, img.width() * img.height() / 20);
        const int words = static_cast<int>(a->words.size());
        img.save(QStringLiteral("/tmp/heatmap-links-%1.png").arg(words));
        view.resize(1000, 700);
        view.show();
        QApplication::processEvents();
        view.plot()->replot();
        QApplication::processEvents();
        view.grab().save(QStringLiteral("/tmp/heatmap-links-widget-%1.png").arg(words));
    }
}

TEST(LinkStripView, ThresholdIsTheModelsOwnAndSaysSo)
{
    ensureApp();
    auto a = makeAnalysis();
    InductionConfig induction;
    induction.threshold = 0.85;
    induction.descend = 0.75;
    a->induction = induction;
    LinkStripView view;
    view.setData({nullptr, a});
    EXPECT_DOUBLE_EQ(view.mergeThreshold(), 0.85);
    ASSERT_TRUE(view.descendThreshold().has_value());
    EXPECT_DOUBLE_EQ(*view.descendThreshold(), 0.75);
    EXPECT_EQ(view.thresholdLabel(), QStringLiteral("merge 0.85"));
    EXPECT_EQ(view.descendLabel(), QStringLiteral("descend 0.75"));
    // Layer 1 with 0.85 (>= merges): only the|cat (0.9) joins.
    EXPECT_EQ(view.groups(), (Groups{{0, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}}));
    const QStringList caption = view.caption();
    ASSERT_EQ(caption.size(), 2);
    EXPECT_EQ(caption[0], QStringLiteral("Constituents at layer 1 (neighbours with link probability > 0.85 merged)"));
    EXPECT_TRUE(caption[1].startsWith(QStringLiteral("0.85 and 0.75 are the model's own unsupervised-parse settings")))
        << caption[1].toStdString();
    // Equal thresholds: one line, labelled with both roles.
    induction.descend = 0.85;
    a->induction = induction;
    view.setData({nullptr, a});
    EXPECT_EQ(view.thresholdLabel(), QStringLiteral("merge, descend 0.85"));
    EXPECT_EQ(view.descendLabel(), QString());
    // A threshold chosen by hand is said to be the view's.
    view.setMergeThreshold(0.6);
    EXPECT_FALSE(view.descendThreshold().has_value());
    EXPECT_EQ(view.caption().value(1), QStringLiteral("0.60: a threshold chosen for this view"));
    // Without settings (an analysis from elsewhere): 0.5, said to be a display threshold.
    LinkStripView plain;
    plain.setData({nullptr, makeAnalysis()});
    EXPECT_DOUBLE_EQ(plain.mergeThreshold(), 0.5);
    EXPECT_TRUE(plain.caption().value(1).contains(QStringLiteral("a display threshold"))) << plain.caption().value(1).toStdString();
}

TEST(LinkStripView, OneWordSentenceSaysThereIsNothingToLink)
{
    ensureApp();
    auto a = std::make_shared<Analysis>();
    a->tokens = {"[CLS]", "Hello"};
    a->words = {"Hello"};
    a->wordToken = {1};
    a->layers = 2;
    a->linkProbs = {{0.4f}, {0.6f}};
    LinkStripView view;
    view.setData({nullptr, a});
    EXPECT_EQ(view.groups(), (Groups{{0, 1}}));
    EXPECT_EQ(view.chartMessage(), QStringLiteral("One word: no gap between words, nothing to link"));
    EXPECT_EQ(view.caption(), QStringList{QStringLiteral("One word: nothing to group")});
    EXPECT_EQ(view.thresholdLabel(), QString()); // no line over an empty chart
    const QSizeF size = view.exportSize();
    QImage img(size.toSize(), QImage::Format_ARGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    view.renderTo(&p, QRectF(QPointF(0, 0), size));
    p.end();
    if (const char *dir = std::getenv("TREELENS_VIEW_PNG_DIR"))
        img.save(QString::fromUtf8(dir) + QStringLiteral("/linkstrip-one-word.png"));
}

TEST(LinkStripView, NotesUnderTheTitle)
{
    ensureApp();
    auto a = makeAnalysis();
    a->unknownWords = std::vector<int>{0, 1, 2, 3, 4};
    LinkStripView view;
    view.setData({nullptr, a});
    ASSERT_EQ(view.titleLines().size(), 1);
    EXPECT_TRUE(view.titleLines()[0].startsWith(QStringLiteral("5 of 7 words (71%) are not in the model's vocabulary")))
        << view.titleLines()[0].toStdString();
    auto b = makeAnalysis();
    b->unknownWords = std::vector<int>{6};
    view.setData({nullptr, b});
    ASSERT_EQ(view.titleLines().size(), 1); // below the warning's rate: the word named (issue 47)
    EXPECT_EQ(view.titleLines()[0],
              QStringLiteral("Not in the model's vocabulary (it saw its unknown token): ") + QString::fromStdString(kWords[6]));
    b->unknownWords = std::vector<int>{};
    view.setData({nullptr, b});
    EXPECT_TRUE(view.titleLines().isEmpty());
    // Punctuation is neither counted nor counted against: a quote-heavy English line
    // (two unknown words of four, punctuation aside) is at 50%, not 2 of 9.
    auto c = std::make_shared<Analysis>();
    c->words = {"\"", "Yes", ",", "\"", "Zog", "said", ",", "\"", "glorp", "!", "\""};
    c->unknownWords = std::vector<int>{4, 8};
    view.setData({nullptr, c});
    ASSERT_EQ(view.titleLines().size(), 1);
    EXPECT_TRUE(view.titleLines()[0].startsWith(QStringLiteral("2 of 4 words (50%)"))) << view.titleLines()[0].toStdString();
}

TEST(LinkStripView, ScaleTicksAndThresholdLabelsDoNotCollide)
{
    ensureApp();
    auto a = makeAnalysis();
    InductionConfig induction;
    induction.threshold = 0.8;
    induction.descend = 0.7;
    a->induction = induction;
    LinkStripView view;
    view.setData({nullptr, a});
    view.resize(view.exportSize().toSize());
    view.show();
    QApplication::processEvents();
    auto *plot = view.findChild<QCustomPlot *>();
    ASSERT_TRUE(plot);
    plot->replot();
    QApplication::processEvents();
    // The colour scale: labelled ticks at least a label's height apart.
    QCPColorScale *scale = nullptr;
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto *s = qobject_cast<QCPColorScale *>(plot->plotLayout()->elementAt(i)))
            scale = s;
    ASSERT_TRUE(scale);
    const QVector<double> ticks = scale->axis()->tickVector();
    ASSERT_GE(ticks.size(), 2);
    const double labelHeight = QFontMetricsF(scale->axis()->tickLabelFont()).height();
    for (int i = 1; i < ticks.size(); ++i)
        EXPECT_GT(std::abs(scale->axis()->coordToPixel(ticks[i]) - scale->axis()->coordToPixel(ticks[i - 1])), labelHeight)
            << "ticks " << ticks[i - 1] << " and " << ticks[i];
    // The threshold labels sit right of the chart, where no line or point runs.
    const QCPAxisRect *chart = plot->axisRect(0);
    int labels = 0;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto *t = qobject_cast<QCPItemText *>(plot->item(i)); t && t->visible() &&
                                                              (t->text().startsWith(QStringLiteral("merge")) ||
                                                               t->text().startsWith(QStringLiteral("descend")))) {
            ++labels;
            EXPECT_GE(t->position->pixelPosition().x(), chart->right() - 0.5) << t->text().toStdString();
        }
    EXPECT_EQ(labels, 2);
}
