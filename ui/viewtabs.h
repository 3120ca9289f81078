#pragma once
/// \file viewtabs.h
/// The main window's two rows of view tabs (trees above, plots below, in a splitter),
/// built from the view registry: one tab per view in its pane with its label; the
/// optional views' tabs (ViewSpec::tabShown) shown only for analyses that have them,
/// and a view that just appeared brought to the front; the composition tab's step bar
/// (step, play). GUI thread only.

#include <vector>

#include <QObject>

class QPushButton;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QWidget;

namespace treelens {

class AnalysisDocument;
class ViewHost;
struct Analysis;
struct ViewSpec;

class ViewTabs : public QObject {
    Q_OBJECT
public:
    /// Puts the views of `views` (created from the whole registry) into tabs under
    /// `parent`; the document and host must outlive this object.
    ViewTabs(AnalysisDocument &document, ViewHost &views, QWidget *parent);

    /// The splitter holding both rows (the main window's central widget).
    QSplitter *splitter() const { return m_split; }
    QTabWidget *treeTabs() const { return m_trees; }
    QTabWidget *plotTabs() const { return m_plots; }
    /// The registry name of the view in front in the tree row ("" for a page of no view).
    QString currentTreeView() const;

    /// Shows the tabs of the views analysis `a` has (null: no model output) and hides
    /// the other optional ones; when one just appeared it comes to the front, and a plot
    /// in front that has nothing to draw for `a` gives way to it. The composition step's
    /// range follows the tree's heights.
    void updateOptionalTabs(const Analysis *a);

private:
    QWidget *createCompositionPage(QWidget *parent);
    QString nameOf(const QWidget *page) const;

    struct Page {
        const ViewSpec *spec;
        QTabWidget *tabs;
        QWidget *page; ///< the view, or the page holding it (the composition's step bar)
    };
    AnalysisDocument &m_document;
    ViewHost &m_views;
    QSplitter *m_split = nullptr;
    QTabWidget *m_trees = nullptr;
    QTabWidget *m_plots = nullptr;
    std::vector<Page> m_pages; ///< every view's tab, in registry order
    QSpinBox *m_compositionStep = nullptr; ///< the composition's step (0 = all)
    QPushButton *m_compositionPlay = nullptr;
};

} // namespace treelens
