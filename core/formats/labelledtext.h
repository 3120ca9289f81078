#pragma once
/// \file labelledtext.h
/// Labelled sentences, one per line, as the TREC question classification files
/// (Li & Roth 2002) have them: `COARSE:fine word word …`, the words already
/// tokenised and separated by spaces. Blank lines are skipped. The label is
/// everything before the first space; its coarse class the part before the first
/// ':' (the whole label when there is none).
///
/// Encoding: UTF-8; a line that is not valid UTF-8 is read as Latin-1 (the
/// original TREC files are Latin-1: one line of train_5500 has a no-break space
/// 0xA0) and counted in `latin1Lines`, so a caller can say so. A line without a
/// label or without words is an error naming the file and line.

#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

struct LabelledSentence {
    Sentence sentence;        ///< id "<source stem>-<line>", tokens without offsets
    std::string label;        ///< "DESC:manner"
    std::string coarseLabel;  ///< "DESC"
};

struct LabelledText {
    std::vector<LabelledSentence> sentences;
    int latin1Lines = 0;      ///< lines decoded as Latin-1
};

Result<LabelledText> readLabelledText(std::string_view text, const std::string &source);

} // namespace treelens
