#include "ui/treeeditor.h"

#include <QUndoCommand>
#include <QUndoStack>

#include "core/data/treeedit.h"

namespace treelens {

/// One accepted edit: the sentence before it and after it.
class TreeEditCommand : public QUndoCommand {
public:
    TreeEditCommand(TreeEditor *editor, std::shared_ptr<const Sentence> before, std::shared_ptr<const Sentence> after,
                    const QString &text)
        : QUndoCommand(text), m_editor(editor), m_before(std::move(before)), m_after(std::move(after))
    {
    }
    void redo() override { m_editor->show(m_after); }
    void undo() override { m_editor->show(m_before); }

private:
    TreeEditor *m_editor;
    std::shared_ptr<const Sentence> m_before, m_after;
};

TreeEditor::TreeEditor(AnalysisDocument *document, QObject *parent)
    : QObject(parent), m_document(document), m_stack(new QUndoStack(this))
{
    connect(document, &AnalysisDocument::changed, this, &TreeEditor::onDocumentChanged);
    connect(m_stack, &QUndoStack::indexChanged, this, &TreeEditor::changed);
}

TreeEditor::~TreeEditor() = default;

bool TreeEditor::edit(const QString &text)
{
    const auto fail = [this](const QString &message) {
        m_refusal = message;
        Q_EMIT refused(message);
        Q_EMIT changed();
        return false;
    };
    const auto current = m_document->sentence();
    if (!current)
        return fail(tr("There is no sentence to edit."));
    auto parsed = parseTreeEdit(text.toStdString());
    if (!parsed)
        return fail(QString::fromStdString(parsed.message()));
    auto edited = std::make_shared<Sentence>(*current);
    if (auto st = applyTreeEdit(*edited, *parsed); !st)
        return fail(QString::fromStdString(st.message()));
    m_refusal.clear();
    if (m_stack->count() == 0 || !m_original) {
        m_original = current;
        m_originalAnalysis = m_document->analysis();
    }
    m_stack->push(new TreeEditCommand(this, current, edited, QString::fromStdString(toString(*parsed))));
    return true;
}

void TreeEditor::revert()
{
    m_stack->setIndex(0);
}

QStringList TreeEditor::edits() const
{
    QStringList out;
    for (int i = 0; i < m_stack->index(); ++i)
        out << m_stack->text(i);
    return out;
}

bool TreeEditor::modelReadsEditedTree(const Analysis &analysis) const
{
    bool dependency = false, constituency = false;
    for (const QString &e : edits()) {
        auto parsed = parseTreeEdit(e.toStdString());
        if (parsed)
            (parsed->dependency() ? dependency : constituency) = true;
    }
    // The same rule as treelens-cli whatif's (core/data/analysis.h).
    return (dependency && readsTree(analysis, TreeKind::Dependency)) || (constituency && readsTree(analysis, TreeKind::Constituency));
}

void TreeEditor::show(std::shared_ptr<const Sentence> sentence)
{
    m_pending = true;
    Q_EMIT analysisRequested(std::move(sentence));
    Q_EMIT changed();
}

void TreeEditor::onDocumentChanged(AnalysisDocument::Changes what)
{
    if (!(what & (AnalysisDocument::SentenceChanged | AnalysisDocument::AnalysisChanged)))
        return;
    if (m_pending) {
        m_pending = false; // the analysis we asked for
        Q_EMIT changed();
        return;
    }
    // Another sentence (typed, from a corpus, a probed one, a model switch): the edits
    // end; the tree shown keeps them (its provenance says edited).
    if (m_stack->count() > 0 && (what & AnalysisDocument::SentenceChanged)) {
        m_stack->clear();
        m_original.reset();
        m_originalAnalysis.reset();
        m_refusal.clear();
        Q_EMIT changed();
    }
}

} // namespace treelens
