#include <QApplication>

#include "core/formats/ptb.h"
#include "viz/treetextview.h"
#include "testutil.h"

using namespace treelens;

TEST(TreeTextView, ShowsBothTreesWithHeadWords)
{
    int argc = 1;
    char arg0[] = "test";
    char *argv[] = {arg0, nullptr};
    QApplication app(argc, argv);
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
