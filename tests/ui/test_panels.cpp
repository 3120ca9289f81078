// The small pieces the main window is composed of: the sentence dock and the
// status line.
#include <memory>

#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>


#include <QJsonDocument>
#include <QJsonObject>

#include "core/model/modelfile.h"
#include "ui/modelfiledialog.h"
#include "ui/controlpanel.h"
#include "ui/modelpanel.h"
#include "ui/session/analysisdocument.h"
#include "ui/session/settings.h"
#include "ui/viewhost.h"
#include "ui/viewregistry.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "ui/sentencepanel.h"
#include "ui/statusline.h"
#include "core/data/sentence.h"
#include "testutil.h"
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

namespace {

/// The card of a shipped model, as the Model dock shows it.
QString shippedCard(const char *name)
{
    const std::string path = std::string(TREELENS_SOURCE_DIR) + "/resources/models/" + name + ".safetensors";
    treelens::EncoderInfo info;
    auto config = treelens::readModelConfigJson(path);
    EXPECT_TRUE(config.ok()) << config.message();
    info.configJson = config ? *config : std::string();
    info.task = QJsonDocument::fromJson(QByteArray::fromStdString(info.configJson)).object().value(QStringLiteral("task")).toString().toStdString();
    return treelens::modelCardHtml(QString::fromStdString(path), info);
}

} // namespace

TEST(ModelCard, SaysWhatEachFamilysFileRecordsOfItsTraining)
{
    // Issue 30: the default model's card said "Training steps 200,000" (the recipe's budget;
    // the file holds the best snapshot, step 10,250) and the Dependency-Transformer's
    // "Training data 0 sentences" (its trainer records train/dev/test counts).
    treelens::test::uiApp();
    const QString tt = shippedCard("tree-transformer-en-small");
    EXPECT_TRUE(tt.contains(QStringLiteral("10,250; the recipe allowed 200,000"))) << tt.toStdString();
    EXPECT_TRUE(tt.contains(QStringLiteral("47,023 sentences, 902,051 words"))) << tt.toStdString();
    EXPECT_TRUE(tt.contains(QStringLiteral("30.0 min (wall clock, up to these weights)"))) << tt.toStdString();
    const QString dt = shippedCard("dependency-transformer-en-polarity");
    EXPECT_TRUE(dt.contains(QStringLiteral("8,529 sentences; development 1,066, test 1,067"))) << dt.toStdString();
    EXPECT_FALSE(dt.contains(QStringLiteral(">0 sentences")));
    const QString rte = shippedCard("dependency-transformer-en-rte");
    EXPECT_TRUE(rte.contains(QStringLiteral("1,590 pairs; development 177, test 2,400"))) << rte.toStdString();
    const QString ggsa = shippedCard("ggsa-en-wikiqa");
    EXPECT_TRUE(ggsa.contains(QStringLiteral("8,672 pairs (8,995 training triples); development 1,130 pairs"))) << ggsa.toStdString();
}

TEST(ModelFileDialog, ListsEncodersAndFoldersButNotTheParsers)
{
    // Issue 30: the load-model dialog listed the parser models beside the encoders, then
    // refused them.
    treelens::test::uiApp();
    const QString dir = QString::fromUtf8(TREELENS_SOURCE_DIR) + QStringLiteral("/resources/models/");
    EXPECT_FALSE(treelens::EncoderFileFilter::listed(dir + QStringLiteral("parser-dep-en-ewt.safetensors")));
    EXPECT_FALSE(treelens::EncoderFileFilter::listed(dir + QStringLiteral("parser-const-en-ptb.safetensors")));
    for (const char *encoder : {"tree-transformer-en-small", "dependency-transformer-en-polarity", "ggsa-en-wikiqa",
                                "tat-en-wikiqa", "dtt-edges-en-polarity"})
        EXPECT_TRUE(treelens::EncoderFileFilter::listed(dir + QString::fromLatin1(encoder) + QStringLiteral(".safetensors")))
            << encoder;
    // Other files are left to the name filter; an unreadable one is listed (opening it says why).
    EXPECT_TRUE(treelens::EncoderFileFilter::listed(dir + QStringLiteral("tree-transformer-en-small.md")));
    EXPECT_TRUE(treelens::EncoderFileFilter::listed(QStringLiteral("/nonexistent/broken.safetensors")));
    // A Hugging Face folder (issue 32): its weights are listed, and choosing any of its files opens the folder.
    const std::string hf = treelens::test::sharedPath("fixtures/hf-transformers-reference/bert-tiny-random");
    if (!hf.empty() && treelens::test::pathExists(hf)) {
        const QString folder = QString::fromStdString(hf);
        EXPECT_TRUE(treelens::EncoderFileFilter::listed(folder + QStringLiteral("/model.safetensors")));
        for (const char *file : {"/config.json", "/model.safetensors", "/tokenizer.json"})
            EXPECT_EQ(treelens::encoderPathOf(folder + QString::fromLatin1(file)), folder) << file;
    }
    EXPECT_EQ(treelens::encoderPathOf(dir + QStringLiteral("ggsa-en-wikiqa.safetensors")), dir + QStringLiteral("ggsa-en-wikiqa.safetensors"));
}

// The views' display options are the view registry's: the View dock shows a row for each
// (with the registry's labels), the host applies them to its views and saves them under
// their settings keys, and a host that keeps its own leaves the settings alone.
TEST(ViewOptions, TheViewDockAndTheHostReadTheRegistry)
{
    test::uiApp();
    ControlPanel panel;
    int rows = 0;
    for (const ViewOption *option : viewOptions(ViewOption::Scope::Display)) {
        if (!option->panelLabel)
            continue;
        ++rows;
        EXPECT_EQ(panel.viewOption(option->key()), option->defaultValue.toInt()) << option->key().toStdString();
    }
    EXPECT_EQ(rows, 3); // the constituency mode and overlay, the dependency layout
    EXPECT_EQ(panel.viewOption(QStringLiteral("constituency.mode")), static_cast<int>(ConstituencyView::Mode::Compare));
    QString changedKey;
    int changedValue = -1;
    QObject::connect(&panel, &ControlPanel::viewOptionChanged, [&](const QString &key, int value) {
        changedKey = key;
        changedValue = value;
    });
    panel.setViewOption(QStringLiteral("dependency.layout"), static_cast<int>(DependencyView::Layout::Hierarchical));
    EXPECT_EQ(changedKey, QStringLiteral("dependency.layout"));
    EXPECT_EQ(changedValue, static_cast<int>(DependencyView::Layout::Hierarchical));
    EXPECT_EQ(panel.viewOption(QStringLiteral("no.such")), -1);

    const QVariant saved = Settings::value(QStringLiteral("view/constituencyMode"));
    AnalysisDocument doc;
    QWidget parent;
    {
        ViewHost host(&doc, &parent, {QStringLiteral("constituency"), QStringLiteral("dependency")});
        EXPECT_EQ(host.viewOption(QStringLiteral("constituency.overlay")), static_cast<int>(ConstituencyView::Overlay::Cohesion));
        host.setViewOption(QStringLiteral("constituency.mode"), static_cast<int>(ConstituencyView::Mode::Induced));
        EXPECT_EQ(host.constituencyView()->mode(), ConstituencyView::Mode::Induced);
        EXPECT_EQ(Settings::value(QStringLiteral("view/constituencyMode")).toInt(), static_cast<int>(ConstituencyView::Mode::Induced));
        host.setViewOption(QStringLiteral("dependency.layout"), static_cast<int>(DependencyView::Layout::Hierarchical));
        EXPECT_EQ(host.dependencyView()->layoutMode(), DependencyView::Layout::Hierarchical);
    }
    {
        ViewHost again(&doc, &parent, {QStringLiteral("constituency")});
        again.restoreViewOptions();
        EXPECT_EQ(again.constituencyView()->mode(), ConstituencyView::Mode::Induced);
        again.setSavesViewOptions(false);
        again.setViewOption(QStringLiteral("constituency.mode"), static_cast<int>(ConstituencyView::Mode::Parser));
        EXPECT_EQ(again.constituencyView()->mode(), ConstituencyView::Mode::Parser);
        EXPECT_EQ(Settings::value(QStringLiteral("view/constituencyMode")).toInt(), static_cast<int>(ConstituencyView::Mode::Induced));
    }
    Settings::setValue(QStringLiteral("view/constituencyMode"), saved.isValid() ? saved : QVariant(3));
    Settings::setValue(QStringLiteral("view/dependencyLayout"), 0);
}

// The views that windows and docks feed themselves are built through the registry too.
TEST(ViewOptions, PanelViewsAreBuiltThroughTheRegistry)
{
    test::uiApp();
    for (const ViewSpec &spec : viewRegistry()) {
        if (!spec.build)
            continue;
        EXPECT_FALSE(inMainWindow(spec)) << spec.name.toStdString();
        std::unique_ptr<QWidget> view(buildView<QWidget>(spec.name));
        EXPECT_TRUE(view != nullptr) << spec.name.toStdString();
    }
    EXPECT_EQ(buildView<QWidget>(QStringLiteral("constituency")), nullptr); // a document's view: ViewHost creates it
    EXPECT_EQ(buildView<QWidget>(QStringLiteral("no-such-view")), nullptr);
}
