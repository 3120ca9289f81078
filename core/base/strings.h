#pragma once
/// \file strings.h
/// Small string helpers used by the readers and writers.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace treelens {

std::vector<std::string_view> splitView(std::string_view s, char sep);
std::string_view trimView(std::string_view s);
std::string join(const std::vector<std::string> &parts, std::string_view sep);
bool startsWith(std::string_view s, std::string_view prefix);
bool endsWith(std::string_view s, std::string_view suffix);
std::string toLowerAscii(std::string_view s);
/// The lines of a list file (a vocabulary: one entry a line): "\n" or "\r\n"
/// ends a line, trailing empty lines are dropped, inner ones kept.
std::vector<std::string> splitListLines(const std::string &text);
/// Parses a decimal int with nothing else around it; false on overflow/garbage.
bool parseInt(std::string_view s, int &out);
/// A file name stem for the `number`-th (1-based) sentence of an input: the number with
/// `digits` digits, then '-' and the sentence's id (its first 120 bytes; letters, digits,
/// '.', '-' and '_' kept, anything else '_'); just the number when the id is empty. Ids
/// repeat across files, numbers do not, so the number stays: "0003-weblog-0001".
std::string numberedFileStem(std::size_t number, const std::string &id, int digits);

} // namespace treelens
