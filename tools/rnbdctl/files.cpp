// See files.hpp.
#include "tools/rnbdctl/files.hpp"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

namespace rnbdctl {

int read_descriptor(int fd, std::string& text)
{
    text.clear();
    char buffer[4096];
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int error = errno;
            close(fd);
            return error;
        }
        if (n == 0)
            break;
        text.append(buffer, size_t(n));
    }
    close(fd);
    return 0;
}

int read_file(const std::string& name, std::string& text)
{
    int fd = open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    return read_descriptor(fd, text);
}

// Written next to the file and renamed over it, so a reader (restore at
// boot) never sees half a file. 0 or the errno.
int write_file_atomically(const std::string& name, const std::string& text)
{
    const std::string temporary = name + ".tmp." + std::to_string(getpid());
    int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int error = errno;
            close(fd);
            unlink(temporary.c_str());
            return error;
        }
        done += size_t(n);
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int error = errno;
        unlink(temporary.c_str());
        return error;
    }
    if (rename(temporary.c_str(), name.c_str()) != 0) {
        int error = errno;
        unlink(temporary.c_str());
        return error;
    }
    return 0;
}

std::string directory_of(const std::string& name)
{
    const size_t slash = name.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : name.substr(0, slash);
}

}  // namespace rnbdctl
