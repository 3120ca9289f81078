#include "ui/statusline.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

#include "core/data/sentence.h"

namespace treelens {

StatusLine::StatusLine(QStatusBar *bar) : QObject(bar)
{
    m_text = new QLabel(bar);
    m_progress = new QProgressBar(bar);
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(180);
    m_progress->setVisible(false);
    m_cancel = new QPushButton(tr("Cancel"), bar);
    m_cancel->setEnabled(false);
    m_cancel->setToolTip(tr("Stop the running analysis (Esc)"));
    bar->addWidget(m_text, 1);
    bar->addPermanentWidget(m_progress);
    bar->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &StatusLine::cancelRequested);
}

void StatusLine::setText(const QString &text) { m_text->setText(text); }

void StatusLine::setBusy(bool busy)
{
    m_progress->setVisible(busy);
    if (busy)
        m_progress->setRange(0, 0);
    m_cancel->setEnabled(busy);
}

void StatusLine::showProgress(int done, int total, const QString &stage)
{
    m_progress->setRange(0, total);
    m_progress->setValue(done);
    m_text->setText(total > 0 ? tr("%1… %2 of %3").arg(stage).arg(done).arg(total) : stage + QStringLiteral("…"));
}

QString StatusLine::describe(const Sentence &s, const QString &modelMessage)
{
    QString status = tr("%n word(s)", nullptr, static_cast<int>(s.tokens.size()));
    const std::string parser = s.metadataValue("parser");
    if (!parser.empty())
        status += tr(", parsed by %1").arg(QString::fromStdString(parser));
    if (s.metadataValue("dependency_source") == "gold" || s.metadataValue("constituency_source") == "gold")
        status += tr(", gold trees from the corpus");
    if (const std::string e = s.metadataValue("parse_error"); !e.empty())
        status += tr(" — parser failed: %1").arg(QString::fromStdString(e));
    if (!modelMessage.isEmpty())
        status += tr(" — model: %1").arg(modelMessage);
    return status;
}

} // namespace treelens
