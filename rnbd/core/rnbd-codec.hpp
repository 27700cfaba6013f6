// RNBD message builders and validating decoders.
//
// Kernel-independent: compiled unchanged into rnbd-client/rnbd-server and
// into host tests and fuzzers. Builders fill a caller buffer (zeroing all
// reserved bytes) and return the bytes written; decoders take the received
// user header (exact length) and the receiver's limits and return a view.
//
// Errors (positive cxxrt::err constants, returned negated):
//   kMsgSize      builder: output buffer too small
//   kInval        builder: parameter cannot be encoded;
//                 decoder: field out of range or inconsistent
//   kBadMsg       decoder: buffer shorter than the message
//   kProto        decoder: unknown message type, version or flag bits
//   kNameTooLong  decoder: device name without terminating NUL
//   kOpNotSupp    decoder: a defined IO op this implementation does not serve
//   kRange        decoder: sector range overflows or exceeds the device
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>
#include <proto/rnbd-wire.hpp>

// The cxxrt names rnbd's code speaks, declared in namespace rnbd so that
// every rnbd namespace (codec, clt, srv, srv::policy) sees them.
namespace rnbd {

using cxxrt::ByteSpan;
using cxxrt::ConstByteSpan;
using cxxrt::Error;
using cxxrt::Result;
using namespace cxxrt::integers;
using cxxrt::StringView;

}  // namespace rnbd

namespace rnbd::codec {

// Message type of a received user header; unknown types are kProto.
Result<wire::MsgType> decode_type(ConstByteSpan data);

// --- SESS_INFO / SESS_INFO_RSP ---------------------------------------------

struct SessInfoView {
    u8 ver = 0;         // what the peer announced
    u8 negotiated = 0;  // min(ver, our major)
};
Result<size_t> build_sess_info(ByteSpan out, u8 ver = wire::kVersionMajor);
// ver must be nonzero.
Result<SessInfoView> decode_sess_info(ConstByteSpan data);

Result<size_t> build_sess_info_rsp(ByteSpan out, u8 ver);
// The server's answer must be 1..our_ver (it answers min(ours, its own)).
Result<u8> decode_sess_info_rsp(ConstByteSpan data, u8 our_ver = wire::kVersionMajor);

// --- OPEN / OPEN_RSP / CLOSE --------------------------------------------------

// Device-path policy of the server: 1..254 bytes, no control character
// (bytes below 0x20, NUL included, and 0x7f), and no ".." path component
// (so the path cannot leave the server's search path).
Result<void> check_device_path(StringView path);

// Decoding of the io_mode extension byte: unknown values (including
// garbage from peers that do not clear the byte) read as kUnspecified.
wire::IoMode io_mode_from_wire(u8 value);

struct OpenView {
    wire::AccessMode access_mode = wire::AccessMode::kReadOnly;
    wire::IoMode io_mode = wire::IoMode::kUnspecified;
    StringView dev_name;  // points into the decoded buffer
};
Result<size_t> build_open(ByteSpan out, wire::AccessMode access_mode, StringView dev_name,
                          wire::IoMode io_mode = wire::IoMode::kUnspecified);
// Checks type, access mode, NUL within the 255-byte name field, and
// check_device_path() on the name.
Result<OpenView> decode_open(ConstByteSpan data);

struct OpenRspFields {
    u32 device_id = 0;
    u64 nsectors = 0;
    u32 max_hw_sectors = 0;
    u32 max_write_zeroes_sectors = 0;
    u32 max_discard_sectors = 0;
    u32 discard_granularity = 0;
    u32 discard_alignment = 0;
    u16 physical_block_size = 0;
    u16 logical_block_size = 0;
    u16 max_segments = 0;
    u16 secure_discard = 0;
    u8 cache_policy = 0;
};
Result<size_t> build_open_rsp(ByteSpan out, const OpenRspFields& fields);
// Checks: logical block size a power of two >= 512, physical block size a
// power of two >= logical, nonzero max_hw_sectors and max_segments, device
// size in bytes fits 64 bits, known cache-policy bits.
Result<OpenRspFields> decode_open_rsp(ConstByteSpan data);

// The client's check of an OPEN_RSP before any value reaches the block
// layer (decode_open_rsp checks only what makes the message well-formed).
// kInval when a limit is out of range:
//   - logical block size a power of two in 512..page_size;
//   - physical block size a power of two >= logical;
//   - max_hw_sectors >= one page and >= one logical block; max_segments > 0;
//   - size: nsectors * 512 fits a signed 64-bit byte offset (loff_t);
//   - discard offered (max_discard_sectors > 0): granularity a nonzero
//     multiple of the logical block size, alignment below the granularity
//     (secure erase is used only with discard: not checked alone);
// kProto for unknown cache-policy bits.
Result<void> validate_open_rsp(const OpenRspFields& fields, u32 page_size);

Result<size_t> build_close(ByteSpan out, u32 device_id);
Result<u32> decode_close(ConstByteSpan data);

// --- IO -----------------------------------------------------------------------

struct IoFields {
    u32 device_id = 0;
    u64 sector = 0;
    wire::IoOp op = wire::IoOp::kRead;
    u32 flags = 0;  // wire::IoFlag bits
    u32 bi_size = 0;
    u16 prio = 0;
};
Result<size_t> build_io(ByteSpan out, const IoFields& fields);

struct IoLimits {
    u32 data_len = 0;          // bytes the transport delivered/reserved
    u32 max_io_size = 0;       // largest bi_size accepted
    u64 device_sectors = 0;    // size of the device; 0 = not checked here
    u8 session_ver = wire::kVersionMajor;  // negotiated RNBD major
};
// Checks type, a length of at least 24 bytes (prio is read only from a
// 32-byte message of a version-2 session), known op and flags, sizes in
// 512-byte units; READ/WRITE carry bi_size == data_len, 1..max_io_size;
// DISCARD/SECURE_ERASE/WRITE_ZEROES carry no data and a nonzero bi_size
// (whether the device announced WRITE_ZEROES is policy::check_io's); FLUSH carries nothing; the sector range neither
// overflows nor exceeds device_sectors.
Result<IoFields> decode_io(ConstByteSpan data, const IoLimits& limits);

}  // namespace rnbd::codec
