#pragma once
/// \file controlpanel.h
/// The "View" dock: parser choice, layer and head, which attention (before/after ×C;
/// plain, relation or combined),
/// focus word, threshold, and the views' display options (every ViewOption of scope
/// Display with a panel label in the view registry, as a choice; viewregistry.h). Owns
/// no state beyond its widgets: it reports changes and the main window fans them out to
/// the views.

#include <string>
#include <vector>

#include <QHash>
#include <QWidget>

#include "viz/viewcommon.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QSlider;
class QSpinBox;

namespace treelens {

class ControlPanel : public QWidget {
    Q_OBJECT
public:
    explicit ControlPanel(QWidget *parent = nullptr);

    /// Ranges follow the analysis: layers × heads and the words for the focus list.
    void setShape(int layers, int heads, const std::vector<std::string> &words);
    /// Which attentions the model has: one (a plain Transformer, GGSA), before and
    /// after the constituent prior (Tree Transformer), or the Dependency-Transformer's
    /// plain, relation and gated combination. Sets the "Attention" choices.
    enum class AttentionKinds { Single, Prior, Relation };
    void setAttentionKinds(AttentionKinds kinds);
    /// The attention choice ("after ×C", "softmax before ×C"; "combined (gated)", "plain", "relation").
    QComboBox *attentionCombo() const { return m_attention; }
    ViewState state() const { return m_state; }
    void setState(const ViewState &state);
    void setParsers(const QStringList &names, const QString &current);

    /// A view's display option by ViewOption::key() ("constituency.mode"); -1 for one the
    /// dock does not show. Setting it emits viewOptionChanged() when it changes.
    int viewOption(const QString &key) const;
    void setViewOption(const QString &key, int value);
    /// A word-piece model's special tokens folded away (true) or as their own rows (false).
    bool foldSpecialTokens() const;
    void setFoldSpecialTokens(bool fold);
    /// A language model's surprisal as a band under the tree views' words (true) or hidden.
    bool surprisalBand() const;
    void setSurprisalBand(bool show);

    // Keyboard steps (wrap-around free: clamped to the ranges).
    void stepLayer(int delta);
    void stepHead(int delta);

Q_SIGNALS:
    void stateChanged(const treelens::ViewState &state);
    void parserChosen(const QString &name);
    /// The user chose `value` for the display option `key` (ViewHost::setViewOption).
    void viewOptionChanged(const QString &key, int value);
    void foldSpecialTokensChanged(bool fold);
    void surprisalBandChanged(bool show);

private:
    /// A row per display option the view registry gives a panel label.
    void addViewOptionRows(QFormLayout *form);
    void readWidgets();

    ViewState m_state;
    bool m_updating = false;
    QComboBox *m_parser = nullptr;
    QSlider *m_layerSlider = nullptr;
    QSpinBox *m_layer = nullptr;
    QSpinBox *m_head = nullptr;
    QComboBox *m_attention = nullptr;
    AttentionKinds m_kinds = AttentionKinds::Prior;
    QComboBox *m_focus = nullptr;
    QSlider *m_threshold = nullptr;
    QLabel *m_thresholdLabel = nullptr;
    QHash<QString, QComboBox *> m_viewOptions; ///< by ViewOption::key()
    QComboBox *m_specialTokens = nullptr;
    QComboBox *m_surprisal = nullptr;
};

} // namespace treelens
