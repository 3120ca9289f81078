// The pair workbench's "Why this rank" tab (see rankexplainpanel.h).
#include "ui/rankexplainpanel.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QComboBox>
#include <QFileDialog>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/eval/attribution.h"
#include "core/eval/pairtable.h"
#include "ui/explainpanel.h"
#include "ui/session/jobrunner.h"
#include "viz/viewcommon.h"

namespace treelens {

namespace {

const QString kExplainGroup = QStringLiteral("pairs-explain");

struct TwoExplanations {
    Attribution top, other;
};

/// One pair explained by `model` (a pair model: both sentences in one input).
Result<Attribution> explainOne(JobRunner &jobs, const std::string &model, const SentencePair &pair, const ExplainOptions &options,
                               const RunControl &control)
{
    auto enc = jobs.encoders().get(model, DeviceConfig{});
    if (!enc)
        return enc.error();
    if (!(*enc)->info().pairInput)
        return Error{(*enc)->info().name + " reads single sentences: it has no pair score to explain (choose a pair model as system A)"};
    auto r = (*enc)->explain({pairEncoderInput(pair.first, pair.second)}, options, &control);
    if (!r)
        return r.error();
    return std::move(r->front());
}

QString words(const std::vector<std::string> &all, const std::vector<int> &which)
{
    QStringList w;
    for (int x : which)
        if (x >= 0 && static_cast<std::size_t>(x) < all.size())
            w << QString::fromStdString(all[static_cast<std::size_t>(x)]);
    return w.join(QLatin1Char(' '));
}

double sumOf(const std::vector<double> &v)
{
    double s = 0.0;
    for (double x : v)
        s += x;
    return s;
}

QString signedNumber(double v) { return (v >= 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', 4); }

/// The ends of the diverging map the tree views draw attributions with: blue lowers, red raises.
QColor signColor(double v) { return divergingColor(v < 0 ? -1.0 : 1.0); }

} // namespace

RankExplainPanel::RankExplainPanel(JobRunner &jobs, QWidget *parent) : QWidget(parent), m_jobs(jobs)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *row = new QHBoxLayout;
    m_method = new QComboBox(this);
    m_method->addItems({tr("Integrated Gradients"), tr("Gradient \u00d7 input")});
    m_method->setToolTip(tr("What attributes system A's pair score to the words of both sentences"));
    m_steps = new QSpinBox(this);
    m_steps->setRange(1, 4096);
    m_steps->setValue(64);
    m_steps->setPrefix(tr("steps "));
    m_steps->setToolTip(tr("Integrated Gradients: points along the path from the baseline to the input"));
    m_pairButton = new QPushButton(tr("Explain this pair"), this);
    m_pairButton->setToolTip(tr("Attribute the shown pair's score to the words of its question and candidate (drawn on the trees)"));
    m_rankButton = new QPushButton(tr("Why this rank?"), this);
    m_rankButton->setToolTip(tr("Explain the top candidate against the best-ranked correct one (or, when the top one is correct, "
                                "against the best-ranked wrong one) and split their score difference"));
    m_showTop = new QPushButton(tr("Show the top pair"), this);
    m_showOther = new QPushButton(tr("Show the other pair"), this);
    m_export = new QPushButton(tr("Export\u2026"), this);
    row->addWidget(m_method);
    row->addWidget(m_steps);
    row->addWidget(m_pairButton);
    row->addWidget(m_rankButton);
    row->addStretch(1);
    row->addWidget(m_showTop);
    row->addWidget(m_showOther);
    row->addWidget(m_export);
    layout->addLayout(row);
    m_summary = new QLabel(tr("Pick a question, then explain its pair or ask why its top candidate ranks first."), this);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_table = new QTreeWidget(this);
    m_table->setHeaderLabels({tr("words"), tr("unit"), tr("label"), tr("top pair"), tr("other pair"), tr("top \u2212 other")});
    m_table->setSortingEnabled(false);
    m_table->header()->setStretchLastSection(false);
    m_table->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(m_table, 1);

    // Other settings: the explanations made (and being made) are of the old ones.
    auto settingsChanged = [this] {
        m_jobs.cancelGroup(kExplainGroup);
        ++m_generation;
        m_explained.clear();
        updateButtons();
    };
    connect(m_method, &QComboBox::currentIndexChanged, this, [this, settingsChanged](int i) {
        m_steps->setEnabled(i == 0);
        settingsChanged();
    });
    connect(m_steps, &QSpinBox::valueChanged, this, settingsChanged);
    connect(m_pairButton, &QPushButton::clicked, this, &RankExplainPanel::explainPair);
    connect(m_rankButton, &QPushButton::clicked, this, &RankExplainPanel::explainRank);
    connect(m_showTop, &QPushButton::clicked, this, [this] { Q_EMIT showPairRequested(m_top); });
    connect(m_showOther, &QPushButton::clicked, this, [this] { Q_EMIT showPairRequested(m_other); });
    connect(m_export, &QPushButton::clicked, this, &RankExplainPanel::exportTable);
    updateButtons();
}

void RankExplainPanel::setMethod(ExplainOptions::Method method)
{
    m_method->setCurrentIndex(method == ExplainOptions::Method::GradientInput ? 1 : 0);
}

void RankExplainPanel::setSteps(int steps) { m_steps->setValue(steps); }

ExplainOptions RankExplainPanel::options() const
{
    ExplainOptions o;
    o.method = m_method->currentIndex() == 1 ? ExplainOptions::Method::GradientInput : ExplainOptions::Method::IntegratedGradients;
    o.steps = m_steps->value();
    return o;
}

void RankExplainPanel::setCorpus(std::shared_ptr<const PairCorpus> corpus, const QString &modelPath)
{
    m_jobs.cancelGroup(kExplainGroup);
    ++m_generation;
    m_corpus = std::move(corpus);
    m_model = modelPath;
    m_explained.clear();
    m_contrast.reset();
    m_ranked.clear();
    m_shown = m_top = m_other = -1;
    m_rows.clear();
    fillTable();
    // The summary says what this system allows (a message of the corpus before, "System A
    // is the IDF baseline" while A was being scored, stayed once iGGSA was: issue 47).
    if (!m_corpus)
        m_summary->setText(tr("Pick a question, then explain its pair or ask why its top candidate ranks first."));
    else if (m_model.isEmpty())
        m_summary->setText(tr("System A is being scored: its explanations come once the pairs are scored."));
    else if (m_model == QStringLiteral("idf"))
        m_summary->setText(tr("System A is the IDF baseline: it has no gradients to explain. Choose a pair model."));
    else
        m_summary->setText(tr("System A is %1. Pick a question, then explain its pair or ask why its top candidate "
                              "ranks first.")
                               .arg(QFileInfo(m_model).completeBaseName().toHtmlEscaped()));
    updateButtons();
}

void RankExplainPanel::setQuestion(std::vector<int> ranked, int shownPair)
{
    if (ranked != m_ranked) {
        // Another question: its explanations are another's (and a running one is dropped).
        m_jobs.cancelGroup(kExplainGroup);
        ++m_generation;
        m_contrast.reset();
        m_top = m_other = -1;
        m_rows.clear();
        fillTable();
    }
    m_ranked = std::move(ranked);
    m_shown = shownPair;
    updateButtons();
}

void RankExplainPanel::updateButtons()
{
    const bool model = m_corpus && !m_model.isEmpty() && m_model != QStringLiteral("idf");
    m_pairButton->setEnabled(model && m_shown >= 0);
    m_rankButton->setEnabled(model && m_ranked.size() >= 2);
    m_showTop->setEnabled(m_contrast.has_value());
    m_showOther->setEnabled(m_contrast.has_value());
    m_export->setEnabled(!m_rows.empty());
}

bool RankExplainPanel::isCorrect(int pair) const
{
    const std::string &l = m_corpus->pairs[static_cast<std::size_t>(pair)].label;
    return l == "1" || l == "YES";
}

QString RankExplainPanel::candidateText(int pair) const
{
    return QString::fromStdString(m_corpus->pairs[static_cast<std::size_t>(pair)].second.text).toHtmlEscaped();
}

std::shared_ptr<const Attribution> RankExplainPanel::attributionFor(int pair) const
{
    const auto it = m_explained.find(pair);
    return it == m_explained.end() ? nullptr : it->second;
}

QString RankExplainPanel::summary() const { return m_summary->text(); }

void RankExplainPanel::explainPair()
{
    if (!m_corpus || m_shown < 0 || m_shown >= static_cast<int>(m_corpus->pairs.size()))
        return;
    const int pair = m_shown;
    const quint64 generation = m_generation;
    const SentencePair p = m_corpus->pairs[static_cast<std::size_t>(pair)];
    const ExplainOptions o = options();
    const std::string model = m_model.toStdString();
    m_summary->setText(tr("Explaining pair %1\u2026").arg(pair));
    m_pairButton->setEnabled(false);
    JobRunner *jobs = &m_jobs;
    m_jobs.submit<Attribution>(
        JobRunner::Lane::Background, kExplainGroup, this,
        [jobs, model, p, o](const RunControl &control) { return explainOne(*jobs, model, p, o, control); },
        [this, pair, generation](quint64, std::shared_ptr<const Attribution> a) {
            if (generation != m_generation)
                return; // of another corpus, question or settings
            m_explained[pair] = a;
            m_contrast.reset();
            showPairExplanation(pair);
            updateButtons();
            Q_EMIT attributionsReady(pair);
            Q_EMIT explained(true);
        },
        [this](quint64, const QString &message) {
            m_summary->setText(tr("Not explained: %1").arg(message.toHtmlEscaped()));
            updateButtons();
            Q_EMIT explained(false);
        });
}

void RankExplainPanel::explainRank()
{
    if (!m_corpus || m_ranked.size() < 2)
        return;
    // The top candidate against the best-ranked correct one; when the top one is correct,
    // against the best-ranked wrong one; without a correct candidate, against the runner-up.
    const int top = m_ranked.front();
    const quint64 generation = m_generation;
    int other = -1;
    for (std::size_t k = 1; k < m_ranked.size() && other < 0; ++k)
        if (isCorrect(m_ranked[k]) != isCorrect(top))
            other = m_ranked[k];
    if (other < 0)
        other = m_ranked[1];
    const SentencePair pt = m_corpus->pairs[static_cast<std::size_t>(top)], po = m_corpus->pairs[static_cast<std::size_t>(other)];
    const ExplainOptions o = options();
    const std::string model = m_model.toStdString();
    m_summary->setText(tr("Explaining the top candidate and the one it is contrasted with\u2026"));
    m_rankButton->setEnabled(false);
    JobRunner *jobs = &m_jobs;
    m_jobs.submit<TwoExplanations>(
        JobRunner::Lane::Background, kExplainGroup, this,
        [jobs, model, pt, po, o](const RunControl &control) -> Result<TwoExplanations> {
            auto a = explainOne(*jobs, model, pt, o, control);
            if (!a)
                return a.error();
            // A classifier explains log p of its predicted label, which may differ between the two
            // pairs: both then explain the model's positive (last) label, the one it ranks by.
            ExplainOptions same = o;
            if (a->target != "score") {
                auto enc = jobs->encoders().get(model, DeviceConfig{});
                if (!enc)
                    return enc.error();
                const auto &labels = (*enc)->info().labels;
                same.target = labels.empty() ? a->target : labels.back();
                if (a->target != same.target) {
                    a = explainOne(*jobs, model, pt, same, control);
                    if (!a)
                        return a.error();
                }
            }
            auto b = explainOne(*jobs, model, po, same, control);
            if (!b)
                return b.error();
            return TwoExplanations{std::move(*a), std::move(*b)};
        },
        [this, top, other, generation](quint64, std::shared_ptr<const TwoExplanations> r) {
            if (generation != m_generation)
                return; // of another corpus, question or settings
            auto c = rankContrast(r->top, r->other);
            if (!c) {
                m_summary->setText(tr("Not explained: %1").arg(QString::fromStdString(c.message()).toHtmlEscaped()));
                updateButtons();
                Q_EMIT explained(false);
                return;
            }
            m_explained[top] = std::make_shared<const Attribution>(r->top);
            m_explained[other] = std::make_shared<const Attribution>(r->other);
            m_top = top;
            m_other = other;
            m_contrast = *c;
            showContrast();
            updateButtons();
            Q_EMIT attributionsReady(top);
            Q_EMIT attributionsReady(other);
            Q_EMIT explained(true);
        },
        [this](quint64, const QString &message) {
            m_summary->setText(tr("Not explained: %1").arg(message.toHtmlEscaped()));
            updateButtons();
            Q_EMIT explained(false);
        });
}

void RankExplainPanel::showPairExplanation(int pair)
{
    const Attribution &a = *m_explained.at(pair);
    const SentencePair &p = m_corpus->pairs[static_cast<std::size_t>(pair)];
    const double question = a.sides.empty() ? 0.0 : sumOf(a.sides[0].token),
                 candidate = a.sides.size() < 2 ? 0.0 : sumOf(a.sides[1].token);
    QString text = tr("<b>Pair %1</b> (gold %2): %3 of %4. f(input) %5, f(baseline) %6; the attributions sum to %7 "
                      "(completeness gap %8): the question's %9, the candidate's %10.")
                       .arg(pair)
                       .arg(QString::fromStdString(p.label).toHtmlEscaped(), QString::fromStdString(a.method),
                            QString::fromStdString(a.quantity).toHtmlEscaped())
                       .arg(a.fInput, 0, 'f', 4)
                       .arg(a.fBaseline, 0, 'f', 4)
                       .arg(a.total(), 0, 'f', 4)
                       .arg(a.completenessGap(), 0, 'f', 5)
                       .arg(signedNumber(question), signedNumber(candidate));
    if (!a.warning.empty())
        text += QStringLiteral("<br><i>") + tr("Warning: %1").arg(QString::fromStdString(a.warning).toHtmlEscaped()) +
                QStringLiteral("</i>");
    m_summary->setText(text);
    m_rows.clear();
    for (std::size_t s = 0; s < a.sides.size() && s < 2; ++s) {
        const Sentence &sentence = s == 0 ? p.first : p.second;
        const auto w = sentence.words();
        std::vector<Row> rows;
        const QString section = s == 0 ? tr("Question") : tr("Candidate");
        for (const SubtreeAttribution &u : unitAttributions(sentence, a.sides[s].word))
            rows.push_back({section, words(w, u.words), unitName(u.kind), QString::fromStdString(u.label), u.attribution, 0, 0, true,
                            false, false});
        std::stable_sort(rows.begin(), rows.end(), [](const Row &x, const Row &y) { return x.top > y.top; });
        m_rows.insert(m_rows.end(), rows.begin(), rows.end());
    }
    m_table->setHeaderLabels({tr("words"), tr("unit"), tr("label"), tr("attribution"), tr("other pair"), tr("top \u2212 other")});
    fillTable();
}

void RankExplainPanel::showContrast()
{
    const RankContrast &c = *m_contrast;
    const auto &pt = m_corpus->pairs[static_cast<std::size_t>(m_top)];
    const auto &po = m_corpus->pairs[static_cast<std::size_t>(m_other)];
    const auto rankOf = [this](int pair) {
        return static_cast<int>(std::find(m_ranked.begin(), m_ranked.end(), pair) - m_ranked.begin()) + 1;
    };
    const bool topCorrect = isCorrect(m_top), otherCorrect = isCorrect(m_other);
    const QString against = otherCorrect && !topCorrect ? tr("the best-ranked correct candidate")
                            : !otherCorrect && topCorrect ? tr("the best-ranked wrong candidate (the top one is correct)")
                                                          : tr("the runner-up (no candidate of the other gold label)");
    const Attribution &at = *m_explained.at(m_top);
    QString text =
        tr("<b>Top</b> (rank 1, gold %1%2): score %3 \u2014 \u201c%4\u201d<br><b>Against</b> %5 (rank %6, gold %7): score %8 "
           "\u2014 \u201c%9\u201d<br>")
            .arg(QString::fromStdString(pt.label).toHtmlEscaped(), topCorrect ? QStringLiteral(" \u2714") : QString())
            .arg(c.scoreTop, 0, 'f', 4)
            .arg(candidateText(m_top), against)
            .arg(rankOf(m_other))
            .arg(QString::fromStdString(po.label).toHtmlEscaped())
            .arg(c.scoreOther, 0, 'f', 4)
            .arg(candidateText(m_other));
    text += tr("<b>Score difference %1</b> (%2 of %3) = baselines %4 + question %5 + candidates %6 (top %7, other %8) "
               "\u2212 completeness gaps %9.")
                .arg(signedNumber(c.scoreDifference()), QString::fromStdString(at.method),
                     QString::fromStdString(at.quantity).toHtmlEscaped(), signedNumber(c.baselineDifference),
                     signedNumber(c.questionDifference()), signedNumber(c.candidateDifference()), signedNumber(c.candidateTop),
                     signedNumber(c.candidateOther))
                .arg(signedNumber(c.gapTop - c.gapOther));
    for (int pair : {m_top, m_other})
        if (const auto &a = *m_explained.at(pair); !a.warning.empty())
            text += QStringLiteral("<br><i>") + tr("Warning: %1").arg(QString::fromStdString(a.warning).toHtmlEscaped()) +
                    QStringLiteral("</i>");
    m_summary->setText(text);

    m_rows.clear();
    // The question's words: how much more each pushed the top candidate up than the other.
    const auto qWords = pt.first.words();
    const Attribution &ao = *m_explained.at(m_other);
    {
        std::vector<Row> rows;
        // One question, so the three lists line up unit by unit.
        const auto diff = unitAttributions(pt.first, c.questionWords), top = unitAttributions(pt.first, at.sides[0].word),
                   other = unitAttributions(pt.first, ao.sides[0].word);
        for (std::size_t k = 0; k < diff.size() && k < top.size() && k < other.size(); ++k)
            rows.push_back({tr("Question: top \u2212 other"), words(qWords, diff[k].words), unitName(diff[k].kind),
                            QString::fromStdString(diff[k].label), top[k].attribution, other[k].attribution, diff[k].attribution, true,
                            true, true});
        std::stable_sort(rows.begin(), rows.end(), [](const Row &x, const Row &y) { return x.difference > y.difference; });
        m_rows.insert(m_rows.end(), rows.begin(), rows.end());
    }
    // Each candidate's words and subtrees, most positive first.
    for (int which = 0; which < 2; ++which) {
        const Attribution &a = which == 0 ? at : ao;
        const Sentence &cand = which == 0 ? pt.second : po.second;
        const auto w = cand.words();
        const QString section = which == 0 ? tr("Top candidate") : tr("Other candidate");
        std::vector<Row> rows;
        for (const SubtreeAttribution &u : unitAttributions(cand, a.sides[1].word))
            rows.push_back({section, words(w, u.words), unitName(u.kind), QString::fromStdString(u.label),
                            which == 0 ? u.attribution : 0.0, which == 1 ? u.attribution : 0.0, 0, which == 0, which == 1, false});
        std::stable_sort(rows.begin(), rows.end(), [which](const Row &x, const Row &y) {
            return (which == 0 ? x.top : x.other) > (which == 0 ? y.top : y.other);
        });
        m_rows.insert(m_rows.end(), rows.begin(), rows.end());
    }
    m_table->setHeaderLabels({tr("words"), tr("unit"), tr("label"), tr("top pair"), tr("other pair"), tr("top \u2212 other")});
    fillTable();
}

void RankExplainPanel::fillTable()
{
    m_table->clear();
    QTreeWidgetItem *section = nullptr;
    for (const Row &r : m_rows) {
        if (!section || section->text(0) != r.section) {
            section = new QTreeWidgetItem(m_table, {r.section});
            QFont f = section->font(0);
            f.setBold(true);
            section->setFont(0, f);
            section->setFirstColumnSpanned(true);
            section->setExpanded(true);
        }
        auto *item = new QTreeWidgetItem(section, {r.words, r.unit, r.label});
        item->setToolTip(0, r.words);
        const std::pair<bool, double> cells[3] = {{r.hasTop, r.top}, {r.hasOther, r.other}, {r.hasDifference, r.difference}};
        for (int k = 0; k < 3; ++k)
            if (cells[k].first) {
                item->setText(3 + k, signedNumber(cells[k].second));
                item->setForeground(3 + k, signColor(cells[k].second));
                item->setTextAlignment(3 + k, Qt::AlignRight | Qt::AlignVCenter);
            }
    }
    // One pair's explanation has one column of numbers; a contrast three.
    m_table->setColumnHidden(4, !m_contrast);
    m_table->setColumnHidden(5, !m_contrast);
    for (int c = 1; c < m_table->columnCount(); ++c)
        m_table->resizeColumnToContents(c);
}

QString RankExplainPanel::tableText(bool json) const
{
    if (json) {
        QJsonArray rows;
        for (const Row &r : m_rows) {
            QJsonObject o{{QStringLiteral("section"), r.section}, {QStringLiteral("words"), r.words},
                          {QStringLiteral("unit"), r.unit}, {QStringLiteral("label"), r.label}};
            if (r.hasTop)
                o[m_contrast ? QStringLiteral("top") : QStringLiteral("attribution")] = r.top;
            if (r.hasOther)
                o[QStringLiteral("other")] = r.other;
            if (r.hasDifference)
                o[QStringLiteral("difference")] = r.difference;
            rows.append(o);
        }
        QJsonObject root{{QStringLiteral("rows"), rows}};
        if (m_contrast) {
            const RankContrast &c = *m_contrast;
            root[QStringLiteral("top_pair")] = m_top;
            root[QStringLiteral("other_pair")] = m_other;
            root[QStringLiteral("score_difference")] = c.scoreDifference();
            root[QStringLiteral("baseline_difference")] = c.baselineDifference;
            root[QStringLiteral("question_difference")] = c.questionDifference();
            root[QStringLiteral("candidate_top")] = c.candidateTop;
            root[QStringLiteral("candidate_other")] = c.candidateOther;
            root[QStringLiteral("gap_difference")] = c.gapTop - c.gapOther;
        }
        return QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
    }
    auto field = [](const QString &s) {
        if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n')))
            return s;
        QString q = s;
        q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        return QLatin1Char('"') + q + QLatin1Char('"');
    };
    QString out = m_contrast ? QStringLiteral("section,words,unit,label,top,other,difference\n")
                             : QStringLiteral("section,words,unit,label,attribution\n");
    for (const Row &r : m_rows) {
        QStringList cells = {field(r.section), field(r.words), field(r.unit), field(r.label),
                             r.hasTop ? QString::number(r.top, 'g', 9) : QString()};
        if (m_contrast)
            cells << (r.hasOther ? QString::number(r.other, 'g', 9) : QString())
                  << (r.hasDifference ? QString::number(r.difference, 'g', 9) : QString());
        out += cells.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

void RankExplainPanel::exportTable()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the explanation"), QString(), tr("CSV (*.csv);;JSON (*.json)"));
    if (path.isEmpty())
        return;
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_summary->setText(tr("Could not write %1").arg(path.toHtmlEscaped()));
        return;
    }
    f.write(tableText(path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)).toUtf8());
}

} // namespace treelens
