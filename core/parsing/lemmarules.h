#pragma once
/// \file lemmarules.h
/// Lemma rules: how a word's form turns into its lemma, as a class a tagger can
/// predict (the approach of UDPipe, Straka 2018). A rule is derived from one
/// (form, lemma) pair of the training data and applies to other forms:
///
///   "<casing>;<edit>"
///
///  - casing: the lemma's letter case as runs, "l0" (all lower case), "u0"
///    (all upper), "u0,l1" (capitalised), "l0,u-2" (the last two upper): each
///    run is u|l and the character index where it starts, counted from the
///    start when it lies in the first half of the lemma and from the end (a
///    negative index) otherwise, so that one rule fits forms of any length.
///    Characters without case (digits, ".") never start a run.
///  - edit, on the lower-cased form: "e<np>,<ns>,<k>,<prefix><suffix>" removes
///    np characters from the start and ns from the end and adds `prefix` (k
///    bytes) at the start and `suffix` at the end; it is derived from the
///    longest common substring of form and lemma. Where they share no
///    character the rule is the whole lemma, "w<lemma>" ("went" -> "l0;wgo").
///
/// Examples: running -> run "l0;e0,4,0,", Cities -> city "l0;e0,3,0,y",
/// U.S. -> U.S. "u0;e0,0,0,". Case mapping covers ASCII, Latin-1, Latin
/// Extended-A, Greek and Cyrillic (other letters count as uncased).

#include <optional>
#include <string>

namespace treelens {

/// The rule that turns `form` into `lemma` (both valid UTF-8, non-empty).
std::string deriveLemmaRule(const std::string &form, const std::string &lemma);

/// The lemma `rule` makes of `form`, or nothing when the rule does not apply to
/// it (it removes more characters than the form has, or does not parse).
std::optional<std::string> applyLemmaRule(const std::string &rule, const std::string &form);

/// `form` lower-cased (the case mapping above): the fallback lemma.
std::string lowerCaseWord(const std::string &form);

} // namespace treelens
