#include "ui/minimalpairspanel.h"

#include <chrono>
#include <cmath>
#include <map>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/encoders/common/encodercache.h"
#include "core/eval/makepairs.h"
#include "ui/ablationcontrol.h"
#include "ui/queryslice.h"
#include "ui/session/jobrunner.h"
#include "ui/viewregistry.h"
#include "viz/minimalpairview.h"
#include "viz/sweepheatmap.h"

namespace treelens {

namespace {

const QString kScoreGroup = QStringLiteral("minimal-pairs");
constexpr std::size_t kBlock = 32;

QString percent(double v) { return QString::number(100.0 * v, 'f', 1); }

QString proportionText(const Proportion &p)
{
    return QStringLiteral("%1 % [%2, %3] of %4").arg(percent(p.value), percent(p.low), percent(p.high)).arg(p.total);
}

/// Scores every pair of `pairs` (the job's work).
Result<PairScoring> scoreAll(EncoderCache &encoders, const std::string &model, const PairSet &set,
                             const std::vector<HeadAblation> &ablate, const std::vector<std::pair<int, int>> &ablated,
                             const RunControl &control)
{
    const auto t0 = std::chrono::steady_clock::now();
    auto enc = encoders.get(model);
    if (!enc)
        return enc.error();
    const std::string name = pairModelName((*enc)->info(), model);
    if (auto st = languageModelOnly((*enc)->info(), name); !st)
        return st.error();
    AnalyzeOptions options;
    options.attention = false;
    options.ablate = ablate;
    PairScoring out;
    out.model = QString::fromStdString(name);
    out.score = QString::fromStdString(sentenceScoreName((*enc)->info().sentenceScore));
    out.ablated = ablated;
    std::vector<bool> correct;
    std::vector<double> margin;
    std::vector<std::string> phenomenon;
    const std::vector<MinimalPair> &pairs = set.pairs;
    for (std::size_t start = 0; start < pairs.size(); start += kBlock) {
        if (control.isCancelled())
            return Error{"cancelled"};
        const std::size_t end = std::min(pairs.size(), start + kBlock);
        auto scored = scorePairs(**enc, pairs, start, end, options, set.source.toStdString(), name, &control);
        if (!scored)
            return scored.error();
        for (std::size_t k = 0; k < scored->size(); ++k) {
            const ScoredPair &sp = (*scored)[k];
            PairScoring::Row row;
            row.skipped = sp.skipped;
            if (sp.skipped.empty()) {
                row.goodSurprisal = sp.good.surprisal;
                row.badSurprisal = sp.bad.surprisal;
                row.goodLogprob = *sp.good.logprob;
                row.badLogprob = *sp.bad.logprob;
                correct.push_back(row.goodLogprob > row.badLogprob);
                margin.push_back(row.goodLogprob - row.badLogprob);
                phenomenon.push_back(pairs[start + k].phenomenon);
            }
            out.rows.push_back(std::move(row));
        }
        control.report(end, pairs.size(), "Scoring minimal pairs");
    }
    out.summary = summarizePairs(correct, margin, phenomenon);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace

std::string pairModelName(const EncoderInfo &info, const std::string &path)
{
    return info.name.empty() ? QFileInfo(QString::fromStdString(path)).fileName().toStdString() : info.name;
}

MinimalPairsPanel::MinimalPairsPanel(JobRunner *jobs, AblationControl *ablation, QWidget *parent)
    : QWidget(parent), m_jobs(jobs), m_ablation(ablation)
{
    build();
    connect(m_ablation, &AblationControl::changed, this, &MinimalPairsPanel::ablationChanged);
}

MinimalPairsPanel::~MinimalPairsPanel() = default;

void MinimalPairsPanel::build()
{
    auto *layout = new QVBoxLayout(this);
    auto *row = new QHBoxLayout;
    auto *open = new QPushButton(tr("Open pairs…"), this);
    open->setToolTip(tr("BLiMP JSON Lines (sentence_good, sentence_bad, UID, pairID) or a TSV with the header "
                        "good<TAB>bad[<TAB>phenomenon]"));
    connect(open, &QPushButton::clicked, this, &MinimalPairsPanel::openDialog);
    m_phenomenon = new QComboBox(this);
    m_phenomenon->addItem(tr("agreement"), QStringLiteral("agreement"));
    m_phenomenon->addItem(tr("determiner"), QStringLiteral("determiner"));
    m_phenomenon->setToolTip(tr("agreement: a finite present-tense verb put in the other number than the subject its tree "
                                "names; determiner: this/these, that/those against their noun (docs/minimal-pairs.md)"));
    auto *make = new QPushButton(tr("Make from corpus"), this);
    make->setToolTip(tr("Pairs made from the open corpus's own dependency trees"));
    connect(make, &QPushButton::clicked, this, [this] {
        QString error;
        if (!makePairsFromCorpus(m_phenomenon->currentData().toString(), &error))
            Q_EMIT statusMessage(error);
    });
    m_sweepButton = new QPushButton(tr("Sweep heads"), this);
    m_sweepButton->setToolTip(tr("Every head, and every whole layer, switched off in turn: the change of accuracy per head"));
    connect(m_sweepButton, &QPushButton::clicked, this, &MinimalPairsPanel::sweep);
    row->addWidget(open);
    row->addWidget(m_phenomenon);
    row->addWidget(make);
    row->addWidget(m_sweepButton);
    row->addStretch(1);
    layout->addLayout(row);
    m_slice = new QuerySliceBox(this);
    layout->addWidget(m_slice);
    m_clickAblates = new QCheckBox(tr("A click in the heads overview switches that head off (or on again)"), this);
    m_clickAblates->setToolTip(tr("Ctrl+click does it at any time; Edit ▸ Undo head switch-off goes back one step"));
    connect(m_clickAblates, &QCheckBox::toggled, this, &MinimalPairsPanel::clickAblatesChanged);
    layout->addWidget(m_clickAblates);
    m_summary = new QLabel(tr("Open a pair file or make pairs from the open corpus."), this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    // Left the accuracy table over the pair list, right the pair on its tree and the sweep.
    auto *split = new QSplitter(Qt::Horizontal, this);
    auto *lists = new QSplitter(Qt::Vertical, split);
    m_phenomena = new QTableWidget(0, 3, lists);
    m_phenomena->setHorizontalHeaderLabels({tr("Phenomenon"), tr("Accuracy [95 %]"), tr("Margin")});
    m_phenomena->setToolTip(tr("Accuracy: the share of pairs whose good sentence scores higher, with its Wilson 95 % interval; "
                               "margin: the mean of log p(good) − log p(bad) in nats. Click a phenomenon to list its pairs."));
    auto *listPage = new QWidget(lists);
    auto *listLayout = new QVBoxLayout(listPage);
    listLayout->setContentsMargins(0, 0, 0, 0);
    m_listNote = new QLabel(listPage);
    m_listNote->setWordWrap(true);
    m_pairs = new QTableWidget(0, 6, listPage);
    listLayout->addWidget(m_listNote);
    listLayout->addWidget(m_pairs, 1);
    m_pairs->setHorizontalHeaderLabels({tr("Pair"), tr("Phenomenon"), tr("Good"), tr("Bad"), tr("Margin"), tr("")});
    for (QTableWidget *t : {m_phenomena, m_pairs}) {
        t->setEditTriggers(QAbstractItemView::NoEditTriggers);
        t->setSelectionBehavior(QAbstractItemView::SelectRows);
        t->setSelectionMode(QAbstractItemView::SingleSelection);
        t->verticalHeader()->hide();
        t->horizontalHeader()->setStretchLastSection(false);
    }
    m_pairs->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_pairs->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Stretch);
    lists->setStretchFactor(1, 3);
    lists->setSizes({110, 330});
    m_pairs->setWordWrap(false);
    m_pairs->setColumnHidden(1, true); // the phenomenon is in the table above, and in the pair's title
    auto showRow = [this](int r) {
        if (r >= 0 && r < static_cast<int>(m_shown.size()))
            selectPair(static_cast<int>(m_shown[static_cast<std::size_t>(r)]));
    };
    connect(m_pairs, &QTableWidget::currentCellChanged, this, showRow);
    connect(m_pairs, &QTableWidget::cellClicked, this, showRow); // the same row after a refill holds another pair
    connect(m_phenomena, &QTableWidget::cellClicked, this, [this](int r) {
        m_filter = m_phenomena->item(r, 0)->data(Qt::UserRole).toString();
        m_flipped.reset();
        m_flippedBy.clear();
        m_heatmap->setSelected(-1, -1);
        fillPairTable();
    });

    m_tabs = new QTabWidget(split);
    auto *pairScroll = new QScrollArea(m_tabs);
    m_view = buildView<MinimalPairView>(QStringLiteral("minimal-pair"));
    pairScroll->setWidget(m_view);
    pairScroll->setWidgetResizable(false);
    m_tabs->addTab(pairScroll, tr("Pair on its tree"));
    auto *sweepPage = new QWidget(m_tabs);
    auto *sweepLayout = new QVBoxLayout(sweepPage);
    auto *sweepRow = new QHBoxLayout;
    m_exportButton = new QPushButton(tr("Export heatmap…"), sweepPage);
    m_exportButton->setEnabled(false);
    connect(m_exportButton, &QPushButton::clicked, this, &MinimalPairsPanel::exportSweep);
    m_showAll = new QPushButton(tr("List every pair"), sweepPage);
    connect(m_showAll, &QPushButton::clicked, this, [this] { showFlipped(-1, -1); });
    sweepRow->addWidget(m_exportButton);
    sweepRow->addWidget(m_showAll);
    sweepRow->addStretch(1);
    sweepLayout->addLayout(sweepRow);
    auto *heatScroll = new QScrollArea(sweepPage);
    m_heatmap = buildView<SweepHeatmap>(QStringLiteral("ablation-sweep"));
    heatScroll->setWidget(m_heatmap);
    sweepLayout->addWidget(heatScroll, 1);
    connect(m_heatmap, &SweepHeatmap::cellClicked, this, &MinimalPairsPanel::showFlipped);
    m_tabs->addTab(sweepPage, tr("Head sweep"));
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
}

void MinimalPairsPanel::setModelPath(const QString &path)
{
    // Also the same path again: a reload (another precision, a retry after a failed load).
    m_modelPath = path;
    dropSweep();
    fillPairTable();
    if (!m_set.pairs.empty())
        score();
}

void MinimalPairsPanel::dropSweep()
{
    if (m_sweeping)
        m_jobs->cancelGroup(QStringLiteral("ablation-sweep"));
    m_sweeping = false;
    m_sweepButton->setText(tr("Sweep heads"));
    m_cells.clear();
    m_heatmap->setFigure({});
    m_exportButton->setEnabled(false);
    m_flipped.reset();
    m_flippedBy.clear();
}

void MinimalPairsPanel::setCorpusSource(std::function<std::shared_ptr<const std::vector<Sentence>>()> source)
{
    m_corpus = std::move(source);
}

void MinimalPairsPanel::setQuerySliceSource(std::function<std::shared_ptr<const std::vector<Sentence>>()> source)
{
    m_slice->setSource(std::move(source));
}

void MinimalPairsPanel::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open minimal pairs"), QString(),
                                                      tr("Minimal pairs (*.jsonl *.json *.tsv *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!openPairs(path, &error))
        Q_EMIT statusMessage(error);
}

bool MinimalPairsPanel::openPairs(const QString &path, QString *error)
{
    auto pairs = readMinimalPairsFile(path.toStdString());
    if (!pairs) {
        if (error)
            *error = QString::fromStdString(pairs.message());
        return false;
    }
    PairSet set;
    set.pairs = std::move(*pairs);
    set.source = QFileInfo(path).fileName();
    setPairs(std::move(set));
    return true;
}

bool MinimalPairsPanel::makePairsFromCorpus(const QString &phenomenon, QString *error)
{
    auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    const auto corpus = m_slice->apply(m_corpus ? m_corpus() : nullptr);
    if (m_slice->isChecked() && (!corpus || corpus->empty()))
        return fail(tr("No sentence matches the corpus query: type a tree pattern in the Corpus dock (or clear \"%1\").")
                        .arg(m_slice->text()));
    if (!corpus || corpus->empty())
        return fail(tr("Open a treebank first (File ▸ Open corpus): pairs are made from its dependency trees."));
    auto kind = parsePairPhenomenon(phenomenon.toStdString());
    if (!kind)
        return fail(QString::fromStdString(kind.message()));
    const MadePairs made = makePairs(*corpus, *kind);
    if (made.pairs.empty())
        return fail(tr("The open corpus gives no %1 pairs (it needs dependency trees with UD features or PTB tags).").arg(phenomenon));
    std::string lines;
    for (std::size_t i = 0; i < made.pairs.size(); ++i)
        lines += madePairJson(made.pairs[i], *kind, static_cast<int>(i) + 1) + "\n";
    auto pairs = readMinimalPairs(lines, "made pairs");
    if (!pairs)
        return fail(QString::fromStdString(pairs.message()));
    std::map<std::string, const Sentence *> byId;
    for (const Sentence &s : *corpus)
        byId.emplace(s.id, &s);
    PairSet set;
    set.pairs = std::move(*pairs);
    for (const MadePair &p : made.pairs) {
        const auto it = byId.find(p.sentenceId);
        set.trees.push_back(it != byId.end() && it->second->dependency ? it->second->dependency : std::nullopt);
    }
    set.source = m_slice->isChecked() ? tr("the corpus query's %1 sentences (%2)").arg(corpus->size()).arg(phenomenon)
                                      : tr("the open corpus (%1)").arg(phenomenon);
    setPairs(std::move(set));
    Q_EMIT statusMessage(tr("%1 %2 pairs made from %3 sentences").arg(made.pairs.size()).arg(phenomenon).arg(corpus->size()));
    return true;
}

void MinimalPairsPanel::setPairs(PairSet set)
{
    m_set = std::move(set);
    m_current = -1;
    m_scoring.reset();
    dropSweep();
    m_filter.clear();
    m_view->setPair(std::nullopt);
    fillPhenomena();
    fillPairTable();
    score();
}

void MinimalPairsPanel::ablationChanged()
{
    dropSweep(); // its baseline had the heads switched off before
    fillPairTable();
    if (!m_set.pairs.empty())
        score();
}

bool MinimalPairsPanel::isScoring() const { return m_jobs->isRunning(kScoreGroup); }

void MinimalPairsPanel::score()
{
    if (m_modelPath.isEmpty()) {
        m_jobs->cancelGroup(kScoreGroup); // a scoring of the pairs before, with the model before
        m_scoring.reset();
        m_summary->setText(tr("%1 pairs from %2. Load a language model (File ▸ Load model) to score them.")
                               .arg(m_set.pairs.size())
                               .arg(m_set.source));
        return;
    }
    m_summary->setText(tr("Scoring %1 pairs from %2…").arg(m_set.pairs.size()).arg(m_set.source));
    auto set = std::make_shared<const PairSet>(m_set);
    const std::string model = m_modelPath.toStdString();
    const std::vector<HeadAblation> ablate = m_ablation->heads();
    const std::vector<std::pair<int, int>> ablated = m_ablation->asPairs();
    JobRunner *jobs = m_jobs;
    jobs->submit<PairScoring>(
        JobRunner::Lane::Background, kScoreGroup, this,
        [jobs, set, model, ablate, ablated](const RunControl &control) {
            return scoreAll(jobs->encoders(), model, *set, ablate, ablated, control);
        },
        [this](quint64, std::shared_ptr<const PairScoring> r) { showScoring(std::move(r)); },
        [this](quint64, const QString &message) {
            m_summary->setText(message);
            Q_EMIT statusMessage(message);
            Q_EMIT scoreFailed(message);
        },
        [this](const JobProgress &p) {
            m_summary->setText(tr("Scoring pairs: %1 of %2…").arg(p.done).arg(p.total));
        });
}

void MinimalPairsPanel::showScoring(std::shared_ptr<const PairScoring> scoring)
{
    m_scoring = std::move(scoring);
    m_summary->setText(summaryText());
    fillPhenomena();
    fillPairTable();
    if (m_current >= 0) // the pair shown, with its new scores
        selectPair(m_current);
    Q_EMIT scored();
}

QString MinimalPairsPanel::summaryText() const
{
    if (!m_scoring)
        return {};
    const PairScoring &s = *m_scoring;
    int skipped = 0;
    for (const auto &row : s.rows)
        skipped += row.skipped.empty() ? 0 : 1;
    QString text = tr("%1, scored by %2: accuracy %3 on %4; mean margin %5 nats")
                       .arg(s.model, s.score, proportionText(s.summary.accuracy), m_set.source)
                       .arg(s.summary.meanMargin, 0, 'f', 3);
    if (skipped > 0)
        text += tr("; %1 pairs the model could not read").arg(skipped);
    if (const QString badge = ablationBadge(s.ablated); !badge.isEmpty())
        text = QStringLiteral("<b style='color:#b01010'>%1</b> — %2").arg(badge.toHtmlEscaped(), text.toHtmlEscaped());
    return text;
}

void MinimalPairsPanel::fillPhenomena()
{
    m_phenomena->setRowCount(0);
    if (!m_scoring)
        return;
    auto add = [this](const QString &name, const QString &key, const Proportion &p, double margin) {
        const int r = m_phenomena->rowCount();
        m_phenomena->insertRow(r);
        auto *item = new QTableWidgetItem(name);
        item->setData(Qt::UserRole, key);
        m_phenomena->setItem(r, 0, item);
        m_phenomena->setItem(r, 1, new QTableWidgetItem(proportionText(p)));
        m_phenomena->setItem(r, 2, new QTableWidgetItem(QString::number(margin, 'f', 2)));
    };
    add(tr("(all)"), QString(), m_scoring->summary.accuracy, m_scoring->summary.meanMargin);
    for (const auto &[name, p] : m_scoring->summary.byPhenomenon)
        add(QString::fromStdString(name), QString::fromStdString(name), p, m_scoring->summary.marginByPhenomenon.at(name));
    m_phenomena->resizeColumnsToContents();
}

} // namespace treelens
