// The option line written to the rnbd client's map_device file:
//
//   sessname=<name> [path=<[src@|,]dst> ...] device_path=<path>
//   [access_mode=ro|rw|migration] [io_mode=blockio|fileio] [input_mode=mq]
//   [dest_port=<1..65535>] [nr_poll_queues=<-1..cpus>]
//   [io_hold_timeout_ms=<0..3600000>]
//
// Parsed without allocation into MapOptions, whose strings point into the
// caller's input buffer (the sysfs store buffer stays valid for the whole
// store call; the glue copies what it keeps). Every rejection is -EINVAL
// with a MapError naming the reason and the offending token, which the
// glue prints as its one rate-limited log line.
#pragma once

#include <cxxrt/parse.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>

#include "common/rtrs-addr.hpp"

namespace rnbd::clt {

using cxxrt::Result;
using namespace cxxrt::integers;
using cxxrt::Span;
using cxxrt::StringView;

// Upstream keeps its maps in a six-entry array.
inline constexpr size_t kMaxPaths = 6;
// Session names and device paths travel in NAME_MAX (255) byte wire fields
// and buffers that upstream fills with strscpy(), which keeps a NUL: 254
// bytes is the longest name that arrives intact. Longer is refused rather
// than silently cut, so the name the user sees is the one the server gets.
inline constexpr size_t kMaxNameLength = 254;
// io_hold_timeout_ms=: how long IO is held while the session has no path
// (the session's /sys/class/rtrs-client/<session>/io_hold_timeout_ms).
// The default covers two rounds of the 30 s reconnect delay; 0 fails IO as
// soon as the last path is gone (Linux's RNBD); the maximum is RTRS's.
inline constexpr u32 kDefaultIoHoldTimeoutMs = 60000;
inline constexpr u32 kMaxIoHoldTimeoutMs = 3600000;
// A sysfs store never passes more than one page.
inline constexpr size_t kMaxMapInputLength = 4096;

// Values are those of enum rnbd_access_mode on the wire.
enum class AccessMode : u8 {
    kReadOnly = 0,
    kReadWrite = 1,
    kMigration = 2,
};

enum class IoMode : u8 {
    kBlockIo = 0,
    kFileIo = 1,
};

struct MapOptions {
    StringView session_name;
    StringView device_path;
    rtrs::PathAddress paths[kMaxPaths];
    // May be 0: the line then names an existing session (see upstream's
    // map_device, which answers -ENXIO when that session does not exist).
    u8 path_count = 0;
    u16 destination_port = rtrs::kDefaultPort;
    AccessMode access_mode = AccessMode::kReadWrite;
    IoMode io_mode = IoMode::kBlockIo;
    // Polling queues for the blk-mq tag set; nr_poll_queues=-1 asks for
    // one per CPU and is stored here already resolved to the CPU count.
    u32 poll_queues = 0;
    u32 io_hold_timeout_ms = kDefaultIoHoldTimeoutMs;
    bool io_hold_timeout_given = false;  // applied to an existing session too
};

enum class MapReason : u8 {
    kNone,
    kSyntax,                // the tokenizer refused the line; see syntax
    kSessionNameTooLong,
    kSessionNameInvalid,    // '/', "." or "..", or a control character
    kDevicePathTooLong,
    kDevicePathInvalid,     // a control character
    kBadPath,               // path= is not a valid address pair
    kTooManyPaths,
    kDuplicatePath,
    kBadAccessMode,
    kBadIoMode,
    kInputModeRqUnsupported,
    kBadInputMode,
    kBadDestinationPort,
    kBadPollQueues,
    kBadIoHoldTimeout,
};

struct MapError {
    MapReason reason = MapReason::kNone;
    cxxrt::parse::Reason syntax = cxxrt::parse::Reason::kNone;  // for kSyntax
    StringView token;  // the key or value at fault, for the log line
};

// A sentence for the log line, e.g. "input_mode=rq is not supported ...".
const char* map_reason_text(const MapError& error);

// `cpu_count` bounds nr_poll_queues (the glue passes nr_cpu_ids). On error
// `out` holds a partial result and must not be used.
[[nodiscard]] Result<void> parse_map_options(StringView input, u32 cpu_count, MapOptions& out, MapError* error);

// The help text a read of map_device prints; `file_name` is the attribute
// name the usage line ends with. Returns the length (NUL-terminated,
// truncated safely).
size_t format_map_usage(StringView file_name, Span<char> out);

// The name under /sys/kernel/rnbd_client/devices/ (seed form): the device
// path with every '/' replaced by '!'. -ENAMETOOLONG if `out` is too small.
[[nodiscard]] Result<size_t> format_device_id(StringView device_path, Span<char> out);

// Upstream's link name under /sys/class/rnbd-client/ctl/devices/:
// "<device id>@<session name>".
[[nodiscard]] Result<size_t> format_device_link_name(StringView device_path, StringView session_name,
                                                     Span<char> out);

}  // namespace rnbd::clt
