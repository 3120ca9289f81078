#pragma once
/// \file pairparsing.h
/// Parses both sides of a sentence-pair corpus with any parser backend, in
/// batches: the question of a ranking group is parsed once and its trees are
/// shared by the group's pairs. A sentence the parser refuses (empty, longer
/// than `maxWords`) or a batch it fails on keeps no trees; the count of those
/// is returned. Polls `control` between batches (an Error "cancelled") and
/// reports progress there (stage "parsing both sides").

#include <cstddef>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/formats/pairs.h"
#include "core/parsing/parser.h"

namespace treelens {

Result<std::size_t> parsePairCorpus(PairCorpus &corpus, Parser &parser, const RunControl &control = {},
                                    int maxWords = 250, std::size_t batch = 256);

} // namespace treelens
