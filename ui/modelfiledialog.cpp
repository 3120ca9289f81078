#include "ui/modelfiledialog.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemModel>

#include "core/encoders/family.h"
#include "core/model/modelfile.h"

namespace treelens {

bool EncoderFileFilter::listed(const QString &path)
{
    if (!path.endsWith(QLatin1String(".safetensors"), Qt::CaseInsensitive))
        return true;
    if (folderFamily(QFileInfo(path).absolutePath().toStdString()))
        return true; // a Hugging Face folder's weights (choosing them opens the folder)
    // Listed when its family is an encoder family of this build (a parser model is not), or
    // when the family cannot be read (opening the file says why).
    const auto family = readModelFamily(path.toStdString());
    return !family || findEncoderFamily(*family) != nullptr;
}

bool EncoderFileFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const auto *fs = qobject_cast<const QFileSystemModel *>(sourceModel());
    if (!fs)
        return true;
    const QModelIndex index = fs->index(sourceRow, 0, sourceParent);
    if (fs->isDir(index))
        return true;
    const QString path = fs->filePath(index);
    auto it = m_listed.constFind(path);
    if (it == m_listed.constEnd())
        it = m_listed.insert(path, listed(path));
    return *it;
}

QString encoderPathOf(const QString &chosen)
{
    // A file of a Hugging Face folder (its config.json, weights or tokenizer) opens the folder.
    const QString dir = QFileInfo(chosen).absolutePath();
    if (folderFamily(dir.toStdString()))
        return dir;
    return chosen;
}

QString chooseEncoderFile(QWidget *parent, const QString &title, const QString &directory)
{
    QFileDialog dialog(parent, title, directory,
                       QObject::tr("Encoder models (*.safetensors config.json pytorch_model.bin);;All files (*)"));
    // A proxy model needs Qt's own dialog (a platform dialog cannot be filtered).
    dialog.setOption(QFileDialog::DontUseNativeDialog);
    dialog.setFileMode(QFileDialog::ExistingFile);
    dialog.setProxyModel(new EncoderFileFilter(&dialog));
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
        return QString();
    return encoderPathOf(dialog.selectedFiles().constFirst());
}

} // namespace treelens
