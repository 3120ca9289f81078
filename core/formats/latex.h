#pragma once
/// \file latex.h
/// Trees as LaTeX source for papers: constituency trees as a `forest`
/// environment, dependency trees as a `tikz-dependency` `dependency`
/// environment (optionally with attention arcs drawn below the words).
/// Every word and label is escaped, so any input compiles with pdflatex as long
/// as its characters are covered by the font encoding (T1 + utf8; exotic
/// scripts need lualatex/xelatex).

#include <string>
#include <vector>

#include "core/data/constituencytree.h"
#include "core/data/sentence.h"

namespace treelens {

struct LatexOptions {
    /// true: a complete `\documentclass{standalone}` document with the packages
    /// it needs (compiles alone); false: only the environment, for \input.
    bool standalone = true;
    /// Print each attention arc's weight ("0.42") as its label.
    bool attentionLabels = true;
    /// What the attention arcs are (layer, head, kind, threshold), in plain text:
    /// written under the figure and as a comment above it when there are arcs
    /// (escaped like every other text).
    std::string attentionCaption;
};

/// An attention arc between two words (0-based positions in Sentence::tokens),
/// drawn from `from` to `to` with opacity and width growing with `weight` in [0, 1].
struct LatexArc {
    int from = 0;
    int to = 0;
    float weight = 0.0f;
};

/// Escapes text for LaTeX text mode: & % $ # _ { } become \& ... \}, \ ~ ^ < > |
/// become \textbackslash{} etc., [ and ] are braced ({[}) so they never read as
/// an optional argument, and ligature pairs (--, '', ``, !`, ?`) are broken with {}.
/// The result has balanced braces.
std::string escapeLatex(const std::string &text);

/// A `forest` tree: phrase labels as inner nodes, POS tags above the words and
/// the words as leaves on one baseline (`where n children=0{tier=word}`).
/// Starts at contentRoot() (drops the PTB wrapper); -NONE- traces and
/// constituents covering only traces are left out. An empty tree gives "".
std::string constituencyToForest(const ConstituencyTree &tree, const LatexOptions &opt = {});

/// A `tikz-dependency` figure: the words and a UPOS row (when any token has a
/// UPOS) in a deptext, \depedge{head}{dep}{deprel} (1-based), \deproot for every
/// root. Tokens without a head (-1) get no arc; without a dependency tree only
/// the words are set. `attention` arcs (self-arcs skipped) go below the words,
/// with opt.attentionCaption under them.
std::string dependencyToTikzDependency(const Sentence &s, const LatexOptions &opt = {},
                                       const std::vector<LatexArc> *attention = nullptr);

} // namespace treelens
