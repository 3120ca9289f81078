#pragma once
// Tree patterns for the corpus commands (issue 48; docs/query.md): a pattern read from a flag
// or a file in one of the two languages (a Grew request, core/query/deppattern.h, or a Tregex
// pattern, core/query/tregex.h), the trees a sentence lacks parsed as `query` parses them, and
// the shared `--where P` of analyze, explain, probe, minimal-pairs and make-pairs
// (QueryFilter): which sentences have an occurrence, and the words each occurrence binds.
//
// The pattern reading and TreeSupply are query's (app/cli/cmd_query.cpp), with the same
// messages and the same parsing: a sentence that lacks the tree the pattern reads gets the
// parser's tree and the tags, lemmas and features it lacks, nothing else.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli/command.h"
#include "core/base/result.h"
#include "core/data/sentence.h"
#include "core/parsing/parser.h"
#include "core/query/deppattern.h"
#include "core/query/tregex.h"

namespace treelens::cli {

/// The tree a pattern reads.
enum class PatternTree { Dependency, Constituency };

/// "dependency" or "constituency".
const char *patternTreeName(PatternTree tree);

/// A pattern in one of the two languages (exactly one is set).
struct TreePattern {
    std::optional<DepPattern> grew;
    std::optional<TregexPattern> tregex;

    PatternTree tree() const { return grew ? PatternTree::Dependency : PatternTree::Constituency; }
    /// The pattern as written.
    const std::string &text() const { return grew ? grew->text() : tregex->text(); }
    /// "grew" or "tregex".
    const char *syntax() const { return grew ? "grew" : "tregex"; }
    /// The names of an occurrence's words: a Grew request's pattern nodes; for a Tregex pattern
    /// "_root_" (the node at the pattern's root) then its `=name` nodes.
    std::vector<std::string> names() const;
};

/// The pattern given as `text` (named `flag` in errors) or, when `file` is not empty, read from
/// that file (trailing blanks and newlines dropped; named by its path), in the language `syntax`
/// says: "grew", "tregex" or "auto" (a Grew request when looksLikeGrewRequest() says so).
/// Errors: the file's, or "FLAG (Grew request): line 1, column 24: ...".
Result<TreePattern> readTreePattern(const std::string &text, const std::string &file, const std::string &syntax,
                                    const std::string &flag);

/// Trees for the sentences that lack the one a pattern reads, from the parser of the parser
/// options, opened for the first sentence that needs it (a treebank that carries its trees
/// opens none). `spec` must outlive it.
class TreeSupply {
public:
    TreeSupply(const ParserSpec &spec, PatternTree kind, std::string source);

    /// Gives every sentence of `chunk` that lacks it the parser's tree (marked "parsed" in its
    /// metadata, treeSourceKey()), and the tags, lemmas and features its words lack; the input's
    /// trees and columns are kept. A sentence the parser refuses (--max-words) or fails on
    /// alone is left without, its message in `failures`.
    Status complete(std::vector<Sentence> &chunk, std::vector<std::string> &failures);

    /// The metadata key a parsed tree is marked under ("dependency_source", "constituency_source").
    static std::string treeSourceKey(PatternTree kind);

private:
    bool has(const Sentence &s) const;
    Status open();
    void take(Sentence &s, const Sentence &parsed) const;

    const ParserSpec &m_spec;
    PatternTree m_kind;
    std::string m_source;
    std::unique_ptr<Parser> m_parser;
};

/// One occurrence as the words it binds: words[i] is the word bound to names()[i], from 1;
/// 0 is a Grew request's anchor node; -1 a Tregex name the match left unbound or a node
/// without a head word (over traces only). A Tregex node stands for its head word (Collins head
/// rules, as `convert --head-rules collins` finds heads).
struct PatternOccurrence {
    std::vector<int> words;
};

/// The occurrences of `pattern` in `s`, which has the tree the pattern reads (none otherwise),
/// in the order `query` lists them.
std::vector<PatternOccurrence> occurrencesOf(const TreePattern &pattern, const Sentence &s);

/// The --where options of a command.
struct WhereSpec {
    std::string pattern, file;
    std::string syntax = "auto";
    bool given() const { return !pattern.empty() || !file.empty(); }
};
/// --where P, --where-file F, --where-syntax grew|tregex|auto; `what` says what is restricted
/// ("analyse only the sentences with an occurrence").
void addWhereOptions(CLI::App *cmd, WhereSpec &spec, const std::string &what);

/// What a restricted run searched and found.
struct WhereTotals {
    std::size_t sentences = 0;   ///< searched, or left unparsed
    std::size_t matched = 0;     ///< with at least one occurrence
    std::size_t occurrences = 0;
    std::size_t predicted = 0;   ///< searched on a tree the parser gave
    std::size_t unparsed = 0;    ///< the parser refused or failed on them: not searched, left out
    /// "gold", "predicted" or "mixed" (as query --count --json says it).
    std::string trees() const;
};

/// A command's --where: the pattern, the trees its sentences lack, their occurrences, the
/// totals and how the output says them.
class QueryFilter {
public:
    /// The pattern of `spec` (its errors as readTreePattern's, flag --where); `parser` (which
    /// must outlive the filter) parses the sentences that lack the tree, `source` names the input.
    static Result<QueryFilter> open(const WhereSpec &spec, const ParserSpec &parser, const std::string &source);

    const TreePattern &pattern() const { return m_pattern; }
    const WhereTotals &totals() const { return m_totals; }

    /// The occurrences in each sentence of `chunk`, in order; a sentence that lacks the tree the
    /// pattern reads is parsed first (it keeps the parser's tree), one the parser refuses has
    /// none (a warning on stderr). Adds to totals().
    Result<std::vector<std::vector<PatternOccurrence>>> match(std::vector<Sentence> &chunk);
    /// match(), then the sentences without an occurrence dropped from `chunk`; returns the kept
    /// sentences' occurrences, and in `kept` (when given) their indices in the chunk as it was.
    Result<std::vector<std::vector<PatternOccurrence>>> keepMatched(std::vector<Sentence> &chunk,
                                                                    std::vector<std::size_t> *kept = nullptr);

    /// One sentence's occurrences as JSON: [{"NAME": word, ...}, ...] (null for an unbound name).
    std::string matchesJson(const std::vector<PatternOccurrence> &occurrences) const;
    /// ... and as text: "V=3:sleeps S=2:dog; V=7:runs S=6:cat" (unbound names left out).
    std::string matchesText(const std::vector<PatternOccurrence> &occurrences, const Sentence &s) const;
    /// What stderr says: "COMMAND: --where: 2 of 3 sentences have an occurrence (3 occurrences)
    /// of the Grew request pattern { ... }; only they are WHAT", and which trees were predicted.
    std::string note(const std::string &command, const std::string &what) const;

private:
    QueryFilter(TreePattern pattern, const ParserSpec &parser, const std::string &source);

    TreePattern m_pattern;
    std::unique_ptr<TreeSupply> m_supply;
    std::string m_parserName;
    WhereTotals m_totals;
};

/// A pattern on one line for messages (newlines and tabs as spaces).
std::string patternOneLine(const std::string &text);

} // namespace treelens::cli
