#pragma once
/// \file pretraincorpus.h
/// Raw-text corpora for masked-LM pre-training of encoders (torch-free):
/// UD English EWT train sentences, WordNet's glosses and example sentences
/// (Debian package wordnet-base, /usr/share/wordnet/data.{noun,verb,adj,adv}),
/// and the words of PTB WSJ files in a given range. Evaluation files are never
/// read: the PTB range is checked against the held-out wsj_0160–0199.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/text/punctuation.h"  // isPunctuationToken, for the corpora's callers

namespace treelens {

struct PretrainSources {
    std::string udTrain;       ///< a CoNLL-U file (its FORM column), "" = none
    std::string wordnetDir;    ///< directory with data.noun etc., "" = none
    std::string ptbDir;        ///< directory with wsj_NNNN.mrg files, "" = none
    int ptbFirst = 1;          ///< first WSJ file number used
    int ptbLast = 159;         ///< last WSJ file number used (must stay below 160)
    int maxWords = 62;         ///< longer sentences are cut into pieces of this many words
    int ptbRepeat = 1;         ///< every WSJ sentence this many times (in-domain oversampling), 1..100
    /// Leave punctuation out, as unsupervised-parsing evaluation does (and as the
    /// Tree Transformer's own training text, the Mikolov PTB, has none): UD tokens
    /// with UPOS PUNCT, PTB words with a punctuation tag (isInductionPunctuationTag,
    /// the evaluation's set), WordNet tokens made of punctuation characters only.
    bool stripPunctuation = false;

    Status validate() const;
};

struct PretrainCorpus {
    std::vector<std::vector<std::string>> sentences;
    std::map<std::string, std::size_t> sentencesBySource; ///< "ud", "wordnet-gloss", "wordnet-example", "ptb"
    std::size_t words() const;
};

Result<PretrainCorpus> loadPretrainCorpus(const PretrainSources &sources);

/// Glosses and examples from one WordNet data file's text ("data.noun").
/// Definitions are the gloss parts before the first quoted example; examples
/// are the double-quoted parts. Returned as raw text.
void wordnetGlossesAndExamples(const std::string &dataFileText, std::vector<std::string> &glosses,
                               std::vector<std::string> &examples);

} // namespace treelens
