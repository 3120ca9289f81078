#pragma once
/// \file deppatternimpl.h
/// Internal to core/query: the compiled form of a Grew request (deppattern.cpp builds
/// it, depmatch.cpp matches it).

#include <memory>
#include <string>
#include <vector>

#include <unicode/regex.h>

#include "core/query/deppattern.h"

namespace treelens {

/// A set of accepted strings: a list (`a|b`), a regular expression, or "anything".
struct DepValueSet {
    enum class Kind { Any, List, Regex };
    Kind kind = Kind::Any;
    std::vector<std::string> values;
    std::shared_ptr<icu::RegexPattern> regex; ///< full match
    int regexIndex = -1;                      ///< index into Impl::regexes (a matcher per match() call)
};

/// One constraint on a node's feature: `F=v|w`, `F<>v`, `F=re"..."`, `F` (present), `!F`.
struct DepFeatureTest {
    enum class Op { Present, Absent, In, NotIn };
    std::string name;
    Op op = Op::Present;
    DepValueSet values;
};

/// A relation constraint: `->` (any), `-[a|b]->`, `-[^a|b]->`, `-[re"..."]->`,
/// `-[1=nsubj, !2]->` (atoms on the label's parts split at ':').
struct DepLabelTest {
    enum class Kind { Any, In, NotIn, Regex, Atoms };
    Kind kind = Kind::Any;
    DepValueSet labels; ///< In, NotIn (a list), Regex
    struct Atom {
        int part = 1;   ///< 1-based part of the label ("1" = before the first ':')
        bool absent = false;
        bool negated = false; ///< `1<>x`
        DepValueSet values;
    };
    std::vector<Atom> atoms;
};

struct DepPattern::Impl {
    std::string text;
    std::vector<std::string> names; ///< kernel nodes (the public names())
    std::vector<std::string> allNames; ///< every node: kernel ones first, then each extension's
    std::vector<bool> injective;       ///< per node of allNames (false for names ending in '$')
    std::vector<std::shared_ptr<icu::RegexPattern>> regexes;

    enum class ItemKind { Filter, Edge, OutEdge, InEdge, ImmediatePrecedes, Precedes, Dominates, CompareFeatures, CompareValue };
    struct Item {
        ItemKind kind = ItemKind::Filter;
        int a = -1, b = -1;            ///< nodes (indices into allNames)
        std::vector<DepFeatureTest> features; ///< Filter: all must hold
        DepLabelTest label;            ///< Edge, OutEdge, InEdge
        std::string featureA, featureB; ///< CompareFeatures (a.featureA vs b.featureB), CompareValue (a.featureA)
        bool equal = true;             ///< `=` or `<>`
        DepValueSet value;             ///< CompareValue
    };
    /// A clause: `pattern` clauses are merged into the kernel (clauses[0]); each `with` and
    /// `without` clause is its own, with the nodes it adds (indices into allNames).
    struct Clause {
        enum class Kind { Kernel, With, Without };
        Kind kind = Kind::Kernel;
        std::vector<int> newNodes;
        std::vector<Item> items;
        // The search plan (planClause in depmatch.cpp): the new nodes in the order they are
        // bound; per step the item whose bound side gives the candidates (-1: every node)
        // and the items that can be checked once that node is bound; items on nodes bound
        // before the clause starts (an extension's kernel nodes) are checked first.
        std::vector<int> order;
        std::vector<int> via;
        std::vector<std::vector<int>> checksAt;
        std::vector<int> checksFirst;
    };
    std::vector<Clause> clauses;
};

/// Fills a clause's search plan; `bound` says which nodes are bound before it starts.
void planClause(DepPattern::Impl::Clause &clause, std::vector<bool> bound);

} // namespace treelens
