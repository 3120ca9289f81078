#pragma once
/// \file exportactions.h
/// The File ▸ Export menu: the current tree view (Ctrl+E), any view, the
/// analysis as JSON and the matrices as CSV. Asks for the file or folder, runs
/// the ExportService and warns when it fails; holds no export logic itself.

#include <functional>

#include <QObject>

class QMenu;
class QWidget;

namespace treelens {

class AnalysisDocument;
class ExportService;

class ExportActions : public QObject {
    Q_OBJECT
public:
    /// `currentTreeView` names the tree view the user sees ("constituency" or
    /// "dependency"), exported by Ctrl+E. Dialogs are children of `window`; the
    /// document and the service must outlive this object.
    ExportActions(QWidget *window, const AnalysisDocument &document, ExportService &service,
                  std::function<QString()> currentTreeView);

    /// Adds the Export submenu to `fileMenu`.
    void addTo(QMenu *fileMenu);

Q_SIGNALS:
    /// A line for the status bar (what was written where).
    void statusMessage(const QString &text);

private:
    void exportViewDialog(const QString &name, const QString &title, const QString &defaultSuffix, const QString &filter);
    void exportJsonDialog();
    void exportCsvDialog();
    void warn(const QString &message);

    QWidget *m_window;
    const AnalysisDocument &m_document;
    ExportService &m_service;
    std::function<QString()> m_currentTreeView;
};

} // namespace treelens
