#pragma once
/// \file rules.h
/// Internal to the Link Grammar backend: the rule table that turns a Link
/// Grammar link into a candidate UD arc (which end is the head, the relation,
/// its priority and the head switch to apply later). The table is in
/// docs/link-grammar.md.

#include <string>

#include "core/parsing/linkgrammar/linkage.h"
#include "core/parsing/linkgrammar/tagger.h"

namespace treelens::linkgrammar {

// Dependencies: link types -> UD relations (table in docs/link-grammar.md).

/// Head switches applied after the tree is chosen: Link Grammar makes function
/// words heads (preposition -> object, auxiliary -> verb, complementizer -> verb,
/// conjunction -> conjuncts); UD makes the content word the head.
enum class Switch { None, Case, Aux, AuxPass, Cop, Mark, Possessive, Flat, Coord, SubWall };

enum class HeadSide { Left, Right, NonPunct, Marker };

struct Rule {
    HeadSide side = HeadSide::Marker;
    std::string label = "dep";
    int priority = 2;
    Switch sw = Switch::None;
    int lift = 0; ///< see Candidate::lift (dependencies.cpp)
};

/// The rule for link l between tokens with facts `left` and `right`.
Rule ruleFor(const LgLink &l, const TokenFacts &left, const TokenFacts &right);

} // namespace treelens::linkgrammar
