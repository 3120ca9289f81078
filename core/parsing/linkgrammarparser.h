#pragma once
/// \file linkgrammarparser.h
/// The Link Grammar backend (CMU/OpenCog link-grammar 5.x, Debian's
/// liblink-grammar, English dictionary). It parses our tokens (joined by spaces),
/// aligns Link Grammar's own words back to them by byte offsets and converts the
/// best linkage into a UD-style labelled dependency tree and a PTB-style
/// constituency tree whose leaves are exactly the input tokens. The link-type to
/// UD-relation mapping, the POS mapping and the measured accuracy are in
/// docs/link-grammar.md.
///
/// Behaviour of parse():
/// - more than ParserConfig::maxWords tokens: an Error, Link Grammar is not called;
/// - a complete linkage: metadata "null_count" = "0";
/// - otherwise Link Grammar's fallback: passes allowing 1, 2, ... null links
///   (words left unlinked), at most 1000 / words of them: metadata "partial" =
///   "yes" and "null_count" = N (unlinked words hang from the root word, so both
///   trees still cover every token);
/// - no linkage at all, or the time budget (ParserConfig::timeoutSeconds, one
///   budget for all passes, checked between them, so it can be overrun by up to
///   about a second) is spent: an Error ("link-grammar: no linkage within 2 s
///   for sentence 's3' (42 words)").
/// Other metadata: "parser" = "link-grammar"; "lg.split", "lg.merged",
/// "lg.dropped" (tokens Link Grammar split, merged or dropped, when nonzero);
/// "lg.abbreviations" (abbreviations fed again without their period, because
/// Link Grammar had split it off and read it as a full stop);
/// "lg.violation" when the best linkage breaks a post-processing rule;
/// "lg.constituency" / "lg.dependency" = "flat" when a conversion failed.
///
/// Cost and threading: each parser object loads its own English dictionary
/// (about 0.25 s and 15 MB of memory; see the docs), so create one parser and reuse it.
/// A parser must be used by one thread at a time; use one parser per thread.
/// Link Grammar messages never reach stderr: they are captured per call and the
/// errors among them end up in the returned Error.

#include <memory>

#include "core/base/result.h"
#include "core/parsing/parser.h"

namespace treelens {

/// Loads the dictionary for config.language (only "en" is supported: the POS and
/// relation mappings are English-specific). Errors name what is missing.
Result<std::unique_ptr<Parser>> createLinkGrammarParser(const ParserConfig &config);

/// Name "link-grammar", dependencies and constituencies, with the library version.
ParserInfo linkGrammarParserInfo();

} // namespace treelens
