#pragma once
/// \file parser.h
/// The Parser interface: pre-tokenised words (a Sentence with tokens) in, the same
/// Sentence with a dependency and/or constituency tree out. Backends: TreeLens's
/// trained models ("neural", the default when its model is installed), Link
/// Grammar, an external command ("external") and an already parsed file ("file").

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/sentence.h"

namespace treelens {

/// Options shared by all backends; a backend ignores what does not apply to it.
/// "neural" when the shipped dependency parser model is found
/// (findShippedModel), else "link-grammar" when built with it, else "neural".
std::string defaultParserBackend();

struct ParserConfig {
    std::string backend = defaultParserBackend(); ///< see availableParsers()
    double timeoutSeconds = 2.0;          ///< per sentence; 0 = no limit
    int maxWords = 250;                   ///< longer inputs are refused with an error
    std::string language = "en";
    /// Backend "external": the shell command line run with /bin/sh -c for each
    /// sentence (e.g. "python3 my_stanza.py"); it reads one line of space-separated
    /// tokens on stdin and writes CoNLL-U on stdout (core/parsing/externalparser.h).
    std::string command;
    /// Sentences with more tokens than this are parsed in clause-sized pieces of
    /// at most `chunkMaxPiece` tokens (core/parsing/chunkingparser.h); 0 = never.
    /// The app sets it for Link Grammar, whose time grows steeply with length.
    int chunkLongerThan = 0;
    int chunkMaxPiece = 30;
    /// Backend "neural": the dependency parser model ("" = the shipped
    /// parser-dep-en-ewt.safetensors); see core/parsing/neural/neuralparser.h.
    std::string dependencyModel;
    /// Backend "neural": the constituency parser model ("" = the shipped
    /// parser-const-en-ptb.safetensors when present).
    std::string constituencyModel;
    /// Backend "neural": the LEMMA/FEATS tagger model ("" = the shipped
    /// tagger-morph-en-ewt.safetensors when present, "none" = no tagger: the
    /// input's LEMMA and FEATS are kept).
    std::string morphologyModel;
    /// Backend "file": the parsed file (CoNLL-U, PTB or JSON) trees are read from.
    std::string treeFile;

    Status validate() const;
};

struct ParserInfo {
    std::string name;
    bool dependencies = false;
    bool constituencies = false;
    std::string description;
    /// The backend writes UPOS and XPOS (a tagger beside the parser); otherwise the
    /// input's tags are kept.
    bool tags = false;
    /// The backend writes LEMMA and FEATS (a morphological tagger); otherwise the
    /// input's are kept.
    bool morphology = false;
};

class Parser {
public:
    virtual ~Parser() = default;
    virtual ParserInfo info() const = 0;

    /// Parses one sentence. `input.tokens` must be non-empty; their text is the
    /// tokenisation to keep (trees are over exactly these tokens). On success the
    /// returned Sentence equals `input` plus trees and metadata ("parser",
    /// and "partial" = "yes" when the backend could only give a partial parse).
    /// Not thread-safe: use one Parser per thread.
    virtual Result<Sentence> parse(const Sentence &input) = 0;

    /// Parses many sentences; stops at the first error or when cancelled
    /// (then returns an Error "cancelled").
    virtual Result<std::vector<Sentence>> parseAll(const std::vector<Sentence> &inputs, const RunControl &control = {});
};

/// How parseCorpus() treats a corpus.
struct CorpusParseOptions {
    int maxWords = 250;         ///< longer sentences are refused
    std::string limitHint;      ///< appended to the refusal's "(limit N" ("see --max-words" for the CLI)
    bool batched = true;        ///< one parseAll() (the neural backend's speed) rather than one parse() each
};

/// Parses a corpus: existing trees are dropped; a sentence of more than
/// `maxWords` words is refused ("SOURCE:LINE: sentence has N words (limit M,
/// HINT)", the sentence id when its line is unknown). With `failures`, a refused
/// sentence — and, unbatched, one the parser fails on — is left without trees
/// and its error appended; without, the first error is returned. A failed batch
/// fails the whole call ("SOURCE: message").
Result<std::vector<Sentence>> parseCorpus(Parser &parser, std::vector<Sentence> sentences, const std::string &source,
                                          const CorpusParseOptions &options, std::vector<std::string> *failures = nullptr);

/// Gives every sentence that lacks it the dependency tree (`dependency`) and/or the
/// constituency tree (`constituency`) a model reads, parsed by the parser `open`
/// returns; `open` is called only when some sentence lacks a tree, so a treebank that
/// carries its trees needs no parser (nor its model files). Trees a sentence has are
/// kept; a tree it was given is marked in its metadata (`dependency_source` or
/// `constituency_source` = "parsed", what an edit of it reports as its origin). Errors: `open`'s, or parseCorpus's naming `source`.
Status completeTrees(std::vector<Sentence> &sentences, bool dependency, bool constituency, const std::string &source,
                     const std::function<Result<Parser *>()> &open);

/// The default parser (ParserConfig{}), opened into `holder` on the first call only:
/// the `open` of completeTrees(), so that an input that carries its trees needs no
/// parser model. `holder` must outlive the function.
std::function<Result<Parser *>()> parserOnDemand(std::unique_ptr<Parser> &holder);

/// Says which CoNLL-U columns of a sentence `parser` parsed are predicted and which
/// were carried over from the input, as two comments (any earlier ones replaced):
/// "# treelens.predicted = LEMMA UPOS XPOS FEATS HEAD DEPREL" (the tags only when
/// info.tags, LEMMA and FEATS only when info.morphology; in column order) and
/// "# treelens.from_input = LEMMA FEATS MISC" (the columns not predicted that are
/// not empty in some word; "none" when there are none). The backend "file" predicts
/// nothing: its HEAD and DEPREL are named "# treelens.trees_from = FILE" unless FILE
/// is `inputFile`. A sentence the parser failed on (metadata "parser.failed", a flat
/// tree) predicts nothing. When HEAD/DEPREL are predicted, the input's enhanced graph
/// (DEPS, empty nodes) is dropped: it belongs to the input's own tree.
void markColumnProvenance(Sentence &s, const ParserInfo &info, const std::string &treeFile, const std::string &inputFile);

/// Names accepted by createParser().
std::vector<ParserInfo> availableParsers();

/// Creates the backend named by config.backend.
Result<std::unique_ptr<Parser>> createParser(const ParserConfig &config);

} // namespace treelens
