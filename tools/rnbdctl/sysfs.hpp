// The sysfs tree rnbdctl reads and writes, rooted at --sysfs-root /
// RNBDCTL_SYSFS_ROOT (default /sys) so host tests can point it at a fake tree.
//
// Every write is one write() of the whole text, as `echo` does, and its
// failure is the kernel's errno from that write (or from the open). Tests
// install a WriteHook to play the kernel: it sees each write first and may
// fail it with an errno, or act on it (a map creating a device directory).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace rnbdctl {

// Returns -1 to let the write go to the file, 0 when it handled the write
// (success), or a positive errno to fail it.
using WriteHook = std::function<int(const std::string& path, const std::string& text)>;

// A write a dry run would make: the file's full path and the text.
struct PlannedWrite {
    std::string file;
    std::string text;
};

class Sysfs {
public:
    explicit Sysfs(std::string root, WriteHook hook = {}) : root_(std::move(root)), hook_(std::move(hook)) {}

    const std::string& root() const { return root_; }
    // root + "/" + relative (relative has no leading slash).
    std::string path(const std::string& relative) const;

    bool exists(const std::string& relative) const;
    bool is_directory(const std::string& relative) const;
    // The file's text without the trailing newline; false if unreadable.
    bool read(const std::string& relative, std::string& text) const;
    // read(), or `fallback` when the file is missing or unreadable.
    std::string read_or(const std::string& relative, const std::string& fallback) const;
    // Directory entries, sorted, without "." and ".."; empty if missing.
    std::vector<std::string> list(const std::string& relative) const;
    // The last component of a symlink's target ("" when not a link).
    std::string link_target_name(const std::string& relative) const;
    // 0 or the positive errno of the failed open()/write(). While writes
    // are planned, appends to the plan and returns 0: nothing is written,
    // and the hook is not called.
    int write(const std::string& relative, const std::string& text) const;
    // --dry-run: every write() from now on goes to `plan` (nullptr: to
    // the files again). One switch here, so no command can write by a
    // path that forgot the dry run.
    void plan_writes(std::vector<PlannedWrite>* plan) { plan_ = plan; }
    // Whether this process may open the file for writing: an EACCES or
    // EPERM of a file it may not write is its own lack of privilege (not
    // root), not the kernel's answer to what was written.
    bool may_write(const std::string& relative) const;

private:
    std::string root_;
    WriteHook hook_;
    std::vector<PlannedWrite>* plan_ = nullptr;
};

// A name in natural order: rnbd2 before rnbd10.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace rnbdctl
