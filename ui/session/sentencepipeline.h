#pragma once
/// \file sentencepipeline.h
/// The document job of the app: one sentence tokenised (typed text) or taken
/// from a corpus, its missing trees filled by the configured parser, then the
/// encoder run on it. Plain C++ (no Qt); used on JobRunner's document thread
/// only, which owns the parser it caches (Link Grammar's dictionaries are
/// expensive to load and not shared between threads).

#include <memory>
#include <string>
#include <vector>

#include "core/base/runcontrol.h"
#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/encoders/common/encodercache.h"
#include "core/encoders/headablation.h"
#include "core/parsing/parser.h"

namespace treelens {

class SentencePipeline {
public:
    explicit SentencePipeline(EncoderCache &encoders) : m_encoders(encoders) {}

    struct Output {
        std::shared_ptr<const Sentence> sentence; ///< null when the request failed (then `error`)
        std::shared_ptr<const Analysis> analysis; ///< null without a model or when it failed (then `modelError`)
        std::string error;
        std::string modelError;
    };

    /// Tokenises `text` as one sentence and runs run() on it.
    Output runText(const std::string &text, const ParserConfig &parser, const std::string &modelPath,
                   const RunControl &control, const std::vector<HeadAblation> &ablate = {});
    /// Fills the trees `sentence` lacks, then runs the encoder ("" = none). Each
    /// tree's provenance is in the metadata (dependency_source, constituency_source):
    /// "parsed" for a tree the parser made, and a tree the sentence came with keeps
    /// what it said ("gold" when nothing: a corpus file's tree; "parsed" or "edited"
    /// when the app re-analyses a sentence it showed, e.g. after a model switch). A
    /// sentence-pair model (EncoderInfo::pairInput) is not run: `modelError` says it
    /// reads pairs (singleSentenceRefusal). A parse failure is kept in the metadata (parse_error)
    /// and the encoder still runs on the words. The analysis keeps only the
    /// fields the encoder declares (keepDeclaredOutputs); with a constituency tree
    /// and an encoder that induces trees, it also gets the induced brackets as
    /// evaluation makes them (Analysis::withoutPunctuation: the encoder run again
    /// on the words without punctuation when there is any). Stage timings go into
    /// the metadata (timing.parse_ms, timing.encoder_ms). `ablate`: the heads switched off
    /// (AnalyzeOptions::ablate; the analysis lists them in Analysis::ablated; a model
    /// without heads refuses them in `modelError`).
    Output run(Sentence sentence, const ParserConfig &parser, const std::string &modelPath, const RunControl &control,
               const std::vector<HeadAblation> &ablate = {});

    /// run() for a statistic over corpus sentences (the Corpus dock's query attention): the
    /// parser runs only when the sentence lacks a tree the model reads (a model of words alone
    /// never waits for a parser), then the encoder as run() runs it, with every head on. A
    /// sentence that needs the parser goes through run() itself.
    Output runForModel(Sentence sentence, const ParserConfig &parser, const std::string &modelPath,
                       const RunControl &control);

private:
    /// run()'s stages: the trees the sentence lacks filled by the parser (false and
    /// `out.error` when the parser cannot be made), and the encoder run on it.
    bool fillTrees(Sentence &s, const ParserConfig &config, const RunControl &control, Output &out, double &parseMs);
    Output encode(Sentence s, const std::string &modelPath, const RunControl &control, const std::vector<HeadAblation> &ablate,
                  double parseMs, Output out);
    /// The parser for `config`, created again only when the configuration changed.
    Result<Parser *> parser(const ParserConfig &config);

    EncoderCache &m_encoders;
    std::unique_ptr<Parser> m_parser;
    ParserConfig m_config;
};

} // namespace treelens
