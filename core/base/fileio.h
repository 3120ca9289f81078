#pragma once
/// \file fileio.h
/// Whole-file reading and atomic writing (write to a temporary file in the same
/// directory, fsync, rename), so a failed write never leaves a partial file.

#include <string>
#include <string_view>

#include "core/base/result.h"

namespace treelens {

/// Reads a whole file. "-" reads standard input. Errors name the path. Only
/// regular files (or links to them) up to InputLimits::maxTextFileBytes are read
/// (inputlimits.h): a link to /dev/zero is refused, not read until memory runs out.
Result<std::string> readFile(const std::string &path);

/// Writes a file atomically in pieces (streaming output): everything goes to a
/// temporary file next to the target, which replaces the target on commit();
/// destroyed without commit(), it leaves nothing behind. "-" writes to standard
/// output as it goes. A symbolic link is followed: its final target is replaced
/// and the link stays (docs/cli.md, "Output files").
class AtomicFileWriter {
public:
    static Result<AtomicFileWriter> open(const std::string &path);
    AtomicFileWriter(AtomicFileWriter &&other) noexcept;
    AtomicFileWriter &operator=(AtomicFileWriter &&) = delete;
    AtomicFileWriter(const AtomicFileWriter &) = delete;
    ~AtomicFileWriter();

    Status write(std::string_view data);
    Status commit();

private:
    AtomicFileWriter() = default;
    std::string m_path, m_target, m_temp;
    int m_fd = -1;
    bool m_stdout = false;
};

/// Writes `data` to `path` atomically (AtomicFileWriter). "-" writes to standard output.
Status writeFileAtomic(const std::string &path, std::string_view data);

/// Lower-cased extension including the dot (".conllu"), or "" if none.
std::string fileExtension(const std::string &path);

/// Base name of a path ("dir/x.conllu" -> "x.conllu").
std::string fileName(const std::string &path);

} // namespace treelens
