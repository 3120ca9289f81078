#include "ui/ablationcontrol.h"

#include <algorithm>

#include <QUndoCommand>
#include <QUndoStack>

#include "viz/viewcommon.h"

namespace treelens {

/// One change of the set: the sets before and after, so undo and redo are exact.
class AblationCommand : public QUndoCommand {
public:
    AblationCommand(AblationControl *control, std::vector<HeadAblation> before, std::vector<HeadAblation> after, const QString &text)
        : QUndoCommand(text), m_control(control), m_before(std::move(before)), m_after(std::move(after))
    {
    }
    void undo() override { m_control->set(m_before); }
    void redo() override { m_control->set(m_after); }

private:
    AblationControl *m_control;
    std::vector<HeadAblation> m_before, m_after;
};

AblationControl::AblationControl(QObject *parent) : QObject(parent), m_stack(new QUndoStack(this)) {}

AblationControl::~AblationControl() = default;

std::vector<std::pair<int, int>> AblationControl::asPairs() const
{
    std::vector<std::pair<int, int>> out;
    for (const HeadAblation &a : m_heads)
        out.emplace_back(a.layer, a.head);
    return out;
}

bool AblationControl::isOff(int layer, int head) const
{
    return std::find(m_heads.begin(), m_heads.end(), HeadAblation{layer, head}) != m_heads.end();
}

void AblationControl::toggle(int layer, int head)
{
    std::vector<HeadAblation> after = m_heads;
    const auto it = std::find(after.begin(), after.end(), HeadAblation{layer, head});
    const bool off = it == after.end();
    if (off)
        after.push_back(HeadAblation{layer, head});
    else
        after.erase(it);
    const QString name = head < 0 ? tr("layer %1").arg(layer + 1) : tr("L%1 H%2").arg(layer + 1).arg(head + 1);
    m_stack->push(new AblationCommand(this, m_heads, after, off ? tr("switch %1 off").arg(name) : tr("switch %1 on").arg(name)));
}

void AblationControl::clear()
{
    if (!m_heads.empty())
        m_stack->push(new AblationCommand(this, m_heads, {}, tr("switch every head on")));
}

void AblationControl::reset()
{
    m_stack->clear();
    set({});
}

QString AblationControl::badge() const { return ablationBadge(asPairs()); }

void AblationControl::set(std::vector<HeadAblation> heads)
{
    if (heads == m_heads)
        return;
    m_heads = std::move(heads);
    Q_EMIT changed();
}

} // namespace treelens
