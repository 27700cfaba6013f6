// RNBD protocol 2.0 on-wire layouts (wire-compatible with Linux 6.1).
//
// RNBD messages travel as RTRS user headers (the "usr" part of an RTRS IO
// request) and, for responses, as the data of an RTRS READ. Fields are
// little-endian wire integers; padding that the C layout leaves implicit is
// spelled out here as reserved arrays. rnbd/core/rnbd-codec.hpp builds and
// validates them on byte spans; Documentation/protocol.md describes them.
//
// Peers written in C (Linux's rnbd-client) do not always clear reserved
// bytes and padding before sending, so receivers must ignore them, except
// for the one byte we give a meaning to (OpenMsg::io_mode, see below).
#pragma once

#include <cxxrt/endian.hpp>
#include <cxxrt/types.hpp>

namespace rnbd::wire {

using namespace cxxrt::integers;

inline constexpr u8 kVersionMajor = 2;
inline constexpr u8 kVersionMinor = 0;
// Length of the fixed device-path field of OPEN (the kernel's NAME_MAX).
inline constexpr u32 kNameMax = 255;
inline constexpr u32 kSectorShift = 9;
inline constexpr u32 kSectorSize = 1u << kSectorShift;

// Message types in protocol order (their wire values count from 0).
enum class MsgType : u16 { kSessInfo, kSessInfoRsp, kOpen, kOpenRsp, kIo, kClose };
inline constexpr u16 kMsgTypeCount = u16(MsgType::kClose) + 1;
static_assert(u16(MsgType::kOpen) == 2 && u16(MsgType::kIo) == 4 && kMsgTypeCount == 6);

// Read-only mappings may exist many times, read-write once per device;
// "migration" allows one more read-write mapping (e.g. VM live migration).
enum class AccessMode : u8 {
    kReadOnly = 0,
    kReadWrite = 1,
    kMigration = 2,
};
inline constexpr u8 kAccessModeCount = 3;

// Our extension (not in Linux): how the server should open the exported
// object. Carried in OpenMsg::io_mode, a byte Linux 6.1 names "resv1" and
// never reads. 0 means "no preference": Linux clients send 0 there (or, on
// kernels that do not zero stack memory, an arbitrary value; servers treat
// any value other than kBlockIo/kFileIo as kUnspecified).
enum class IoMode : u8 {
    kUnspecified = 0,  // server default (block device IO)
    kBlockIo = 1,      // open as a block device, submit bios
    kFileIo = 2,       // open as a file, read/write through the VFS
};

// Cache policy bits of OpenRsp::cache_policy.
enum CachePolicy : u8 {
    kCacheFua = 1u << 0,
    kCacheWriteback = 1u << 1,
};
inline constexpr u8 kCachePolicyKnown = kCacheFua | kCacheWriteback;

// IoMsg::rw: operation in the low 8 bits, flags above.
inline constexpr unsigned kOpBits = 8;
inline constexpr u32 kOpMask = (1u << kOpBits) - 1;

// The operations numbered from 0 in this order, which is the protocol's.
// The last (5): 6.1 named it WRITE_SAME and never sent or served it; 6.12
// sends WRITE_ZEROES there, only to a server whose OPEN_RSP announced
// max_write_zeroes_sectors (a 6.1 server announces 0 there).
enum class IoOp : u32 { kRead, kWrite, kFlush, kDiscard, kSecureErase, kWriteZeroes };
inline constexpr u32 kIoOpCount = u32(IoOp::kWriteZeroes) + 1;
static_assert(u32(IoOp::kSecureErase) == 4 && kIoOpCount == 6);

enum IoFlag : u32 {
    kIoFlagSync = 1u << (kOpBits + 0),
    kIoFlagFua = 1u << (kOpBits + 1),
};
inline constexpr u32 kIoFlagsKnown = kIoFlagSync | kIoFlagFua;

constexpr u32 make_rw(IoOp op, u32 flags) { return (u32(op) & kOpMask) | (flags & ~kOpMask); }
constexpr u32 rw_op(u32 rw) { return rw & kOpMask; }
constexpr u32 rw_flags(u32 rw) { return rw & ~kOpMask; }

struct MsgHdr {
    le16 type;
    le16 padding;
};

// Client -> server, first message of a session.
struct SessInfoMsg {
    MsgHdr hdr;
    u8 ver;  // highest RNBD major version the client speaks
    u8 reserved_tail[31];
};

// Server -> client (as READ data): the negotiated major version.
struct SessInfoRspMsg {
    MsgHdr hdr;
    u8 ver;
    u8 reserved_tail[31];
};

// Client -> server: map (open) a remote device.
struct OpenMsg {
    MsgHdr hdr;
    u8 access_mode;       // AccessMode
    u8 io_mode;           // IoMode (our extension; "resv1" in Linux)
    char dev_name[kNameMax];  // NUL-terminated path, relative to the server's search path
    u8 reserved_tail[3];
};

// Client -> server: unmap (close) a device.
struct CloseMsg {
    MsgHdr hdr;
    le32 device_id;
};

// Server -> client (as READ data): answer to OPEN.
struct OpenRspMsg {
    MsgHdr hdr;
    le32 device_id;
    le64 nsectors;  // device size in 512-byte sectors
    le32 max_hw_sectors;
    le32 max_write_zeroes_sectors;  // 6.1: max_write_same_sectors, always 0
    le32 max_discard_sectors;
    le32 discard_granularity;  // bytes
    le32 discard_alignment;    // bytes
    le16 physical_block_size;
    le16 logical_block_size;
    le16 max_segments;
    le16 secure_discard;  // nonzero: secure erase supported
    u8 rotational_unused;  // obsolete, ignored
    u8 cache_policy;  // CachePolicy bits
    u8 reserved_tail[10];
};

// Client -> server: one block IO. Sent with a 32-byte length (the C struct
// has 6 bytes of tail padding); protocol-1 peers send 24 bytes, no prio.
struct IoMsg {
    MsgHdr hdr;
    le32 device_id;
    le64 sector;
    le32 rw;       // IoOp | IoFlag
    le32 bi_size;  // bytes
    le16 prio;     // block-layer ioprio value
    u8 tail_padding[6];
};
// Length of the IO message without prio (protocol major 1).
inline constexpr u32 kIoMsgV1Size = 24;

#define RNBD_WIRE_AT(type, field, offset) static_assert(__builtin_offsetof(type, field) == (offset), #type "::" #field)

static_assert(sizeof(MsgHdr) == 4);
RNBD_WIRE_AT(MsgHdr, type, 0);
RNBD_WIRE_AT(MsgHdr, padding, 2);

static_assert(sizeof(SessInfoMsg) == 36);
RNBD_WIRE_AT(SessInfoMsg, hdr, 0);
RNBD_WIRE_AT(SessInfoMsg, ver, 4);
RNBD_WIRE_AT(SessInfoMsg, reserved_tail, 5);

static_assert(sizeof(SessInfoRspMsg) == 36);
RNBD_WIRE_AT(SessInfoRspMsg, hdr, 0);
RNBD_WIRE_AT(SessInfoRspMsg, ver, 4);
RNBD_WIRE_AT(SessInfoRspMsg, reserved_tail, 5);

static_assert(sizeof(OpenMsg) == 264);
RNBD_WIRE_AT(OpenMsg, hdr, 0);
RNBD_WIRE_AT(OpenMsg, access_mode, 4);
RNBD_WIRE_AT(OpenMsg, io_mode, 5);
RNBD_WIRE_AT(OpenMsg, dev_name, 6);
RNBD_WIRE_AT(OpenMsg, reserved_tail, 261);

static_assert(sizeof(CloseMsg) == 8);
RNBD_WIRE_AT(CloseMsg, hdr, 0);
RNBD_WIRE_AT(CloseMsg, device_id, 4);

static_assert(sizeof(OpenRspMsg) == 56);
RNBD_WIRE_AT(OpenRspMsg, hdr, 0);
RNBD_WIRE_AT(OpenRspMsg, device_id, 4);
RNBD_WIRE_AT(OpenRspMsg, nsectors, 8);
RNBD_WIRE_AT(OpenRspMsg, max_hw_sectors, 16);
RNBD_WIRE_AT(OpenRspMsg, max_write_zeroes_sectors, 20);
RNBD_WIRE_AT(OpenRspMsg, max_discard_sectors, 24);
RNBD_WIRE_AT(OpenRspMsg, discard_granularity, 28);
RNBD_WIRE_AT(OpenRspMsg, discard_alignment, 32);
RNBD_WIRE_AT(OpenRspMsg, physical_block_size, 36);
RNBD_WIRE_AT(OpenRspMsg, logical_block_size, 38);
RNBD_WIRE_AT(OpenRspMsg, max_segments, 40);
RNBD_WIRE_AT(OpenRspMsg, secure_discard, 42);
RNBD_WIRE_AT(OpenRspMsg, rotational_unused, 44);
RNBD_WIRE_AT(OpenRspMsg, cache_policy, 45);
RNBD_WIRE_AT(OpenRspMsg, reserved_tail, 46);

static_assert(sizeof(IoMsg) == 32);
RNBD_WIRE_AT(IoMsg, hdr, 0);
RNBD_WIRE_AT(IoMsg, device_id, 4);
RNBD_WIRE_AT(IoMsg, sector, 8);
RNBD_WIRE_AT(IoMsg, rw, 16);
RNBD_WIRE_AT(IoMsg, bi_size, 20);
RNBD_WIRE_AT(IoMsg, prio, 24);
RNBD_WIRE_AT(IoMsg, tail_padding, 26);
static_assert(kIoMsgV1Size == __builtin_offsetof(IoMsg, prio));

#undef RNBD_WIRE_AT

static_assert(make_rw(IoOp::kWrite, kIoFlagFua | kIoFlagSync) == 0x301);
static_assert(rw_op(0x301) == 1 && rw_flags(0x301) == 0x300);

}  // namespace rnbd::wire
