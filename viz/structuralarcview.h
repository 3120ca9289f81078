#pragma once
/// \file structuralarcview.h
/// A structural distance probe's trees over one sentence (TreeLens issue 6,
/// Hewitt & Manning 2019): the gold minimum spanning tree above the words and the
/// probe's below, as arcs.

#include <string>
#include <vector>

#include "viz/worddiagram.h"

namespace treelens {

/// Gold (above the words) and predicted (below) spanning trees as arcs:
/// predicted edges in the gold tree dark green, the others red; gold edges the
/// probe missed dashed; punctuation words grey (they are left out of both trees).
class StructuralArcView : public WordDiagramView {
    Q_OBJECT
public:
    explicit StructuralArcView(QWidget *parent = nullptr);

    /// punct[i] != 0 greys word i; it may be empty (no punctuation).
    void setSentence(const std::vector<std::string> &words, const std::vector<char> &punct,
                     const std::vector<WordSpan> &gold, const std::vector<WordSpan> &predicted);
    void clear();

    const std::vector<std::string> &words() const override { return m_words; }
    const std::vector<char> &punctuation() const { return m_punct; }
    const std::vector<WordSpan> &goldEdges() const { return m_gold; }
    /// The classification the arcs are drawn from.
    const EdgeClasses &edges() const { return m_classes; }

    QSize minimumSizeHint() const override;
    QSizeF exportSize() const override;
    QString exportName() const override { return QStringLiteral("structural-arcs"); }

protected:
    void paintContent(QPainter *painter, const QRectF &rect) const override;

private:
    std::vector<std::string> m_words;
    std::vector<char> m_punct;
    std::vector<WordSpan> m_gold;
    EdgeClasses m_classes;
};

} // namespace treelens
