#include "ui/sentencepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/session/settings.h"

namespace treelens {

SentencePanel::SentencePanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *row = new QHBoxLayout;
    m_input = new QComboBox(this);
    m_input->setEditable(true);
    m_input->setInsertPolicy(QComboBox::NoInsert);
    m_input->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_input->lineEdit()->setPlaceholderText(tr("Type or paste a sentence and press Enter"));
    auto *analyseButton = new QPushButton(tr("&Analyse"), this);
    row->addWidget(m_input, 1);
    row->addWidget(analyseButton);
    layout->addLayout(row);
    m_history = new QListWidget(this);
    m_history->addItems(Settings::sentenceHistory());
    m_history->setToolTip(tr("Recent sentences: click to analyse again"));
    layout->addWidget(m_history, 1);
    connect(analyseButton, &QPushButton::clicked, this, [this] { Q_EMIT analyseRequested(m_input->currentText()); });
    connect(m_input->lineEdit(), &QLineEdit::returnPressed, this, [this] { Q_EMIT analyseRequested(m_input->currentText()); });
    connect(m_history, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) { Q_EMIT analyseRequested(item->text()); });
    connect(m_history, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) { Q_EMIT analyseRequested(item->text()); });
}

QString SentencePanel::text() const { return m_input->currentText(); }

void SentencePanel::setText(const QString &text) { m_input->setCurrentText(text); }

void SentencePanel::remember(const QString &text)
{
    Settings::addToHistory(text);
    if (m_history->count() == 0 || m_history->item(0)->text() != text) {
        for (auto *item : m_history->findItems(text, Qt::MatchExactly))
            delete m_history->takeItem(m_history->row(item));
        m_history->insertItem(0, text);
    }
}

void SentencePanel::focusInput()
{
    m_input->setFocus();
    m_input->lineEdit()->selectAll();
}

} // namespace treelens
