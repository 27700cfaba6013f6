// RTRS message builders and validating decoders.
//
// Kernel-independent: compiled unchanged into rtrs-client/rtrs-server and
// into the host unit tests and fuzzers. No allocation: builders fill a
// caller-provided buffer and return the number of bytes written, decoders
// take the received bytes (exact length) plus what the receiver knows
// (queue depth, chunk size, ...) and return a small parsed view.
//
// Error conventions (positive constants from cxxrt::err, returned negated):
//   kMsgSize      builder: output buffer too small
//   kInval        builder: a parameter that cannot be encoded;
//                 decoder: a field out of range for the receiver's limits
//   kBadMsg       decoder: buffer shorter than the message it must hold
//   kProto        decoder: wrong magic, major version, message type,
//                 immediate type or unknown flag bits
//   kNameTooLong  decoder: name field without a terminating NUL
//   kConnReset    decode_conn_rsp: the server refused (errno field set)
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>
#include <proto/rtrs-wire.hpp>

namespace rtrs::codec {

using cxxrt::ByteSpan;
using cxxrt::ConstByteSpan;
using cxxrt::Error;
using cxxrt::Result;
using namespace cxxrt::integers;
using cxxrt::Span;
using cxxrt::StringView;

// One RDMA buffer descriptor in host byte order.
struct SgEntry {
    u64 addr = 0;
    u32 key = 0;
    u32 len = 0;
    constexpr bool operator==(const SgEntry& o) const { return addr == o.addr && key == o.key && len == o.len; }
};

// Reads descriptor i of a validated descriptor area (no alignment needed).
SgEntry load_sg_entry(ConstByteSpan descs, size_t index);

// ---------------------------------------------------------------------------
// Connection establishment (RDMA CM private data)
// ---------------------------------------------------------------------------

struct ConnReqFields {
    u16 version = wire::kVersion;
    u16 cid = 0;
    u16 cid_num = 0;
    u16 recon_cnt = 0;
    wire::Uuid sess_uuid{};
    wire::Uuid paths_uuid{};
    bool first_conn = false;
    bool key_after_data = false;  // wire::kConnReqKeyAfterData
};

struct ConnReqLimits {
    u32 max_connections = wire::kMaxConnectionsPerPath;
};

// Writes the 56-byte connect request. cid must be below cid_num.
Result<size_t> build_conn_req(ByteSpan out, const ConnReqFields& fields);
// Accepts private data of at least 56 bytes (the CM may pad it); checks
// magic, major version, 1 <= cid_num <= max_connections, cid < cid_num.
Result<ConnReqFields> decode_conn_req(ConstByteSpan data, const ConnReqLimits& limits = {});

struct ConnRspFields {
    u16 version = wire::kVersion;
    u16 queue_depth = 0;
    u32 max_io_size = 0;
    u32 max_hdr_size = 0;
    u32 flags = 0;
    // Size of one server chunk as the client sees it.
    constexpr u64 chunk_size() const { return u64(max_io_size) + max_hdr_size; }
};

// Accept data. Checks that queue_depth chunks of max_io_size+max_hdr_size
// bytes are addressable through the immediate field and flags are known.
Result<size_t> build_conn_rsp(ByteSpan out, const ConnRspFields& fields);
// Reject data carrying a negative errno (e.g. -EBUSY).
Result<size_t> build_conn_reject(ByteSpan out, int negative_errno);
// Decodes accept data: magic, major version, errno == 0 (else kConnReset),
// queue_depth >= 1, nonzero sizes, chunk size fits 32 bits and the
// immediate field, no unknown flags.
Result<ConnRspFields> decode_conn_rsp(ConstByteSpan data);
// Decodes reject data; the value is the server's errno (negative, within
// -4095..-1). Malformed data is an error: callers then use -ECONNRESET.
Result<int> decode_conn_reject(ConstByteSpan data);

// ---------------------------------------------------------------------------
// Path info exchange (service connection)
// ---------------------------------------------------------------------------

// Path-name policy shared by both sides: 1..254 bytes, no control
// character (bytes below 0x20, NUL included, and 0x7f), no '/' and no '.'
// (the name becomes a sysfs directory on the server and is logged).
Result<void> check_path_name(StringView name);

Result<size_t> build_info_req(ByteSpan out, StringView pathname);

struct InfoReqView {
    StringView pathname;  // points into the decoded buffer
};
Result<InfoReqView> decode_info_req(ConstByteSpan data);

struct InfoRspLimits {
    u32 queue_depth = 0;  // from CON_RSP
    u32 chunk_size = 0;   // max_io_size + max_hdr_size from CON_RSP
    u32 max_descs = wire::kMaxQueueDepth;
};

struct InfoRspView {
    u16 sg_cnt = 0;
    ConstByteSpan descs;  // sg_cnt * 16 bytes inside the decoded buffer
    SgEntry desc(size_t index) const { return load_sg_entry(descs, index); }
};

Result<size_t> build_info_rsp(ByteSpan out, Span<const SgEntry> descs);
// Checks: 1 <= sg_cnt <= max_descs, the buffer holds all descriptors,
// queue_depth is a multiple of sg_cnt, the immediate can address sg_cnt
// buffers of chunk_size, every len is a nonzero multiple of chunk_size, no
// address range wraps, and the lengths add up to queue_depth chunks.
Result<InfoRspView> decode_info_rsp(ConstByteSpan data, const InfoRspLimits& limits);

// Client-side helper: address and rkey of chunk `chunk_id` as described by
// a validated INFO_RSP (descriptors cover consecutive chunks).
Result<SgEntry> info_rsp_chunk(const InfoRspView& view, u32 chunk_size, u32 chunk_id);

// ---------------------------------------------------------------------------
// RKEY_RSP (always_invalidate)
// ---------------------------------------------------------------------------

struct RkeyRspView {
    u16 buf_id = 0;
    u32 rkey = 0;
};
Result<size_t> build_rkey_rsp(ByteSpan out, u16 buf_id, u32 rkey);
Result<RkeyRspView> decode_rkey_rsp(ConstByteSpan data, u32 queue_depth);

// ---------------------------------------------------------------------------
// Chunks and immediates
// ---------------------------------------------------------------------------

// How a session's chunk id and in-chunk offset share the 28-bit payload.
struct ChunkGeometry {
    u32 queue_depth = 0;
    u32 chunk_size = 0;
    unsigned offset_bits = 0;
};
// queue_depth 1..65535, chunk_size >= 1, both addressable together.
Result<ChunkGeometry> make_chunk_geometry(u32 queue_depth, u32 chunk_size);

// Immediate data travels big-endian in the work request; these convert the
// raw 32-bit work-request field to and from the host value.
u32 imm_to_wire(u32 host_value);
u32 imm_from_wire(u32 wire_value);

struct Imm {
    wire::ImmType type = wire::ImmType::kIoRequest;
    u32 payload = 0;
};
// Splits an immediate (host order); unknown types are kProto.
Result<Imm> decode_imm(u32 imm);

struct IoRequestImm {
    u32 chunk_id = 0;
    u32 offset = 0;  // offset of the RTRS message inside the chunk
};
// chunk_id < queue_depth, offset < chunk_size.
Result<u32> encode_io_request_imm(const ChunkGeometry& geometry, u32 chunk_id, u32 offset);
Result<IoRequestImm> decode_io_request_imm(const ChunkGeometry& geometry, u32 imm);

struct IoResponseImm {
    u32 msg_id = 0;
    int err = 0;  // 0 or negative errno
    bool invalidated = false;
};
// err is 0 or a negative errno; magnitudes that do not fit 9 bits are sent
// as -EIO rather than truncated (a truncated errno could read as success).
Result<u32> encode_io_response_imm(u32 msg_id, int err, bool invalidated);
// Type must be kIoResponse or kIoResponseInvalidate, msg_id < queue_depth.
Result<IoResponseImm> decode_io_response_imm(u32 imm, u32 queue_depth);

// ---------------------------------------------------------------------------
// IO requests (client RDMA-writes [data][user header][RTRS message] into a
// server chunk; the immediate carries the RTRS message's offset)
// ---------------------------------------------------------------------------

struct IoPlan {
    u32 data_len = 0;    // bytes reserved for data at the chunk start
    u32 usr_len = 0;     // user header right after the data
    u32 msg_offset = 0;  // where the RTRS message starts (= imm offset)
    u32 msg_len = 0;     // RTRS message length
    u32 total = 0;       // msg_offset + msg_len, <= chunk size
};
Result<IoPlan> plan_write(const ChunkGeometry& geometry, u32 data_len, u32 usr_len);
Result<IoPlan> plan_read(const ChunkGeometry& geometry, u32 data_len, u32 usr_len, u32 sg_cnt);

Result<size_t> build_rdma_write(ByteSpan out, u16 usr_len);
Result<size_t> build_rdma_read(ByteSpan out, u16 usr_len, u16 flags, Span<const SgEntry> descs);

// The most descriptors a READ may carry to any server of ours (the decoder
// copies them out of the chunk, so this is also the size of that copy).
inline constexpr u32 kMaxReadDescs = 4;

struct IoLimits {
    u32 max_read_descs = 1;  // Linux 6.1 servers handle one descriptor; at most kMaxReadDescs
};

// A decoded IO request. The chunk stays writable by the client while the
// server works on it, so every field of the RTRS message is fetched once
// into this object (cxxrt::fetch_once) and only these copies are checked
// and used: a second read of the chunk could see other bytes than the
// check saw. The two spans are the only views into the chunk: the payload
// itself, and the user header, which is handed on as bytes and fetched
// once by its own decoder (RNBD's: rnbd-codec.hpp).
struct IoRequest {
    wire::MsgType type = wire::MsgType::kWrite;  // kWrite or kRead
    u32 offset = 0;    // of the RTRS message in the chunk
    u32 usr_len = 0;
    u32 data_len = 0;  // offset - usr_len
    u16 flags = 0;     // READ only
    u16 sg_cnt = 0;    // READ only, <= IoLimits::max_read_descs
    SgEntry descs[kMaxReadDescs] = {};  // READ only: copies, each len 1..chunk size
    ConstByteSpan data;  // [0, data_len) of the chunk
    ConstByteSpan usr;   // [data_len, offset) of the chunk
    const SgEntry& desc(size_t index) const { return descs[index]; }
};

// Decodes the message a client placed at `offset` of `chunk` (the whole
// chunk; its size is the chunk size). Checks: the message lies inside the
// chunk, type is READ or WRITE, usr_len <= offset; for READ also
// sg_cnt <= max_read_descs (<= kMaxReadDescs, else kInval), descriptors
// inside the chunk, known flags, NEED_INVAL only with a descriptor, each
// length 1..chunk size.
Result<IoRequest> decode_io_request(ConstByteSpan chunk, u32 offset, const IoLimits& limits = {});

}  // namespace rtrs::codec
