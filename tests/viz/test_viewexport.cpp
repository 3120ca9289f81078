// exportView: PNG/SVG/PDF of a tiny hand-made view, checked by reading the files
// back with independent decoders (QImage, QXmlStreamReader + QSvgRenderer,
// pdftoppm), plus the error paths and atomic writes.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <unistd.h>

#include "viz/viewexport.h"
#include "testutil.h"

using namespace treelens;

namespace {

QApplication &app()
{
    static int argc = 1;
    static char arg0[] = "test";
    static char *argv[] = {arg0, nullptr};
    static QApplication *a = new QApplication(argc, argv);
    return *a;
}

const QColor kBox(200, 30, 40);

/// 200×100 points: a filled box at (20, 20, 100, 50) and a line of text to its right.
class BoxView : public ExportableView {
public:
    QSizeF size{200, 100};
    int renders = 0;
    QSizeF exportSize() const override { return size; }
    void renderTo(QPainter *p, const QRectF &target) override
    {
        ++renders;
        lastTarget = target;
        p->fillRect(QRectF(20, 20, 100, 50), kBox);
        QFont f = p->font();
        f.setPointSizeF(10);
        p->setFont(f);
        p->setPen(Qt::black);
        p->drawText(QRectF(125, 20, 75, 50), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("A&B <x>"));
    }
    QString exportName() const override { return QStringLiteral("box & <test>"); }
    QRectF lastTarget;
};

bool near(const QColor &a, const QColor &b, int tol = 12)
{
    return std::abs(a.red() - b.red()) <= tol && std::abs(a.green() - b.green()) <= tol && std::abs(a.blue() - b.blue()) <= tol;
}

/// Checks an image of the BoxView scaled by `s` pixels per point.
void expectBoxImage(const QImage &img, double s, const char *what)
{
    ASSERT_FALSE(img.isNull()) << what;
    EXPECT_TRUE(near(img.pixelColor(int(70 * s), int(45 * s)), kBox)) << what << ": box centre is "
                                                                       << img.pixelColor(int(70 * s), int(45 * s)).name().toStdString();
    EXPECT_TRUE(near(img.pixelColor(int(5 * s), int(5 * s)), Qt::white)) << what << ": background not white";
    EXPECT_TRUE(near(img.pixelColor(int(70 * s), int(85 * s)), Qt::white)) << what << ": below the box not white";
    EXPECT_TRUE(near(img.pixelColor(img.width() - 2, img.height() - 2), Qt::white)) << what << ": corner not white";
    // Some dark text pixels to the right of the box.
    int dark = 0;
    for (int y = int(20 * s); y < int(70 * s) && y < img.height(); ++y)
        for (int x = int(125 * s); x < int(199 * s) && x < img.width(); ++x)
            dark += qGray(img.pixel(x, y)) < 100;
    EXPECT_GT(dark, 5) << what << ": no text drawn";
}

/// The bounding box of dark (text) pixels right of the box, for comparing formats.
QRect textExtent(const QImage &img, double s)
{
    QRect r;
    for (int y = 0; y < img.height(); ++y)
        for (int x = int(122 * s); x < img.width(); ++x)
            if (qGray(img.pixel(x, y)) < 100)
                r |= QRect(x, y, 1, 1);
    return r;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
}

} // namespace

TEST(ViewExport, PngHasTheResolutionsPixelSize)
{
    app();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    BoxView view;
    const QString path = dir.filePath(QStringLiteral("box.png"));
    const Status s = exportView(view, path, 144);
    ASSERT_TRUE(s.ok()) << s.message();
    QImage img(path);
    ASSERT_FALSE(img.isNull());
    EXPECT_EQ(img.size(), QSize(400, 200)); // 200×100 pt at 144 dpi
    EXPECT_NEAR(img.dotsPerMeterX() * 0.0254, 144.0, 0.5);
    expectBoxImage(img, 2.0, "png 144 dpi");
    EXPECT_EQ(view.lastTarget, QRectF(0, 0, 200, 100));

    // The default is 300 dpi: 200 pt → 833.3 → 834 pixels.
    const QString hi = dir.filePath(QStringLiteral("box300.PNG"));
    ASSERT_TRUE(exportView(view, hi).ok());
    EXPECT_EQ(QImage(hi).size(), QSize(834, 417));
    expectBoxImage(QImage(hi), 300.0 / 72.0, "png 300 dpi");
    QImage(hi).save(QStringLiteral("/tmp/viewexport-box300.png"));
}

TEST(ViewExport, SvgIsValidXmlAndRendersTheBox)
{
    app();
    QTemporaryDir dir;
    BoxView view;
    const QString path = dir.filePath(QStringLiteral("box.svg"));
    const Status s = exportView(view, path);
    ASSERT_TRUE(s.ok()) << s.message();

    QXmlStreamReader xml(readAll(path));
    QString viewBox, title;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("svg"))
            viewBox = xml.attributes().value(QLatin1String("viewBox")).toString();
        if (xml.isStartElement() && xml.name() == QLatin1String("title"))
            title = xml.readElementText();
    }
    EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
    EXPECT_EQ(viewBox, QStringLiteral("0 0 200 100"));
    EXPECT_EQ(title, QStringLiteral("box & <test>"));

    QSvgRenderer renderer(path);
    ASSERT_TRUE(renderer.isValid());
    EXPECT_EQ(renderer.viewBoxF(), QRectF(0, 0, 200, 100));
    QImage img(400, 200, QImage::Format_ARGB32);
    img.fill(Qt::transparent);
    QPainter p(&img);
    renderer.render(&p);
    p.end();
    // The white background is part of the file, not of the viewer.
    EXPECT_EQ(img.pixelColor(4, 4), QColor(Qt::white));
    EXPECT_TRUE(near(img.pixelColor(140, 90), kBox)) << img.pixelColor(140, 90).name().toStdString();
}

TEST(ViewExport, PdfIsAPageOfTheContentSize)
{
    app();
    QTemporaryDir dir;
    BoxView view;
    const QString path = dir.filePath(QStringLiteral("box.pdf"));
    const Status s = exportView(view, path);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(readAll(path).startsWith("%PDF"));

    const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
    if (pdftoppm.isEmpty())
        GTEST_SKIP() << "pdftoppm not installed; the PDF was not rasterised";
    QProcess proc;
    const QString prefix = dir.filePath(QStringLiteral("page"));
    proc.start(pdftoppm, {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("144"), path, prefix});
    ASSERT_TRUE(proc.waitForFinished(60000));
    ASSERT_EQ(proc.exitCode(), 0) << proc.readAllStandardError().toStdString();
    const QStringList pngs = QDir(dir.path()).entryList({QStringLiteral("page*.png")});
    ASSERT_EQ(pngs.size(), 1) << "one page expected";
    const QImage page(dir.filePath(pngs.front()));
    EXPECT_EQ(page.size(), QSize(400, 200)); // the page is exactly 200×100 pt
    expectBoxImage(page, 2.0, "pdf via pdftoppm");
    page.save(QStringLiteral("/tmp/viewexport-pdf.png"));

    // Text is set at the same size as in the PNG (fonts laid out at the same logical DPI).
    const QString png = dir.filePath(QStringLiteral("box.png"));
    ASSERT_TRUE(exportView(view, png, 144).ok());
    const QRect a = textExtent(QImage(png), 2.0), b = textExtent(page, 2.0);
    ASSERT_FALSE(a.isEmpty());
    EXPECT_NEAR(a.width(), b.width(), 0.06 * a.width()) << "png text " << a.width() << " px, pdf " << b.width() << " px";
    EXPECT_NEAR(a.height(), b.height(), 0.1 * a.height() + 1);

    // The brief's smoke check: pdftoppm at 50 dpi gives a non-empty image.
    proc.start(pdftoppm, {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("50"), path, prefix + QStringLiteral("50")});
    ASSERT_TRUE(proc.waitForFinished(60000));
    EXPECT_EQ(proc.exitCode(), 0);
    const QStringList small = QDir(dir.path()).entryList({QStringLiteral("page50*.png")});
    ASSERT_EQ(small.size(), 1);
    EXPECT_GT(QFileInfo(dir.filePath(small.front())).size(), 0);
}

TEST(ViewExport, RejectsUnknownFormatsAndEmptyViews)
{
    app();
    QTemporaryDir dir;
    BoxView view;
    const QString jpg = dir.filePath(QStringLiteral("box.jpg"));
    Status s = exportView(view, jpg);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(jpg.toStdString()), std::string::npos) << s.message();
    for (const char *fmt : {".png", ".svg", ".pdf"})
        EXPECT_NE(s.message().find(fmt), std::string::npos) << s.message();
    EXPECT_FALSE(exportView(view, dir.filePath(QStringLiteral("noext"))).ok());

    view.size = QSizeF(0, 0);
    const QString png = dir.filePath(QStringLiteral("empty.png"));
    s = exportView(view, png);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("nothing to export"), std::string::npos) << s.message();
    EXPECT_EQ(view.renders, 0);
    EXPECT_TRUE(entries(dir.path()).isEmpty()) << entries(dir.path()).join(QLatin1Char(' ')).toStdString();

    view.size = QSizeF(200, 100);
    s = exportView(view, png, 0);
    EXPECT_FALSE(s.ok());
}

TEST(ViewExport, FailedWritesLeaveNoPartialFile)
{
    app();
    QTemporaryDir dir;
    BoxView view;

    // A directory that cannot exist (its parent is a file): fails even for root.
    const QString blocker = dir.filePath(QStringLiteral("file"));
    {
        QFile f(blocker);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("x");
    }
    for (const char *name : {"/out.png", "/out.svg", "/out.pdf"}) {
        const QString path = blocker + QLatin1String(name);
        const Status s = exportView(view, path);
        ASSERT_FALSE(s.ok()) << name;
        EXPECT_NE(s.message().find(path.toStdString()), std::string::npos) << s.message();
    }
    EXPECT_EQ(entries(dir.path()), QStringList{QStringLiteral("file")});

    // A failure after the file was opened (an image too large to allocate) keeps
    // the old file and leaves no temporary behind.
    const QString old = dir.filePath(QStringLiteral("old.png"));
    {
        QFile f(old);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("OLD");
    }
    view.size = QSizeF(20000, 20000);
    const Status s = exportView(view, old, 2400);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(old.toStdString()), std::string::npos) << s.message();
    EXPECT_EQ(readAll(old), QByteArray("OLD"));
    EXPECT_EQ(entries(dir.path()), (QStringList{QStringLiteral("file"), QStringLiteral("old.png")}));

    // A read-only directory (not a restriction for root, so only checked for other users).
    if (::geteuid() != 0) {
        const QString ro = dir.filePath(QStringLiteral("ro"));
        ASSERT_TRUE(QDir().mkdir(ro));
        QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        const QString path = ro + QStringLiteral("/x.svg");
        view.size = QSizeF(200, 100);
        const Status r = exportView(view, path);
        QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.message().find(path.toStdString()), std::string::npos) << r.message();
        EXPECT_TRUE(entries(ro).isEmpty());
    }
}
