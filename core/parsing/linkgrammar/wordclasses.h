#pragma once
/// \file wordclasses.h
/// Internal to the Link Grammar backend (core/parsing/linkgrammarparser.cpp and
/// the other units of core/parsing/linkgrammar/): ASCII string helpers and the
/// closed-class English word lists its tagger and relation rules ask.

#include <initializer_list>
#include <string>

namespace treelens::linkgrammar {

// String helpers (ASCII case folding is enough: the decisions below are about
// English function words and Link Grammar's ASCII annotations).

std::string lowerAscii(std::string s);
bool startsWith(const std::string &s, const std::string &p);
bool endsWith(const std::string &s, const std::string &p);
bool equalsIgnoreCase(const std::string &a, const std::string &b);
bool isUpperAscii(char c);
bool isLowerAscii(char c);
bool inList(const std::string &w, std::initializer_list<const char *> list);

// Closed-class English words (lower case). Link Grammar gives most of them no
// subscript, so their POS comes from these lists.
bool isBeForm(const std::string &w);
bool isDoForm(const std::string &w);
bool isModal(const std::string &w);
bool isWhWord(const std::string &w);
bool isCoordinator(const std::string &w);

} // namespace treelens::linkgrammar
