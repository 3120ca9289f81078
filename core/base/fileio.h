#pragma once
/// \file fileio.h
/// Whole-file reading and atomic writing (write to a temporary file in the same
/// directory, fsync, rename), so a failed write never leaves a partial file.

#include <string>
#include <string_view>

#include "core/base/result.h"

namespace treelens {

/// Reads a whole file. "-" reads standard input. Errors name the path.
Result<std::string> readFile(const std::string &path);

/// Writes `data` to `path` atomically. "-" writes to standard output.
Status writeFileAtomic(const std::string &path, std::string_view data);

/// Lower-cased extension including the dot (".conllu"), or "" if none.
std::string fileExtension(const std::string &path);

/// Base name of a path ("dir/x.conllu" -> "x.conllu").
std::string fileName(const std::string &path);

} // namespace treelens
