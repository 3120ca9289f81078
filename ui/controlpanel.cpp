#include "ui/controlpanel.h"

#include <algorithm>

#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>

#include "ui/viewregistry.h"

namespace treelens {

ControlPanel::ControlPanel(QWidget *parent) : QWidget(parent)
{
    auto *form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_parser = new QComboBox(this);
    m_parser->setToolTip(tr("Parser that produces the dependency and constituency trees of typed text"));
    form->addRow(tr("&Parser:"), m_parser);

    auto *layerRow = new QHBoxLayout;
    m_layerSlider = new QSlider(Qt::Horizontal, this);
    m_layer = new QSpinBox(this);
    m_layerSlider->setRange(1, 1);
    m_layer->setRange(1, 1);
    m_layer->setToolTip(tr("Encoder layer (Ctrl+Up / Ctrl+Down)"));
    layerRow->addWidget(m_layerSlider, 1);
    layerRow->addWidget(m_layer);
    form->addRow(tr("Layer:"), layerRow);

    m_head = new QSpinBox(this);
    m_head->setRange(1, 1);
    m_head->setToolTip(tr("Attention head (Ctrl+Right / Ctrl+Left)"));
    form->addRow(tr("&Head:"), m_head);

    m_attention = new QComboBox(this);
    form->addRow(tr("&Attention:"), m_attention);

    m_focus = new QComboBox(this);
    m_focus->setToolTip(tr("Show the attention going out of this word on the trees (or click a word)"));
    form->addRow(tr("&From word:"), m_focus);

    auto *thrRow = new QHBoxLayout;
    m_threshold = new QSlider(Qt::Horizontal, this);
    m_threshold->setRange(0, 100);
    m_threshold->setValue(10);
    m_thresholdLabel = new QLabel(QStringLiteral("0.10"), this);
    m_thresholdLabel->setMinimumWidth(m_thresholdLabel->fontMetrics().horizontalAdvance(QStringLiteral("0.000")));
    m_threshold->setToolTip(tr("Attention arcs below this weight are not drawn"));
    thrRow->addWidget(m_threshold, 1);
    thrRow->addWidget(m_thresholdLabel);
    form->addRow(tr("Threshold:"), thrRow);

    addViewOptionRows(form);
    m_specialTokens = new QComboBox(this);
    m_specialTokens->addItems({tr("Their own rows"), tr("Folded away")});
    m_specialTokens->setToolTip(tr("A word-piece model's [CLS], [SEP], <s>, </s>: as rows and columns of their own in the "
                                   "trees and heatmaps, or left out (the rows then show the share of each word's attention "
                                   "that went to the other words)"));
    form->addRow(tr("Special tokens:"), m_specialTokens);
    m_surprisal = new QComboBox(this);
    m_surprisal->addItems({tr("Band under the words"), tr("Hidden")});
    m_surprisal->setToolTip(tr("A language model's surprisal of each word (nats) as a band under the words of the "
                               "dependency and constituency trees; the Surprisal tab draws it either way"));
    form->addRow(tr("Surprisal:"), m_surprisal);

    connect(m_parser, &QComboBox::activated, this, [this](int) { Q_EMIT parserChosen(m_parser->currentText()); });
    connect(m_layerSlider, &QSlider::valueChanged, m_layer, &QSpinBox::setValue);
    connect(m_layer, &QSpinBox::valueChanged, m_layerSlider, &QSlider::setValue);
    connect(m_layer, &QSpinBox::valueChanged, this, &ControlPanel::readWidgets);
    connect(m_head, &QSpinBox::valueChanged, this, &ControlPanel::readWidgets);
    connect(m_attention, &QComboBox::currentIndexChanged, this, &ControlPanel::readWidgets);
    connect(m_focus, &QComboBox::currentIndexChanged, this, &ControlPanel::readWidgets);
    connect(m_threshold, &QSlider::valueChanged, this, [this](int v) {
        m_thresholdLabel->setText(QString::number(v / 100.0, 'f', 2));
        readWidgets();
    });
    connect(m_specialTokens, &QComboBox::currentIndexChanged, this, [this](int i) { Q_EMIT foldSpecialTokensChanged(i == 1); });
    connect(m_surprisal, &QComboBox::currentIndexChanged, this, [this](int i) { Q_EMIT surprisalBandChanged(i == 0); });
    setAttentionKinds(AttentionKinds::Prior); // the default model's
}

void ControlPanel::setShape(int layers, int heads, const std::vector<std::string> &words)
{
    m_updating = true;
    const int l = std::max(1, layers), h = std::max(1, heads);
    m_layerSlider->setRange(1, l);
    m_layer->setRange(1, l);
    m_head->setRange(1, h);
    m_layer->setEnabled(layers > 0);
    m_layerSlider->setEnabled(layers > 0);
    m_head->setEnabled(heads > 0);
    const int focus = m_focus->currentIndex();
    m_focus->clear();
    m_focus->addItem(tr("(all words)"));
    for (std::size_t i = 0; i < words.size(); ++i)
        m_focus->addItem(QStringLiteral("%1  %2").arg(i + 1).arg(QString::fromStdString(words[i])));
    m_focus->setCurrentIndex(focus >= 0 && focus < m_focus->count() ? focus : 0);
    m_updating = false;
    readWidgets();
}

void ControlPanel::setState(const ViewState &state)
{
    m_updating = true;
    // A model with one attention keeps the document's choice as it is (readWidgets copies it).
    m_state.weightedAttention = state.weightedAttention;
    m_state.relationAttention = state.relationAttention;
    m_layer->setValue(state.layer + 1);
    m_head->setValue(state.head + 1);
    m_attention->setCurrentIndex(std::min(m_attention->count() - 1, state.relationAttention && m_kinds == AttentionKinds::Relation ? 2
                                                                     : state.weightedAttention                                   ? 0
                                                                                                                                 : 1));
    m_focus->setCurrentIndex(std::clamp(state.focusWord + 1, 0, std::max(0, m_focus->count() - 1)));
    m_threshold->setValue(static_cast<int>(state.threshold * 100.0 + 0.5));
    m_updating = false;
    readWidgets();
}

void ControlPanel::setAttentionKinds(AttentionKinds kinds)
{
    if (kinds == m_kinds && m_attention->count() > 0)
        return;
    m_updating = true;
    const int previous = m_attention->currentIndex();
    m_kinds = kinds;
    m_attention->clear();
    switch (kinds) {
    case AttentionKinds::Single:
        m_attention->addItem(tr("softmax (the model's only attention)"));
        m_attention->setToolTip(tr("This model has one attention: the plain softmax"));
        break;
    case AttentionKinds::Prior:
        m_attention->addItems({tr("after ×C (constituent prior)"), tr("softmax before ×C")});
        m_attention->setToolTip(tr("The Tree Transformer's attention after its constituent prior (softmax ⊙ C), "
                                   "or the plain softmax before it"));
        break;
    case AttentionKinds::Relation:
        m_attention->addItems({tr("combined (gated)"), tr("plain softmax(Sᵉ)"), tr("relation softmax(Sʳ)")});
        m_attention->setToolTip(tr("The Dependency-Transformer's attention: the softmax of the gated score "
                                   "(1 − g)·Sᵉ + g·Sʳ that the model uses, the plain scaled dot product Sᵉ alone, "
                                   "or the relation score Sʳ alone"));
        break;
    }
    m_attention->setEnabled(kinds != AttentionKinds::Single);
    // Keep the choice across models where it exists (the relation attention only for this family).
    m_attention->setCurrentIndex(std::clamp(previous, 0, m_attention->count() - 1));
    if (kinds == AttentionKinds::Relation && m_state.relationAttention)
        m_attention->setCurrentIndex(2);
    else if (kinds != AttentionKinds::Single)
        m_attention->setCurrentIndex(m_state.weightedAttention ? 0 : 1);
    m_updating = false;
    readWidgets();
}

void ControlPanel::setParsers(const QStringList &names, const QString &current)
{
    const QSignalBlocker block(m_parser);
    m_parser->clear();
    m_parser->addItems(names);
    m_parser->setCurrentText(current);
}

void ControlPanel::addViewOptionRows(QFormLayout *form)
{
    for (const ViewOption *option : viewOptions(ViewOption::Scope::Display)) {
        if (!option->panelLabel || option->valueLabels.empty())
            continue;
        auto *box = new QComboBox(this);
        for (const char *label : option->valueLabels)
            box->addItem(QCoreApplication::translate("ViewRegistry", label));
        box->setCurrentIndex(option->defaultValue.toInt());
        form->addRow(QCoreApplication::translate("ViewRegistry", option->panelLabel), box);
        const QString key = option->key();
        m_viewOptions.insert(key, box);
        connect(box, &QComboBox::currentIndexChanged, this, [this, key](int value) { Q_EMIT viewOptionChanged(key, value); });
    }
}

int ControlPanel::viewOption(const QString &key) const
{
    const QComboBox *box = m_viewOptions.value(key);
    return box ? box->currentIndex() : -1;
}

void ControlPanel::setViewOption(const QString &key, int value)
{
    if (QComboBox *box = m_viewOptions.value(key))
        box->setCurrentIndex(value);
}

bool ControlPanel::foldSpecialTokens() const { return m_specialTokens->currentIndex() == 1; }
void ControlPanel::setFoldSpecialTokens(bool fold) { m_specialTokens->setCurrentIndex(fold ? 1 : 0); }
bool ControlPanel::surprisalBand() const { return m_surprisal->currentIndex() == 0; }
void ControlPanel::setSurprisalBand(bool show) { m_surprisal->setCurrentIndex(show ? 0 : 1); }

void ControlPanel::stepLayer(int delta) { m_layer->setValue(m_layer->value() + delta); }
void ControlPanel::stepHead(int delta) { m_head->setValue(m_head->value() + delta); }

void ControlPanel::readWidgets()
{
    if (m_updating)
        return;
    ViewState s;
    s.layer = m_layer->value() - 1;
    s.head = m_head->value() - 1;
    // Index 0: the model's attention (after ×C, gated); 1: the plain softmax; 2: the relation attention.
    // A model with one attention keeps the last choice, so switching back to a Tree Transformer keeps it.
    if (m_kinds == AttentionKinds::Single) {
        s.weightedAttention = m_state.weightedAttention;
        s.relationAttention = m_state.relationAttention;
    } else {
        const int k = m_attention->currentIndex();
        s.weightedAttention = k != 1;
        s.relationAttention = k == 2;
    }
    s.focusWord = m_focus->currentIndex() - 1;
    s.threshold = m_threshold->value() / 100.0;
    if (s == m_state)
        return;
    m_state = s;
    Q_EMIT stateChanged(m_state);
}

} // namespace treelens
