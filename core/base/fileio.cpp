#include "core/base/fileio.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
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
    if (path == "-") {
        std::ostringstream ss;
        ss << std::cin.rdbuf();
        return ss.str();
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return makeError(path, std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        return makeError(path, "is a directory");
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return makeError(path, std::strerror(errno));
    std::string data;
    if (S_ISREG(st.st_mode) && st.st_size > 0)
        data.reserve(static_cast<std::size_t>(st.st_size));
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        data.append(buf, n);
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed)
        return makeError(path, "read error");
    return data;
}

Status writeFileAtomic(const std::string &path, std::string_view data)
{
    if (path == "-") {
        std::cout.write(data.data(), static_cast<std::streamsize>(data.size()));
        std::cout.flush();
        if (!std::cout)
            return makeError("<stdout>", "write error");
        return {};
    }
    std::string tmpl = path + ".tmpXXXXXX";
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        return makeError(path, std::string("cannot create temporary file: ") + std::strerror(errno));
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmpl.c_str());
            return makeError(path, "write error: " + why);
        }
        done += static_cast<std::size_t>(w);
    }
    // mkstemp creates 0600; give the file the usual permissions (umask applies).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        ::unlink(tmpl.c_str());
        return makeError(path, std::string("write error: ") + std::strerror(errno));
    }
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmpl.c_str());
        return makeError(path, why);
    }
    return {};
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
