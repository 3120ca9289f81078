#pragma once
/// \file inputlimits.h
/// The one input-limits policy of TreeLens, used by the CLI and the app alike
/// (docs/file-formats.md, "Limits"). Every reader of an untrusted file checks
/// the bytes it is given with checkedText() (BOM, NUL, UTF-8) and reads files
/// with readFileLimited() (regular files only, bounded size); sentence length is
/// checked with checkSentenceLength() before anything quadratic in it runs.
/// Messages are one line, name the source and line/offset, and are made safe
/// for a terminal with printableMessage().

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/result.h"

namespace treelens {

struct InputLimits {
    /// Text files (treebanks, text, JSON, recipes, configs): larger ones are refused
    /// before reading. 2 GiB: a whole treebank fits, /dev/zero does not.
    std::uint64_t maxTextFileBytes = std::uint64_t(2) << 30;
    /// Small side files of a model (config.json, vocab.txt).
    std::uint64_t maxSideFileBytes = std::uint64_t(64) << 20;
    /// Words per sentence that the parsers, encoders and views accept (--max-words).
    int maxWords = 250;
    /// Nesting depth of a bracketed tree or JSON document.
    int maxTreeDepth = 3000;
    /// A zip entry may inflate to at most this many times its compressed size,
    /// and never beyond what the checkpoint's tensors declare (checkpoint.cpp).
    std::uint64_t maxDeflateRatio = 1100;
};

/// The limits in force (the defaults above).
const InputLimits &inputLimits();

/// Reads a file for parsing: "-" reads standard input (bounded by `maxBytes`
/// too); anything else must be a regular file (a link is followed; a device,
/// FIFO or directory is refused by name) no larger than `maxBytes`.
Result<std::string> readFileLimited(const std::string &path, std::uint64_t maxBytes);

/// The file checks of readFileLimited() without reading: an existing regular
/// file (a link is followed) of at most `maxBytes`; returns its size.
Result<std::uint64_t> checkRegularFile(const std::string &path, std::uint64_t maxBytes);

/// The checks every text reader makes before parsing: a leading UTF-8 byte-order
/// mark is skipped (it is not part of the text); invalid UTF-8 and NUL bytes are
/// refused as "SOURCE:LINE: ... at column C". Returns the text without the mark.
/// `firstLine`: the number of the text's first line (a piece of a larger file).
Result<std::string_view> checkedText(std::string_view text, const std::string &source, int firstLine = 1);

/// "SOURCE:LINE: sentence has N words (limit M[, HINT])" when `words` exceeds
/// `limit` (line 0 = unknown: "SOURCE: sentence ID has ..."), else success.
Status checkSentenceLength(std::size_t words, int limit, const std::string &source, int line,
                           const std::string &sentenceId, const std::string &hint = {});

/// `message` made safe to print on a terminal and on one line: control
/// characters (C0, DEL, C1, including ESC, CR and LF) are written as \xNN or
/// \u{NN}, invalid UTF-8 bytes as \xNN; everything else is kept.
std::string printableMessage(std::string_view message);

/// Range-checked narrowing of a JSON/config integer: refuses values outside
/// [lo, hi] with "KEY: VALUE is out of range LO..HI".
Result<int> narrowInt(long long value, long long lo, long long hi, const std::string &key);

} // namespace treelens
