#include "ui/viewhost.h"

#include <QElapsedTimer>
#include <QWidget>

#include "core/data/specialtokens.h"
#include "ui/session/settings.h"
#include "ui/viewregistry.h"
#include "viz/attentionheatmap.h"
#include "viz/attentionoverview.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/gateoverview.h"
#include "viz/linkstripview.h"
#include "viz/priorheatmap.h"
#include "viz/relationheatmap.h"
#include "viz/treetextview.h"

namespace treelens {

ViewHost::ViewHost(AnalysisDocument *document, QWidget *viewParent, const QStringList &views, BackgroundWork work,
                   QObject *parent)
    : QObject(parent), m_document(document)
{
    // Created in registry order whatever the order of `views`, so slots (and syncs) are too.
    for (const ViewSpec &spec : viewRegistry())
        if (spec.create && views.contains(spec.name))
            spec.create(*this, viewParent, work);
    for (const ViewOption *option : viewOptions(ViewOption::Scope::Display))
        m_options.insert(option->key(), option->defaultValue.toInt());
    applyViewOptions();
    connect(m_document, &AnalysisDocument::changed, this, &ViewHost::onDocumentChanged);
}

QStringList ViewHost::exportableViewNames()
{
    QStringList names;
    for (const ViewSpec &spec : viewRegistry())
        if (spec.exportable && inMainWindow(spec))
            names << spec.name;
    return names;
}

QString ViewHost::viewRefusal(const QString &name, const Sentence *sentence, const Analysis *a)
{
    const ViewSpec *spec = findViewSpec(name);
    return spec && spec->refusal ? spec->refusal(sentence, a) : QString();
}

QStringList ViewHost::allViewNames()
{
    QStringList names;
    for (const ViewSpec &spec : viewRegistry())
        if (inMainWindow(spec))
            names << spec.name;
    return names;
}

void ViewHost::focusWord(int word)
{
    ViewState s = m_document->selection();
    s.focusWord = (word == s.focusWord) ? -1 : word; // clicking the focus word again clears it
    m_document->setSelection(s);
}

void ViewHost::selectLayerHead(int layer, int head)
{
    ViewState s = m_document->selection();
    s.layer = layer;
    s.head = head;
    m_document->setSelection(s);
}

void ViewHost::selectLayer(int layer)
{
    ViewState s = m_document->selection();
    if (layer == s.layer)
        return;
    s.layer = layer;
    m_document->setSelection(s);
}

void ViewHost::setViewOption(const QString &key, int value)
{
    const ViewOption *option = findViewOption(key);
    if (!option || option->scope != ViewOption::Scope::Display)
        return;
    m_options[key] = value;
    if (QWidget *view = widget(option->view); view && option->applyToView)
        option->applyToView(view, value);
    if (m_savesOptions && !option->settingsKey.isEmpty())
        Settings::setValue(option->settingsKey, value);
}

void ViewHost::setFoldSpecialTokens(bool fold)
{
    if (m_savesOptions)
        Settings::setValue(QStringLiteral("view/foldSpecialTokens"), fold);
    if (fold == m_foldSpecial)
        return;
    m_foldSpecial = fold;
    if (m_document->sentence())
        updateData(); // the views draw the folded (or whole) analysis
}

void ViewHost::setSurprisalBand(bool show)
{
    m_surprisalBand = show;
    applyViewOptions();
    if (m_savesOptions)
        Settings::setValue(QStringLiteral("view/surprisalBand"), show);
}

void ViewHost::restoreViewOptions()
{
    m_foldSpecial = Settings::value(QStringLiteral("view/foldSpecialTokens"), false).toBool();
    for (const ViewOption *option : viewOptions(ViewOption::Scope::Display))
        if (!option->settingsKey.isEmpty())
            m_options[option->key()] = Settings::value(option->settingsKey, option->defaultValue).toInt();
    m_surprisalBand = Settings::value(QStringLiteral("view/surprisalBand"), true).toBool();
    applyViewOptions();
}

void ViewHost::applyViewOptions()
{
    for (const ViewOption *option : viewOptions(ViewOption::Scope::Display))
        if (QWidget *view = widget(option->view); view && option->applyToView)
            option->applyToView(view, m_options.value(option->key()));
    if (auto *view = qobject_cast<ConstituencyView *>(widget(QStringLiteral("constituency"))))
        view->setShowSurprisal(m_surprisalBand);
    if (auto *view = qobject_cast<DependencyView *>(widget(QStringLiteral("dependency"))))
        view->setShowSurprisal(m_surprisalBand);
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

void ViewHost::setPatternMarks(std::shared_ptr<const PatternMarks> marks)
{
    m_marks = std::move(marks);
    const auto s = m_document->sentence();
    // Redraw only when the marks are (or were) the shown sentence's: marks for a sentence still
    // being analysed wait for it.
    if (s && (m_viewData.marks || (m_marks && m_marks->fits(*s))))
        updateData();
}

void ViewHost::updateData()
{
    QElapsedTimer clock;
    clock.start();
    ViewData data{m_document->sentence(), m_document->analysis()};
    // Views must not index out of range (see AnalysisDocument::analysisFits).
    if (!m_document->analysisFits())
        data.analysis.reset();
    else if (m_foldSpecial && data.analysis && hasFoldableSpecialTokens(*data.analysis))
        data.analysis = std::make_shared<const Analysis>(treelens::foldSpecialTokens(*data.analysis));
    if (m_marks && data.sentence && m_marks->fits(*data.sentence))
        data.marks = m_marks;
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
        if (m_syncHidden || v.widget->isVisible())
            syncView(v.widget);
}

ConstituencyView *ViewHost::constituencyView() { return synced<ConstituencyView>("constituency"); }
DependencyView *ViewHost::dependencyView() { return synced<DependencyView>("dependency"); }
PriorHeatmap *ViewHost::priorView() { return synced<PriorHeatmap>("prior"); }
AttentionHeatmap *ViewHost::attentionView() { return synced<AttentionHeatmap>("attention"); }
void ViewHost::setTreesEditable(bool editable)
{
    m_treesEditable = editable;
    if (auto *v = qobject_cast<DependencyView *>(widget(QStringLiteral("dependency"))))
        v->setEditable(editable);
    if (auto *v = qobject_cast<ConstituencyView *>(widget(QStringLiteral("constituency"))))
        v->setEditable(editable);
}

AttentionOverview *ViewHost::overviewView() { return synced<AttentionOverview>("overview"); }
LinkStripView *ViewHost::linkView() { return synced<LinkStripView>("links"); }
RelationHeatmap *ViewHost::relationView() { return synced<RelationHeatmap>("relations"); }
GateHeatmap *ViewHost::gateView() { return synced<GateHeatmap>("gate"); }
GateOverview *ViewHost::gateOverviewView() { return synced<GateOverview>("gates"); }

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
