// What every command gets: the sysfs tree, where to print, the output
// format, and the error helpers that give rnbdctl's messages and exit codes
// their one shape:
//   rnbdctl: <what>: <strerror> (<ERRNO>)[: <reason>]     a sysfs write failed
//   rnbdctl: <what>: <message>                            anything else
// Exit codes (stable, documented in rnbdctl(8)):
#pragma once

#include <cstdio>
#include <string>

#include "tools/rnbdctl/sysfs.hpp"
#include "tools/rnbdctl/table.hpp"

namespace rnbdctl {

enum ExitCode : int {
    kExitOk = 0,
    kExitFailed = 1,     // the kernel refused a write (errno in the message), or part of a batch failed
    kExitUsage = 2,      // bad command line, option or file; nothing was written
    kExitNotFound = 3,   // no such device, session, path or export
    kExitNotLoaded = 4,  // the module the command needs is not loaded
};

enum class Format { kTable, kJson, kPrometheus };

// The operation a failed write belongs to, for the reason text.
enum class Operation {
    kMap,
    kUnmap,
    kResize,
    kRemap,
    kPathAdd,
    kPathRemove,
    kPathReconnect,
    kPathDisconnect,
    kSessionSet,
    kServerClose,
    kServerPathDisconnect,
    kExportAdd,
    kExportRemove,
};

struct Context {
    Sysfs sysfs;
    FILE* out = stdout;
    FILE* err = stderr;
    Format format = Format::kTable;
    Sizes sizes = Sizes::kHuman;  // --bytes: kBytes (tables only)
    // Bounds nr_poll_queues as the kernel's nr_cpu_ids does.
    unsigned cpu_count = 1;
    std::string default_rnbdtab = "/etc/rnbd/rnbdtab";
    std::string default_exports = "/etc/rnbd/exports";  // server save/restore

    bool json() const { return format == Format::kJson; }

    // "rnbdctl: <what>: <message>"; returns `code`.
    int fail(const std::string& what, const std::string& message, int code) const;
    // A usage error, with the hint to --help; returns kExitUsage.
    int usage(const std::string& what, const std::string& message) const;
    // A failed write of the sysfs file `file` (relative to the root);
    // returns kExitFailed.
    int write_failed(Operation operation, const std::string& what, const std::string& file, int error) const;
    // describe_errno(), unless the caller may not write `file` at all
    // (EACCES/EPERM from the open, not root): then says so, since the
    // kernel never saw the text.
    std::string describe_write_error(Operation operation, const std::string& file, int error) const;
};

// "EBUSY" for EBUSY; "E<number>" when the C library has no name.
std::string errno_name(int error);
// The reason a write of this operation fails with this errno (from
// Documentation/sysfs.md), or nullptr.
const char* errno_reason(Operation operation, int error);
// "<strerror> (<NAME>)[: <reason>]"
std::string describe_errno(Operation operation, int error);

}  // namespace rnbdctl
