// Plain POSIX file access under the sysfs root; see sysfs.hpp.
#include "tools/rnbdctl/sysfs.hpp"

#include "tools/rnbdctl/files.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace rnbdctl {

std::string Sysfs::path(const std::string& relative) const
{
    if (relative.empty())
        return root_;
    return root_ + "/" + relative;
}

bool Sysfs::exists(const std::string& relative) const
{
    struct stat st;
    return lstat(path(relative).c_str(), &st) == 0;
}

bool Sysfs::is_directory(const std::string& relative) const
{
    struct stat st;
    return stat(path(relative).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool Sysfs::read(const std::string& relative, std::string& text) const
{
    int fd = open(path(relative).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    // A FIFO or a directory is not an attribute; do not block on it.
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    if (read_descriptor(fd, text) != 0)
        return false;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return true;
}

std::string Sysfs::read_or(const std::string& relative, const std::string& fallback) const
{
    std::string text;
    return read(relative, text) ? text : fallback;
}

std::vector<std::string> Sysfs::list(const std::string& relative) const
{
    std::vector<std::string> names;
    DIR* dir = opendir(path(relative).c_str());
    if (!dir)
        return names;
    while (struct dirent* entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..")
            names.push_back(name);
    }
    closedir(dir);
    std::sort(names.begin(), names.end(), natural_less);
    return names;
}

std::string Sysfs::link_target_name(const std::string& relative) const
{
    char target[PATH_MAX];
    ssize_t n = readlink(path(relative).c_str(), target, sizeof(target) - 1);
    if (n <= 0)
        return {};
    std::string text(target, size_t(n));
    size_t slash = text.rfind('/');
    return slash == std::string::npos ? text : text.substr(slash + 1);
}

int Sysfs::write(const std::string& relative, const std::string& text) const
{
    const std::string full = path(relative);
    if (plan_) {
        plan_->push_back({full, text});
        return 0;
    }
    if (hook_) {
        int hooked = hook_(full, text);
        if (hooked >= 0)
            return hooked;
    }
    // No O_CREAT, no O_TRUNC: an attribute exists or the object is gone.
    int fd = open(full.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    ssize_t n;
    do
        n = ::write(fd, text.data(), text.size());
    while (n < 0 && errno == EINTR);
    int error = n < 0 ? errno : 0;
    if (close(fd) != 0 && error == 0)
        error = errno;
    return error;
}

bool Sysfs::may_write(const std::string& relative) const
{
    // AT_EACCESS: the effective IDs, which open() uses (a set-uid caller).
    return faccessat(AT_FDCWD, path(relative).c_str(), W_OK, AT_EACCESS) == 0;
}

bool natural_less(const std::string& a, const std::string& b)
{
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size()) {
        if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[j])) {
            size_t i_end = i;
            size_t j_end = j;
            while (i_end < a.size() && isdigit((unsigned char)a[i_end]))
                ++i_end;
            while (j_end < b.size() && isdigit((unsigned char)b[j_end]))
                ++j_end;
            std::string left = a.substr(i, i_end - i);
            std::string right = b.substr(j, j_end - j);
            left.erase(0, std::min(left.find_first_not_of('0'), left.size()));
            right.erase(0, std::min(right.find_first_not_of('0'), right.size()));
            if (left.size() != right.size())
                return left.size() < right.size();
            if (left != right)
                return left < right;
            i = i_end;
            j = j_end;
            continue;
        }
        if (a[i] != b[j])
            return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

}  // namespace rnbdctl
