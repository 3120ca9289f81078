#include "core/base/fileio.h"

#include "core/base/inputlimits.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace treelens {

Result<std::string> readFile(const std::string &path)
{
    return readFileLimited(path, inputLimits().maxTextFileBytes);
}

namespace {

/// The file a write to `path` lands in: a symbolic link is followed to its
/// final target (as editors do), so the link stays a link; a dangling link
/// names the file to create. Anything else is `path` itself.
std::string writeTarget(const std::string &path)
{
    namespace fs = std::filesystem;
    fs::path p(path);
    std::error_code ec;
    for (int hop = 0; hop < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hop) {
        const fs::path target = fs::read_symlink(p, ec);
        if (ec)
            break;
        p = target.is_absolute() ? target : p.parent_path() / target;
    }
    return p.string();
}

} // namespace

AtomicFileWriter::~AtomicFileWriter()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        ::unlink(m_temp.c_str());
    }
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter &&o) noexcept
    : m_path(std::move(o.m_path)), m_target(std::move(o.m_target)), m_temp(std::move(o.m_temp)), m_fd(o.m_fd),
      m_stdout(o.m_stdout)
{
    o.m_fd = -1;
}

Result<AtomicFileWriter> AtomicFileWriter::open(const std::string &path)
{
    AtomicFileWriter w;
    w.m_path = path;
    if (path == "-") {
        w.m_stdout = true;
        return w;
    }
    if (path.empty())
        return Error{"empty output file name"};
    w.m_target = writeTarget(path);
    w.m_temp = w.m_target + ".tmpXXXXXX";
    w.m_fd = ::mkstemp(w.m_temp.data());
    if (w.m_fd < 0)
        return makeError(path, std::string("cannot create temporary file: ") + std::strerror(errno));
    return w;
}

Status AtomicFileWriter::write(std::string_view data)
{
    if (m_stdout) {
        std::cout.write(data.data(), static_cast<std::streamsize>(data.size()));
        if (!std::cout)
            return makeError("<stdout>", "write error");
        return {};
    }
    if (m_fd < 0)
        return makeError(m_path, "write after commit");
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t w = ::write(m_fd, data.data() + done, data.size() - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return makeError(m_path, std::string("write error: ") + std::strerror(errno));
        }
        done += static_cast<std::size_t>(w);
    }
    return {};
}

Status AtomicFileWriter::commit()
{
    if (m_stdout) {
        std::cout.flush();
        if (!std::cout)
            return makeError("<stdout>", "write error");
        return {};
    }
    if (m_fd < 0)
        return makeError(m_path, "committed twice");
    // An existing file keeps its permissions; a new one gets the usual ones
    // (mkstemp creates 0600; the umask applies).
    struct stat st {};
    if (::stat(m_target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        ::fchmod(m_fd, st.st_mode & 07777);
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(m_fd, 0666 & ~mask);
    }
    const int fd = m_fd;
    m_fd = -1;
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(m_temp.c_str());
        return makeError(m_path, "write error: " + why);
    }
    if (std::rename(m_temp.c_str(), m_target.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(m_temp.c_str());
        return makeError(m_path, why);
    }
    return {};
}

Status writeFileAtomic(const std::string &path, std::string_view data)
{
    auto w = AtomicFileWriter::open(path);
    if (!w)
        return w.error();
    if (auto st = w->write(data); !st)
        return st;
    return w->commit();
}

std::string fileExtension(const std::string &path)
{
    const std::string name = fileName(path);
    const auto dot = name.rfind('.');
    if (dot == std::string::npos || dot == 0)
        return {};
    std::string ext = name.substr(dot);
    for (auto &c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

std::string fileName(const std::string &path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace treelens
