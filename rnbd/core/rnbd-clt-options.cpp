// map_device option parsing, usage text and device ids; see
// rnbd-clt-options.hpp. The tokenizer (cxxrt/parse) enforces the shape of
// the line and how often each key may appear; this file checks each value.
#include "rnbd/core/rnbd-clt-options.hpp"

#include <cxxrt/errno.hpp>
#include <cxxrt/text.hpp>

namespace rnbd::clt {

namespace {

using cxxrt::Error;
using cxxrt::TextBuffer;
namespace err = cxxrt::err;
namespace parse = cxxrt::parse;

// Indices into kMapSpecs, so the value checks can switch on them.
enum SpecIndex : u16 {
    kSessionName,
    kPath,
    kDevicePath,
    kAccessMode,
    kIoMode,
    kInputMode,
    kDestinationPort,
    kPollQueues,
    kIoHoldTimeout,
    kSpecCount,
};

constexpr parse::OptionSpec kMapSpecs[kSpecCount] = {
    {StringView("sessname", 8), 1, true},
    // Optional, as upstream: mapping another device over an existing
    // session needs no path; the glue answers -ENXIO when the session does
    // not exist and no path was given.
    {StringView("path", 4), u8(kMaxPaths), false},
    {StringView("device_path", 11), 1, true},
    {StringView("access_mode", 11), 1, false},
    {StringView("io_mode", 7), 1, false},
    {StringView("input_mode", 10), 1, false},
    {StringView("dest_port", 9), 1, false},
    {StringView("nr_poll_queues", 14), 1, false},
    {StringView("io_hold_timeout_ms", 18), 1, false},
};

// Every key at its maximum count: nothing valid can have more tokens.
constexpr size_t kMaxTokens = kSpecCount - 1 + kMaxPaths;

Error reject(MapError& error, MapReason reason, StringView token)
{
    error.reason = reason;
    error.token = token;
    return Error(err::kInval);
}

Result<void> check_session_name(StringView name, MapError& error)
{
    if (name.length() > kMaxNameLength)
        return reject(error, MapReason::kSessionNameTooLong, name);
    // The name becomes a sysfs directory on both sides; the kernel would
    // quietly rename "a/b" to "a!b", and "." or ".." cannot be created.
    if (name.contains('/') || name == StringView(".", 1) || name == StringView("..", 2) ||
        parse::has_control_character(name))
        return reject(error, MapReason::kSessionNameInvalid, name);
    return {};
}

Result<void> check_device_path(StringView path, MapError& error)
{
    if (path.length() > kMaxNameLength)
        return reject(error, MapReason::kDevicePathTooLong, path);
    // ".." and absolute paths are the server's to judge (it resolves the
    // path under its dev_search_path); the client only bounds the text.
    if (parse::has_control_character(path))
        return reject(error, MapReason::kDevicePathInvalid, path);
    return {};
}

// A keyword value of an option and what it stands for.
template <typename E>
struct Keyword {
    StringView text;
    E value;
};

constexpr Keyword<AccessMode> kAccessModes[] = {
    {"ro", AccessMode::kReadOnly},
    {"rw", AccessMode::kReadWrite},
    {"migration", AccessMode::kMigration},
};

constexpr Keyword<IoMode> kIoModes[] = {
    {"blockio", IoMode::kBlockIo},
    {"fileio", IoMode::kFileIo},
};

// Sets `out` to what `value` stands for; false (and `out` untouched) for
// a word that is not one of `keywords`.
template <typename E, size_t N>
bool pick_keyword(const Keyword<E> (&keywords)[N], StringView value, E& out)
{
    for (const Keyword<E>& keyword : keywords) {
        if (value == keyword.text) {
            out = keyword.value;
            return true;
        }
    }
    return false;
}

// Kept out of line so its temporaries do not add to the caller's frame,
// which already holds the token array.
[[gnu::noinline]] Result<void> apply_option(const parse::Option& option, u32 cpu_count, MapOptions& out,
                                            MapError& error)
{
    const StringView value = option.value;
    switch (option.spec_index) {
    case kSessionName:
        CXXRT_TRY(check_session_name(value, error));
        out.session_name = value;
        return {};
    case kDevicePath:
        CXXRT_TRY(check_device_path(value, error));
        out.device_path = value;
        return {};
    case kPath: {
        if (out.path_count >= kMaxPaths)
            return reject(error, MapReason::kTooManyPaths, value);
        auto path = rtrs::parse_path(value);
        if (path.is_error())
            return reject(error, MapReason::kBadPath, value);
        const rtrs::PathAddress& parsed = path.value();
        for (size_t i = 0; i < out.path_count; ++i) {
            const rtrs::PathAddress& other = out.paths[i];
            if (other.has_source == parsed.has_source &&
                rtrs::same_address(other.destination, parsed.destination) &&
                (!parsed.has_source || rtrs::same_address(other.source, parsed.source)))
                return reject(error, MapReason::kDuplicatePath, value);
        }
        out.paths[out.path_count++] = parsed;
        return {};
    }
    case kAccessMode:
        if (!pick_keyword(kAccessModes, value, out.access_mode))
            return reject(error, MapReason::kBadAccessMode, value);
        return {};
    case kIoMode:
        if (!pick_keyword(kIoModes, value, out.io_mode))
            return reject(error, MapReason::kBadIoMode, value);
        return {};
    case kInputMode:
        // Only blk-mq exists in the kernels we target; the legacy request
        // queue the old IBNBD offered as "rq" was removed in Linux 5.0.
        if (value == "mq")
            return {};
        if (value == "rq")
            return reject(error, MapReason::kInputModeRqUnsupported, value);
        return reject(error, MapReason::kBadInputMode, value);
    case kDestinationPort: {
        auto port = parse::parse_unsigned(value, 65535);
        if (port.is_error() || port.value() == 0)
            return reject(error, MapReason::kBadDestinationPort, value);
        out.destination_port = u16(port.value());
        return {};
    }
    case kPollQueues: {
        auto queues = parse::parse_signed(value, -1, cxxrt::s64(cpu_count));
        if (queues.is_error())
            return reject(error, MapReason::kBadPollQueues, value);
        out.poll_queues = queues.value() < 0 ? cpu_count : u32(queues.value());
        return {};
    }
    case kIoHoldTimeout: {
        auto ms = parse::parse_unsigned(value, kMaxIoHoldTimeoutMs);
        if (ms.is_error())
            return reject(error, MapReason::kBadIoHoldTimeout, value);
        out.io_hold_timeout_ms = u32(ms.value());
        out.io_hold_timeout_given = true;
        return {};
    }
    default:
        break;
    }
    return reject(error, MapReason::kSyntax, option.key);
}

// Field by field: assigning a whole MapOptions{} would build a
// large temporary on the stack.
void reset_options(MapOptions& out)
{
    out.session_name = {};
    out.device_path = {};
    for (rtrs::PathAddress& path : out.paths)
        path = rtrs::PathAddress{};
    out.path_count = 0;
    out.destination_port = rtrs::kDefaultPort;
    out.access_mode = AccessMode::kReadWrite;
    out.io_mode = IoMode::kBlockIo;
    out.poll_queues = 0;
    out.io_hold_timeout_ms = kDefaultIoHoldTimeoutMs;
    out.io_hold_timeout_given = false;
}

}  // namespace

const char* map_reason_text(const MapError& error)
{
    switch (error.reason) {
    case MapReason::kNone: return "no error";
    case MapReason::kSyntax: return parse::reason_text(error.syntax);
    case MapReason::kSessionNameTooLong: return "sessname is longer than 254 bytes";
    case MapReason::kSessionNameInvalid: return "sessname must not contain '/' or control characters, nor be '.' or '..'";
    case MapReason::kDevicePathTooLong: return "device_path is longer than 254 bytes";
    case MapReason::kDevicePathInvalid: return "device_path contains a control character";
    case MapReason::kBadPath: return "path is not [<src>@|,]<dst> with ip:<ipv4|ipv6> or gid:<gid> addresses";
    case MapReason::kTooManyPaths: return "more than 6 path= options";
    case MapReason::kDuplicatePath: return "the same path is given twice";
    case MapReason::kBadAccessMode: return "access_mode must be ro, rw or migration";
    case MapReason::kBadIoMode: return "io_mode must be blockio or fileio";
    case MapReason::kInputModeRqUnsupported: return "input_mode=rq is not supported by this driver, only mq";
    case MapReason::kBadInputMode: return "input_mode must be mq";
    case MapReason::kBadDestinationPort: return "dest_port must be a number from 1 to 65535";
    case MapReason::kBadPollQueues: return "nr_poll_queues must be -1 (one per CPU) or 0 up to the number of CPUs";
    case MapReason::kBadIoHoldTimeout: return "io_hold_timeout_ms must be a number of milliseconds from 0 to 3600000";
    }
    return "unknown error";
}

Result<void> parse_map_options(StringView input, u32 cpu_count, MapOptions& out, MapError* error)
{
    MapError scratch;
    MapError& e = error ? *error : scratch;
    e = MapError{};
    reset_options(out);

    parse::Option options[kMaxTokens];
    parse::ParseError syntax;
    auto count = parse::parse_options(input, Span<const parse::OptionSpec>(kMapSpecs), Span<parse::Option>(options),
                                      &syntax, kMaxMapInputLength);
    if (count.is_error()) {
        // The tokenizer counts path= like any key; say "too many paths"
        // rather than "key given too many times" for the common mistake.
        if (syntax.reason == parse::Reason::kDuplicateKey && syntax.token == kMapSpecs[kPath].key)
            return reject(e, MapReason::kTooManyPaths, syntax.token);
        e.syntax = syntax.reason;
        return reject(e, MapReason::kSyntax, syntax.token);
    }
    for (size_t i = 0; i < count.value(); ++i) {
        auto applied = apply_option(options[i], cpu_count, out, e);
        if (applied.is_error())
            return applied;
    }
    // dest_port applies to every path wherever it stands on the line.
    for (size_t i = 0; i < out.path_count; ++i)
        out.paths[i].port = out.destination_port;
    return {};
}

size_t format_map_usage(StringView file_name, Span<char> out)
{
    TextBuffer text(out);
    text.append("Usage: echo \"sessname=<session name> path=<[srcaddr@]dstaddr> [path=<[srcaddr@]dstaddr>] "
                "device_path=<path of the device on the server> [access_mode=<ro|rw|migration>] "
                "[io_mode=<blockio|fileio>] [input_mode=<mq>] [dest_port=<server port>] "
                "[nr_poll_queues=<-1 for one per CPU, or a count>] "
                "[io_hold_timeout_ms=<0..3600000, default 60000>]\" > ");
    text.append(file_name);
    text.append("\n\npath= may be given up to 6 times, or left out to map another device over an "
                "existing session; a comma may stand for '@'.\n"
                "addr ::= [ ip:<ipv4> | ip:<ipv6> | gid:<gid> ]\n");
    return text.length();
}

Result<size_t> format_device_id(StringView device_path, Span<char> out)
{
    TextBuffer text(out);
    for (size_t i = 0; i < device_path.length(); ++i)
        text.append(device_path[i] == '/' ? '!' : device_path[i]);
    if (text.truncated())
        return Error(err::kNameTooLong);
    return text.length();
}

Result<size_t> format_device_link_name(StringView device_path, StringView session_name, Span<char> out)
{
    TextBuffer text(out);
    for (size_t i = 0; i < device_path.length(); ++i)
        text.append(device_path[i] == '/' ? '!' : device_path[i]);
    text.append('@');
    text.append(session_name);
    if (text.truncated())
        return Error(err::kNameTooLong);
    return text.length();
}

}  // namespace rnbd::clt
