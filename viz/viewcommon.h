#pragma once
/// \file viewcommon.h
/// What every view shares: the selection it draws (ViewState, core/data/viewstate.h:
/// layer, head, attention kind, focus word, threshold), the data, the colour
/// scale, and the interface the exporter (viewexport.h) renders through.

#include <memory>

#include <QColor>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/data/viewstate.h"

class QPainter;

namespace treelens {

/// The data a view shows. Either pointer may be null (no sentence yet, no model).
struct ViewData {
    std::shared_ptr<const Sentence> sentence;
    std::shared_ptr<const Analysis> analysis;
};

/// A colour-blind-safe sequential colour map (viridis) for values in [0, 1]
/// (clamped). Used for probabilities everywhere so views agree.
QColor sequentialColor(double value);

/// The attention matrix the state selects, or nullptr when the analysis has none
/// for that layer/head. Indexed by the analysis' tokens.
const Matrix *selectedAttention(const Analysis &analysis, const ViewState &state);

/// Attention (over words, not tokens) from word `from` to word `to` in the
/// selected layer/head: maps words to tokens through Analysis::wordToken.
/// Returns 0 when unavailable.
float wordAttention(const Analysis &analysis, const ViewState &state, int from, int to);

/// Implemented by every view so it can be exported offscreen to PNG/SVG/PDF.
class ExportableView {
public:
    virtual ~ExportableView() = default;
    /// The natural size of the whole content in points (1/72 in), not the viewport.
    virtual QSizeF exportSize() const = 0;
    /// Paints the whole content into `target` (in the painter's coordinates),
    /// on a white background. Must work on a widget that was never shown.
    virtual void renderTo(QPainter *painter, const QRectF &target) = 0;
    /// A short name used in file names and titles ("constituency", "prior", ...).
    virtual QString exportName() const = 0;
};

} // namespace treelens

namespace treelens {
/// Versions of the drawing libraries, for the About dialog ("2.1.1").
QString qcustomplotVersion();
} // namespace treelens
