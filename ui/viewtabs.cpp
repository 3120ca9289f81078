#include "ui/viewtabs.h"

#include <algorithm>

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "core/data/analysis.h"
#include "ui/session/analysisdocument.h"
#include "ui/viewhost.h"
#include "ui/viewregistry.h"
#include "viz/attentionoverview.h"
#include "viz/compositionview.h"
#include "viz/gateoverview.h"

namespace treelens {

ViewTabs::ViewTabs(AnalysisDocument &document, ViewHost &views, QWidget *parent)
    : QObject(parent), m_document(document), m_views(views)
{
    m_trees = new QTabWidget(parent);
    m_trees->setDocumentMode(true);
    m_plots = new QTabWidget(parent);
    m_plots->setDocumentMode(true);
    for (const ViewSpec &spec : viewRegistry()) {
        if (!inMainWindow(spec))
            continue;
        QTabWidget *tabs = spec.pane == ViewSpec::Pane::Trees ? m_trees : m_plots;
        QWidget *page = spec.name == QLatin1String("composition") ? createCompositionPage(parent) : m_views.widget(spec.name);
        tabs->addTab(page, QCoreApplication::translate("ViewRegistry", spec.tabLabel));
        m_pages.push_back({&spec, tabs, page});
    }
    updateOptionalTabs(nullptr);
    connect(m_trees, &QTabWidget::currentChanged, &m_views, &ViewHost::syncVisibleViews);
    connect(m_plots, &QTabWidget::currentChanged, &m_views, &ViewHost::syncVisibleViews);
    // A cell of an overview selects its layer/head (ViewHost) and shows them in the single map.
    connect(qobject_cast<AttentionOverview *>(m_views.widget(QStringLiteral("overview"))), &AttentionOverview::cellActivated,
            this, [this] { m_plots->setCurrentWidget(m_views.widget(QStringLiteral("attention"))); });
    connect(qobject_cast<GateOverview *>(m_views.widget(QStringLiteral("gates"))), &GateOverview::cellActivated, this,
            [this] { m_plots->setCurrentWidget(m_views.widget(QStringLiteral("gate"))); });

    m_split = new QSplitter(Qt::Vertical, parent);
    m_split->addWidget(m_trees);
    m_split->addWidget(m_plots);
    m_split->setStretchFactor(0, 2);
    m_split->setStretchFactor(1, 1);
}

QWidget *ViewTabs::createCompositionPage(QWidget *parent)
{
    // The recursive models' bottom-up composition, stepped or played height by height.
    auto *tab = new QWidget(parent);
    auto *layout = new QVBoxLayout(tab);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    bar->addWidget(new QLabel(tr("Composition step")));
    m_compositionStep = new QSpinBox(tab);
    m_compositionStep->setObjectName(QStringLiteral("compositionStep"));
    m_compositionStep->setRange(0, 0);
    m_compositionStep->setSpecialValueText(tr("all"));
    m_compositionStep->setToolTip(tr("Show the composition up to this height (1 = the nodes just above the words)"));
    bar->addWidget(m_compositionStep);
    m_compositionPlay = new QPushButton(tr("Play"), tab);
    m_compositionPlay->setObjectName(QStringLiteral("compositionPlay"));
    m_compositionPlay->setCheckable(true);
    m_compositionPlay->setToolTip(tr("Step through the composition from the leaves to the root"));
    bar->addWidget(m_compositionPlay);
    bar->addStretch(1);
    layout->addLayout(bar);
    auto *scroll = new QScrollArea(tab);
    scroll->setWidget(m_views.widget(QStringLiteral("composition")));
    scroll->setWidgetResizable(false);
    scroll->setFrameShape(QFrame::NoFrame);
    layout->addWidget(scroll, 1);
    auto *timer = new QTimer(tab);
    timer->setInterval(900);
    connect(m_compositionStep, &QSpinBox::valueChanged, this, [this](int step) {
        ViewState sel = m_document.selection();
        if (sel.aggregationStep == step)
            return;
        sel.aggregationStep = step;
        m_document.setSelection(sel);
    });
    connect(m_compositionPlay, &QPushButton::toggled, this, [this, timer](bool on) {
        if (on) {
            m_compositionStep->setValue(1);
            timer->start();
        } else {
            timer->stop();
        }
    });
    connect(timer, &QTimer::timeout, this, [this] {
        if (m_compositionStep->value() >= m_compositionStep->maximum()) {
            m_compositionPlay->setChecked(false); // the root is composed: stop on "all"
            m_compositionStep->setValue(0);
            return;
        }
        m_compositionStep->setValue(m_compositionStep->value() + 1);
    });
    return tab;
}

QString ViewTabs::nameOf(const QWidget *page) const
{
    for (const Page &p : m_pages)
        if (p.page == page)
            return p.spec->name;
    return QString();
}

QString ViewTabs::currentTreeView() const { return nameOf(m_trees->currentWidget()); }

void ViewTabs::updateOptionalTabs(const Analysis *a)
{
    QWidget *newTree = nullptr, *newPlot = nullptr;
    for (const Page &p : m_pages) {
        if (!p.spec->tabShown)
            continue;
        const bool shown = p.spec->tabShown(a);
        const int index = p.tabs->indexOf(p.page);
        if (index < 0 || p.tabs->isTabVisible(index) == shown)
            continue;
        p.tabs->setTabVisible(index, shown);
        if (shown)
            (p.tabs == m_trees ? newTree : newPlot) = p.page;
    }
    if (m_compositionStep) {
        auto *view = qobject_cast<CompositionView *>(m_views.widget(QStringLiteral("composition")));
        const int index = m_trees->indexOf(m_compositionStep->parentWidget());
        const QSignalBlocker block(m_compositionStep);
        m_compositionStep->setRange(0, view && index >= 0 && m_trees->isTabVisible(index) ? std::max(0, view->steps()) : 0);
    }
    // A model with views of its own was just loaded: show them, and leave the views it has
    // nothing for (a Dependency-Transformer: the prior, the link strip, and the constituency
    // tree, whose overlay reads the prior).
    if (newTree)
        m_trees->setCurrentWidget(newTree);
    if (newPlot && a) {
        const auto s = m_document.sentence();
        if (!ViewHost::viewRefusal(nameOf(m_plots->currentWidget()), s.get(), a).isEmpty())
            m_plots->setCurrentWidget(newPlot);
        if (!newTree && currentTreeView() == QLatin1String("constituency") && a->constituentPrior.empty())
            m_trees->setCurrentWidget(m_views.widget(QStringLiteral("dependency")));
    }
}

} // namespace treelens
