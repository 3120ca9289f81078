#pragma once
/// \file mappedfile.h
/// A whole file mapped read-only into memory (POSIX mmap, PROT_READ,
/// MAP_PRIVATE), for model weights: opening costs no memory and no read, a
/// page is read from the file when first touched, and pages can be handed
/// back to the system once their contents were copied elsewhere. Shared by
/// reference count: every tensor that refers to the mapping holds the
/// shared_ptr, and the file is unmapped when the last one goes.
///
/// The mapping is read-only: nothing in TreeLens writes through it, and a
/// write would fault. A file truncated by another program while it is mapped
/// makes reads of the lost pages fault too (SIGBUS); TreeLens writes its files
/// by rename, which leaves a mapped file intact (docs/model-files.md).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/base/result.h"

namespace treelens {

class MappedFile {
public:
    /// Maps `path`: a regular file (a link is followed; a device, FIFO or
    /// directory is refused by name, as readFileLimited() refuses them) of any
    /// size. An empty file gives an empty mapping (data() null). Errors name
    /// the path; ErrorCode::Io when the system refuses the mapping itself.
    static Result<std::shared_ptr<const MappedFile>> open(const std::string &path);

    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    const std::uint8_t *data() const { return m_data; }
    std::size_t size() const { return m_size; }
    const std::string &path() const { return m_path; }
    /// Whether [p, p + n) lies inside the mapping.
    bool contains(const void *p, std::size_t n) const;

    /// Drops this process's copies of the pages lying wholly inside [p, p + n)
    /// (madvise MADV_DONTNEED; a page shared with bytes outside the range is
    /// kept). Safe at any time: the mapping is never written, so a later read of
    /// those bytes reads them from the file again. No-op outside the mapping.
    void releasePages(const void *p, std::size_t n) const;

private:
    MappedFile(std::string path, std::uint8_t *data, std::size_t size);

    std::string m_path;
    std::uint8_t *m_data = nullptr;
    std::size_t m_size = 0;
};

} // namespace treelens
