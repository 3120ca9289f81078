// ViewHost and ExportService without a main window: a document with a
// hand-made sentence and analysis, the views of a host, and everything the
// export service writes (views, LaTeX trees, JSON, CSV), checked against the
// core writers it must hand the document's data and selection to.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QWidget>

#include "core/formats/analysisjson.h"
#include "core/formats/latex.h"
#include "core/formats/ptb.h"
#include "core/parsing/headrules.h"
#include "ui/exportservice.h"
#include "ui/session/analysisdocument.h"
#include "ui/viewhost.h"
#include "viz/attentionheatmap.h"
#include "viz/attentionoverview.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/linkstripview.h"
#include "viz/priorheatmap.h"
#include "testanalysis.h"
#include "uitestapp.h"

using namespace treelens;

namespace {

/// "The cat sat on the mat ." with its PTB tree and Collins-rule dependencies.
std::shared_ptr<const Sentence> catSentence()
{
    auto r = readPtbSentences("(S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .))", "cat");
    EXPECT_TRUE(r) << r.message();
    auto s = std::make_shared<Sentence>((*r)[0]);
    auto dep = toDependencies(*s->constituency);
    EXPECT_TRUE(dep) << dep.message();
    s->dependency = *dep;
    return s;
}

/// test::makeAnalysis over `s`'s words with link probabilities and an induced
/// tree unlike the parser's.
std::shared_ptr<const Analysis> analysisOf(const Sentence &s, int layers, int heads)
{
    auto a = test::makeAnalysis(s.words(), layers, heads);
    const int n = static_cast<int>(a->tokens.size());
    for (int l = 0; l < layers; ++l) {
        std::vector<float> links;
        for (int k = 0; k + 1 < n; ++k)
            links.push_back(static_cast<float>((k * 3 + l) % 10) / 10.0f);
        a->linkProbs.push_back(links);
    }
    a->inducedBrackets = {{0, 2}, {2, 6}, {3, 6}};
    auto induced = readPtb("(S (X (X The) (X cat)) (X (X sat) (X (X on) (X the) (X mat))) (X .))", "induced");
    EXPECT_TRUE(induced) << induced.message();
    a->inducedTree = (*induced)[0];
    return a;
}

QString readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// A document with the cat sentence analysed, its views (never shown) and the service.
struct Fixture {
    Fixture() : host(&doc, &parent, ViewHost::allViewNames()), service(doc, host)
    {
        sentence = catSentence();
        analysis = analysisOf(*sentence, 3, 2);
        doc.setResult(sentence, analysis);
    }
    AnalysisDocument doc;
    QWidget parent;
    ViewHost host;
    ExportService service;
    std::shared_ptr<const Sentence> sentence;
    std::shared_ptr<const Analysis> analysis;
};

} // namespace

TEST(ViewHost, HiddenViewsGetTheDocumentWhenAskedVisibleOnesAtOnce)
{
    test::uiApp();
    Fixture f;
    auto *prior = qobject_cast<PriorHeatmap *>(f.host.widget(QStringLiteral("prior")));
    ASSERT_TRUE(prior);
    EXPECT_EQ(prior->rowCount(), 0); // hidden: not given the sentence yet
    ASSERT_EQ(f.host.priorView(), prior); // asked for: brought up to date
    ASSERT_EQ(prior->rowCount(), 8);      // [CLS] + 7 words
    EXPECT_NEAR(prior->cellValue(2, 3), f.analysis->constituentPrior[0].at(2, 3), 1e-6);

    // A new selection reaches the hidden view when it is asked for.
    ViewState s = f.doc.selection();
    s.layer = 2;
    f.doc.setSelection(s);
    EXPECT_NEAR(prior->cellValue(2, 3), f.analysis->constituentPrior[0].at(2, 3), 1e-6);
    EXPECT_NEAR(f.host.priorView()->cellValue(2, 3), f.analysis->constituentPrior[2].at(2, 3), 1e-6);

    // Views the user can see follow the document at once.
    f.parent.show();
    f.host.syncVisibleViews();
    auto *attention = qobject_cast<AttentionHeatmap *>(f.host.widget(QStringLiteral("attention")));
    s.head = 1;
    s.weightedAttention = false;
    f.doc.setSelection(s);
    EXPECT_NEAR(attention->cellValue(4, 1), f.analysis->attentionRaw[2][1].at(4, 1), 1e-6);
    const auto other = analysisOf(*f.sentence, 3, 2);
    f.doc.setResult(f.sentence, other);
    EXPECT_EQ(attention->rowCount(), 8);
    EXPECT_GE(f.host.lastUpdateMs(), 0.0);

    // Only the views asked for exist.
    AnalysisDocument doc;
    QWidget parent;
    ViewHost some(&doc, &parent, {QStringLiteral("links"), QStringLiteral("prior")});
    EXPECT_TRUE(some.widget(QStringLiteral("prior")));
    EXPECT_TRUE(some.widget(QStringLiteral("links")));
    EXPECT_FALSE(some.widget(QStringLiteral("constituency")));
    EXPECT_FALSE(some.constituencyView());
    EXPECT_FALSE(some.exportableView(QStringLiteral("dependency")));
    EXPECT_EQ(parent.findChildren<QWidget *>(QString(), Qt::FindDirectChildrenOnly).size(), 2);
}

TEST(ViewHost, ClicksInTheViewsChangeTheDocumentsSelection)
{
    test::uiApp();
    Fixture f;
    Q_EMIT f.host.dependencyView()->wordClicked(2);
    EXPECT_EQ(f.doc.selection().focusWord, 2);
    Q_EMIT f.host.constituencyView()->wordClicked(2); // the focus word again: cleared
    EXPECT_EQ(f.doc.selection().focusWord, -1);
    Q_EMIT f.host.overviewView()->cellActivated(1, 1);
    EXPECT_EQ(f.doc.selection().layer, 1);
    EXPECT_EQ(f.doc.selection().head, 1);
    Q_EMIT f.host.linkView()->layerChanged(2);
    EXPECT_EQ(f.doc.selection().layer, 2);
    EXPECT_EQ(f.doc.selection().head, 1);
    QString hover;
    QObject::connect(&f.host, &ViewHost::hovered, [&](const QString &t) { hover = t; });
    Q_EMIT f.host.priorView()->hovered(QStringLiteral("C = 0.5"));
    EXPECT_EQ(hover, QStringLiteral("C = 0.5"));
}

TEST(ExportService, WritesEveryViewAsSvgAndPng)
{
    test::uiApp();
    Fixture f;
    QTemporaryDir dir;
    for (const QString &name : ViewHost::exportableViewNames()) {
        const QString svg = dir.filePath(name + QStringLiteral(".svg"));
        ASSERT_TRUE(f.service.exportView(name, svg)) << name.toStdString();
        QFile file(svg);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        EXPECT_TRUE(QSvgRenderer(file.readAll()).isValid()) << name.toStdString();
        const QString png = dir.filePath(name + QStringLiteral(".png"));
        ASSERT_TRUE(f.service.exportView(name, png, 72)) << name.toStdString();
        EXPECT_GT(QImage(png).width(), 100) << name.toStdString();
    }
    // Nothing else is left in the folder (no temporary files).
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files).size(), 2 * ViewHost::exportableViewNames().size());

    const Status unknown = f.service.exportView(QStringLiteral("nosuch"), dir.filePath(QStringLiteral("x.svg")));
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.message().find("expected one of: constituency, dependency, prior"), std::string::npos) << unknown.message();
    const Status tex = f.service.exportView(QStringLiteral("prior"), dir.filePath(QStringLiteral("prior.tex")));
    ASSERT_FALSE(tex);
    EXPECT_NE(tex.message().find("LaTeX export is for the constituency and dependency views"), std::string::npos);
    // A path that cannot be written: the error names it.
    const Status bad = f.service.exportView(QStringLiteral("constituency"), dir.path());
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.message().find(dir.path().toStdString()), std::string::npos) << bad.message();
}

TEST(ExportService, WritesTheTreesAsLatexWithTheSelection)
{
    test::uiApp();
    Fixture f;
    QTemporaryDir dir;
    const QString constituency = dir.filePath(QStringLiteral("c.tex"));
    ASSERT_TRUE(f.service.exportView(QStringLiteral("constituency"), constituency));
    EXPECT_EQ(readAll(constituency).toStdString(), constituencyToForest(*f.sentence->constituency));
    // The view shows only the induced tree: that one is written.
    f.host.setViewOption(QStringLiteral("constituency.mode"), static_cast<int>(ConstituencyView::Mode::Induced));
    ASSERT_TRUE(f.service.exportView(QStringLiteral("constituency"), constituency));
    EXPECT_EQ(readAll(constituency).toStdString(), constituencyToForest(*f.analysis->inducedTree));
    f.host.setViewOption(QStringLiteral("constituency.mode"), static_cast<int>(ConstituencyView::Mode::Compare));

    // Dependency: the selected head's attention arcs from the focus word, above the threshold.
    ViewState s = f.doc.selection();
    s.layer = 1;
    s.head = 1;
    s.focusWord = 2;
    s.threshold = 0.3;
    f.doc.setSelection(s);
    const auto arcs = latexAttentionArcs(*f.sentence, f.analysis.get(), f.doc.selection());
    ASSERT_FALSE(arcs.empty());
    for (const LatexArc &arc : arcs) {
        EXPECT_EQ(arc.from, 2);
        EXPECT_NE(arc.to, 2);
        EXPECT_GE(arc.weight, 0.3f);
        EXPECT_FLOAT_EQ(arc.weight, wordAttention(*f.analysis, f.doc.selection(), 2, arc.to));
    }
    const QString dependency = dir.filePath(QStringLiteral("d.tex"));
    ASSERT_TRUE(f.service.exportView(QStringLiteral("dependency"), dependency));
    // Under the arcs, and as a comment above them, what they are: kind, layer and head from 1, threshold, focus.
    const std::string caption = latexAttentionCaption(*f.analysis, f.doc.selection());
    EXPECT_EQ(caption, "Arcs below the words: attention (softmax x constituent prior C), layer 2, head 2, weights of at "
                       "least 0.3, from \"" + f.analysis->words[2] + "\" only; label = weight");
    LatexOptions withCaption;
    withCaption.attentionCaption = caption;
    const std::string tex = readAll(dependency).toStdString();
    EXPECT_EQ(tex, dependencyToTikzDependency(*f.sentence, withCaption, &arcs));
    EXPECT_NE(tex.find("% " + caption + "\n"), std::string::npos) << tex;
    EXPECT_NE(tex.find("{" + escapeLatex(caption) + "};"), std::string::npos) << tex;
    // Without a focus word every word's arcs; with a threshold over every weight, none.
    s.focusWord = -1;
    EXPECT_GT(latexAttentionArcs(*f.sentence, f.analysis.get(), s).size(), arcs.size());
    s.threshold = 1.0;
    EXPECT_TRUE(latexAttentionArcs(*f.sentence, f.analysis.get(), s).empty());
    EXPECT_TRUE(latexAttentionArcs(*f.sentence, nullptr, s).empty());
}

TEST(ExportService, WritesTheAnalysisAsJsonAndTheSelectedMatricesAsCsv)
{
    test::uiApp();
    Fixture f;
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("analysis.json"));
    ASSERT_TRUE(f.service.exportAnalysisJson(json));
    EXPECT_EQ(readAll(json).toStdString(), analysisToJson(*f.analysis, true, 1) + "\n");

    ViewState s = f.doc.selection();
    s.layer = 1;
    s.head = 1;
    s.weightedAttention = false;
    f.doc.setSelection(s);
    ASSERT_TRUE(f.service.exportMatrices(dir.path()));
    EXPECT_EQ(readAll(dir.filePath(QStringLiteral("prior-layer2.csv"))).toStdString(),
              matrixToCsv(f.analysis->constituentPrior[1], f.analysis->tokens, f.analysis->tokens));
    EXPECT_EQ(readAll(dir.filePath(QStringLiteral("attention-layer2-head2-raw.csv"))).toStdString(),
              matrixToCsv(f.analysis->attentionRaw[1][1], f.analysis->tokens, f.analysis->tokens));
    EXPECT_EQ(readAll(dir.filePath(QStringLiteral("link-probs.csv"))).toStdString(), linkProbsToCsv(*f.analysis));
    s.weightedAttention = true;
    f.doc.setSelection(s);
    ASSERT_TRUE(f.service.exportMatrices(dir.path()));
    EXPECT_EQ(readAll(dir.filePath(QStringLiteral("attention-layer2-head2.csv"))).toStdString(),
              matrixToCsv(f.analysis->attention[1][1], f.analysis->tokens, f.analysis->tokens));

    // Without an analysis (no model) there is nothing to write.
    f.doc.setResult(f.sentence, nullptr, QStringLiteral("no model"));
    QTemporaryDir empty;
    EXPECT_FALSE(f.service.exportAnalysisJson(empty.filePath(QStringLiteral("a.json"))));
    EXPECT_FALSE(f.service.exportMatrices(empty.path()));
    EXPECT_TRUE(QDir(empty.path()).entryList(QDir::Files).isEmpty());
}
