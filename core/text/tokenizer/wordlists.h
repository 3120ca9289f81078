#pragma once
/// \file wordlists.h
/// Internal to the tokenizer: its word lists (the data of its rules): the
/// abbreviations that keep their period, the bound prefixes that keep their
/// hyphen, file extensions and top-level domains, the suffixes a number keeps,
/// the contractions written without an apostrophe, the clitics, the usual
/// sentence-initial words and the lists single rules ask (degrees, newsgroup
/// names, the words after a contracted "its"). The lists, and why each holds
/// what it holds, are in wordlists.cpp.

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace treelens::tokenizer {

using WordSet = std::unordered_set<std::string>;

/// Abbreviations (lower case, no period) whose period never ends a sentence.
const WordSet &titleAbbreviations();
/// Abbreviations whose period ends a sentence before a capitalised sentence starter.
const WordSet &otherAbbreviations();
/// Prefixes after which a hyphen stays inside the word ("e-mail").
const WordSet &hyphenPrefixes();
/// File extensions ("doc", "pdf").
const WordSet &fileExtensions();
/// Whether `lower` is a top-level domain or a file extension.
bool isDomainSuffix(const std::string &lower);
/// Whether the letters `lower` after a number stay attached to it ("9th", "1990s").
bool keepsNumberSuffix(const std::string &lower, bool singleUpper);
/// Fused words and their words' lengths ("dont" -> 2, 2).
const std::unordered_map<std::string, std::vector<int>> &fusedWords();
/// Clitics after an apostrophe ("s", "re", "ll").
const WordSet &clitics();
/// Whether `w` is a common sentence-initial word ("The", "I", "But").
bool isCommonSentenceStarter(std::string_view w);
/// Words after which "its" is read as "it s" ("its a", "its not").
const WordSet &wordsAfterContractedIts();
/// Degrees with inner periods ("ph.d", "m.sc").
const WordSet &degreeAbbreviations();
/// Newsgroup hierarchies ("alt", "comp").
const WordSet &newsgroupHierarchies();
/// Abbreviations that are ordinary words too ("sat", "ill").
const WordSet &abbreviationsThatAreWords();
/// Abbreviations kept whole that may end a sentence ("etc.", "u.s.").
const WordSet &sentenceEndingAbbreviations();

} // namespace treelens::tokenizer
