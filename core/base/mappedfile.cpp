#include "core/base/mappedfile.h"

#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/inputlimits.h"

namespace treelens {

MappedFile::MappedFile(std::string path, std::uint8_t *data, std::size_t size)
    : m_path(std::move(path)), m_data(data), m_size(size)
{
}

MappedFile::~MappedFile()
{
    if (m_data)
        ::munmap(m_data, m_size);
}

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string &path)
{
    // The same checks and messages as reading the file (no size limit: a mapping reads nothing up front).
    if (auto size = checkRegularFile(path, std::numeric_limits<std::uint64_t>::max()); !size)
        return size.error();
    // O_NONBLOCK: should the path be swapped for a FIFO after the check, open() must not wait for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return makeError(path, std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return makeError(path, std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return makeError(path, "not a regular file (a device, pipe or socket; refused)");
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > std::numeric_limits<std::size_t>::max()) {
        ::close(fd);
        return makeError(path, "file is " + std::to_string(size) + " bytes, more than this system can map", ErrorCode::Io);
    }
    if (size == 0) { // mmap refuses length 0; an empty file is read as empty (and refused as too short by its reader)
        ::close(fd);
        return std::shared_ptr<const MappedFile>(new MappedFile(path, nullptr, 0));
    }
    void *p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd); // the mapping keeps the file open
    if (p == MAP_FAILED)
        return makeError(path, std::string("cannot map the file (") + std::strerror(err) + ")", ErrorCode::Io);
    return std::shared_ptr<const MappedFile>(new MappedFile(path, static_cast<std::uint8_t *>(p), static_cast<std::size_t>(size)));
}

bool MappedFile::contains(const void *p, std::size_t n) const
{
    const auto a = reinterpret_cast<std::uintptr_t>(p), base = reinterpret_cast<std::uintptr_t>(m_data);
    return m_data && a >= base && a - base <= m_size && n <= m_size - (a - base);
}

void MappedFile::releasePages(const void *p, std::size_t n) const
{
    if (!contains(p, n) || n == 0)
        return;
    static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t begin = (a + page - 1) / page * page, end = (a + n) / page * page;
    if (end > begin) // MADV_DONTNEED on a private file mapping: later reads fault the file's pages back in
        ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

} // namespace treelens
