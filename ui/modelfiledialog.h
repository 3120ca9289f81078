#pragma once
/// \file modelfiledialog.h
/// The file dialog that opens an encoder: it lists folders, `.safetensors` files
/// and model directories, and hides the model files that are not encoders (the
/// shipped parsers sit beside the encoders in resources/models, and --model
/// refuses them). A file's kind is read from its safetensors header only
/// (readModelFamily), once per file and dialog.

#include <QHash>
#include <QSortFilterProxyModel>
#include <QString>

class QWidget;

namespace treelens {

/// Hides model files whose family is not an encoder family of this build (the parser
/// models, a family this build does not know); a file it cannot read stays listed
/// (opening it then says why). Works on a QFileSystemModel source.
class EncoderFileFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    /// Whether the file at `path` is listed (exposed for tests).
    static bool listed(const QString &path);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    /// listed() per path: the model file's header is read once per file and dialog
    /// (the model filters again on every insert and change).
    mutable QHash<QString, bool> m_listed;
};

/// The model path for a chosen file: the folder when the file is part of a folder a family
/// opens as a whole (a Hugging Face folder's config.json, model.safetensors, ...), else the file.
QString encoderPathOf(const QString &chosen);
/// Asks for an encoder file (or a Hugging Face folder, by any of its files); "" when the user cancels.
QString chooseEncoderFile(QWidget *parent, const QString &title, const QString &directory);

} // namespace treelens
