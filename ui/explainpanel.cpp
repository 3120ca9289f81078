#include "ui/explainpanel.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/data/overlays.h"
#include "core/eval/attribution.h"
#include "ui/session/analysisdocument.h"
#include "ui/session/jobrunner.h"
#include "viz/viewcommon.h"

namespace treelens {

QString unitName(const std::string &kind)
{
    return kind == "word"                      ? ExplainPanel::tr("word")
           : kind == "dependency"              ? ExplainPanel::tr("subtree")
           : kind == "constituent"             ? ExplainPanel::tr("constituent")
                                               : ExplainPanel::tr("subtree = constituent");
}

/// A row of the ranked list: the two number columns sort by value (Qt::UserRole), the others as text.
class RankedItem : public QTreeWidgetItem {
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem &other) const override
    {
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        if (column <= 1)
            return data(column, Qt::UserRole).toDouble() < other.data(column, Qt::UserRole).toDouble();
        return QTreeWidgetItem::operator<(other);
    }
};

ExplainPanel::ExplainPanel(AnalysisDocument *document, JobRunner *jobs, QWidget *parent)
    : QWidget(parent), m_document(document), m_jobs(jobs)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *form = new QFormLayout;
    m_method = new QComboBox(this);
    m_method->addItems({tr("Integrated Gradients"), tr("Gradient \u00d7 input"), tr("Attention rollout (not a gradient)")});
    m_steps = new QSpinBox(this);
    m_steps->setRange(1, 4096);
    m_steps->setValue(64);
    m_steps->setToolTip(tr("Integrated Gradients: points along the path from the baseline (zero embeddings, or the unknown word for "
                            "the models that layer-normalise their word vectors) to the input"));
    m_target = new QComboBox(this);
    m_target->setToolTip(tr("The label whose log-probability is explained; a pair scorer's score by default"));
    form->addRow(tr("Method:"), m_method);
    form->addRow(tr("Steps:"), m_steps);
    form->addRow(tr("Target:"), m_target);
    layout->addLayout(form);
    m_run = new QPushButton(tr("E&xplain the prediction"), this);
    layout->addWidget(m_run);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_list = new QTreeWidget(this);
    m_list->setHeaderLabels({tr("attribution"), tr("per word"), tr("words"), tr("unit"), tr("label")});
    m_list->headerItem()->setToolTip(1, tr("The attribution divided by the unit's words: a ranking by it does not favour "
                                           "long subtrees as the sum does (click a header to sort by it)"));
    m_list->setRootIsDecorated(false);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(2, QHeaderView::Stretch);
    layout->addWidget(m_list, 1);
    connect(m_run, &QPushButton::clicked, this, &ExplainPanel::explain);
    connect(m_method, &QComboBox::currentIndexChanged, this, [this](int i) { m_steps->setEnabled(i == 0); });
    connect(document, &AnalysisDocument::changed, this, [this](AnalysisDocument::Changes what) {
        if (m_applying)
            return;
        if (what & (AnalysisDocument::SentenceChanged | AnalysisDocument::AnalysisChanged)) {
            // A new analysis: the last explanation was of another one.
            m_result.reset();
            m_list->clear();
            m_summary->clear();
            refreshTargets();
        }
    });
    refreshTargets();
}

void ExplainPanel::setMethod(ExplainOptions::Method method) { m_method->setCurrentIndex(static_cast<int>(method)); }

void ExplainPanel::setSteps(int steps) { m_steps->setValue(steps); }

QString ExplainPanel::summary() const { return m_summary->text(); }

void ExplainPanel::refreshTargets()
{
    m_target->clear();
    const auto a = m_document->analysis();
    m_target->addItem(a && a->prediction && !a->second.empty() ? tr("(the pair's score)") : tr("(the predicted label)"), QString());
    if (a && a->prediction)
        for (const std::string &label : a->prediction->labels)
            m_target->addItem(QString::fromStdString(label), QString::fromStdString(label));
    m_run->setEnabled(a != nullptr);
}

void ExplainPanel::explain()
{
    const auto sentence = m_document->sentence();
    const auto analysis = m_document->analysis();
    if (!sentence || !analysis) {
        m_summary->setText(tr("Nothing to explain: analyse a sentence with a model first."));
        Q_EMIT explained(false);
        return;
    }
    ExplainOptions options;
    options.method = static_cast<ExplainOptions::Method>(m_method->currentIndex());
    options.steps = m_steps->value();
    options.target = m_target->currentData().toString().toStdString();
    for (const auto &[layer, head] : analysis->ablated) // the heads the shown analysis was made without
        options.ablate.push_back(HeadAblation{layer, head});
    const std::string model = m_jobs->modelPath().toStdString();
    m_summary->setText(tr("Explaining\u2026"));
    m_run->setEnabled(false);
    m_jobs->submit<Attribution>(
        JobRunner::Lane::Background, QStringLiteral("explain"), this,
        [sentence, analysis, options, model, jobs = m_jobs](const RunControl &control) -> Result<Attribution> {
            if (options.method == ExplainOptions::Method::Rollout) {
                auto enc = jobs->encoders().get(model);
                return attentionRollout(*analysis, enc && (*enc)->info().hasClsToken);
            }
            auto enc = jobs->encoders().get(model);
            if (!enc)
                return enc.error();
            EncoderInput in{sentence->words(), sentence->dependency, sentence->constituency, {}, {}, {}};
            auto r = (*enc)->explain({in}, options, &control);
            if (!r)
                return r.error();
            return std::move(r->front());
        },
        [this](quint64, std::shared_ptr<const Attribution> result) {
            m_run->setEnabled(true);
            show(std::move(result));
            Q_EMIT explained(true);
        },
        [this](quint64, const QString &message) {
            m_run->setEnabled(true);
            m_summary->setText(tr("Not explained: %1").arg(message));
            Q_EMIT explained(false);
        });
}

void ExplainPanel::show(std::shared_ptr<const Attribution> result)
{
    m_result = result;
    const auto sentence = m_document->sentence();
    const auto analysis = m_document->analysis();
    QString text = tr("%1 of %2").arg(QString::fromStdString(result->method), QString::fromStdString(result->quantity));
    if (!std::isnan(result->fInput)) {
        const double delta = result->fInput - result->fBaseline;
        text += tr("; f(input) %1, f(baseline) %2; the attributions sum to %3 (completeness gap %4, %5% of the difference)")
                    .arg(result->fInput, 0, 'f', 4)
                    .arg(result->fBaseline, 0, 'f', 4)
                    .arg(result->total(), 0, 'f', 4)
                    .arg(result->completenessGap(), 0, 'f', 5)
                    .arg(100.0 * std::abs(result->completenessGap()) / std::max(1e-12, std::abs(delta)), 0, 'f', 1);
        text += tr(" [baseline: %1]").arg(QString::fromStdString(result->baseline));
    }
    if (!result->warning.empty())
        text += tr("\nWarning: %1").arg(QString::fromStdString(result->warning));
    m_summary->setText(text);
    m_list->clear();
    if (!sentence || !analysis || result->sides.empty())
        return;
    const SideAttribution &side = result->sides.front();
    // The whole sentence is one sum, said apart from the ranked subtrees (issue 47); how a
    // word-piece model's rollout makes word values, when it matters.
    if (auto subtrees = subtreeAttributions(*sentence, side.word)) {
        const RankedSubtrees ranked = rankedSubtrees(*subtrees);
        if (ranked.hasWholeSentence)
            text += tr("\nWhole sentence: %1 (the sum over its words; not ranked).").arg(ranked.wholeSentence, 0, 'f', 5);
    }
    if (const std::string rule = rolloutWordRule(side); !rule.empty())
        text += tr("\nWords: %1.").arg(QString::fromStdString(rule));
    m_summary->setText(text);
    // The ranked list: words and subtrees, most positive first; a click on a header sorts
    // by that column (the per-word mean does not favour long subtrees).
    auto units = unitAttributions(*sentence, side.word);
    std::stable_sort(units.begin(), units.end(), [](const auto &a, const auto &b) { return a.attribution > b.attribution; });
    const auto words = sentence->words();
    m_list->setSortingEnabled(false);
    for (const SubtreeAttribution &u : units) {
        QStringList w;
        for (int x : u.words)
            w << QString::fromStdString(words[static_cast<std::size_t>(x)]);
        const QString text = w.join(QLatin1Char(' '));
        auto *item = new RankedItem(m_list, {QString::number(u.attribution, 'f', 5), QString::number(u.perWord(), 'f', 5),
                                             text, unitName(u.kind), QString::fromStdString(u.label)});
        item->setData(0, Qt::UserRole, u.attribution);
        item->setData(1, Qt::UserRole, u.perWord());
        if (u.kind == "word" && static_cast<std::size_t>(u.head) < side.pieces.size() && side.pieces[u.head] > 1)
            item->setText(3, tr("word (%1 pieces)").arg(side.pieces[u.head]));
        item->setToolTip(2, text);
        item->setForeground(0, divergingColor(u.attribution < 0 ? -1.0 : 1.0)); // the tree views' blue and red
        item->setForeground(1, divergingColor(u.perWord() < 0 ? -1.0 : 1.0));
    }
    m_list->setSortingEnabled(true);
    m_list->sortByColumn(0, Qt::DescendingOrder);
    // The bands under the words: the analysis shown, with the attributions.
    if (side.word.size() == analysis->words.size()) {
        auto copy = std::make_shared<Analysis>(*analysis);
        NamedArray values{{static_cast<int>(side.word.size())}, {}};
        for (double v : side.word)
            values.data.push_back(static_cast<float>(v));
        copy->gates[overlay::kAttributionWord] = std::move(values);
        m_applying = true;
        m_document->setAnalysis(copy, m_document->modelMessage());
        m_applying = false;
    }
}

} // namespace treelens
