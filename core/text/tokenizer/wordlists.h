#pragma once
/// \file wordlists.h
/// Internal to the tokenizer: its word lists (the data of its rules): the
/// abbreviations that keep their period, the bound prefixes that keep their
/// hyphen, file extensions and top-level domains, the suffixes a number keeps,
/// the contractions written without an apostrophe, the clitics and the usual
/// sentence-initial words. The lists, and why each holds what it holds, are in
/// wordlists.cpp.

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

} // namespace treelens::tokenizer
