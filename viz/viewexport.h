#pragma once
/// \file viewexport.h
/// Offscreen export of any ExportableView to PNG (at `dpi`, default 300 — a
/// publication-quality raster), SVG (QSvgGenerator, vector) or PDF (QPdfWriter,
/// vector, page sized to the content). The format comes from the extension.
/// Files are written atomically (QSaveFile / temp + rename).

#include <QString>

#include "core/base/result.h"
#include "viz/viewcommon.h"

namespace treelens {

Status exportView(ExportableView &view, const QString &path, int dpi = 300);

/// The same for a dialog or a test: false on failure, with the message in `*error`
/// when `error` is given.
bool exportView(ExportableView &view, const QString &path, QString *error, int dpi = 300);

} // namespace treelens
