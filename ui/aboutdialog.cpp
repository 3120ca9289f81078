#include "ui/aboutdialog.h"

#include <QMessageBox>

#include "core/parsing/parser.h"
#include "core/runtime/torchinfo.h"
#include "viz/graphlayout.h"
#include "viz/viewcommon.h"

namespace treelens {

void showAboutDialog(QWidget *parent)
{
    const TorchInfo t = torchInfo();
    QString parsers;
    for (const auto &p : availableParsers())
        parsers += QStringLiteral("<br>%1").arg(QString::fromStdString(p.description).toHtmlEscaped());
    QMessageBox::about(parent, QObject::tr("About TreeLens"),
                       QObject::tr("<h3>TreeLens %1</h3><p>See what tree-structured attention encoders do.</p>"
                                   "<p>Qt %2<br>LibTorch %3 (%4)<br>Graphviz %5<br>QCustomPlot %6%7</p>")
                           .arg(QStringLiteral(TREELENS_VERSION), QString::fromLatin1(qVersion()),
                                QString::fromStdString(t.version),
                                QString::fromStdString(t.cudaAvailable ? "CUDA available" : "CPU only"),
                                graphvizVersion(), qcustomplotVersion(), parsers));
}

} // namespace treelens
