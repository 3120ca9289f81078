#include "ui/whatifpanel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QUndoStack>
#include <QUndoView>
#include <QVBoxLayout>

#include "core/base/fileio.h"
#include "core/formats/conllu.h"
#include "core/formats/ptb.h"
#include "ui/session/analysisdocument.h"
#include "ui/treeeditor.h"
#include "ui/viewregistry.h"
#include "viz/viewexport.h"
#include "viz/whatifview.h"

namespace treelens {

WhatIfPanel::WhatIfPanel(TreeEditor *editor, AnalysisDocument *document, QWidget *parent)
    : QWidget(parent), m_editor(editor), m_document(document)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *row = new QHBoxLayout;
    m_line = new QLineEdit(this);
    m_line->setPlaceholderText(tr("head 4=14, label 9=obj, bracket 3-4 NP, unbracket 3-4, relabel 3-4 NP (Enter applies)"));
    m_line->setToolTip(tr("An edit of the tree, words numbered from 1: head W=H (0 = root), label W=REL, bracket I-J LABEL, "
                          "unbracket I-J, relabel I-J LABEL"));
    auto *apply = new QPushButton(tr("&Apply"), this);
    row->addWidget(new QLabel(tr("Edit:"), this));
    row->addWidget(m_line, 1);
    row->addWidget(apply);
    layout->addLayout(row);
    m_refusal = new QLabel(this);
    m_refusal->setStyleSheet(QStringLiteral("color: #b2182b;"));
    m_refusal->setWordWrap(true);
    m_refusal->hide();
    layout->addWidget(m_refusal);

    auto *split = new QSplitter(Qt::Horizontal, this);
    m_undo = new QUndoView(editor->undoStack(), split);
    m_undo->setEmptyLabel(tr("the tree as it was"));
    m_view = buildView<WhatIfView>(QStringLiteral("whatif"), split); // the view registry's entry
    split->addWidget(m_undo);
    split->addWidget(m_view);
    split->setStretchFactor(1, 4);
    layout->addWidget(split, 1);

    auto *buttons = new QHBoxLayout;
    m_quantity = new QComboBox(this);
    m_quantity->addItems({tr("attention"), tr("relation gate")});
    m_quantity->setToolTip(tr("What the arcs below the words show the change of (the selected layer and head)"));
    connect(m_quantity, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_view->setQuantity(i == 1 ? WhatIfView::Quantity::Gate : WhatIfView::Quantity::Attention);
    });
    auto *undo = new QPushButton(tr("&Undo"), this);
    auto *redo = new QPushButton(tr("&Redo"), this);
    m_revert = new QPushButton(tr("Re&vert all"), this);
    m_export = new QPushButton(tr("E&xport comparison\u2026"), this);
    m_save = new QPushButton(tr("&Save edited tree\u2026"), this);
    for (QPushButton *b : {undo, redo, m_revert})
        buttons->addWidget(b);
    buttons->addSpacing(12);
    buttons->addWidget(new QLabel(tr("Change of:"), this));
    buttons->addWidget(m_quantity);
    buttons->addStretch(1);
    buttons->addWidget(m_export);
    buttons->addWidget(m_save);
    layout->addLayout(buttons);

    connect(m_line, &QLineEdit::returnPressed, this, &WhatIfPanel::applyLine);
    connect(apply, &QPushButton::clicked, this, &WhatIfPanel::applyLine);
    connect(undo, &QPushButton::clicked, editor->undoStack(), &QUndoStack::undo);
    connect(redo, &QPushButton::clicked, editor->undoStack(), &QUndoStack::redo);
    connect(m_revert, &QPushButton::clicked, editor, &TreeEditor::revert);
    connect(editor->undoStack(), &QUndoStack::canUndoChanged, undo, &QPushButton::setEnabled);
    connect(editor->undoStack(), &QUndoStack::canRedoChanged, redo, &QPushButton::setEnabled);
    undo->setEnabled(false);
    redo->setEnabled(false);
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the comparison"), QStringLiteral("whatif.png"),
                                                          tr("Images (*.png *.svg *.pdf)"));
        QString error;
        if (!path.isEmpty() && !exportView(*m_view, path, &error))
            QMessageBox::warning(this, tr("Export"), error);
    });
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the edited tree"), QStringLiteral("edited.conllu"),
                                                          tr("CoNLL-U (*.conllu);;PTB brackets (*.ptb *.mrg)"));
        QString error;
        if (!path.isEmpty() && !saveTree(path, &error))
            QMessageBox::warning(this, tr("Save"), error);
    });
    connect(editor, &TreeEditor::changed, this, &WhatIfPanel::refresh);
    connect(document, &AnalysisDocument::changed, this, [this](AnalysisDocument::Changes what) {
        if (what & AnalysisDocument::SelectionChanged)
            m_view->setState(m_document->selection());
    });
    refresh();
}

QString WhatIfPanel::refusalText() const
{
    return m_refusal->isVisible() ? m_refusal->text() : QString();
}

void WhatIfPanel::applyLine()
{
    if (m_line->text().trimmed().isEmpty())
        return;
    if (m_editor->edit(m_line->text().trimmed()))
        m_line->clear();
}

void WhatIfPanel::refresh()
{
    const QString refusal = m_editor->lastRefusal();
    m_refusal->setText(refusal.isEmpty() ? QString() : tr("Refused: %1").arg(refusal));
    m_refusal->setVisible(!refusal.isEmpty());
    WhatIfView::Comparison c;
    const bool edited = m_editor->hasEdits() && m_editor->upToDate();
    if (edited) {
        c.before = m_editor->originalSentence();
        c.beforeAnalysis = m_editor->originalAnalysis();
        c.after = m_document->sentence();
        c.afterAnalysis = m_document->analysis();
        c.edits = m_editor->edits();
        c.readsTree = c.afterAnalysis && m_editor->modelReadsEditedTree(*c.afterAnalysis);
        if (c.afterAnalysis)
            c.model = QString::fromStdString(c.afterAnalysis->family);
    }
    m_view->setState(m_document->selection());
    m_view->setComparison(c);
    m_quantity->setEnabled(m_view->hasGates());
    if (!m_view->hasGates())
        m_quantity->setCurrentIndex(0);
    m_export->setEnabled(edited);
    m_save->setEnabled(m_document->sentence() != nullptr);
    m_revert->setEnabled(m_editor->hasEdits());
}

bool WhatIfPanel::saveTree(const QString &path, QString *error)
{
    const auto s = m_document->sentence();
    if (!s) {
        if (error)
            *error = tr("There is no sentence.");
        return false;
    }
    std::string text;
    if (path.endsWith(QStringLiteral(".conllu"))) {
        text = writeConllu({*s});
    } else {
        auto ptb = writePtb({*s});
        if (!ptb) {
            if (error)
                *error = QString::fromStdString(ptb.message());
            return false;
        }
        text = *ptb;
    }
    if (auto st = writeFileAtomic(path.toStdString(), text); !st) {
        if (error)
            *error = QString::fromStdString(st.message());
        return false;
    }
    return true;
}

} // namespace treelens
