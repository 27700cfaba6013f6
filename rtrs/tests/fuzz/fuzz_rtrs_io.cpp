// libFuzzer target: IO path. Immediates (request, response, heartbeat),
// RKEY_RSP, and READ/WRITE messages inside a server chunk.
// Input: 2 bytes queue depth, 1 byte chunk-size exponent, 4 bytes offset,
// 4 bytes immediate, then the chunk contents (zero-padded to chunk size).
#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rtrs/core/rtrs-codec.hpp"
#include "rtrs/core/rtrs-remote-errno.hpp"

using namespace rtrs;
using namespace rtrs::codec;

namespace {

constexpr u32 kMaxFuzzChunk = 1u << 16;
constinit unsigned char g_chunk[kMaxFuzzChunk];
constinit unsigned char g_out[8 + 16 * 4];

u32 load32(const unsigned char* p) { return u32(p[0]) | (u32(p[1]) << 8) | (u32(p[2]) << 16) | (u32(p[3]) << 24); }

// What reaches userspace from a peer's errno: 0, -EIO, or a member of the
// documented set, never a positive value or a kernel-internal errno
// (ERESTARTSYS and the rest of 512..529 included), and a member passes
// unchanged.
void check_remote_errno(int value)
{
    const int mapped = rtrs::remote_errno(value);
    FUZZ_CHECK(mapped <= 0 && mapped > -512);
    FUZZ_CHECK(mapped == 0 || mapped == -cxxrt::err::kIo || rtrs::remote_errno_allowed(-mapped));
    FUZZ_CHECK((value == 0) == (mapped == 0));
    if (value < 0 && value > -4096 && rtrs::remote_errno_allowed(-value))
        FUZZ_CHECK(mapped == value);
}

void fuzz_imm(u32 imm, u32 queue_depth, u32 chunk_size)
{
    auto any = decode_imm(imm);
    if (any)
        FUZZ_CHECK(wire::make_imm(any.value().type, any.value().payload) == imm);
    FUZZ_CHECK(imm_from_wire(imm_to_wire(imm)) == imm);

    auto g = make_chunk_geometry(queue_depth, chunk_size);
    if (g) {
        auto req = decode_io_request_imm(g.value(), imm);
        if (req) {
            FUZZ_CHECK(req.value().chunk_id < queue_depth && req.value().offset < chunk_size);
            auto again = encode_io_request_imm(g.value(), req.value().chunk_id, req.value().offset);
            FUZZ_CHECK(again.is_ok() && again.value() == imm);
        }
    }
    auto rsp = decode_io_response_imm(imm, queue_depth);
    if (rsp) {
        FUZZ_CHECK(rsp.value().msg_id < queue_depth);
        FUZZ_CHECK(rsp.value().err <= 0 && rsp.value().err >= -511);
        auto again = encode_io_response_imm(rsp.value().msg_id, rsp.value().err, rsp.value().invalidated);
        FUZZ_CHECK(again.is_ok() && again.value() == imm);
        check_remote_errno(rsp.value().err);
    }
    // Any 32-bit value a peer could put in a reject or an answer.
    check_remote_errno(int(imm));
}

void fuzz_rkey(ConstByteSpan in, u32 queue_depth)
{
    auto r = decode_rkey_rsp(in, queue_depth);
    if (!r)
        return;
    FUZZ_CHECK(r.value().buf_id < queue_depth);
    unsigned char out[8];
    FUZZ_CHECK(build_rkey_rsp(ByteSpan(out, 8), r.value().buf_id, r.value().rkey).is_ok());
    FUZZ_CHECK(__builtin_memcmp(out, in.data(), 8) == 0);
}

void fuzz_request(ConstByteSpan chunk, u32 offset, u32 max_descs)
{
    IoLimits limits;
    limits.max_read_descs = max_descs;
    auto r = decode_io_request(chunk, offset, limits);
    if (!r)
        return;
    const IoRequest& v = r.value();
    FUZZ_CHECK(v.offset == offset && offset < chunk.size());
    FUZZ_CHECK(v.usr_len <= offset && v.data_len + v.usr_len == offset);
    FUZZ_CHECK(v.data.data() == chunk.data() && v.data.size() == v.data_len);
    FUZZ_CHECK(v.usr.data() == chunk.data() + v.data_len && v.usr.size() == v.usr_len);
    __SIZE_TYPE__ msg_len = 0;
    if (v.type == wire::MsgType::kWrite) {
        FUZZ_CHECK(v.sg_cnt == 0);
        auto n = build_rdma_write(ByteSpan(g_out, sizeof(g_out)), u16(v.usr_len));
        FUZZ_CHECK(n.is_ok());
        msg_len = n.value();
    } else {
        FUZZ_CHECK(v.type == wire::MsgType::kRead);
        FUZZ_CHECK(v.sg_cnt <= max_descs && v.sg_cnt <= kMaxReadDescs);
        SgEntry descs[4];
        for (__SIZE_TYPE__ i = 0; i < v.sg_cnt; ++i) {
            descs[i] = v.desc(i);
            FUZZ_CHECK(descs[i].len >= 1 && descs[i].len <= chunk.size());
        }
        auto n = build_rdma_read(ByteSpan(g_out, sizeof(g_out)), u16(v.usr_len), v.flags,
                                 Span<const SgEntry>(descs, v.sg_cnt));
        FUZZ_CHECK(n.is_ok());
        msg_len = n.value();
    }
    FUZZ_CHECK(chunk.contains_range(offset, msg_len));
    FUZZ_CHECK(__builtin_memcmp(g_out, chunk.data() + offset, msg_len) == 0);
}

}  // namespace

FUZZ_TARGET(data, size)
{
    if (size < 11)
        return 0;
    u32 queue_depth = u32(data[0]) | (u32(data[1]) << 8);
    const u32 chunk_size = 1u << (12 + data[2] % 5);  // 4 KiB .. 64 KiB
    const u32 offset = load32(data + 3);
    const u32 imm = load32(data + 7);
    fuzz_imm(imm, queue_depth, chunk_size);

    const ConstByteSpan body(data + 11, size - 11);
    fuzz_rkey(body, queue_depth);

    __SIZE_TYPE__ n = body.size() < chunk_size ? body.size() : chunk_size;
    __builtin_memset(g_chunk, 0, chunk_size);
    __builtin_memcpy(g_chunk, body.data(), n);
    const u32 max_descs = 1 + (data[0] & 3);
    // Offsets near the end of the chunk matter most: fold the fuzzed
    // offset into the chunk, and also try it raw.
    fuzz_request(ConstByteSpan(g_chunk, chunk_size), offset, max_descs);
    fuzz_request(ConstByteSpan(g_chunk, chunk_size), offset % chunk_size, max_descs);
    // And a request placed at the very end of the data the fuzzer gave.
    fuzz_request(ConstByteSpan(body.data(), body.size()), offset % (body.size() + 1), max_descs);
    return 0;
}
