#pragma once
/// \file ablationcontrol.h
/// The heads switched off in the app (issue 46): the set every later analysis of the window
/// is made without (the document's sentence and its views, the Explain dock, the Minimal
/// pairs dock's pairs; not corpus scoring, probing or the pair workbench), changed one head at a
/// time from the heads overview (Ctrl+click, or a click while the dock's "click switches heads
/// off" is on). Each change is one step on its own undo stack (Edit ▸ Undo head switch-off),
/// so a linguist can go back to the model as it was. GUI thread only.

#include <utility>
#include <vector>

#include <QObject>
#include <QString>

#include "core/encoders/headablation.h"

class QUndoStack;

namespace treelens {

class AblationControl : public QObject {
    Q_OBJECT
public:
    explicit AblationControl(QObject *parent = nullptr);
    ~AblationControl() override;

    /// The heads switched off now (0-based; head -1: a whole layer), in the order they were.
    const std::vector<HeadAblation> &heads() const { return m_heads; }
    /// The same as Analysis::ablated lists them.
    std::vector<std::pair<int, int>> asPairs() const;
    bool isOff(int layer, int head) const;
    /// Switches (layer, head) off, or on again when it is off: one undo step.
    void toggle(int layer, int head);
    /// Every head back on: one undo step (nothing when none is off).
    void clear();
    /// Every head back on and the undo steps forgotten (another model: its heads are others).
    void reset();
    QUndoStack *undoStack() const { return m_stack; }
    /// "L3 H2 ablated" (the views' badge, viewcommon.h ablationBadge); "" when none.
    QString badge() const;

Q_SIGNALS:
    /// The set changed (a toggle, undo, redo, clear).
    void changed();

private:
    friend class AblationCommand;
    void set(std::vector<HeadAblation> heads);

    std::vector<HeadAblation> m_heads;
    QUndoStack *m_stack;
};

} // namespace treelens
