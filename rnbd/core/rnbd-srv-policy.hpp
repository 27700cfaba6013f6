// rnbd-server policy that does not touch the kernel: where a device path
// leads (dev_search_path, %SESSNAME%), which kinds of object may be exported
// (block devices; regular files only inside file_export_dir), who may map a
// device in which mode, and whether a decoded IO may reach a mapping. Header-only so that the
// host unit tests (rnbd/tests/host/test_rnbd_srv_policy.cpp) check the very
// code the module runs.
#pragma once

#include <cxxrt/errno.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/text.hpp>
#include <proto/rnbd-wire.hpp>
#include "rnbd/core/rnbd-codec.hpp"

namespace rnbd::srv::policy {

using cxxrt::Span;  // the rest of the names come from rnbd-codec.hpp

inline constexpr size_t kPathMax = 4096;  // the kernel's PATH_MAX
inline constexpr int kErrRoFs = 30;       // EROFS
inline constexpr StringView kSessNameToken("%SESSNAME%", 10);

// Index of the first occurrence of `token`, or text.length().
constexpr size_t find_token(StringView text, StringView token)
{
    for (size_t i = 0; i + token.length() <= text.length(); ++i)
        if (text.substring(i, token.length()) == token)
            return i;
    return text.length();
}

// Linux's server refuses a device path with ".." anywhere in it; so do we
// (stricter than the codec's check of whole ".." components).
constexpr bool contains_dot_dot(StringView text) { return find_token(text, StringView("..", 2)) != text.length(); }

// The path the server opens: "<search>/<device>", or, when the search path
// holds %SESSNAME%, "<text before the token>/<session>/<device>" (the text
// after the token is ignored). Runs of '/' become one. Errors: -EINVAL for
// a '..' in the device path or a result of PATH_MAX bytes or more.
inline Result<void> build_full_path(Span<char> out, StringView search, StringView session, StringView device)
{
    if (contains_dot_dot(device))
        return Error(cxxrt::err::kInval);
    if (search.length() + device.length() >= kPathMax || out.size() < 2)
        return Error(cxxrt::err::kInval);
    cxxrt::TextBuffer text(out.first(cxxrt::min(out.size(), kPathMax)));
    const size_t token = find_token(search, kSessNameToken);
    if (token != search.length()) {
        text.append(search.substring(0, token));
        text.append('/');
        text.append(session);
    } else {
        text.append(search);
    }
    text.append('/');
    text.append(device);
    if (text.truncated())
        return Error(cxxrt::err::kInval);
    size_t to = 0;
    for (size_t from = 0; from < text.length(); ++from) {
        if (out[from] == '/' && to > 0 && out[to - 1] == '/')
            continue;
        out[to++] = out[from];
    }
    out[to] = '\0';
    return {};
}

// The access rules: any number of read-only mappings, one read-write, a
// second writer only in migration mode. Returns the new writer count, or
// -EPERM.
inline Result<int> admit(wire::AccessMode mode, int writers)
{
    switch (mode) {
    case wire::AccessMode::kReadOnly:
        return writers;
    case wire::AccessMode::kReadWrite:
        if (writers != 0)
            return Error(cxxrt::err::kPerm);
        return writers + 1;
    case wire::AccessMode::kMigration:
        if (writers >= 2)
            return Error(cxxrt::err::kPerm);
        return writers + 1;
    }
    return Error(cxxrt::err::kInval);
}

constexpr bool is_write_op(wire::IoOp op)
{
    return op == wire::IoOp::kWrite || op == wire::IoOp::kDiscard || op == wire::IoOp::kSecureErase ||
           op == wire::IoOp::kWriteZeroes;
}

// ---- export policy ----

inline constexpr int kErrNotBlk = 15;  // ENOTBLK
inline constexpr int kErrNotDir = 20;  // ENOTDIR

// What a device path leads to, from the file-type bits of its inode's mode
// (S_IFMT: the same values on every Linux architecture).
enum class ObjectKind : u8 {
    kBlockDevice,
    kRegularFile,
    kDirectory,
    kCharDevice,
    kFifo,
    kSocket,
    kSymlink,
    kUnknown,
};

constexpr ObjectKind object_kind(u32 mode)
{
    switch (mode & 0170000) {
    case 0060000: return ObjectKind::kBlockDevice;
    case 0100000: return ObjectKind::kRegularFile;
    case 0040000: return ObjectKind::kDirectory;
    case 0020000: return ObjectKind::kCharDevice;
    case 0010000: return ObjectKind::kFifo;
    case 0140000: return ObjectKind::kSocket;
    case 0120000: return ObjectKind::kSymlink;
    default: return ObjectKind::kUnknown;
    }
}

constexpr const char* object_kind_name(ObjectKind kind)
{
    switch (kind) {
    case ObjectKind::kBlockDevice: return "block device";
    case ObjectKind::kRegularFile: return "regular file";
    case ObjectKind::kDirectory: return "directory";
    case ObjectKind::kCharDevice: return "character device";
    case ObjectKind::kFifo: return "FIFO";
    case ObjectKind::kSocket: return "socket";
    case ObjectKind::kSymlink: return "symbolic link";
    default: return "object of unknown type";
    }
}

// How an admitted object is opened: the block device by the device number
// that was checked, or the checked path itself through the VFS.
enum class OpenAs : u8 { kBlockDevice, kVfs };

// What the server found at the end of the (symlink-following) lookup.
struct ExportFacts {
    ObjectKind kind = ObjectKind::kUnknown;
    bool nodev_mount = false;             // device nodes on this mount may not be opened
    bool file_export_enabled = false;     // the administrator named a file_export_dir
    bool inside_file_export_dir = false;  // the resolved object lies under that directory
    bool fileio_of_block_devices = false; // the administrator's allow_fileio_of_block_devices
};

struct ExportDecision {
    int error = 0;               // 0, -ENOTBLK, -EACCES or -EPERM
    OpenAs open_as = OpenAs::kBlockDevice;
    const char* reason = "";     // for the one log line of a refusal
};

// Default deny: block devices only (blockio; fileio through the VFS when
// the client asks for it and the administrator allowed fileio of block
// devices), and regular files only when the administrator enabled file
// export and the resolved file lies inside that directory. Everything else
// (directories, FIFOs, sockets, character devices such as /dev/zero) is
// -ENOTBLK; a device node on a nodev mount is -EACCES, as the kernel's own
// open refuses it; fileio of a block device while it is not allowed is
// -EPERM (it is served synchronously through the page cache: a client
// could otherwise choose the costlier path on any device it may open).
// These are the server's own detail (its log line): the client is
// answered not_exported_errno().
constexpr ExportDecision decide_export(const ExportFacts& facts, wire::IoMode mode)
{
    switch (facts.kind) {
    case ObjectKind::kBlockDevice:
        if (facts.nodev_mount)
            return {-cxxrt::err::kAccess, OpenAs::kBlockDevice, "device node on a nodev mount"};
        if (mode != wire::IoMode::kFileIo)
            return {0, OpenAs::kBlockDevice, ""};
        if (!facts.fileio_of_block_devices)
            return {-cxxrt::err::kPerm, OpenAs::kVfs,
                    "io_mode=fileio of a block device, and allow_fileio_of_block_devices is off"};
        return {0, OpenAs::kVfs, ""};
    case ObjectKind::kRegularFile:
        if (!facts.file_export_enabled)
            return {-kErrNotBlk, OpenAs::kVfs, "regular file, and file export is off (file_export_dir empty)"};
        if (!facts.inside_file_export_dir)
            return {-kErrNotBlk, OpenAs::kVfs, "regular file outside file_export_dir"};
        return {0, OpenAs::kVfs, ""};
    default:
        return {-kErrNotBlk, OpenAs::kBlockDevice, "not a block device"};
    }
}

// What a client is answered when an OPEN is refused because of what its
// path leads to on the server: a failed lookup (-ENOENT, -ENOTDIR, -ELOOP,
// -EACCES, -EIO, ...) or an object decide_export refuses (-ENOTBLK, -EACCES
// on a nodev mount, -EPERM for fileio of a block device while not allowed).
// All of them become -ENOENT ("no device exported under that path"), so
// OPEN is no oracle of which files exist on the server or what they are;
// the server logs the detail. -ENOMEM says nothing about the filesystem
// and stays.
inline constexpr int kErrNotExported = cxxrt::err::kNoEnt;
constexpr int not_exported_errno(int local)
{
    return local == -cxxrt::err::kNoMem ? local : -kErrNotExported;
}

// A file_export_dir value: empty (export off) or an absolute path. Returns
// the length without a trailing newline, or -EINVAL (relative) /
// -ENAMETOOLONG (PATH_MAX bytes or more). Whether it names an existing
// directory is checked by the caller (a lookup).
inline Result<size_t> check_file_export_dir(StringView value)
{
    size_t length = 0;
    while (length < value.length() && value[length] != '\n')
        ++length;
    if (length != value.length() && length + 1 != value.length())
        return Error(cxxrt::err::kInval);  // text after a newline
    if (length == 0)
        return size_t(0);
    if (length >= kPathMax)
        return Error(cxxrt::err::kNameTooLong);
    if (value[0] != '/')
        return Error(cxxrt::err::kInval);
    for (size_t i = 0; i < length; ++i)
        if (value[i] == '\0')
            return Error(cxxrt::err::kInval);
    return length;
}

// A dev_search_path value (module parameter, fixed at load): the length
// without a trailing newline, or -EINVAL: empty, relative (the lookup would
// start at whatever directory the server's worker happens to have), text
// after a newline, a NUL, or PATH_MAX bytes or more (the joined path could
// never fit).
inline Result<size_t> check_dev_search_path(StringView value)
{
    size_t length = 0;
    while (length < value.length() && value[length] != '\n')
        ++length;
    if (length != value.length() && length + 1 != value.length())
        return Error(cxxrt::err::kInval);
    if (length == 0 || length >= kPathMax || value[0] != '/')
        return Error(cxxrt::err::kInval);
    for (size_t i = 0; i < length; ++i)
        if (value[i] == '\0')
            return Error(cxxrt::err::kInval);
    return length;
}

// ---- IO checks ----

// Block-layer IO priorities: class in bits 13..15, level below.
inline constexpr unsigned kIoprioClassShift = 13;
inline constexpr u16 kIoprioDataMask = (1u << kIoprioClassShift) - 1;
inline constexpr u16 kIoprioLevels = 8;
enum class IoprioClass : u16 { kNone = 0, kRealTime = 1, kBestEffort = 2, kIdle = 3 };

constexpr u16 ioprio_class(u16 prio) { return u16(prio >> kIoprioClassShift); }
constexpr u16 ioprio_data(u16 prio) { return u16(prio & kIoprioDataMask); }
constexpr u16 ioprio_value(IoprioClass klass, u16 data) { return u16((u16(klass) << kIoprioClassShift) | data); }

// A priority the server accepts: class none with no level, or real-time,
// best-effort or idle with a level 0..7. Anything else (classes 4..7,
// levels above 7) is what no Linux task can have.
constexpr bool valid_ioprio(u16 prio)
{
    switch (IoprioClass(ioprio_class(prio))) {
    case IoprioClass::kNone:
        return ioprio_data(prio) == 0;
    case IoprioClass::kRealTime:
    case IoprioClass::kBestEffort:
    case IoprioClass::kIdle:
        return ioprio_data(prio) < kIoprioLevels;
    }
    return false;
}

// The priority a valid IO is submitted with: a real-time request becomes
// best-effort at the same level unless the administrator allows real-time
// IO from clients (allow_realtime_ioprio); a client must not be able to
// starve the server's own IO.
constexpr u16 effective_ioprio(u16 prio, bool allow_realtime)
{
    if (IoprioClass(ioprio_class(prio)) != IoprioClass::kRealTime || allow_realtime)
        return prio;
    return ioprio_value(IoprioClass::kBestEffort, ioprio_data(prio));
}

// What check_io knows of the mapping an IO names.
struct IoTarget {
    u64 sectors = 0;
    u32 logical_block_size = wire::kSectorSize;  // a power of two, 512 or more
    bool read_only = false;
    // What OPEN_RSP announced as max_write_zeroes_sectors (0: not offered).
    u32 max_write_zeroes_sectors = 0;
};

// Checks of a decoded IO (codec::decode_io already did the message itself:
// known op and flags, lengths, a range that does not wrap) against the
// mapping it names: 0 or the negative errno to answer with.
//   -EINVAL  a read that does not come as an RTRS READ, a write not as a
//            WRITE; a priority that is not valid_ioprio(); a range (offset
//            or length) not aligned to the logical block size
//   -ERANGE  the range passes the end of the device (any size, also 0)
//   -EROFS   a write, discard, secure erase or write-zeroes on a read-only mapping
//   -EOPNOTSUPP  a write-zeroes the mapping's OPEN_RSP did not offer (a 6.1
//            client never sends one); -EINVAL one longer than it offered
constexpr int check_io(const codec::IoFields& io, bool rtrs_read, const IoTarget& target)
{
    if ((io.op == wire::IoOp::kRead && !rtrs_read) || (io.op == wire::IoOp::kWrite && rtrs_read))
        return -cxxrt::err::kInval;
    if (!valid_ioprio(io.prio))
        return -cxxrt::err::kInval;
    if (io.op != wire::IoOp::kFlush) {
        const u64 io_sectors = io.bi_size >> wire::kSectorShift;
        if (io.sector > target.sectors || io_sectors > target.sectors - io.sector)
            return -cxxrt::err::kRange;
        const u32 block = target.logical_block_size;
        if (block < wire::kSectorSize || (block & (block - 1)) != 0)
            return -cxxrt::err::kInval;
        const u64 block_sectors = block >> wire::kSectorShift;
        if ((io.sector & (block_sectors - 1)) != 0 || (io.bi_size & (block - 1)) != 0)
            return -cxxrt::err::kInval;
    }
    if (target.read_only && is_write_op(io.op))
        return -kErrRoFs;
    if (io.op == wire::IoOp::kWriteZeroes) {
        if (target.max_write_zeroes_sectors == 0)
            return -cxxrt::err::kOpNotSupp;
        if ((io.bi_size >> wire::kSectorShift) > target.max_write_zeroes_sectors)
            return -cxxrt::err::kInval;
    }
    return 0;
}

}  // namespace rnbd::srv::policy
