// RTRS protocol 2.0 on-wire layouts (wire-compatible with Linux 6.1).
//
// Pure layout header: no kernel types, no standard library. Every struct
// here is a byte-exact picture of one message; fields are little-endian
// wire integers (cxxrt::le16/le32/le64), reserved space is spelled out as
// arrays, and variable-length tails (descriptor lists) are NOT members:
// they are read and written through rtrs/core/rtrs-codec.hpp, which works on
// byte spans. The static_asserts at the bottom pin each size and offset.
//
// Messages arriving from the network may sit at any byte offset inside a
// receive buffer or memory chunk, so code never casts a buffer pointer to
// one of these structs: it copies bytes into a local struct (see the codec).
//
// Documentation/protocol.md describes every message in prose.
#pragma once

#include <cxxrt/bits.hpp>
#include <cxxrt/endian.hpp>
#include <cxxrt/types.hpp>

namespace rtrs::wire {

using namespace cxxrt::integers;

// ---------------------------------------------------------------------------
// Protocol constants
// ---------------------------------------------------------------------------

inline constexpr u16 kMagic = 0x1BBD;
inline constexpr u16 kVersionMajor = 2;
inline constexpr u16 kVersionMinor = 0;
// Packed as major in the high byte, minor in the low byte.
inline constexpr u16 kVersion = u16((kVersionMajor << 8) | kVersionMinor);
constexpr u16 version_major(u16 packed) { return u16(packed >> 8); }
constexpr u16 version_minor(u16 packed) { return u16(packed & 0xff); }

// Length of the fixed path-name field in INFO_REQ (the kernel's NAME_MAX).
inline constexpr u32 kNameMax = 255;
// The longest session/path name that still leaves room for a terminating
// NUL in a kNameMax field.
inline constexpr u32 kMaxNameLength = kNameMax - 1;

// Queue depth is carried in a 16-bit field of CON_RSP.
inline constexpr u32 kMaxQueueDepth = 65535;
// Receive queue depth of the service (cid 0) connection.
inline constexpr u32 kServiceConQueueDepth = 512;
inline constexpr u32 kMaxPathsPerSession = 128;
// Smallest server memory chunk (module parameter lower bound).
inline constexpr u32 kMinChunkSize = 8192;
inline constexpr u32 kDefaultMaxChunkSize = 128u << 10;
inline constexpr u32 kDefaultQueueDepth = 512;
// Upper bound a server accepts for the connection count of one path.
inline constexpr u32 kMaxConnectionsPerPath = 4096;

inline constexpr u32 kHeartbeatIntervalMs = 5000;
inline constexpr u32 kHeartbeatMissedMax = 5;

// RDMA CM private data limits: a connect request carries at most 56 bytes of
// consumer data, which is exactly the size of ConnReq.
inline constexpr u32 kConnReqPrivateDataMax = 56;

// ---------------------------------------------------------------------------
// Message types (first le16 of every SEND/RDMA-written message)
// ---------------------------------------------------------------------------

enum class MsgType : u16 {
    kInfoReq = 0,
    kInfoRsp = 1,
    kWrite = 2,
    kRead = 3,
    kRkeyRsp = 4,
};

// Flags of RdmaRead::flags (16 bit) and ConnRsp::flags (32 bit) share one
// number space.
enum MsgFlag : u32 {
    // READ: the client asks the server to invalidate the client's rkey
    // (IB_WR_SEND_WITH_INV) together with the response.
    kMsgFlagNeedInvalidate = 1u << 0,
    // CON_RSP: the server re-registers each chunk after every IO and sends
    // RKEY_RSP with the new rkey (server option always_invalidate).
    kMsgFlagNewRkey = 1u << 1,
    // CON_RSP, this implementation's extension (Linux's peers neither ask
    // for nor set it): with kMsgFlagNewRkey, the answer of a READ without
    // kMsgFlagNeedInvalidate that succeeded is one RDMA write with
    // immediate of the data followed by the chunk's new rkey (le32), into
    // the READ's buffer, instead of the data and an RKEY_RSP. Only for a
    // client whose CON_REQ set kConnReqKeyAfterData.
    kMsgFlagKeyAfterData = 1u << 16,
};
inline constexpr u32 kReadFlagsKnown = kMsgFlagNeedInvalidate;
inline constexpr u32 kConnRspFlagsKnown = kMsgFlagNewRkey | kMsgFlagKeyAfterData;

// ConnReq::flags bit 0 (the first-connection bit; bits 2..7 reserved).
inline constexpr u8 kConnReqFirstConnection = 0x01;
// ConnReq::flags bit 1, this implementation's extension: every READ buffer
// this client names without kMsgFlagNeedInvalidate has 4 bytes of room
// after its length, for the new rkey (kMsgFlagKeyAfterData). Linux's server
// reads only bit 0 of the byte.
inline constexpr u8 kConnReqKeyAfterData = 0x02;

// ---------------------------------------------------------------------------
// Immediate data (32 bits, sent big-endian in the work request)
//
//   bits 31..28  type (ImmType)
//   bits 27..0   payload, meaning depends on type:
//     kIoRequest:  (chunk id << offset_bits) | offset of the RTRS message
//                  inside the chunk; offset_bits = 28 - bits(queue_depth)
//     kIoResponse, kIoResponseInvalidate:
//                  (|errno| & 0x1ff) << 19 | (msg id & 0x7ffff)
//     kHeartbeat, kHeartbeatAck: 0
// ---------------------------------------------------------------------------

inline constexpr unsigned kImmTypeBits = 4;
inline constexpr unsigned kImmPayloadBits = 28;
inline constexpr u32 kImmTypeMask = (1u << kImmTypeBits) - 1;
inline constexpr u32 kImmPayloadMask = (1u << kImmPayloadBits) - 1;
static_assert(kImmTypeBits + kImmPayloadBits == 32);

enum class ImmType : u32 {
    kIoRequest = 0,             // client -> server
    kIoResponse = 1,            // server -> client
    kIoResponseInvalidate = 2,  // server -> client, rkey was invalidated
    kHeartbeat = 8,
    kHeartbeatAck = 9,
};

constexpr bool is_known_imm_type(u32 type)
{
    return type == u32(ImmType::kIoRequest) || type == u32(ImmType::kIoResponse) ||
           type == u32(ImmType::kIoResponseInvalidate) || type == u32(ImmType::kHeartbeat) ||
           type == u32(ImmType::kHeartbeatAck);
}

constexpr u32 make_imm(ImmType type, u32 payload)
{
    return ((u32(type) & kImmTypeMask) << kImmPayloadBits) | (payload & kImmPayloadMask);
}
constexpr u32 imm_type_bits(u32 imm) { return imm >> kImmPayloadBits; }
constexpr u32 imm_payload(u32 imm) { return imm & kImmPayloadMask; }

inline constexpr u32 kHeartbeatImm = make_imm(ImmType::kHeartbeat, 0);
inline constexpr u32 kHeartbeatAckImm = make_imm(ImmType::kHeartbeatAck, 0);

// IO request payload: chunk id in the high bits, offset in the low bits.
// The split depends only on the session's queue depth.
constexpr unsigned chunk_id_bits(u32 queue_depth) { return cxxrt::bits_for_count(queue_depth); }
constexpr unsigned chunk_offset_bits(u32 queue_depth)
{
    // Saturates at 0 for depths the payload cannot hold (never valid).
    return chunk_id_bits(queue_depth) >= kImmPayloadBits ? 0u : kImmPayloadBits - chunk_id_bits(queue_depth);
}

// True when queue_depth chunks of chunk_size bytes are addressable through
// the 28-bit payload (checked by both sides before any IO).
constexpr bool imm_can_address(u32 queue_depth, u32 chunk_size)
{
    return queue_depth >= 1 && queue_depth <= kMaxQueueDepth && chunk_size >= 1 &&
           cxxrt::bits_for_count(queue_depth) + cxxrt::bits_for_count(chunk_size) <= kImmPayloadBits;
}

constexpr u32 io_request_payload(u32 queue_depth, u32 chunk_id, u32 offset)
{
    const unsigned shift = chunk_offset_bits(queue_depth);
    const u32 offset_mask = u32(cxxrt::low_mask(shift));
    return ((chunk_id << shift) | (offset & offset_mask)) & kImmPayloadMask;
}
constexpr u32 io_request_chunk_id(u32 queue_depth, u32 payload)
{
    return (payload & kImmPayloadMask) >> chunk_offset_bits(queue_depth);
}
constexpr u32 io_request_offset(u32 queue_depth, u32 payload)
{
    return payload & u32(cxxrt::low_mask(chunk_offset_bits(queue_depth)));
}

inline constexpr unsigned kIoRspIdBits = 19;
inline constexpr unsigned kIoRspErrnoBits = 9;
inline constexpr u32 kIoRspIdMask = (1u << kIoRspIdBits) - 1;
inline constexpr u32 kIoRspErrnoMask = (1u << kIoRspErrnoBits) - 1;
static_assert(kIoRspIdBits + kIoRspErrnoBits == kImmPayloadBits);

// errno may be given with either sign; only its magnitude travels.
constexpr u32 io_response_payload(u32 msg_id, int err)
{
    const u32 magnitude = err < 0 ? 0u - u32(err) : u32(err);
    return ((magnitude & kIoRspErrnoMask) << kIoRspIdBits) | (msg_id & kIoRspIdMask);
}
constexpr u32 io_response_msg_id(u32 payload) { return payload & kIoRspIdMask; }
// Always 0 or negative (kernel convention).
constexpr int io_response_errno(u32 payload) { return -int((payload >> kIoRspIdBits) & kIoRspErrnoMask); }

// ---------------------------------------------------------------------------
// Message layouts
// ---------------------------------------------------------------------------

struct Uuid {
    u8 bytes[16];
};

// One RDMA buffer: where (addr), with which key (key), how long (len).
struct SgDesc {
    le64 addr;
    le32 key;
    le32 len;
};

// Client -> server, RDMA CM connect private data, one per connection.
struct ConnReq {
    // Byte 0 is overwritten by the CM for AF_IB; byte 1 must be 0 on send,
    // because the CM parses it on the passive side for IP addressing.
    u8 cma_version;
    u8 ip_version;
    le16 magic;
    le16 version;
    le16 cid;        // this connection's index in the path
    le16 cid_num;    // connections in the path (service connection included)
    le16 recon_cnt;  // reconnect counter of the path
    Uuid sess_uuid;  // identifies the path
    Uuid paths_uuid; // identifies the session (all paths of one client)
    u8 flags;        // kConnReqFirstConnection, kConnReqKeyAfterData; other bits reserved
    u8 reserved_tail[11];
};

// Server -> client, RDMA CM accept (or reject) private data.
struct ConnRsp {
    le16 magic;
    le16 version;
    le16 errno_value;  // 0 on accept; a negative errno as s16 on reject
    le16 queue_depth;  // number of server chunks for the session
    le32 max_io_size;  // chunk size minus max_hdr_size
    le32 max_hdr_size;
    le32 flags;        // kMsgFlagNewRkey, kMsgFlagKeyAfterData
    u8 reserved_tail[36];
};

// Client -> server SEND on the service connection: the path's name.
struct InfoReq {
    le16 type;  // MsgType::kInfoReq
    u8 pathname[kNameMax];
    u8 reserved_tail[15];
};

// Server -> client SEND: header, followed by sg_cnt SgDesc entries that
// describe the server's chunks (in chunk-id order).
struct InfoRspHeader {
    le16 type;  // MsgType::kInfoRsp
    le16 sg_cnt;
    u8 reserved_tail[4];
};

// Server -> client SEND_WITH_IMM when always_invalidate is on: the chunk
// buf_id was re-registered and must be written with rkey from now on.
struct RkeyRsp {
    le16 type;  // MsgType::kRkeyRsp
    le16 buf_id;
    le32 rkey;
};

// Common start of the message the client RDMA-writes into a server chunk.
struct RdmaHeader {
    le16 type;  // MsgType::kWrite or MsgType::kRead
};

// READ request written into a chunk; followed by sg_cnt SgDesc entries that
// describe where the server must RDMA-write the data.
struct RdmaReadHeader {
    le16 type;  // MsgType::kRead
    le16 usr_len;
    le16 flags;  // kMsgFlagNeedInvalidate
    le16 sg_cnt;
};

// WRITE request written into a chunk (after the data and user header).
struct RdmaWrite {
    le16 type;  // MsgType::kWrite
    le16 usr_len;
};

// ---------------------------------------------------------------------------
// Layout checks against the Linux 6.1 layout
// ---------------------------------------------------------------------------

#define RTRS_WIRE_AT(type, field, offset) static_assert(__builtin_offsetof(type, field) == (offset), #type "::" #field)

static_assert(sizeof(Uuid) == 16 && alignof(Uuid) == 1);

static_assert(sizeof(SgDesc) == 16);
RTRS_WIRE_AT(SgDesc, addr, 0);
RTRS_WIRE_AT(SgDesc, key, 8);
RTRS_WIRE_AT(SgDesc, len, 12);

static_assert(sizeof(ConnReq) == 56);
static_assert(sizeof(ConnReq) == kConnReqPrivateDataMax);
RTRS_WIRE_AT(ConnReq, cma_version, 0);
RTRS_WIRE_AT(ConnReq, ip_version, 1);
RTRS_WIRE_AT(ConnReq, magic, 2);
RTRS_WIRE_AT(ConnReq, version, 4);
RTRS_WIRE_AT(ConnReq, cid, 6);
RTRS_WIRE_AT(ConnReq, cid_num, 8);
RTRS_WIRE_AT(ConnReq, recon_cnt, 10);
RTRS_WIRE_AT(ConnReq, sess_uuid, 12);
RTRS_WIRE_AT(ConnReq, paths_uuid, 28);
RTRS_WIRE_AT(ConnReq, flags, 44);
RTRS_WIRE_AT(ConnReq, reserved_tail, 45);

static_assert(sizeof(ConnRsp) == 56);
RTRS_WIRE_AT(ConnRsp, magic, 0);
RTRS_WIRE_AT(ConnRsp, version, 2);
RTRS_WIRE_AT(ConnRsp, errno_value, 4);
RTRS_WIRE_AT(ConnRsp, queue_depth, 6);
RTRS_WIRE_AT(ConnRsp, max_io_size, 8);
RTRS_WIRE_AT(ConnRsp, max_hdr_size, 12);
RTRS_WIRE_AT(ConnRsp, flags, 16);
RTRS_WIRE_AT(ConnRsp, reserved_tail, 20);

static_assert(sizeof(InfoReq) == 272);
RTRS_WIRE_AT(InfoReq, type, 0);
RTRS_WIRE_AT(InfoReq, pathname, 2);
RTRS_WIRE_AT(InfoReq, reserved_tail, 257);

static_assert(sizeof(InfoRspHeader) == 8);
RTRS_WIRE_AT(InfoRspHeader, type, 0);
RTRS_WIRE_AT(InfoRspHeader, sg_cnt, 2);
RTRS_WIRE_AT(InfoRspHeader, reserved_tail, 4);

static_assert(sizeof(RkeyRsp) == 8);
RTRS_WIRE_AT(RkeyRsp, type, 0);
RTRS_WIRE_AT(RkeyRsp, buf_id, 2);
RTRS_WIRE_AT(RkeyRsp, rkey, 4);

static_assert(sizeof(RdmaHeader) == 2);
RTRS_WIRE_AT(RdmaHeader, type, 0);

static_assert(sizeof(RdmaReadHeader) == 8);
RTRS_WIRE_AT(RdmaReadHeader, type, 0);
RTRS_WIRE_AT(RdmaReadHeader, usr_len, 2);
RTRS_WIRE_AT(RdmaReadHeader, flags, 4);
RTRS_WIRE_AT(RdmaReadHeader, sg_cnt, 6);

static_assert(sizeof(RdmaWrite) == 4);
RTRS_WIRE_AT(RdmaWrite, type, 0);
RTRS_WIRE_AT(RdmaWrite, usr_len, 2);

#undef RTRS_WIRE_AT

// Sizes of the variable-length messages for n descriptors.
constexpr u64 info_rsp_size(u64 sg_cnt) { return sizeof(InfoRspHeader) + sg_cnt * sizeof(SgDesc); }
constexpr u64 rdma_read_size(u64 sg_cnt) { return sizeof(RdmaReadHeader) + sg_cnt * sizeof(SgDesc); }
static_assert(info_rsp_size(0) == 8 && info_rsp_size(3) == 8 + 3 * 16);
static_assert(rdma_read_size(1) == 24);

// Immediate encodings, pinned with worked examples.
static_assert(kHeartbeatImm == 0x80000000u);
static_assert(kHeartbeatAckImm == 0x90000000u);
static_assert(make_imm(ImmType::kIoResponseInvalidate, 0x0fffffffu) == 0x2fffffffu);
static_assert(chunk_offset_bits(512) == 19 && chunk_id_bits(512) == 9);
static_assert(chunk_offset_bits(1) == 28 && chunk_offset_bits(2) == 27 && chunk_offset_bits(513) == 18);
static_assert(chunk_offset_bits(0xffffffffu) == 0);
static_assert(io_request_payload(512, 3, 0x1234) == ((3u << 19) | 0x1234));
static_assert(io_request_chunk_id(512, (3u << 19) | 0x1234) == 3);
static_assert(io_request_offset(512, (3u << 19) | 0x1234) == 0x1234);
static_assert(io_response_payload(7, -5) == ((5u << 19) | 7));
static_assert(io_response_payload(7, 5) == io_response_payload(7, -5));
static_assert(io_response_errno((5u << 19) | 7) == -5 && io_response_msg_id((5u << 19) | 7) == 7);
static_assert(imm_can_address(512, 128u << 10) && !imm_can_address(65535, 1u << 13));
static_assert(imm_can_address(1, 1u << 28) && !imm_can_address(2, 1u << 28));

}  // namespace rtrs::wire
