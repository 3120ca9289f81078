#pragma once
/// \file pairscoring.h
/// Scoring a pair corpus with the pair workbench's systems (pairworkbench.h): each
/// system is a model file or the IDF word-overlap baseline (kIdfSystem). A model
/// that reads single sentences cannot score pairs: the baseline ranks the corpus in
/// its place and says so in its name. The workbench runs this on its JobRunner.

#include <optional>
#include <string>
#include <vector>

#include <QString>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/eval/pairtable.h"
#include "core/formats/pairs.h"

namespace treelens {

class EncoderCache;

/// The system choice that means the IDF word-overlap baseline, not a model file.
inline const QString kIdfSystem = QStringLiteral("idf");

/// A pair corpus scored by system A and, when one was chosen, system B.
struct PairScores {
    PairSystem a;
    std::optional<PairSystem> b;
    double seconds = 0; ///< how long scoring took
    /// One line per system that was trained or chosen on this corpus (trainingdata.h).
    std::vector<std::string> dataNotes;
};

/// Scores `corpus` (the file or folder `corpusPath`) with system `a` and, unless `b`
/// is empty, with `b`: a model file (through `encoders`) or kIdfSystem.
Result<PairScores> scorePairSystems(EncoderCache &encoders, const PairCorpus &corpus, const QString &a, const QString &b,
                                    const std::string &corpusPath, const RunControl &control);

} // namespace treelens
