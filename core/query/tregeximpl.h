#pragma once
/// \file tregeximpl.h
/// Internal to core/query: the parsed form of a TregexPattern, shared by the parser
/// (tregex.cpp) and the matcher (tregexmatch.cpp). Flat tables: node descriptions refer to
/// the condition below them, conditions to their parts and targets, by index.

#include <memory>
#include <string>
#include <vector>

#include <unicode/regex.h>

#include "core/query/tregex.h"

namespace treelens {

namespace tregex {

enum class Rel {
    Child,          // <   B is a child of A (or the i-th, the i-th to last with an argument)
    Parent,         // >   B is A's parent (A the i-th child of B with an argument)
    Dominates,      // <<
    DominatedBy,    // >>
    Sister,         // $
    ImmLeftSister,  // $+  $.   A is the immediate left sister of B
    ImmRightSister, // $-  $,
    LeftSister,     // $++ $..
    RightSister,    // $-- $,,
    OnlyChild,      // <:
    OnlyChildOf,    // >:
    LeftmostDesc,   // <<,
    RightmostDesc,  // <<-
    LeftmostDescOf, // >>,
    RightmostDescOf,// >>-
    DominatesLeaf,  // <<<
    Precedes,       // ..
    ImmPrecedes,    // .
    Follows,        // ,,
    ImmFollows,     // ,
    Same,           // ==
    SameOrParent,   // <=
    Anywhere        // :
};

} // namespace tregex

struct TregexPattern::Impl {
    using Rel = tregex::Rel;
    enum class DescKind { Labels, Regex, Any, Root, Backref };
    struct Node {
        DescKind kind = DescKind::Any;
        std::string text;                 // the description as written ("NP|NX", "/^VB/", "__")
        std::vector<std::string> labels;  // Labels: the alternatives
        std::shared_ptr<icu::RegexPattern> regex;
        bool negated = false;             // !NP
        bool basic = false;               // @NP
        int bind = -1;                    // =name: index into names
        int ref = -1;                     // =name alone: the name it refers back to
        int cond = -1;                    // the relations below this node, -1 none
    };
    enum class CondKind { Relation, And, Or };
    struct Cond {
        CondKind kind = CondKind::Relation;
        bool negated = false;
        bool optional = false;
        Rel rel = Rel::Child;
        int arg = 0;
        std::string relText;
        int target = -1;                  // Relation: the node description
        std::vector<int> parts;           // And, Or
    };

    std::string text;
    std::vector<std::string> names;
    std::vector<Node> nodes;
    std::vector<Cond> conds;
    std::vector<int> roots;               // root-level alternatives (A | B)
};

} // namespace treelens
