// The small pieces the main window is composed of: the sentence dock and the
// status line.
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>


#include "ui/sentencepanel.h"
#include "ui/statusline.h"
#include "core/data/sentence.h"
#include "uitestapp.h"

using namespace treelens;

TEST(SentencePanel, AsksForTheTypedTextAndRemembersItOnce)
{
    test::uiApp();
    QSettings().remove(QStringLiteral("input/history"));
    SentencePanel panel;
    QStringList asked;
    QObject::connect(&panel, &SentencePanel::analyseRequested, [&](const QString &t) { asked << t; });
    panel.setText(QStringLiteral("Dogs bark."));
    EXPECT_EQ(panel.text(), QStringLiteral("Dogs bark."));
    auto *edit = panel.findChild<QComboBox *>()->lineEdit();
    Q_EMIT edit->returnPressed();
    ASSERT_EQ(asked, QStringList{QStringLiteral("Dogs bark.")});

    auto *history = panel.findChild<QListWidget *>();
    panel.remember(QStringLiteral("One."));
    panel.remember(QStringLiteral("Two."));
    panel.remember(QStringLiteral("One."));
    ASSERT_EQ(history->count(), 2);
    EXPECT_EQ(history->item(0)->text(), QStringLiteral("One."));
    EXPECT_EQ(history->item(1)->text(), QStringLiteral("Two."));
    Q_EMIT history->itemClicked(history->item(1));
    EXPECT_EQ(asked.last(), QStringLiteral("Two."));
    // Saved: a new panel starts with it.
    SentencePanel again;
    EXPECT_EQ(again.findChild<QListWidget *>()->count(), 2);
}

TEST(StatusLine, ShowsProgressWhileBusyAndDescribesASentence)
{
    test::uiApp();
    QStatusBar bar;
    StatusLine line(&bar);
    bar.show();
    auto *progress = bar.findChild<QProgressBar *>();
    auto *cancel = bar.findChild<QPushButton *>();
    ASSERT_TRUE(progress && cancel);
    EXPECT_FALSE(progress->isVisible());
    EXPECT_FALSE(cancel->isEnabled());
    line.setBusy(true);
    EXPECT_TRUE(progress->isVisible());
    EXPECT_TRUE(cancel->isEnabled());
    EXPECT_EQ(progress->maximum(), 0); // indeterminate
    line.showProgress(3, 10, QStringLiteral("Scoring"));
    EXPECT_EQ(progress->value(), 3);
    EXPECT_EQ(progress->maximum(), 10);
    bool cancelled = false;
    QObject::connect(&line, &StatusLine::cancelRequested, [&] { cancelled = true; });
    cancel->click();
    EXPECT_TRUE(cancelled);
    line.setBusy(false);
    EXPECT_FALSE(progress->isVisible());

    Sentence s;
    s.tokens.resize(3);
    s.setMetadata("parser", "neural");
    s.setMetadata("dependency_source", "gold");
    EXPECT_EQ(StatusLine::describe(s, QString()), QStringLiteral("3 word(s), parsed by neural, gold trees from the corpus"));
    s.setMetadata("parse_error", "timeout");
    EXPECT_EQ(StatusLine::describe(s, QStringLiteral("no model")),
              QStringLiteral("3 word(s), parsed by neural, gold trees from the corpus — parser failed: timeout — model: no model"));
}
