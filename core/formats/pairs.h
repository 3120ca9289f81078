#pragma once
/// \file pairs.h
/// Sentence-pair corpora for answer selection (ranking) and entailment
/// (classification): readers for the WikiQA folder layout, a ranking TSV, PASCAL
/// RTE XML and TreeLens pairs JSON, and writers for TSV and JSON. The formats are
/// documented in docs/formats.md, "Sentence pairs".
///
/// Every reader validates the whole input before returning: an error returns no
/// corpus at all (never half a corpus), as one line "FILE:LINE: message" (the
/// WikiQA reader names the one of its four files that is at fault). Input is
/// checked with checkedText() (a byte-order mark is skipped; invalid UTF-8 and NUL
/// bytes are refused with their line) and files are read with readFileLimited().
/// Text that is not already tokenised is tokenised with the project's Tokenizer
/// (core/text/tokenizer.h), so Token::charStart/charEnd index Sentence::text.
/// Pure functions of their input: thread-safe.

#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

/// A labelled pair corpus.
struct PairCorpus {
    std::vector<SentencePair> pairs; ///< in file order
    /// "ranking" (answer selection: candidates of one SentencePair::group are
    /// ranked; labels "0"/"1", "1" = correct) or "classification" (entailment).
    std::string task;
    /// The label set in a fixed order: {"0","1"} for ranking, {"NO","YES"} for
    /// 2-way RTE, ... Every pair's label is one of them.
    std::vector<std::string> labels;
    std::string source; ///< the file or folder it was read from (for messages)
};

/// Task names of PairCorpus::task.
inline constexpr const char *kRankingTask = "ranking";
inline constexpr const char *kClassificationTask = "classification";

enum class PairFormat {
    WikiQa, ///< folder with a.toks, b.toks, id.txt, sim.txt
    Tsv,    ///< qid<TAB>question<TAB>candidate<TAB>label
    Rte,    ///< PASCAL RTE 1-3 XML
    Json    ///< TreeLens pairs JSON ("format": "treelens-pairs")
};

/// "wikiqa", "tsv", "rte" (also "xml"), "json"; anything else is an error listing them.
Result<PairFormat> parsePairFormat(const std::string &name);
std::string pairFormatName(PairFormat format);
/// The format of `path`: a folder holding a.toks is WikiQA; ".xml" is RTE; ".json"
/// is JSON; ".tsv"/".txt" is TSV. Anything else (including a folder without
/// a.toks) is an error naming the path.
Result<PairFormat> pairFormatFromPath(const std::string &path);

/// The four files of a WikiQA folder, one line per pair: the question (already
/// tokenised, tokens separated by ASCII white space), the candidate sentence (the
/// same), the question id and the label (0 or 1).
struct WikiQaFiles {
    std::string_view questions;  ///< a.toks
    std::string_view candidates; ///< b.toks
    std::string_view ids;        ///< id.txt
    std::string_view labels;     ///< sim.txt
};

/// Reads the WikiQA layout. `folder` prefixes the file names in messages
/// ("FOLDER/sim.txt:7: label 'x' is not 0 or 1"). All four files must have the
/// same number of lines (a final newline does not start a line); otherwise the
/// error names the file whose count differs from the others' and both counts.
/// Empty questions, candidates or ids are refused. Pairs sharing an id form one
/// group (ranked together); ids: first "q<ID>", second "q<ID>.c<K>" (K counts the
/// candidates of the question from 1). task "ranking", labels {"0","1"}.
Result<PairCorpus> readWikiQa(const WikiQaFiles &files, const std::string &folder);
/// Reads a WikiQA folder from disk (each file bounded by InputLimits::maxTextFileBytes).
Result<PairCorpus> readWikiQaFolder(const std::string &folder);

/// Reads a ranking TSV: "qid<TAB>question<TAB>candidate<TAB>label" per line,
/// labels 0 or 1 (a non-numeric label is an error "non-numeric label"; another
/// number is "not 0 or 1"). An optional header is recognised on the first line
/// (its label column reads "label" in any case). Blank lines are skipped; a CR
/// before the newline is dropped; fields are trimmed of spaces. Question and
/// candidate are tokenised; ids as in readWikiQa(). Wrong column counts are an
/// error naming the line and the count found.
Result<PairCorpus> readPairsTsv(std::string_view text, const std::string &source);

/// Reads PASCAL RTE XML: `<entailment-corpus>` holding `<pair id=".."
/// value="TRUE|FALSE">` (RTE 1) or `entailment="YES|NO|UNKNOWN"` (RTE 2/3; the
/// 3-way variant uses ENTAILMENT/CONTRADICTION/UNKNOWN), each with one `<t>` and
/// one `<h>`. first = t, second = h (white space runs collapsed to one space, then
/// tokenised), group = the pair id, ids "<ID>.t"/"<ID>.h", task "classification".
/// Other elements (and other children of a pair) are ignored.
/// Labels are normalised (any case): TRUE/YES/ENTAILMENT -> "YES", FALSE/NO -> "NO",
/// UNKNOWN and CONTRADICTION kept. The label set is {"NO","YES"} when only those
/// occur, else the 3-way set {"YES","UNKNOWN","CONTRADICTION"} (preceded by "NO"
/// when NO occurs too). Missing attributes or elements, repeated ids and unknown
/// labels are errors naming the line of the element; XML syntax errors name the
/// line and pugixml's description. The DOCTYPE is skipped, and no external entity
/// is ever resolved (pugixml does not resolve any).
Result<PairCorpus> readRteXml(std::string_view text, const std::string &source);

/// Reads TreeLens pairs JSON (docs/formats.md):
///   {"format": "treelens-pairs", "version": 1, "task": "ranking"|"classification",
///    "labels": [...], "pairs": [{"group": "..", "label": "..",
///    "first": SENTENCE, "second": SENTENCE}, ...]}
/// SENTENCE is a TreeLens JSON sentence object (treelensjson.h: "text", "tokens",
/// optional trees, ...) whose "tokens" may be left out: the text is tokenised then.
/// "labels" is optional (ranking: {"0","1"}; classification: the labels used,
/// sorted). Ranking pairs need a non-empty group and label "0" or "1" (the integers
/// 0 and 1 are accepted). Errors name the pair ("FILE:LINE: pair 3: ...", the line
/// where the pair's object starts). Keys named twice are refused (jsonstrict.h).
Result<PairCorpus> readPairsJson(std::string_view text, const std::string &source);

/// Reads a pair corpus from `path` in `format` ("auto": pairFormatFromPath(), or a
/// name parsePairFormat() knows). PairCorpus::source is set to `path`.
Result<PairCorpus> readPairCorpus(const std::string &path, const std::string &format = "auto");
/// The same for text already in memory (not WikiQA, which is a folder).
Result<PairCorpus> readPairCorpusText(std::string_view text, const std::string &source, PairFormat format);

/// TSV with the header "qid\tquestion\tcandidate\tlabel": group, the tokens of
/// first and second joined by single spaces, and the label, one pair per line.
/// Tabs, CRs and newlines inside a field are written as spaces. Only ranking
/// corpora (labels 0/1) read back with readPairsTsv(); classification corpora
/// belong in JSON.
std::string writePairsTsv(const PairCorpus &corpus);
/// TreeLens pairs JSON, one pair per line (so pair K is on line K+1). Reads back
/// with readPairsJson() to the same pairs, labels, groups, ids, texts, tokens and trees.
std::string writePairsJson(const PairCorpus &corpus);

} // namespace treelens
