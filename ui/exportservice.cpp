#include "ui/exportservice.h"

#include <cstdio>

#include <QSaveFile>
#include <QWidget>

#include "core/formats/analysisjson.h"
#include "ui/session/analysisdocument.h"
#include "ui/viewhost.h"
#include "viz/constituencyview.h"
#include "viz/viewexport.h"

namespace treelens {

Status writeTextFileAtomically(const QString &path, const std::string &text)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())
        || !f.commit())
        return Error{path.toStdString() + ": " + f.errorString().toStdString()};
    return {};
}

std::vector<LatexArc> latexAttentionArcs(const Sentence &sentence, const Analysis *analysis, const ViewState &state)
{
    std::vector<LatexArc> arcs;
    if (!analysis || analysis->words.size() != sentence.tokens.size())
        return arcs;
    const int n = static_cast<int>(sentence.tokens.size());
    for (int i = 0; i < n; ++i) {
        if (state.focusWord >= 0 && i != state.focusWord)
            continue;
        for (int j = 0; j < n; ++j) {
            const float w = wordAttention(*analysis, state, i, j);
            if (i != j && w >= state.threshold)
                arcs.push_back(LatexArc{i, j, w});
        }
    }
    return arcs;
}

std::string latexAttentionCaption(const Analysis &analysis, const ViewState &state)
{
    // Plain ASCII: the LaTeX writer escapes it, and "x" needs no math mode.
    const bool raw = !state.weightedAttention && !analysis.attentionRaw.empty();
    std::string kind = analysis.constituentPrior.empty() ? "attention"
                       : raw                               ? "attention (softmax, before the constituent prior C)"
                                                           : "attention (softmax x constituent prior C)";
    if (!analysis.attentionRelation.empty())
        kind = state.relationAttention ? "relation attention (softmax of the relation score)"
               : raw                   ? "plain attention (softmax of the scaled dot product)"
                                       : "attention (gated combination of the plain and relation scores)";
    char threshold[32];
    std::snprintf(threshold, sizeof threshold, "%g", state.threshold); // exact: the arcs are cut at this value
    std::string caption = "Arcs below the words: " + kind + ", layer " + std::to_string(state.layer + 1) + ", head "
                          + std::to_string(state.head + 1) + ", weights of at least " + threshold;
    if (state.focusWord >= 0 && state.focusWord < static_cast<int>(analysis.words.size()))
        caption += ", from \"" + analysis.words[static_cast<std::size_t>(state.focusWord)] + "\" only";
    return caption + "; label = weight";
}

ExportService::ExportService(const AnalysisDocument &document, ViewHost &views) : m_document(document), m_views(views) {}

Status ExportService::exportView(const QString &viewName, const QString &path, int dpi) const
{
    if (path.endsWith(QLatin1String(".tex"), Qt::CaseInsensitive))
        return exportLatex(viewName, path);
    ExportableView *view = m_views.exportableView(viewName); // brought up to date
    if (!view)
        return Error{"unknown view '" + viewName.toStdString() + "' (expected one of: "
                     + ViewHost::exportableViewNames().join(QStringLiteral(", ")).toStdString() + ")"};
    return treelens::exportView(*view, path, dpi);
}

Status ExportService::exportLatex(const QString &viewName, const QString &path) const
{
    const auto sentence = m_document.sentence();
    if (!sentence)
        return Error{"nothing to export: no sentence analysed"};
    LatexOptions opt;
    if (viewName == QLatin1String("constituency")) {
        const auto a = m_document.analysis();
        // The mode only: the view need not be up to date (nor exist, offscreen).
        const auto *view = qobject_cast<const ConstituencyView *>(m_views.widget(viewName));
        const bool induced = view && view->mode() == ConstituencyView::Mode::Induced && a && a->inducedTree;
        const ConstituencyTree *tree = induced ? &*a->inducedTree : (sentence->constituency ? &*sentence->constituency : nullptr);
        if (!tree)
            return Error{"the sentence has no constituency tree"};
        return writeTextFileAtomically(path, constituencyToForest(*tree, opt));
    }
    if (viewName == QLatin1String("dependency")) {
        if (!sentence->dependency)
            return Error{"the sentence has no dependency tree"};
        const auto arcs = latexAttentionArcs(*sentence, m_document.analysis().get(), m_document.selection());
        if (const auto a = m_document.analysis())
            opt.attentionCaption = latexAttentionCaption(*a, m_document.selection());
        return writeTextFileAtomically(path, dependencyToTikzDependency(*sentence, opt, arcs.empty() ? nullptr : &arcs));
    }
    return Error{"LaTeX export is for the constituency and dependency views; use .pdf, .svg or .png for " + viewName.toStdString()};
}

Status ExportService::exportAnalysisJson(const QString &path) const
{
    const auto a = m_document.analysis();
    if (!a)
        return Error{"there is no analysis to export (no model output)"};
    return writeTextFileAtomically(path, analysisToJson(*a, true, 1) + "\n");
}

Status ExportService::exportMatrices(const QString &dir) const
{
    const auto a = m_document.analysis();
    if (!a)
        return Error{"there is no analysis to export (no model output)"};
    const ViewState state = m_document.selection();
    const int l = state.layer, h = state.head;
    Status st;
    if (l < static_cast<int>(a->constituentPrior.size()))
        st = writeTextFileAtomically(dir + QStringLiteral("/prior-layer%1.csv").arg(l + 1),
                                     matrixToCsv(a->constituentPrior[static_cast<std::size_t>(l)], a->tokens, a->tokens));
    if (const Matrix *m = selectedAttention(*a, state); st && m)
        st = writeTextFileAtomically(dir + QStringLiteral("/attention-layer%1-head%2%3.csv").arg(l + 1).arg(h + 1)
                                               .arg(attentionVariantSuffix(*a, state)),
                                     matrixToCsv(*m, a->tokens, a->tokens));
    if (st && !a->linkProbs.empty())
        st = writeTextFileAtomically(dir + QStringLiteral("/link-probs.csv"), linkProbsToCsv(*a));
    return st;
}

} // namespace treelens
