#pragma once
/// \file queryslice.h
/// "Only sentences matching the corpus query" (issue 48): the checkbox the Probing and the
/// Minimal pairs docks put beside their use of the open corpus. Checked, what they read as
/// the open corpus is the sentences the Corpus dock's query matched (CorpusPanel::
/// matchedSentences(), in corpus order), so a probe or a set of pairs is made from one
/// construction only.

#include <functional>
#include <memory>
#include <vector>

#include <QCheckBox>

#include "core/data/sentence.h"

namespace treelens {

class QuerySliceBox : public QCheckBox {
public:
    using Source = std::function<std::shared_ptr<const std::vector<Sentence>>()>;
    explicit QuerySliceBox(QWidget *parent = nullptr);

    /// Where the matched sentences come from (null: the box stays disabled).
    void setSource(Source source);
    /// What a dock reads as the open corpus: `corpus` when the box is not checked; checked,
    /// the matched sentences (null when no query has matched: the dock then says it has no corpus).
    std::shared_ptr<const std::vector<Sentence>> apply(std::shared_ptr<const std::vector<Sentence>> corpus) const;

private:
    Source m_source;
};

} // namespace treelens
