#pragma once
/// \file querystatcmd.h
/// `treelens-cli query --model M --stat attention X Y` and `--stat surprisal X [--by MEASURE]`
/// (issue 48; docs/query.md, "Statistics"): a model run over the sentences where a Grew
/// request matches, and a statistic over its occurrences (core/query/querystat.h).

#include <string>
#include <vector>

#include "app/cli/command.h"

namespace CLI {
class App;
}

namespace treelens::cli {

struct QueryStatSpec {
    std::vector<std::string> stat; ///< "attention X Y" or "surprisal X"
    std::string by;                ///< surprisal: the measure to bin by
    std::string figure;            ///< attention: the heatmap (SVG)
    DeviceSpec dev;
    bool active() const { return !stat.empty(); }
};

/// --stat, --by, --figure and the model options.
void addQueryStatOptions(CLI::App *cmd, QueryStatSpec &spec);

/// Runs the statistic: `patternText` (already read from --pattern or --pattern-file) must
/// be a Grew request; sentences without a dependency tree are parsed with `parser`.
/// Writes JSON (`json`) or a text table to `out` ("" = standard output).
int runQueryStat(const QueryStatSpec &spec, const std::string &patternText, const std::string &patternSource,
                 const InputSpec &input, const ParserSpec &parser, bool json, const std::string &out);

} // namespace treelens::cli
