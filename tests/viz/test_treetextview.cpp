#include <QRegularExpression>
#include <QApplication>

#include "core/formats/ptb.h"
#include "viz/treetextview.h"
#include "testutil.h"

using namespace treelens;

namespace {
QApplication &app()
{
    static int argc = 1;
    static char arg0[] = "test";
    static char *argv[] = {arg0, nullptr};
    static QApplication *a = new QApplication(argc, argv); // never destroyed: Qt's statics outlive it
    return *a;
}
} // namespace

TEST(TreeTextView, ShowsBothTreesWithHeadWords)
{
    app();
    auto s = readPtbSentences("(S (NP (DT The) (NN cat)) (VP (VBD sat)))", "t");
    ASSERT_TRUE(s.ok());
    Sentence sent = s->front();
    sent.dependency = DependencyTree{{2, 3, 0}, {"det", "nsubj", "root"}};
    TreeTextView view;
    view.setSentence(sent);
    const QString text = view.toPlainText();
    EXPECT_TRUE(text.contains(QStringLiteral("Dependency tree")));
    EXPECT_TRUE(text.contains(QStringLiteral("nsubj (sat)")));
    EXPECT_TRUE(text.contains(QStringLiteral("root (ROOT)")));
    EXPECT_TRUE(text.contains(QStringLiteral("(NP (DT The) (NN cat) )")));
}

TEST(TreeTextView, LinkProbabilityRowsNumberLayersFromOne)
{
    app();
    auto s = readPtbSentences("(S (NP (DT The) (NN cat)) (VP (VBD sat)))", "t");
    ASSERT_TRUE(s.ok());
    Analysis a;
    a.family = "tree-transformer";
    a.layers = 2;
    a.tokens = {"[CLS]", "the", "cat", "sat"};
    a.linkProbs = {{0.1f, 0.2f, 0.3f}, {0.4f, 0.5f, 0.6f}};
    const QStringList lines = formatTreesAsText(s->front(), &a).split(QLatin1Char('\n'));
    // Top layer first, numbered as the View dock numbers it: 2, then 1 (never 0).
    const int header = static_cast<int>(lines.indexOf(QRegularExpression(QStringLiteral("layer .*"))));
    ASSERT_GE(header, 0);
    EXPECT_TRUE(lines.value(header + 1).startsWith(QStringLiteral("    2 "))) << lines.value(header + 1).toStdString();
    EXPECT_TRUE(lines.value(header + 2).startsWith(QStringLiteral("    1 "))) << lines.value(header + 2).toStdString();
    EXPECT_FALSE(lines.value(header + 3).startsWith(QStringLiteral("    0 ")));
}
