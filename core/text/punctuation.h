#pragma once
/// \file punctuation.h
/// Whether a token is punctuation as the evaluations count it. Torch-free.

#include <string>

namespace treelens {

/// A token made only of the characters of the evaluation's punctuation tags
/// (. , : ; ! ? ' " ` brackets and hyphens): "." "--" "''" "(" are; "-LRB-"
/// (letters), "$", "%", "#" and "&" (words with their own tags) are not.
bool isPunctuationToken(const std::string &token);

} // namespace treelens
