// Error messages and errno reasons; see context.hpp. The reasons restate
// the errnos Documentation/sysfs.md lists for each file.
#include "tools/rnbdctl/context.hpp"

#include <errno.h>
#include <string.h>

#include "tools/rnbdctl/text.hpp"

namespace rnbdctl {

namespace {

struct Reason {
    Operation operation;
    int error;
    const char* text;
};

constexpr Reason kReasons[] = {
    {Operation::kMap, EINVAL, "the kernel refused the options or the server's answer (see dmesg)"},
    {Operation::kMap, EEXIST, "the device is already mapped in that session"},
    {Operation::kMap, ENOENT, "no such device on the server"},
    {Operation::kMap, EPERM, "the server refuses this access mode (another client has it open)"},
    {Operation::kMap, ENXIO, "no --path given and no such session"},
    {Operation::kMap, ETIMEDOUT, "the server cannot be reached"},
    {Operation::kMap, ECONNREFUSED, "the server cannot be reached"},
    {Operation::kMap, ECONNRESET, "the server closed the connection"},
    {Operation::kMap, EHOSTUNREACH, "the server cannot be reached"},
    {Operation::kMap, ENOTBLK, "the server does not export this path (not a block device, or outside file_export_dir)"},
    {Operation::kMap, EACCES, "the server refuses access to the device"},
    {Operation::kMap, EPROTO, "the server's answer failed the client's checks (see dmesg)"},
    {Operation::kMap, ENODEV, "rnbd-client is unloading"},
    {Operation::kUnmap, EBUSY, "device is open (use --force to fail its IO and unmap anyway)"},
    {Operation::kUnmap, ENODEV, "rnbd-client is unloading"},
    {Operation::kResize, EINVAL, "the size is 0 or beyond the server's device"},
    {Operation::kResize, ENODEV, "the device is not open"},
    {Operation::kRemap, EALREADY, "the device is open already"},
    {Operation::kRemap, ENODEV, "the device is being unmapped"},
    {Operation::kPathAdd, EINVAL, "bad address, or the session has 128 paths"},
    {Operation::kPathAdd, EEXIST, "a path with these addresses exists"},
    {Operation::kPathAdd, EBUSY, "the session is closing"},
    {Operation::kPathAdd, ETIMEDOUT, "the path did not come up"},
    {Operation::kPathAdd, ECONNREFUSED, "the path did not come up"},
    {Operation::kPathAdd, ECONNRESET, "the path did not come up (no server listening?)"},
    {Operation::kPathAdd, EHOSTUNREACH, "the path did not come up"},
    {Operation::kPathReconnect, EBUSY, "the path is making its first connect, or going away"},
    {Operation::kPathReconnect, ECONNRESET, "no server listening; the path goes on reconnecting"},
    {Operation::kPathReconnect, ETIMEDOUT, "the connect timed out; the path goes on reconnecting"},
    {Operation::kPathReconnect, ECONNREFUSED, "the connect was refused; the path goes on reconnecting"},
    {Operation::kPathReconnect, EHOSTUNREACH, "no route; the path goes on reconnecting"},
    {Operation::kSessionSet, EINVAL, "the kernel refused the value"},
    {Operation::kServerClose, EINVAL, "the kernel refused the value"},
    {Operation::kExportAdd, EINVAL, "the server refused the definition (see dmesg)"},
    {Operation::kExportAdd, EEXIST, "an export of this name exists (remove it first)"},
    {Operation::kExportAdd, ENOENT, "the path leads nowhere on the server"},
    {Operation::kExportAdd, ENOTBLK,
     "the server does not export this path (not a block device, or a file outside file_export_dir)"},
    {Operation::kExportAdd, EROFS, "the device is read-only: define the export read-only (--read-only, access=ro)"},
    {Operation::kExportAdd, ENODEV, "rnbd-server is unloading"},
    {Operation::kExportRemove, ENOENT, "no such export"},
};

}  // namespace

std::string errno_name(int error)
{
    const char* name = strerrorname_np(error);
    return name ? std::string(name) : "E" + std::to_string(error);
}

const char* errno_reason(Operation operation, int error)
{
    for (const Reason& reason : kReasons)
        if (reason.operation == operation && reason.error == error)
            return reason.text;
    return nullptr;
}

std::string describe_errno(Operation operation, int error)
{
    std::string text = std::string(strerror(error)) + " (" + errno_name(error) + ")";
    if (const char* reason = errno_reason(operation, error))
        text += std::string(": ") + reason;
    return text;
}

// Messages name devices, sessions and paths as sysfs or the command line
// gave them: escaped (text.hpp) on their way to the terminal.
int Context::fail(const std::string& what, const std::string& message, int code) const
{
    fprintf(err, "rnbdctl: %s: %s\n", printable(what).c_str(), printable(message).c_str());
    return code;
}

int Context::usage(const std::string& what, const std::string& message) const
{
    fprintf(err, "rnbdctl: %s: %s\nTry 'rnbdctl --help'.\n", printable(what).c_str(), printable(message).c_str());
    return kExitUsage;
}

std::string Context::describe_write_error(Operation operation, const std::string& file, int error) const
{
    if ((error == EACCES || error == EPERM) && !sysfs.may_write(file))
        return std::string(strerror(error)) + " (" + errno_name(error) + "): cannot write " + sysfs.path(file) +
               ": rnbdctl must run as root";
    return describe_errno(operation, error);
}

int Context::write_failed(Operation operation, const std::string& what, const std::string& file, int error) const
{
    return fail(what, describe_write_error(operation, file, error), kExitFailed);
}

}  // namespace rnbdctl
