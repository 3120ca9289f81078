#pragma once
/// \file probingmodels.h
/// The Probing dock's list of encoders: model files (prefilled with the shipped
/// encoders), the checked ones run one after another; Add / Remove buttons and
/// a hint saying what a run will do. A file is listed once however it is spelled.

#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace treelens {

class ProbingModelList : public QWidget {
    Q_OBJECT
public:
    explicit ProbingModelList(QWidget *parent = nullptr);

    /// Checks exactly `paths`, in the list's order (adding the missing ones at its end).
    void setCheckedPaths(const QStringList &paths);
    /// The checked models, in the list's order.
    QStringList checkedPaths() const;
    /// Every model of the list, checked or not.
    QStringList listedPaths() const;
    /// Adds `path` to the list (checked), or checks it when listed.
    void addPath(const QString &path);
    /// Empties the list (then filled from the settings).
    void clear();
    QListWidget *list() const { return m_list; }

Q_SIGNALS:
    /// A model was added, removed, checked or unchecked.
    void changed();

private:
    void addDialog();
    void removeSelected();
    void updateHint();

    QListWidget *m_list = nullptr;
    QPushButton *m_remove = nullptr;
    QLabel *m_hint = nullptr;
};

} // namespace treelens
