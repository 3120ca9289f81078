#include "ui/mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QVBoxLayout>

#include "core/runtime/torchinfo.h"
#include "ui/session/settings.h"
#include "viz/treetextview.h"

namespace treelens {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("TreeLens"));
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    auto *row = new QHBoxLayout;
    m_input = new QComboBox(central);
    m_input->setEditable(true);
    m_input->setInsertPolicy(QComboBox::NoInsert);
    m_input->addItems(Settings::sentenceHistory());
    m_input->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_input->lineEdit()->setPlaceholderText(tr("Type or paste a sentence and press Enter"));
    m_analyse = new QPushButton(tr("&Analyse"), central);
    m_cancel = new QPushButton(tr("Cancel"), central);
    m_cancel->setEnabled(false);
    row->addWidget(m_input);
    row->addWidget(m_analyse);
    row->addWidget(m_cancel);
    layout->addLayout(row);
    m_textView = new TreeTextView(central);
    layout->addWidget(m_textView, 1);
    setCentralWidget(central);

    m_status = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(160);
    m_progress->setVisible(false);
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);

    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    auto *helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&About TreeLens"), this, &MainWindow::showAbout);

    connect(m_analyse, &QPushButton::clicked, this, [this] { analyse(m_input->currentText()); });
    connect(m_input->lineEdit(), &QLineEdit::returnPressed, this, [this] { analyse(m_input->currentText()); });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_jobs.cancel();
        m_status->setText(tr("Cancelled."));
    });
    connect(&m_jobs, &JobRunner::busyChanged, &m_document, &AnalysisDocument::setBusy);
    connect(&m_jobs, &JobRunner::sentenceAvailable, this,
            [this](quint64, std::shared_ptr<const Sentence> s) { m_document.setSentence(std::move(s)); });
    connect(&m_jobs, &JobRunner::jobFailed, this, [this](quint64, const QString &msg) { m_document.setError(msg); });
    connect(&m_jobs, &JobRunner::analysisAvailable, this,
            [this](quint64, std::shared_ptr<const Analysis> a) { m_document.setAnalysis(std::move(a)); });
    connect(&m_jobs, &JobRunner::modelFailed, this,
            [this](quint64, const QString &msg) { m_document.setAnalysis(nullptr, msg); });
    connect(&m_document, &AnalysisDocument::changed, this, &MainWindow::onDocumentChanged);

    ParserConfig config;
    config.backend = Settings::parserBackend().toStdString();
    if (!createParser(config)) // unknown backend in old settings: fall back to the default
        config = ParserConfig();
    m_jobs.setParserConfig(config);
    resize(900, 600);
}

void MainWindow::setModelPath(const QString &path)
{
    m_jobs.setModelPath(path);
    setWindowTitle(path.isEmpty() ? QStringLiteral("TreeLens")
                                  : QStringLiteral("TreeLens — %1").arg(QFileInfo(path).fileName()));
}

void MainWindow::analyse(const QString &text)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return;
    m_input->setCurrentText(t);
    Settings::setLastSentence(t);
    Settings::addToHistory(t);
    m_status->setText(tr("Parsing…"));
    m_jobs.requestParse(t);
}

void MainWindow::onDocumentChanged(AnalysisDocument::Changes what)
{
    if (what & AnalysisDocument::BusyChanged) {
        m_progress->setVisible(m_document.isBusy());
        m_cancel->setEnabled(m_document.isBusy());
    }
    if (what & (AnalysisDocument::SentenceChanged | AnalysisDocument::AnalysisChanged)) {
        if (const auto s = m_document.sentence()) {
            m_textView->setSentence(*s, m_document.analysis().get());
            m_status->setText(tr("%n word(s), parsed by %1", nullptr, static_cast<int>(s->tokens.size()))
                                  .arg(QString::fromStdString(s->metadataValue("parser"))));
            if (!m_document.modelMessage().isEmpty())
                m_status->setText(m_status->text() + tr(" — model: %1").arg(m_document.modelMessage()));
            // With a model, the analysis is the last thing to arrive.
            if (m_jobs.modelPath().isEmpty() || m_document.analysis() || !m_document.modelMessage().isEmpty())
                Q_EMIT analysisShown(true);
        }
    } else if ((what & AnalysisDocument::ErrorChanged) && !m_document.lastError().isEmpty()) {
        m_textView->showMessage(m_document.lastError());
        m_status->setText(tr("Error"));
        Q_EMIT analysisShown(false);
    }
}

void MainWindow::showAbout()
{
    const TorchInfo t = torchInfo();
    QMessageBox::about(this, tr("About TreeLens"),
                       tr("<h3>TreeLens %1</h3><p>See what tree-structured attention encoders do.</p>"
                          "<p>Qt %2<br>LibTorch %3</p>")
                           .arg(QStringLiteral(TREELENS_VERSION), QString::fromLatin1(qVersion()), QString::fromStdString(t.version)));
}

} // namespace treelens
