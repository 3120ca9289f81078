// The Corpus dock's tree-pattern query in the app (issue 48), driven as a user does it: a
// pattern typed into the dock filters the rows to the sentences it matches (counted by hand on
// tests/data/ui/query.conllu, and equal to `treelens-cli query --count` there); a pattern that
// does not parse says where under the field and keeps the previous filter; the words an
// occurrence binds are in the tree views' overlay when its sentence is opened; the Query
// attention dock's cells equal the mean computed here from the model's own analyses, a click
// lists the occurrences by their value and one opens its sentence; and the Probing and Minimal
// pairs docks' "Only sentences matching the corpus query" gives them just those sentences.
// With TREELENS_SCREENSHOTS=DIR set, the window, the dock and the cheat sheet are saved there.
#include <algorithm>
#include <cmath>
#include <memory>

#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QFile>
#include <QGraphicsItem>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMouseEvent>
#include <QPushButton>
#include <QTabWidget>
#include <QTextBrowser>
#include <QToolButton>

#include "core/encoders/encoder.h"
#include "core/formats/corpus.h"
#include "ui/corpuspanel.h"
#include "ui/corpusquery.h"
#include "ui/corpusquerybar.h"
#include "ui/mainwindow.h"
#include "ui/minimalpairspanel.h"
#include "ui/probingpanel.h"
#include "ui/queryattentionpanel.h"
#include "ui/querysyntaxhelp.h"
#include "ui/viewhost.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/qcustomplot.h"
#include "viz/queryattentionview.h"
#include "testutil.h"
#include "uitestapp.h"

using namespace treelens;
using test::waitFor;

namespace {

const QString kSubjects = QStringLiteral("pattern { V [upos=VERB]; S []; V -[nsubj]-> S }");
const QString kAdjectives = QStringLiteral("pattern { N [upos=NOUN]; A [upos=ADJ]; N -[amod]-> A; A < N }");
const QString kObjects = QStringLiteral("VP < /^VB/=verb < NP=obj");

QString corpusFile() { return QString::fromStdString(test::testData("ui/query.conllu")); }

void saveScreenshot(QWidget *w, const QString &name)
{
    if (const QByteArray dir = qgetenv("TREELENS_SCREENSHOTS"); !dir.isEmpty())
        w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name);
}

/// The corpus rows the dock shows, in its order.
std::vector<int> shownRows(CorpusPanel *panel)
{
    std::vector<int> rows;
    for (int r = 0; r < panel->model()->rowCount(); ++r)
        if (panel->model()->hasMatchCounts() ? panel->model()->matchCount(r) > 0 : true)
            rows.push_back(r);
    return rows;
}

/// Types `pattern` into the dock's field and waits for the pause and the match to pass.
bool typePattern(CorpusPanel *panel, const QString &pattern)
{
    QLineEdit *edit = panel->queryBar()->patternEdit();
    edit->clear();
    edit->setFocus();
    for (const QChar c : pattern)
        edit->insert(QString(c)); // keystroke by keystroke: one match after the last, not one per key
    return waitFor([&] {
        const auto r = panel->queryResult();
        return r && r->pattern && QString::fromStdString(r->pattern->text()) == pattern.trimmed() && !panel->queryBar()->isMatching();
    });
}

struct WindowFixture {
    MainWindow window;
    CorpusPanel *corpus = nullptr;

    bool open()
    {
        window.resize(1600, 1000);
        window.setModelPath(QString::fromStdString(defaultModelPath()));
        window.show();
        bool shown = false;
        auto c = QObject::connect(&window, &MainWindow::analysisShown, [&](bool) { shown = true; });
        QString error;
        if (!window.openCorpus(corpusFile(), &error)) {
            ADD_FAILURE() << error.toStdString();
            return false;
        }
        const bool done = waitFor([&] { return shown; });
        QObject::disconnect(c);
        corpus = window.corpusPanel();
        return done;
    }
};

} // namespace

class CorpusQueryTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::uiApp();
        if (defaultModelPath().empty())
            GTEST_SKIP() << "SKIPPED: the shipped default model was not found";
    }
};

// Hand counts on query.conllu (5 sentences): subjects of verbs q-1 1, q-2 1, q-3 0 (It is an
// expletive), q-4 1, q-5 2; adjectives right before their noun q-2 2 (Old men, long books),
// q-4 1 (red ball); Tregex's VP with a verb and an NP: q-2 1, q-4 2 (the boy, a red ball).
TEST_F(CorpusQueryTest, TypingAPatternFiltersTheRowsToTheHandCountedSentences)
{
    WindowFixture f;
    ASSERT_TRUE(f.open());
    CorpusPanel *panel = f.corpus;
    ASSERT_EQ(panel->visibleRows(), 5);

    ASSERT_TRUE(typePattern(panel, kSubjects));
    EXPECT_EQ(panel->visibleRows(), 4);
    EXPECT_EQ(shownRows(panel), (std::vector<int>{0, 1, 3, 4}));
    EXPECT_EQ(panel->queryResult()->counts(), (std::vector<int>{1, 1, 0, 1, 2}));
    const QModelIndex q5 = panel->model()->index(4, CorpusModel::MatchesColumn);
    EXPECT_EQ(panel->model()->data(q5, Qt::DisplayRole).toInt(), 2);
    EXPECT_EQ(panel->model()->headerData(CorpusModel::MatchesColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
              QStringLiteral("Matches"));
    EXPECT_TRUE(panel->summaryText().contains(QStringLiteral("5 occurrences in 4 of 5 sentences"))) << panel->summaryText().toStdString();
    // The CLI on the same file says the same.
    EXPECT_EQ(panel->queryResult()->total, 5u);
    EXPECT_EQ(panel->queryResult()->sentencesMatched, 4u);

    ASSERT_TRUE(typePattern(panel, kAdjectives));
    EXPECT_EQ(shownRows(panel), (std::vector<int>{1, 3}));
    EXPECT_TRUE(panel->summaryText().contains(QStringLiteral("3 occurrences in 2 of 5 sentences"))) << panel->summaryText().toStdString();

    // A Tregex pattern on the constituency trees (# constituency comments), auto-detected.
    ASSERT_TRUE(typePattern(panel, kObjects));
    EXPECT_FALSE(panel->queryResult()->pattern->isGrew());
    EXPECT_EQ(panel->queryResult()->counts(), (std::vector<int>{0, 1, 0, 2, 0}));
    EXPECT_EQ(panel->queryResult()->pattern->names(), (std::vector<std::string>{"_root_", "verb", "obj"}));

    // The text search narrows the matched rows further; clearing the pattern shows every row.
    panel->setSearch(QStringLiteral("ball"));
    EXPECT_EQ(panel->visibleRows(), 1);
    panel->setSearch(QString());
    panel->setPattern(QString(), true);
    EXPECT_FALSE(panel->queryResult());
    EXPECT_EQ(panel->visibleRows(), 5);

    // The "?" sheet: one click away, its examples go into the field and match.
    auto *help = panel->queryBar()->findChild<QToolButton *>(QStringLiteral("patternHelp"));
    ASSERT_TRUE(help);
    help->click();
    QuerySyntaxHelp *sheet = panel->queryBar()->syntaxHelp();
    EXPECT_TRUE(sheet->isVisible());
    EXPECT_GE(QuerySyntaxHelp::examples().size(), 3);
    EXPECT_TRUE(sheet->browser()->toPlainText().contains(QStringLiteral("Tregex patterns")));
    EXPECT_TRUE(sheet->browser()->toPlainText().contains(QStringLiteral("Grew requests")));
    saveScreenshot(sheet, QStringLiteral("query-syntax-help.png"));
    sheet->chooseExample(0);
    EXPECT_EQ(panel->queryBar()->pattern(), QuerySyntaxHelp::examples().front());
    EXPECT_TRUE(waitFor([&] { return panel->queryResult() && !panel->queryBar()->isMatching(); }));
    EXPECT_EQ(panel->visibleRows(), 4);
    sheet->hide();
}

TEST_F(CorpusQueryTest, AParseErrorShowsItsLineAndColumnAndKeepsThePreviousFilter)
{
    WindowFixture f;
    ASSERT_TRUE(f.open());
    CorpusPanel *panel = f.corpus;
    ASSERT_TRUE(typePattern(panel, kAdjectives));
    ASSERT_EQ(panel->visibleRows(), 2);
    const auto before = panel->queryResult();

    panel->setPattern(QStringLiteral("pattern { V [upos=VERB }"), true);
    EXPECT_EQ(panel->queryBar()->errorText(), QStringLiteral("Grew request: line 1, column 24: expected ',' or ']', found '}'"));
    auto *label = panel->queryBar()->findChild<QLabel *>(QStringLiteral("patternError"));
    ASSERT_TRUE(label);
    EXPECT_TRUE(label->isVisible());
    EXPECT_EQ(panel->queryResult(), before);
    EXPECT_EQ(panel->visibleRows(), 2);

    panel->setPattern(QStringLiteral("VP <"), true);
    EXPECT_EQ(panel->queryBar()->errorText(),
              QStringLiteral("Tregex pattern: column 5: expected a node description, found the end of the pattern"));
    EXPECT_EQ(panel->visibleRows(), 2);

    // Fixed: the error goes and the new filter comes.
    panel->setPattern(kSubjects, true);
    EXPECT_TRUE(waitFor([&] { return panel->queryResult() != before && !panel->queryBar()->isMatching(); }));
    EXPECT_TRUE(panel->queryBar()->errorText().isEmpty());
    EXPECT_FALSE(label->isVisible());
    EXPECT_EQ(panel->visibleRows(), 4);
}

TEST_F(CorpusQueryTest, TheBoundWordsAreOutlinedOnBothTreesOfTheActivatedSentence)
{
    WindowFixture f;
    ASSERT_TRUE(f.open());
    MainWindow &w = f.window;
    CorpusPanel *panel = f.corpus;
    ASSERT_TRUE(typePattern(panel, kSubjects));
    bool shown = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { shown = true; });
    panel->activateRow(4); // q-5 "Birds sing and dogs bark.": V=sing S=Birds, V=bark S=dogs
    ASSERT_TRUE(waitFor([&] { return shown; }));
    ASSERT_EQ(w.document()->sentence()->id, "q-5");
    const auto marks = w.viewHost()->patternMarks();
    ASSERT_TRUE(marks);
    EXPECT_EQ(marks->occurrences, 2);
    std::vector<std::pair<QString, int>> bound;
    for (const PatternMarks::Mark &m : marks->marks)
        bound.push_back({m.name, m.first});
    std::sort(bound.begin(), bound.end());
    EXPECT_EQ(bound, (std::vector<std::pair<QString, int>>{{QStringLiteral("S"), 0},
                                                           {QStringLiteral("S"), 3},
                                                           {QStringLiteral("V"), 1},
                                                           {QStringLiteral("V"), 4}}));
    // Both trees outline the four words, each with its node's name.
    for (const auto &items : {w.dependencyView()->patternMarkItems(), w.constituencyView()->patternMarkItems()}) {
        std::vector<std::pair<QString, int>> drawn;
        for (QGraphicsItem *item : items)
            drawn.push_back({item->data(1).toString(), item->data(2).toInt()});
        std::sort(drawn.begin(), drawn.end());
        EXPECT_EQ(drawn, bound);
    }
    EXPECT_TRUE(w.dependencyView()->notes().join(QLatin1Char(' ')).contains(QStringLiteral("Corpus query: 2 occurrence(s)")));
    if (!qgetenv("TREELENS_SCREENSHOTS").isEmpty()) {
        // As the first window at 1600 x 1000 has it (MainWindow::placeOnFirstRun: the docks at 16 %).
        if (auto *dock = qobject_cast<QDockWidget *>(panel->parentWidget()))
            w.resizeDocks({dock}, {256}, Qt::Horizontal);
        for (const char *tab : {"Constituency", "Dependency"}) {
            QTabWidget *trees = w.treeTabs();
            for (int i = 0; i < trees->count(); ++i)
                if (trees->tabText(i).remove(QLatin1Char('&')) == QLatin1String(tab))
                    trees->setCurrentIndex(i);
            waitFor([] { return false; }, 300);
            saveScreenshot(&w, QStringLiteral("query-window-%1.png").arg(QString::fromLatin1(tab).toLower()));
        }
    }

    // A Tregex pattern: the constituency view outlines the bound constituents (the VP, its verb, each object NP).
    shown = false;
    ASSERT_TRUE(typePattern(panel, kObjects));
    panel->activateRow(3); // q-4
    ASSERT_TRUE(waitFor([&] { return shown; }));
    std::vector<QString> names;
    for (QGraphicsItem *item : w.constituencyView()->patternMarkItems())
        names.push_back(item->data(1).toString());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<QString>{QStringLiteral("_root_"), QStringLiteral("obj"), QStringLiteral("obj"),
                                           QStringLiteral("verb")}));
    if (!qgetenv("TREELENS_SCREENSHOTS").isEmpty()) {
        w.treeTabs()->setCurrentIndex(0);
        waitFor([] { return false; }, 300);
        saveScreenshot(w.treeTabs(), QStringLiteral("query-trees-tregex.png"));
    }

    // A typed sentence is not a corpus row: no outlines.
    shown = false;
    w.analyse(QStringLiteral("Birds sing and dogs bark."));
    ASSERT_TRUE(waitFor([&] { return shown; }));
    EXPECT_FALSE(w.viewHost()->patternMarks());
    EXPECT_TRUE(w.dependencyView()->patternMarkItems().empty());
}

TEST_F(CorpusQueryTest, TheAttentionHeatmapsCellsAreTheMeanOfTheModelsAnalysesAndACellListsItsOccurrences)
{
    WindowFixture f;
    ASSERT_TRUE(f.open());
    MainWindow &w = f.window;
    CorpusPanel *panel = f.corpus;
    ASSERT_TRUE(typePattern(panel, kSubjects));
    CorpusQueryBar *bar = panel->queryBar();
    ASSERT_TRUE(bar->attentionButton()->isVisible());
    bar->setNodes(0, 1);
    EXPECT_EQ(bar->attentionButton()->text(), QStringLiteral("Attention V → S"));
    QueryAttentionPanel *stat = w.queryAttentionPanel();
    bool finished = false, ok = false;
    QObject::connect(stat, &QueryAttentionPanel::finished, [&](bool r) { finished = true, ok = r; });
    bar->attentionButton()->click();
    ASSERT_TRUE(waitFor([&] { return finished; }, 120000));
    ASSERT_TRUE(ok) << stat->statusText().toStdString();
    auto *dock = qobject_cast<QDockWidget *>(stat->parentWidget());
    ASSERT_TRUE(dock && dock->isVisible());

    // The mean computed here: the model run on each matched sentence, attention from V's word
    // to S's word (through the words' tokens) per layer and head.
    auto enc = loadEncoder(defaultModelPath());
    ASSERT_TRUE(enc) << enc.message();
    auto sentences = readCorpusFile(corpusFile().toStdString(), CorpusFormat::Conllu);
    ASSERT_TRUE(sentences);
    const std::vector<std::tuple<int, int, int>> occurrences = {{0, 3, 2}, {1, 3, 2}, {3, 2, 1}, {4, 2, 1}, {4, 5, 4}};
    const int L = (*enc)->info().layers, H = (*enc)->info().heads;
    std::vector<double> sum(static_cast<std::size_t>(L * H), 0.0);
    for (const auto &[row, v, s] : occurrences) {
        const Sentence &sentence = (*sentences)[static_cast<std::size_t>(row)];
        auto a = (*enc)->analyze({EncoderInput{sentence.words(), sentence.dependency, sentence.constituency, {}, {}, {}}});
        ASSERT_TRUE(a) << a.message();
        const Analysis &an = a->front();
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h)
                sum[static_cast<std::size_t>(l * H + h)] += an.attention[l][h].at(an.wordToken[v - 1], an.wordToken[s - 1]);
    }
    QueryAttentionView *view = stat->view();
    ASSERT_EQ(view->figure().layers, L);
    ASSERT_EQ(view->figure().heads, H);
    EXPECT_EQ(view->figure().occurrences, 5u);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            EXPECT_NEAR(view->valueAt(l, h), sum[static_cast<std::size_t>(l * H + h)] / 5.0, 1e-5) << "layer " << l << " head " << h;
    // Each cell's value written on it, its interval on hover; the baseline on the same grid.
    const QStringList texts = view->cellTexts();
    ASSERT_EQ(texts.size(), L * H);
    EXPECT_EQ(texts[0], QString::number(view->valueAt(0, 0), 'f', 3));
    EXPECT_TRUE(view->cellToolTip(1, 2).contains(QStringLiteral("95 % interval"))) << view->cellToolTip(1, 2).toStdString();
    EXPECT_TRUE(view->cellToolTip(1, 2).contains(QStringLiteral("n = 5")));
    ASSERT_TRUE(stat->baselineBox()->isEnabled());
    EXPECT_EQ(view->figure().baselineOffset, -1); // S is the word right before V in all five
    EXPECT_EQ(view->figure().baselineHits, 5u);
    stat->baselineBox()->setChecked(true);
    EXPECT_TRUE(view->showsBaseline());
    EXPECT_TRUE(view->titleLines().front().startsWith(QStringLiteral("Baseline")));
    saveScreenshot(dock, QStringLiteral("query-attention-baseline.png"));
    stat->baselineBox()->setChecked(false);

    // A click on a cell lists its five occurrences, largest value first.
    const QPointF at = view->cellCentre(1, 2);
    QMouseEvent press(QEvent::MouseButtonPress, at, view->plot()->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view->plot(), &press);
    QListWidget *list = stat->occurrenceList();
    ASSERT_EQ(list->count(), 5);
    for (int i = 1; i < list->count(); ++i)
        EXPECT_GE(list->item(i - 1)->data(Qt::UserRole + 1).toDouble(), list->item(i)->data(Qt::UserRole + 1).toDouble());
    if (dock) {
        dock->setFloating(true);
        dock->resize(1400, 520);
        waitFor([] { return false; }, 300);
    }
    saveScreenshot(dock, QStringLiteral("query-attention-dock.png"));
    // Activating one opens its sentence at that layer and head.
    bool shown = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { shown = true; });
    const int row = list->item(0)->data(Qt::UserRole).toInt();
    stat->activateOccurrence(0);
    ASSERT_TRUE(waitFor([&] { return shown; }));
    EXPECT_EQ(w.document()->sentence()->id, (*sentences)[static_cast<std::size_t>(row)].id);
    EXPECT_EQ(w.viewState().layer, 1);
    EXPECT_EQ(w.viewState().head, 2);
}

TEST_F(CorpusQueryTest, TheProbingAndMinimalPairsSlicesAreTheMatchedSentences)
{
    WindowFixture f;
    ASSERT_TRUE(f.open());
    MainWindow &w = f.window;
    ASSERT_TRUE(typePattern(f.corpus, kAdjectives));
    ProbingPanel *probing = w.probingPanel();
    QuerySliceBox *box = probing->querySliceBox();
    ASSERT_TRUE(box->isEnabled());
    probing->setUseOpenCorpus(true);
    EXPECT_EQ(probing->config().trainSentences.size(), 5u); // the whole corpus until the box is checked
    box->setChecked(true);
    std::vector<std::string> ids;
    for (const Sentence &s : probing->config().trainSentences)
        ids.push_back(s.id);
    EXPECT_EQ(ids, (std::vector<std::string>{"q-2", "q-4"}));
    // A new pattern: the slice follows it.
    ASSERT_TRUE(typePattern(f.corpus, kSubjects));
    EXPECT_EQ(probing->config().trainSentences.size(), 4u);
    box->setChecked(false);

    QuerySliceBox *pairs = w.minimalPairsPanel()->querySliceBox();
    ASSERT_TRUE(pairs->isEnabled());
    pairs->setChecked(true);
    const auto slice = pairs->apply(w.corpusPanel()->model()->corpus());
    ASSERT_TRUE(slice);
    EXPECT_EQ(slice->size(), 4u);
    pairs->setChecked(false);
}

// Plain text has no trees and the dock does not parse a corpus: nothing is searched, and the
// summary says the pattern needs trees (the dock alone, without a JobRunner: matched inline).
TEST(CorpusQueryPanel, PlainTextSaysThePatternNeedsTrees)
{
    test::uiApp();
    const QString path = QString::fromStdString(::testing::TempDir()) + QStringLiteral("/query-plain.txt");
    {
        QFile f(path);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("The dog sleeps.\nOld men read long books.\n");
    }
    auto corpus = readCorpusAsShown(path);
    ASSERT_TRUE(corpus) << corpus.message();
    CorpusPanel panel;
    panel.setCorpus(*corpus, path);
    panel.setPattern(kSubjects, true);
    ASSERT_TRUE(panel.queryResult());
    EXPECT_EQ(panel.queryResult()->withoutTree, 2u);
    EXPECT_EQ(panel.visibleRows(), 0);
    EXPECT_TRUE(panel.summaryText().contains(QStringLiteral("0 occurrences in 0 of 2 sentences")));
    EXPECT_TRUE(panel.summaryText().contains(QStringLiteral("2 sentence(s) have no dependency tree, which the Grew request needs")))
        << panel.summaryText().toStdString();
}
