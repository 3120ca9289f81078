#pragma once
/// \file analysisjson.h
/// An Analysis as JSON (the `analyze --json` object; the CLI and the GUI both
/// write it through here) and matrices as CSV for spreadsheets and plotting.
///
/// JSON keys (snake_case, docs/cli.md): `tokens`, `family`, `layers`, `heads`,
/// and whichever the encoder filled: `link_probs` [layer][gap],
/// `constituent_prior` [layer][i][j], `attention` [layer][head][i][j] and
/// `attention_raw` (before ×C) when `withAttention`, `induced_brackets`
/// [[start,end),…] and `induced_tree` (PTB brackets), `embedding`,
/// `mean_embedding`, `prediction` {label, score, labels, probabilities}.

#include <string>
#include <vector>

#include "core/data/analysis.h"

namespace treelens {

/// One JSON object; `indent` < 0 gives one line (JSON Lines), otherwise pretty
/// printed with that many spaces. Keys are sorted.
std::string analysisToJson(const Analysis &a, bool withAttention, int indent = -1);

/// RFC 4180 CSV (CRLF line ends; fields with , " CR or LF quoted, quotes
/// doubled). The first row is the header: an empty corner cell, then the column
/// labels; each further row starts with its label. Missing labels are the
/// 0-based index. Values use "%.9g" (locale-independent), enough to round-trip a float.
std::string matrixToCsv(const Matrix &m, const std::vector<std::string> &rowLabels,
                        const std::vector<std::string> &colLabels);

/// Analysis::linkProbs as CSV: one row per layer ("layer 1" … 1-based, as the UI
/// shows them), one column per gap between tokens ("w_k|w_k+1"). "" when empty.
std::string linkProbsToCsv(const Analysis &a);

} // namespace treelens
