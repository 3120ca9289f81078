// The Corpus dock's pattern field (see corpusquerybar.h).
#include "ui/corpusquerybar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/querysyntaxhelp.h"
#include "ui/session/jobrunner.h"

namespace treelens {

namespace {

/// The job group of the matches: a newer pattern supersedes an older one still running.
const QString kQueryGroup = QStringLiteral("corpus-query");

} // namespace

CorpusQueryBar::CorpusQueryBar(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *row = new QHBoxLayout;
    m_edit = new QLineEdit(this);
    m_edit->setObjectName(QStringLiteral("patternEdit"));
    m_edit->setPlaceholderText(tr("Tree pattern: a Grew request or a Tregex pattern…"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setToolTip(tr("Sentences whose trees match: a Grew request (pattern { … }) on the dependency trees, a Tregex "
                          "pattern on the constituency trees. ? shows the syntax."));
    m_help = new QToolButton(this);
    m_help->setObjectName(QStringLiteral("patternHelp"));
    m_help->setText(QStringLiteral("?"));
    m_help->setToolTip(tr("The syntax of both pattern languages, with examples to click"));
    row->addWidget(m_edit, 1);
    row->addWidget(m_help);
    layout->addLayout(row);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("patternError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #b01010; }"));
    m_error->hide();
    layout->addWidget(m_error);

    // Attention from one pattern node to another, over the occurrences (the Query attention dock).
    m_attentionRow = new QWidget(this);
    auto *att = new QVBoxLayout(m_attentionRow);
    att->setContentsMargins(0, 0, 0, 0);
    m_from = new QComboBox(m_attentionRow);
    m_to = new QComboBox(m_attentionRow);
    for (QComboBox *box : {m_from, m_to}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        box->setToolTip(tr("A node of the pattern: the attention goes from the first node's word to the second's"));
    }
    m_attention = new QPushButton(m_attentionRow);
    m_attention->setToolTip(tr("Run the model over the matched sentences: the mean attention from one node's word to the "
                               "other's per layer and head, with its fixed-offset baseline (the Query attention dock)"));
    // Two lines: the dock is narrow (a quarter of a 1600-pixel screen at most).
    auto *nodesRow = new QHBoxLayout;
    nodesRow->addWidget(new QLabel(tr("Attention from"), m_attentionRow));
    nodesRow->addWidget(m_from);
    nodesRow->addWidget(new QLabel(tr("to"), m_attentionRow));
    nodesRow->addWidget(m_to);
    nodesRow->addStretch(1);
    att->addLayout(nodesRow);
    att->addWidget(m_attention);
    layout->addWidget(m_attentionRow);
    m_attentionRow->hide();

    m_pause = new QTimer(this);
    m_pause->setSingleShot(true);
    m_pause->setInterval(300);
    connect(m_pause, &QTimer::timeout, this, &CorpusQueryBar::matchNow);
    connect(m_edit, &QLineEdit::textChanged, this, [this] { m_pause->start(); });
    connect(m_edit, &QLineEdit::returnPressed, this, &CorpusQueryBar::matchNow);
    connect(m_help, &QToolButton::clicked, this, [this] {
        QuerySyntaxHelp *sheet = syntaxHelp();
        sheet->show();
        sheet->raise();
        sheet->activateWindow();
    });
    connect(m_from, &QComboBox::currentIndexChanged, this, [this] { updateAttentionRow(); });
    connect(m_to, &QComboBox::currentIndexChanged, this, [this] { updateAttentionRow(); });
    connect(m_attention, &QPushButton::clicked, this, &CorpusQueryBar::requestAttention);
}

CorpusQueryBar::~CorpusQueryBar()
{
    if (m_jobs)
        m_jobs->cancelGroup(kQueryGroup);
}

QuerySyntaxHelp *CorpusQueryBar::syntaxHelp()
{
    if (!m_sheet) {
        m_sheet = new QuerySyntaxHelp(this);
        connect(m_sheet, &QuerySyntaxHelp::exampleChosen, this, [this](const QString &pattern) {
            m_edit->setText(pattern);
            matchNow();
        });
    }
    return m_sheet;
}

void CorpusQueryBar::setCorpus(std::shared_ptr<const std::vector<Sentence>> corpus)
{
    if (m_jobs)
        m_jobs->cancelGroup(kQueryGroup); // a superseded job delivers nothing
    if (m_matching) {
        m_matching = false;
        Q_EMIT matchingChanged(false);
    }
    m_graphs = corpus ? std::make_shared<const CorpusGraphs>(std::move(corpus)) : nullptr;
    setResult(nullptr);
    if (!m_edit->text().trimmed().isEmpty())
        matchNow();
}

void CorpusQueryBar::setPattern(const QString &text) { m_edit->setText(text); }

QString CorpusQueryBar::pattern() const { return m_edit->text(); }

void CorpusQueryBar::showError(const QString &message)
{
    m_errorText = message;
    m_error->setText(message);
    m_error->setVisible(!message.isEmpty());
}

void CorpusQueryBar::matchNow()
{
    m_pause->stop();
    const QString text = m_edit->text().trimmed();
    if (text.isEmpty()) {
        showError(QString());
        if (m_jobs)
            m_jobs->cancelGroup(kQueryGroup);
        if (m_matching) {
            m_matching = false;
            Q_EMIT matchingChanged(false);
        }
        setResult(nullptr);
        return;
    }
    auto parsed = CorpusPattern::parse(text.toStdString());
    if (!parsed) {
        // The previous result (and so the dock's filter) stays until a pattern parses.
        showError(QString::fromStdString(parsed.message()));
        return;
    }
    showError(QString());
    if (!m_graphs)
        return;
    auto pattern = std::make_shared<const CorpusPattern>(std::move(*parsed));
    auto graphs = m_graphs;
    if (!m_jobs) {
        auto r = runCorpusQuery(pattern, *graphs, RunControl{});
        if (r)
            setResult(std::make_shared<const CorpusQueryResult>(std::move(*r)));
        return;
    }
    m_matching = true;
    Q_EMIT matchingChanged(true);
    // A short job (EWT train: 0.07 s, docs/query.md "Speed") on the layout lane: it never waits
    // behind a probing run or a corpus scoring as the other lanes would make it.
    m_jobs->submit<CorpusQueryResult>(
        JobRunner::Lane::Layout, kQueryGroup, this,
        [pattern, graphs](const RunControl &control) { return runCorpusQuery(pattern, *graphs, control); },
        [this](quint64, std::shared_ptr<const CorpusQueryResult> r) {
            m_matching = false;
            Q_EMIT matchingChanged(false);
            if (m_graphs && r->corpus == m_graphs->corpus()) // not a corpus closed since
                setResult(std::move(r));
        },
        [this](quint64, const QString &message) {
            m_matching = false;
            Q_EMIT matchingChanged(false);
            if (message != QLatin1String("cancelled"))
                showError(message);
        });
}

void CorpusQueryBar::setResult(std::shared_ptr<const CorpusQueryResult> result)
{
    m_result = std::move(result);
    // The node boxes follow the pattern's names, keeping the names chosen where the new pattern has them.
    const QString from = m_from->currentText(), to = m_to->currentText();
    {
        const QSignalBlocker a(m_from), b(m_to);
        m_from->clear();
        m_to->clear();
        if (m_result && m_result->pattern)
            for (const std::string &name : m_result->pattern->names()) {
                m_from->addItem(QString::fromStdString(name));
                m_to->addItem(QString::fromStdString(name));
            }
        const int n = m_from->count();
        const int f = m_from->findText(from), t = m_to->findText(to);
        m_from->setCurrentIndex(f >= 0 ? f : 0);
        m_to->setCurrentIndex(t >= 0 ? t : std::min(1, n - 1));
    }
    updateAttentionRow();
    Q_EMIT resultChanged();
}

void CorpusQueryBar::updateAttentionRow()
{
    const bool two = m_result && m_result->pattern && m_result->pattern->names().size() >= 2;
    m_attentionRow->setVisible(two);
    m_attention->setText(tr("Attention %1 → %2").arg(m_from->currentText(), m_to->currentText()));
    m_attention->setEnabled(two && m_result->sentencesMatched > 0 && m_from->currentIndex() != m_to->currentIndex());
}

int CorpusQueryBar::fromNode() const { return m_result ? m_from->currentIndex() : -1; }
int CorpusQueryBar::toNode() const { return m_result ? m_to->currentIndex() : -1; }

void CorpusQueryBar::setNodes(int from, int to)
{
    m_from->setCurrentIndex(from);
    m_to->setCurrentIndex(to);
}

void CorpusQueryBar::requestAttention()
{
    if (m_result && fromNode() >= 0 && toNode() >= 0 && fromNode() != toNode())
        Q_EMIT attentionRequested(fromNode(), toNode());
}

} // namespace treelens
