#pragma once
/// \file minimalpairview.h
/// One minimal pair as the Minimal pairs dock draws it (issue 46): the good sentence on its
/// dependency tree (the treebank's, for a pair made from the corpus; the parser's when the
/// dock got one) with the bad sentence under it word for word; under every word its
/// surprisal in the good and in the bad sentence (nats, −log p given the words before it for
/// a decoder; given all the others for a masked language model's pseudo-log-likelihood), on
/// one colour scale; the first word where the two differ framed, with both surprisals and
/// their difference written under the pair; the arcs that touch that word drawn in red. The
/// title says which sentence the model prefers and by how much, and names the heads it was
/// scored without ("L3 H2 ablated").

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QString>

#include "core/data/dependencytree.h"
#include "viz/viewcommon.h"

namespace treelens {

/// What the view draws of one scored pair.
struct PairDrawing {
    QString id, phenomenon;
    std::vector<std::string> goodWords, badWords;
    std::vector<double> goodSurprisal, badSurprisal; ///< per word, nats (NaN: nothing predicts it)
    double goodLogprob = 0.0, badLogprob = 0.0;
    QString score;                          ///< "log-probability" or "pseudo-log-likelihood"
    std::optional<DependencyTree> tree;     ///< the good sentence's, when there is one of its words
    QString treeSource;                     ///< "gold (EWT train)", "parsed": said under the title
    int diverge = -1;                       ///< the first word (0-based) where the two differ
    std::vector<std::pair<int, int>> ablated; ///< heads switched off (Analysis::ablated)
    QString skipped;                        ///< why the model could not read it ("" when scored)
};

class MinimalPairView : public PaintedExportView {
    Q_OBJECT
public:
    explicit MinimalPairView(QWidget *parent = nullptr);
    void setPair(std::optional<PairDrawing> pair);
    const std::optional<PairDrawing> &pair() const { return m_pair; }
    /// The lines of text above the drawing (title, badge, scores, tree source).
    QStringList titleLines() const;
    /// The sentence under the pair: the diverging word's surprisals and their difference.
    QString divergenceLine() const;

    QSize sizeHint() const override;
    QString exportName() const override { return QStringLiteral("minimal-pair"); }

protected:
    void paint(QPainter &p, const QSizeF &size) const override;

private:
    struct Layout {
        std::vector<double> x, width; ///< each column's left edge and width
        double arcTop = 0, goodY = 0, badY = 0, bottom = 0, right = 0;
        int maxArc = 0;               ///< the longest arc (in words)
    };
    Layout layout() const;
    double scaleTop() const;
    void paintArcs(QPainter &p, const Layout &l) const;
    void paintRow(QPainter &p, const Layout &l, const std::vector<std::string> &words, const std::vector<double> &surprisal,
                  double y, const QString &label) const;

    std::optional<PairDrawing> m_pair;
};

} // namespace treelens
