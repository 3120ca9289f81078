#include "ui/viewhost.h"

#include <QElapsedTimer>
#include <QWidget>

#include "ui/session/settings.h"
#include "viz/compositionview.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/gateoverview.h"
#include "viz/heatmapview.h"
#include "viz/linkstripview.h"
#include "viz/treetextview.h"

namespace treelens {

ViewHost::ViewHost(AnalysisDocument *document, QWidget *viewParent, const QStringList &views, BackgroundWork work,
                   QObject *parent)
    : QObject(parent), m_document(document)
{
    // Created in the order of allViewNames() whatever the order of `views`, so slots (and syncs) are too.
    for (const QString &name : allViewNames()) {
        if (!views.contains(name))
            continue;
        if (name == QLatin1String("constituency")) {
            m_constituency = new ConstituencyView(viewParent);
            m_constituency->setBackgroundWork(std::move(work)); // long trees' dot layout off the GUI thread
            addSlot(m_constituency, name);
        } else if (name == QLatin1String("dependency")) {
            addSlot(m_dependency = new DependencyView(viewParent), name);
        } else if (name == QLatin1String("prior")) {
            addSlot(m_prior = new HeatmapView(HeatmapView::Kind::Prior, viewParent), name);
        } else if (name == QLatin1String("attention")) {
            addSlot(m_attention = new HeatmapView(HeatmapView::Kind::Attention, viewParent), name);
        } else if (name == QLatin1String("overview")) {
            addSlot(m_overview = new AttentionOverview(viewParent), name);
        } else if (name == QLatin1String("links")) {
            addSlot(m_links = new LinkStripView(viewParent), name);
        } else if (name == QLatin1String("relations")) {
            addSlot(m_relations = new HeatmapView(HeatmapView::Kind::Relation, viewParent), name);
        } else if (name == QLatin1String("gate")) {
            addSlot(m_gate = new HeatmapView(HeatmapView::Kind::Gate, viewParent), name);
        } else if (name == QLatin1String("gates")) {
            addSlot(m_gates = new GateOverview(viewParent), name);
        } else if (name == QLatin1String("composition")) {
            addSlot(m_composition = new CompositionView(viewParent), name);
        } else if (name == QLatin1String("text")) {
            m_text = new TreeTextView(viewParent);
        }
    }
    applyViewOptions();
    connectSelection();
    connect(m_document, &AnalysisDocument::changed, this, &ViewHost::onDocumentChanged);
}

QStringList ViewHost::exportableViewNames()
{
    return {QStringLiteral("constituency"), QStringLiteral("dependency"), QStringLiteral("prior"),
            QStringLiteral("attention"),    QStringLiteral("overview"),   QStringLiteral("links"),
            QStringLiteral("relations"),    QStringLiteral("gate"),       QStringLiteral("gates"),
            QStringLiteral("composition")};
}

QString ViewHost::viewRefusal(const QString &name, const Sentence *sentence, const Analysis *a)
{
    auto lacks = [&](const QString &what) {
        if (!a)
            return QStringLiteral("the %1 view draws %2: no model analysed the sentence (give one with --model)").arg(name, what);
        return QStringLiteral("the %1 view draws %2, which this %3 model does not have")
            .arg(name, what, QString::fromStdString(a->family));
    };
    if (name == QLatin1String("constituency")) {
        if ((sentence && sentence->constituency) || (a && a->inducedTree))
            return QString();
        return QStringLiteral("the constituency view draws a constituency tree, and the sentence has none (the parser "
                              "gave none, and the model induces none)");
    }
    if (name == QLatin1String("dependency"))
        return sentence && sentence->dependency ? QString()
                                                : QStringLiteral("the dependency view draws a dependency tree, and the "
                                                                 "sentence has none (the parser gave none)");
    if (name == QLatin1String("prior"))
        return a && !a->constituentPrior.empty() ? QString() : lacks(QStringLiteral("the constituent prior C"));
    if (name == QLatin1String("attention") || name == QLatin1String("overview"))
        return a && !a->attention.empty() ? QString() : lacks(QStringLiteral("attention matrices"));
    if (name == QLatin1String("links"))
        return a && !a->linkProbs.empty() ? QString() : lacks(QStringLiteral("link probabilities"));
    if (name == QLatin1String("relations"))
        return a && a->relations ? QString() : lacks(QStringLiteral("the relation matrix a relation-aware model reads"));
    if (name == QLatin1String("gate") || name == QLatin1String("gates"))
        return a && !a->relationGate.empty() ? QString() : lacks(QStringLiteral("a relation gate"));
    if (name == QLatin1String("composition"))
        return a && !a->nodeAttention.empty() && a->gates.count("rec.node_height")
                   ? QString()
                   : lacks(QStringLiteral("a recursive model's bottom-up composition"));
    return QString();
}

QStringList ViewHost::allViewNames()
{
    // The text view between the trees and the plots, as the main window's tabs have them.
    QStringList names = exportableViewNames();
    names.insert(2, QStringLiteral("text"));
    return names;
}

template <class View>
void ViewHost::addSlot(View *view, const QString &name)
{
    ViewSlot v;
    v.name = name;
    v.widget = view;
    v.exportable = view;
    v.setData = [view](const ViewData &d) { view->setData(d); };
    v.setState = [view](const ViewState &s) { view->setState(s); };
    m_slots.push_back(std::move(v));
    connect(view, &View::hovered, this, &ViewHost::hovered);
}

void ViewHost::connectSelection()
{
    auto focusWord = [this](int word) {
        ViewState s = m_document->selection();
        s.focusWord = (word == s.focusWord) ? -1 : word; // clicking the focus word again clears it
        m_document->setSelection(s);
    };
    if (m_constituency)
        connect(m_constituency, &ConstituencyView::wordClicked, this, focusWord);
    if (m_dependency)
        connect(m_dependency, &DependencyView::wordClicked, this, focusWord);
    if (m_composition)
        connect(m_composition, &CompositionView::wordClicked, this, focusWord);
    if (m_overview)
        connect(m_overview, &AttentionOverview::cellActivated, this, [this](int layer, int head) {
            ViewState s = m_document->selection();
            s.layer = layer;
            s.head = head;
            m_document->setSelection(s);
        });
    if (m_gates)
        connect(m_gates, &GateOverview::cellActivated, this, [this](int layer, int head) {
            ViewState s = m_document->selection();
            s.layer = layer;
            s.head = head;
            m_document->setSelection(s);
        });
    if (m_links)
        connect(m_links, &LinkStripView::layerChanged, this, [this](int layer) {
            ViewState s = m_document->selection();
            if (layer == s.layer)
                return;
            s.layer = layer;
            m_document->setSelection(s);
        });
}

void ViewHost::setConstituencyMode(int mode)
{
    m_constituencyMode = mode;
    if (m_constituency)
        m_constituency->setMode(static_cast<ConstituencyView::Mode>(mode));
    Settings::setValue(QStringLiteral("view/constituencyMode"), mode);
}

void ViewHost::setConstituencyOverlay(int overlay)
{
    m_constituencyOverlay = overlay;
    if (m_constituency)
        m_constituency->setOverlay(static_cast<ConstituencyView::Overlay>(overlay));
    Settings::setValue(QStringLiteral("view/constituencyOverlay"), overlay);
}

void ViewHost::setDependencyLayout(int layout)
{
    m_dependencyLayout = layout;
    if (m_dependency)
        m_dependency->setLayout(static_cast<DependencyView::Layout>(layout));
    Settings::setValue(QStringLiteral("view/dependencyLayout"), layout);
}

void ViewHost::restoreViewOptions()
{
    m_constituencyMode = Settings::value(QStringLiteral("view/constituencyMode"), 3).toInt();
    m_constituencyOverlay = Settings::value(QStringLiteral("view/constituencyOverlay"), 1).toInt();
    m_dependencyLayout = Settings::value(QStringLiteral("view/dependencyLayout"), 0).toInt();
    applyViewOptions();
}

void ViewHost::applyViewOptions()
{
    if (m_constituency) {
        m_constituency->setMode(static_cast<ConstituencyView::Mode>(m_constituencyMode));
        m_constituency->setOverlay(static_cast<ConstituencyView::Overlay>(m_constituencyOverlay));
    }
    if (m_dependency)
        m_dependency->setLayout(static_cast<DependencyView::Layout>(m_dependencyLayout));
}

void ViewHost::onDocumentChanged(AnalysisDocument::Changes what)
{
    if (what & (AnalysisDocument::SentenceChanged | AnalysisDocument::AnalysisChanged)) {
        if (m_document->sentence())
            updateData(); // syncs the visible views with the new selection too
    } else if ((what & AnalysisDocument::ErrorChanged) && !m_document->lastError().isEmpty()) {
        if (m_text)
            m_text->showMessage(m_document->lastError());
    }
    if (what & AnalysisDocument::SelectionChanged)
        syncVisibleViews();
}

void ViewHost::updateData()
{
    QElapsedTimer clock;
    clock.start();
    ViewData data{m_document->sentence(), m_document->analysis()};
    // Views must not index out of range (see AnalysisDocument::analysisFits).
    if (!m_document->analysisFits())
        data.analysis.reset();
    m_viewData = data;
    ++m_dataGeneration;
    if (m_text && data.sentence)
        m_text->setSentence(*data.sentence, data.analysis.get());
    syncVisibleViews();
    m_lastUpdateMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    Q_EMIT viewsUpdated();
}

void ViewHost::syncView(QWidget *view)
{
    const ViewState state = m_document->selection();
    for (ViewSlot &v : m_slots) {
        if (v.widget != view)
            continue;
        // Data first, with the view's previous state; a second rebuild only when the state differs too.
        if (v.dataGeneration != m_dataGeneration) {
            v.setData(m_viewData);
            v.dataGeneration = m_dataGeneration;
        }
        if (!v.hasState || v.state != state) {
            v.setState(state);
            v.state = state;
            v.hasState = true;
        }
    }
}

void ViewHost::syncVisibleViews()
{
    for (ViewSlot &v : m_slots)
        if (v.widget->isVisible())
            syncView(v.widget);
}

ConstituencyView *ViewHost::constituencyView() { return synced(m_constituency); }
DependencyView *ViewHost::dependencyView() { return synced(m_dependency); }
HeatmapView *ViewHost::priorView() { return synced(m_prior); }
HeatmapView *ViewHost::attentionView() { return synced(m_attention); }
AttentionOverview *ViewHost::overviewView() { return synced(m_overview); }
LinkStripView *ViewHost::linkView() { return synced(m_links); }
HeatmapView *ViewHost::relationView() { return synced(m_relations); }
HeatmapView *ViewHost::gateView() { return synced(m_gate); }
GateOverview *ViewHost::gateOverviewView() { return synced(m_gates); }

ExportableView *ViewHost::exportableView(const QString &name)
{
    for (const ViewSlot &v : m_slots)
        if (v.name == name) {
            syncView(v.widget);
            return v.exportable;
        }
    return nullptr;
}

QWidget *ViewHost::widget(const QString &name) const
{
    if (name == QLatin1String("text"))
        return m_text;
    for (const ViewSlot &v : m_slots)
        if (v.name == name)
            return v.widget;
    return nullptr;
}

} // namespace treelens
