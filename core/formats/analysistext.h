#pragma once
/// \file analysistext.h
/// `treelens-cli analyze` without `--json`: what an analysis carries, as lines a
/// person reads. Only what the encoder filled is printed, so every family has its
/// own lines: the induced tree and the top layer's link probabilities (a model
/// with a constituent prior), the prediction with its probabilities (a classifier
/// or a pair model), the pair score, and a one-line summary of what else the
/// analysis holds (attention, node attention, gates) with a pointer to `--json`.

#include <string>

#include "core/data/analysis.h"

namespace treelens {

/// The lines for one analysis (each ends in '\n'); for a pair, the second
/// sentence's own lines follow under "second:". Never empty.
std::string analysisToText(const Analysis &a);

/// "positive 0.873 (negative 0.127, positive 0.873)", or "score 0.734" for a
/// ranker without probabilities.
std::string predictionText(const Prediction &p);

} // namespace treelens
