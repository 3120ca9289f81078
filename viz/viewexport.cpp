#include "viz/viewexport.h"

#include <cmath>

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace treelens {

namespace {

Status fail(const QString &path, const QString &what)
{
    return Error{(path + QStringLiteral(": ") + what).toStdString()};
}

/// The logical DPI the views' own font metrics use (a QImage takes the
/// screen's, or 96). Painting on devices with this logical DPI keeps text the
/// size the view laid it out for, whatever the output resolution.
int layoutDpi()
{
    static const int dpi = [] {
        const QImage probe(1, 1, QImage::Format_ARGB32);
        return probe.logicalDpiX() > 0 ? probe.logicalDpiX() : 96;
    }();
    return dpi;
}

/// Paints the view so that one unit of exportSize() covers `unit` device pixels.
void paintView(ExportableView &view, QPainter &painter, const QSizeF &size, double unit)
{
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, true);
    painter.scale(unit, unit);
    const QRectF target(QPointF(0, 0), size);
    painter.fillRect(target, Qt::white);
    view.renderTo(&painter, target);
}

Status writePng(ExportableView &view, const QString &path, const QSizeF &size, int dpi, QSaveFile &file)
{
    const double scale = dpi / 72.0;
    const QSize pixels(static_cast<int>(std::ceil(size.width() * scale)), static_cast<int>(std::ceil(size.height() * scale)));
    // QImage is limited to 2 GiB; refuse early with advice rather than fail to allocate.
    const double bytes = 4.0 * pixels.width() * pixels.height();
    if (bytes > 1024.0 * 1024 * 1024)
        return fail(path, QStringLiteral("a %1×%2 pixel image at %3 dpi is too large; use a lower dpi, SVG or PDF")
                              .arg(pixels.width()).arg(pixels.height()).arg(dpi));
    QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return fail(path, QStringLiteral("cannot allocate a %1×%2 pixel image").arg(pixels.width()).arg(pixels.height()));
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        // The image keeps the screen's logical DPI while painting (fonts as laid out),
        // so one point of content is dpi/72 pixels only through the painter's scale.
        paintView(view, painter, size, scale);
    }
    // The file then records the real resolution so it prints at exportSize() points.
    const int dpm = static_cast<int>(std::lround(dpi / 0.0254));
    image.setDotsPerMeterX(dpm);
    image.setDotsPerMeterY(dpm);
    if (!image.save(&file, "PNG"))
        return fail(path, QStringLiteral("cannot encode the PNG image"));
    return Status::success();
}

/// Qt 6.4's QSvgGenerator writes <title> and <desc> without XML escaping (an
/// '&' in a view name makes the file unreadable). Probe once whether this Qt
/// escapes, so the text is escaped exactly once with any version.
QString svgText(const QString &text)
{
    static const bool qtEscapes = [] {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator probe;
        probe.setOutputDevice(&buffer);
        probe.setSize(QSize(1, 1));
        probe.setTitle(QStringLiteral("&"));
        QPainter painter(&probe);
        painter.end();
        return buffer.data().contains("&amp;");
    }();
    return qtEscapes ? text : text.toHtmlEscaped();
}

Status writeSvg(ExportableView &view, const QString &path, const QSizeF &size, QSaveFile &file)
{
    // Painter units are points (the viewBox); the generator's resolution equals the
    // layout DPI so fonts keep their laid-out size, and size/resolution gives the
    // physical size: exportSize() points.
    const double unit = layoutDpi() / 72.0;
    QSvgGenerator generator;
    generator.setOutputDevice(&file);
    generator.setResolution(layoutDpi());
    generator.setSize(QSize(static_cast<int>(std::ceil(size.width() * unit)), static_cast<int>(std::ceil(size.height() * unit))));
    generator.setViewBox(QRectF(QPointF(0, 0), size));
    generator.setTitle(svgText(view.exportName()));
    generator.setDescription(svgText(QStringLiteral("Exported by TreeLens")));
    QPainter painter;
    if (!painter.begin(&generator))
        return fail(path, QStringLiteral("cannot start the SVG painter"));
    paintView(view, painter, size, 1.0);
    painter.end();
    return Status::success();
}

Status writePdf(ExportableView &view, const QString &path, const QSizeF &size, QSaveFile &file)
{
    QPdfWriter writer(&file);
    writer.setTitle(view.exportName());
    writer.setCreator(QStringLiteral("TreeLens"));
    // ExactMatch: the default policy would snap a near-A4 figure to A4.
    // QPageSize keeps whole points: round up so nothing is clipped.
    const QPageSize page(QSizeF(std::ceil(size.width()), std::ceil(size.height())), QPageSize::Point, QString(), QPageSize::ExactMatch);
    writer.setPageLayout(QPageLayout(page, QPageLayout::Portrait, QMarginsF(0, 0, 0, 0), QPageLayout::Point));
    writer.setResolution(layoutDpi());
    QPainter painter;
    if (!painter.begin(&writer))
        return fail(path, QStringLiteral("cannot start the PDF painter"));
    paintView(view, painter, size, layoutDpi() / 72.0);
    painter.end();
    return Status::success();
}

} // namespace

Status exportView(ExportableView &view, const QString &path, int dpi)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") && suffix != QLatin1String("pdf"))
        return fail(path, QStringLiteral("unknown export format '%1'; supported: .png, .svg, .pdf")
                              .arg(suffix.isEmpty() ? QStringLiteral("(none)") : QStringLiteral(".") + suffix));
    const QSizeF size = view.exportSize();
    if (size.isEmpty() || !std::isfinite(size.width()) || !std::isfinite(size.height()))
        return fail(path, QStringLiteral("nothing to export"));
    if (suffix == QLatin1String("png") && (dpi <= 0 || dpi > 2400))
        return fail(path, QStringLiteral("resolution %1 dpi is out of range (1 to 2400)").arg(dpi));

    // QSaveFile writes to a temporary next to the target and renames on commit,
    // so a failed export never leaves a partial file or clobbers an old one.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(path, QStringLiteral("cannot write: %1").arg(file.errorString()));
    Status status;
    if (suffix == QLatin1String("png"))
        status = writePng(view, path, size, dpi, file);
    else if (suffix == QLatin1String("svg"))
        status = writeSvg(view, path, size, file);
    else
        status = writePdf(view, path, size, file);
    if (!status) {
        file.cancelWriting();
        return status;
    }
    if (file.error() != QFileDevice::NoError) {
        const QString why = file.errorString();
        file.cancelWriting();
        return fail(path, QStringLiteral("cannot write: %1").arg(why));
    }
    if (!file.commit())
        return fail(path, QStringLiteral("cannot write: %1").arg(file.errorString()));
    return Status::success();
}

bool exportView(ExportableView &view, const QString &path, QString *error, int dpi)
{
    const Status status = exportView(view, path, dpi);
    if (!status && error)
        *error = QString::fromStdString(status.message());
    return status.ok();
}

} // namespace treelens
