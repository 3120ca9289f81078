#include "ui/probingmodels.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/encoders/encoder.h"

namespace treelens {

namespace {

/// One spelling per file: "resources/models/m.safetensors" and its absolute path are one model.
QString normalModelPath(const QString &path)
{
    const QString p = path.trimmed();
    return p.isEmpty() ? p : QDir::cleanPath(QFileInfo(p).absoluteFilePath());
}

} // namespace

ProbingModelList::ProbingModelList(QWidget *parent) : QWidget(parent)
{
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("modelList"));
    m_list->setToolTip(tr("Encoders to probe: the checked ones run one after another with the same settings "
                          "and are compared side by side in the Compare tab"));
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->setMinimumHeight(m_list->sizeHintForRow(0) > 0 ? m_list->sizeHintForRow(0) * 3 + 6 : 60);
    m_list->setMaximumHeight(110);
    for (const char *name : {"tree-transformer-en-small.safetensors", "transformer-en-small.safetensors"}) {
        const std::string path = findShippedModel(name);
        if (!path.empty())
            addPath(QString::fromStdString(path));
    }
    setCheckedPaths({}); // shipped, not chosen
    auto *add = new QPushButton(tr("Add…"));
    add->setObjectName(QStringLiteral("addModel"));
    add->setToolTip(tr("Add model files (.safetensors) to the list"));
    connect(add, &QPushButton::clicked, this, &ProbingModelList::addDialog);
    m_remove = new QPushButton(tr("Remove"));
    m_remove->setObjectName(QStringLiteral("removeModel"));
    m_remove->setToolTip(tr("Remove the selected models from the list"));
    m_remove->setEnabled(false);
    connect(m_remove, &QPushButton::clicked, this, &ProbingModelList::removeSelected);
    connect(m_list, &QListWidget::itemSelectionChanged, this,
            [this] { m_remove->setEnabled(!m_list->selectedItems().isEmpty()); });
    m_hint = new QLabel;
    m_hint->setWordWrap(true);
    m_hint->setObjectName(QStringLiteral("modelHint"));
    auto *buttons = new QVBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    auto *row = new QHBoxLayout;
    row->addWidget(m_list, 1);
    row->addLayout(buttons);
    auto *col = new QVBoxLayout(this);
    col->setContentsMargins(0, 0, 0, 0);
    col->addLayout(row);
    col->addWidget(m_hint);
    connect(m_list, &QListWidget::itemChanged, this, [this] {
        updateHint();
        Q_EMIT changed();
    });
    connect(m_list->model(), &QAbstractItemModel::rowsInserted, this, &ProbingModelList::changed);
    connect(m_list->model(), &QAbstractItemModel::rowsRemoved, this, &ProbingModelList::changed);
    updateHint();
}

void ProbingModelList::setCheckedPaths(const QStringList &paths)
{
    for (const QString &p : paths)
        if (!p.trimmed().isEmpty())
            addPath(p);
    QStringList wanted;
    for (const QString &p : paths)
        wanted << normalModelPath(p);
    for (int i = 0; i < m_list->count(); ++i) {
        QListWidgetItem *item = m_list->item(i);
        const Qt::CheckState state = wanted.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked;
        if (item->checkState() != state)
            item->setCheckState(state);
    }
    updateHint();
}

QStringList ProbingModelList::checkedPaths() const
{
    QStringList out;
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->checkState() == Qt::Checked)
            out << m_list->item(i)->data(Qt::UserRole).toString();
    return out;
}

QStringList ProbingModelList::listedPaths() const
{
    QStringList out;
    for (int i = 0; i < m_list->count(); ++i)
        out << m_list->item(i)->data(Qt::UserRole).toString();
    return out;
}

void ProbingModelList::addPath(const QString &rawPath)
{
    const QString path = normalModelPath(rawPath);
    if (path.isEmpty())
        return;
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->data(Qt::UserRole).toString() == path) {
            m_list->item(i)->setCheckState(Qt::Checked);
            return;
        }
    // The file's name; its folder too where two listed files share a name.
    const QString name = QFileInfo(path).fileName();
    auto *item = new QListWidgetItem;
    item->setData(Qt::UserRole, path);
    item->setText(name.isEmpty() ? path : name);
    item->setToolTip(path);
    item->setFlags((item->flags() | Qt::ItemIsUserCheckable) & ~Qt::ItemIsEditable);
    item->setCheckState(Qt::Checked);
    for (int i = 0; i < m_list->count(); ++i)
        if (QFileInfo(m_list->item(i)->data(Qt::UserRole).toString()).fileName() == name) {
            QListWidgetItem *other = m_list->item(i);
            other->setText(QStringLiteral("%1 (%2)").arg(name, QFileInfo(other->data(Qt::UserRole).toString()).path()));
            item->setText(QStringLiteral("%1 (%2)").arg(name, QFileInfo(path).path()));
        }
    m_list->addItem(item);
}

void ProbingModelList::clear() { m_list->clear(); }

void ProbingModelList::addDialog()
{
    const QStringList checked = checkedPaths();
    const QString start = checked.isEmpty() ? QString() : QFileInfo(checked.front()).absolutePath();
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Add models"), start,
                                                            tr("Models (*.safetensors);;All files (*)"));
    for (const QString &p : paths)
        addPath(p);
}

void ProbingModelList::removeSelected()
{
    for (QListWidgetItem *item : m_list->selectedItems())
        delete m_list->takeItem(m_list->row(item));
    updateHint();
}

void ProbingModelList::updateHint()
{
    if (!m_hint)
        return;
    const int n = static_cast<int>(checkedPaths().size());
    if (n == 0)
        m_hint->setText(tr("None checked: the shipped default model."));
    else if (n == 1)
        m_hint->setText(tr("1 model checked."));
    else
        m_hint->setText(tr("%1 models checked: they run one after another, compared in the Compare tab.").arg(n));
}

} // namespace treelens
