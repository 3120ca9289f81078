#pragma once
/// \file treeedit.h
/// Edits of a sentence's trees, for "what if the tree were different?" (issue 33):
/// the app's tree views and `treelens-cli whatif` apply the same edits through
/// these functions, which refuse an edit that breaks a rule of its tree with one
/// line naming the rule (the tree is left as it was).
///
/// The edit language (words numbered from 1, as in CoNLL-U; spans I-J inclusive):
///   head W=H          word W's head becomes H; H = 0 makes W the root, and the former
///                     root becomes W's dependent with the relation W had (W's own
///                     relation becomes "root")
///   label W=REL       word W's relation becomes REL
///   bracket I-J LABEL a constituent LABEL over words I..J
///   unbracket I-J     the constituent over words I..J removed (its children go to
///                     its parent; of a unary chain, the innermost)
///   relabel I-J LABEL the constituent over words I..J (the innermost) relabelled
///
/// Rules. Dependency: no cycle (the message names it: "3 'sat' → 5 'mat' → 3 'sat'"),
/// one root (the root gets no head: "head W=0" makes another word the root), every
/// word keeps a head in 1..n or 0, a word is not its own head. A non-projective
/// result is allowed (isProjective() says so; the views mark it). Constituency: no
/// crossing brackets (the message names the bracket crossed), no second bracket
/// over a span that has one (relabel it), the whole sentence's bracket stays, a
/// part-of-speech tag is no bracket. Labels: non-empty, no spaces or parentheses.
///
/// Provenance: an edited tree is marked in the sentence's metadata
/// ("dependency_source" / "constituency_source" = "edited", "..._edited_from" = what
/// it was before: "gold", "parsed", ...; "..._edits" = how many edits).

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

struct TreeEdit {
    enum class Kind { Head, Label, Bracket, Unbracket, Relabel };
    Kind kind = Kind::Head;
    int word = 0;        ///< Head, Label: the word, from 1
    int head = 0;        ///< Head: the new head, from 1 (0 = root)
    int first = 0;       ///< Bracket, Unbracket, Relabel: the first word, from 1
    int last = 0;        ///< ... the last word, from 1 (inclusive)
    std::string label;   ///< Label: the relation; Bracket, Relabel: the phrase label

    /// Whether it edits the dependency tree (Head, Label) or the constituency tree.
    bool dependency() const { return kind == Kind::Head || kind == Kind::Label; }
    bool operator==(const TreeEdit &o) const
    {
        return kind == o.kind && word == o.word && head == o.head && first == o.first && last == o.last && label == o.label;
    }
};

/// Parses one edit of the language above ("head 3=5"); the message quotes it and
/// says what was expected.
Result<TreeEdit> parseTreeEdit(const std::string &text);
/// The edit in the language above (parseTreeEdit(toString(e)) == e).
std::string toString(const TreeEdit &edit);

/// Applies `edit` to `sentence`'s tree of its kind, checking the rules above;
/// on an error nothing changes. Errors when the sentence has no tree of that kind.
/// Marks the provenance in the metadata.
Status applyTreeEdit(Sentence &sentence, const TreeEdit &edit);

/// The same on the trees alone (no provenance), for callers that keep their own.
/// `words` (optional) names the words in messages.
Status applyDependencyEdit(DependencyTree &tree, const TreeEdit &edit, const std::vector<std::string> &words = {});
Status applyConstituencyEdit(ConstituencyTree &tree, const TreeEdit &edit);

/// The phrase node whose span is exactly words [first, last] (from 1), the
/// innermost of a unary chain; -1 when none.
int constituentOver(const ConstituencyTree &tree, int first, int last);

/// The provenance an edited tree's note shows: "" when the tree of that kind is
/// not edited, else "edited (from the parsed tree, 2 edits)".
std::string editedTreeNote(const Sentence &sentence, bool constituency);

} // namespace treelens
