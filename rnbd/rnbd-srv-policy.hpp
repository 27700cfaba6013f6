// rnbd-server policy that does not touch the kernel: where a device path
// leads (dev_search_path, %SESSNAME%), who may map a device in which mode,
// and whether a decoded IO may reach a mapping. Header-only so that the
// host unit tests (rnbd/tests/host/test_rnbd_srv_policy.cpp) check the very
// code the module runs.
#pragma once

#include <cxxrt/errno.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/text.hpp>
#include <proto/rnbd-wire.hpp>
#include "rnbd/rnbd-codec.hpp"

namespace rnbd::srv::policy {

using cxxrt::Error;
using cxxrt::Result;
using cxxrt::Span;
using cxxrt::StringView;
using cxxrt::size_t;
using cxxrt::u64;

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
    return op == wire::IoOp::kWrite || op == wire::IoOp::kDiscard || op == wire::IoOp::kSecureErase;
}

// Checks of a decoded IO (codec::decode_io already did the message itself)
// against the mapping it names: 0 or the negative errno to answer with.
//   -EINVAL  a read that does not come as an RTRS READ, a write not as a WRITE
//   -ERANGE  the range passes the end of the device (any size, also 0)
//   -EROFS   a write, discard or secure erase on a read-only mapping
constexpr int check_io(const codec::IoFields& io, bool rtrs_read, u64 device_sectors, bool read_only)
{
    if ((io.op == wire::IoOp::kRead && !rtrs_read) || (io.op == wire::IoOp::kWrite && rtrs_read))
        return -cxxrt::err::kInval;
    if (io.op != wire::IoOp::kFlush) {
        const u64 sectors = io.bi_size >> wire::kSectorShift;
        if (io.sector > device_sectors || sectors > device_sectors - io.sector)
            return -cxxrt::err::kRange;
    }
    if (read_only && is_write_op(io.op))
        return -kErrRoFs;
    return 0;
}

}  // namespace rnbd::srv::policy
