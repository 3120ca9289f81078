#pragma once
/// \file probenotes.h
/// What a reader of a sentence probe's numbers must be told (issue 47): the 95 %
/// interval of each test accuracy, a warning when a split is too small for the
/// differences in the table to mean anything, and a note wherever a baseline (the
/// majority class or train mean, or the random-weight encoder) scores at least as
/// high as the trained encoder's probe. Torch-free.

#include <string>
#include <utility>
#include <vector>

#include "core/probing/probereport.h"

namespace treelens {

/// A test split smaller than this gets a warning (a 95 % interval of about ±10
/// accuracy points at 100 examples).
constexpr long kSmallTestSplit = 100;
/// A dev split smaller than this gets a warning (epoch selection on it is noisy).
constexpr long kSmallDevSplit = 50;

/// Wilson 95 % interval (z = 1.96) of an accuracy (a fraction) measured on `n`
/// examples, as fractions; {NaN, NaN} when n <= 0 or the accuracy is not finite.
std::pair<double, double> accuracyInterval(double accuracy, long n);

/// The notes of one sentence probe task, in this order: small test / dev split
/// warnings ("warning: ..."), then, per pooling, the layers where the majority
/// (or mean) baseline is at least as good as the probe and those where the
/// random-init encoder's probe is at least as good as the trained one's ("note:
/// ..."), layers named as the report names them (embeddings, 1, 2, ...).
std::vector<std::string> sentenceTaskNotes(const SentenceProbeTask &task, const std::vector<std::string> &poolings);

} // namespace treelens
