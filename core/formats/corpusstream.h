#pragma once
/// \file corpusstream.h
/// Reads a corpus a chunk of sentences at a time, so that `parse` and `analyze`
/// keep memory bounded on large inputs (docs/cli.md, "Large inputs"): CoNLL-U,
/// plain text (one sentence per line, or running text with --split, cut at
/// blank lines) and JSON Lines are read piece by piece from the file, with line
/// numbers and default ids ("sN") continuing across pieces; PTB files and JSON
/// arrays are read whole (one piece). Every piece is checked like a whole file
/// (UTF-8, NUL bytes; a BOM is skipped at the start of the file only), and the
/// file must be a regular file within InputLimits::maxTextFileBytes, or "-".

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"
#include "core/formats/corpus.h"

namespace treelens {

class CorpusStream {
public:
    static Result<CorpusStream> open(const std::string &path, CorpusFormat format, const CorpusReadOptions &options = {});
    CorpusStream(CorpusStream &&) noexcept;
    CorpusStream &operator=(CorpusStream &&) noexcept;
    ~CorpusStream();

    /// The next sentences, about `count` of them (a piece ends at a sentence
    /// boundary; --split text at a blank line); empty at the end of the input.
    Result<std::vector<Sentence>> next(std::size_t count);
    /// Sentences returned so far.
    std::size_t sentencesRead() const { return m_index; }
    /// The name used in messages: the path, or "<stdin>".
    const std::string &source() const { return m_source; }

private:
    CorpusStream() = default;
    Result<std::vector<Sentence>> nextPiece(std::size_t count);
    /// One line (without its '\n'); false at the end of the input.
    Result<bool> readLine(std::string &line);

    std::string m_source;
    CorpusFormat m_format = CorpusFormat::Text;
    CorpusReadOptions m_options;
    std::FILE *m_file = nullptr;
    bool m_ownsFile = false;
    bool m_whole = false;   ///< read in one piece (PTB, JSON array)
    bool m_done = false;
    std::string m_pending;  ///< lines read to tell a JSON array from JSON Lines
    int m_pendingLines = 0;
    int m_line = 0;         ///< lines consumed so far
    std::size_t m_index = 0;
    std::uint64_t m_bytes = 0;
};

} // namespace treelens
