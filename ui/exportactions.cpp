#include "ui/exportactions.h"

#include <QFileDialog>
#include <QKeySequence>
#include <QMenu>
#include <QMessageBox>

#include "ui/exportservice.h"
#include "ui/session/analysisdocument.h"
#include "ui/viewhost.h"

namespace treelens {

ExportActions::ExportActions(QWidget *window, const AnalysisDocument &document, ExportService &service,
                             std::function<QString()> currentTreeView)
    : QObject(window), m_window(window), m_document(document), m_service(service),
      m_currentTreeView(std::move(currentTreeView))
{
}

void ExportActions::addTo(QMenu *fileMenu)
{
    auto *menu = fileMenu->addMenu(tr("&Export"));
    menu->addAction(tr("Current &tree view…"), QKeySequence(tr("Ctrl+E")), this, [this] {
        const QString name = m_currentTreeView();
        exportViewDialog(name, tr("Export %1 tree").arg(name), QStringLiteral(".pdf"),
                         tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png);;LaTeX (*.tex)"));
    });
    for (const QString &name : ViewHost::exportableViewNames())
        menu->addAction(tr("View “%1”…").arg(name), this, [this, name] {
            exportViewDialog(name, tr("Export %1").arg(name), QStringLiteral(".svg"),
                             tr("SVG (*.svg);;PDF (*.pdf);;PNG (*.png);;LaTeX (*.tex)"));
        });
    menu->addSeparator();
    menu->addAction(tr("Analysis as &JSON…"), this, &ExportActions::exportJsonDialog);
    menu->addAction(tr("Matrices as &CSV…"), this, &ExportActions::exportCsvDialog);
}

void ExportActions::exportViewDialog(const QString &name, const QString &title, const QString &defaultSuffix,
                                     const QString &filter)
{
    const QString path = QFileDialog::getSaveFileName(m_window, title, name + defaultSuffix, filter);
    if (path.isEmpty())
        return;
    if (const Status st = m_service.exportView(name, path); !st)
        warn(QString::fromStdString(st.message()));
}

void ExportActions::exportJsonDialog()
{
    if (!m_document.analysis()) {
        QMessageBox::information(m_window, tr("Export"), tr("There is no analysis to export (no model output)."));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export analysis"), QStringLiteral("analysis.json"),
                                                      tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    if (const Status st = m_service.exportAnalysisJson(path); !st)
        warn(QString::fromStdString(st.message()));
}

void ExportActions::exportCsvDialog()
{
    if (!m_document.analysis()) {
        QMessageBox::information(m_window, tr("Export"), tr("There is no analysis to export (no model output)."));
        return;
    }
    const QString dir = QFileDialog::getExistingDirectory(m_window, tr("Export matrices as CSV into"));
    if (dir.isEmpty())
        return;
    if (const Status st = m_service.exportMatrices(dir); !st) {
        warn(QString::fromStdString(st.message()));
        return;
    }
    const ViewState s = m_document.selection();
    Q_EMIT statusMessage(tr("Matrices of layer %1, head %2 written to %3").arg(s.layer + 1).arg(s.head + 1).arg(dir));
}

void ExportActions::warn(const QString &message)
{
    QMessageBox::warning(m_window, tr("Export"), message);
}

} // namespace treelens
