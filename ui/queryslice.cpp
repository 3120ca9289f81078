// "Only sentences matching the corpus query" (see queryslice.h).
#include "ui/queryslice.h"

namespace treelens {

QuerySliceBox::QuerySliceBox(QWidget *parent) : QCheckBox(tr("Only sentences matching the corpus query"), parent)
{
    setObjectName(QStringLiteral("querySliceBox"));
    setToolTip(tr("Instead of the whole open corpus, the sentences the Corpus dock's tree pattern matches (its Matches "
                  "column), in corpus order"));
    setEnabled(false);
}

void QuerySliceBox::setSource(Source source)
{
    m_source = std::move(source);
    setEnabled(static_cast<bool>(m_source));
}

std::shared_ptr<const std::vector<Sentence>> QuerySliceBox::apply(std::shared_ptr<const std::vector<Sentence>> corpus) const
{
    if (!isChecked())
        return corpus;
    return m_source ? m_source() : nullptr;
}

} // namespace treelens
