// libFuzzer target: RDMA CM private data (CON_REQ, CON_RSP accept/reject).
// Anything decoded must re-encode to the same significant bytes.
#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rtrs/core/rtrs-codec.hpp"

using namespace rtrs;
using namespace rtrs::codec;

namespace {

bool same_bytes(const unsigned char* a, const unsigned char* b, __SIZE_TYPE__ n)
{
    return __builtin_memcmp(a, b, n) == 0;
}

void fuzz_conn_req(ConstByteSpan in)
{
    auto r = decode_conn_req(in);
    if (!r)
        return;
    const ConnReqFields f = r.value();
    FUZZ_CHECK(in.size() >= sizeof(wire::ConnReq));
    FUZZ_CHECK(f.cid_num >= 1 && f.cid_num <= wire::kMaxConnectionsPerPath && f.cid < f.cid_num);
    FUZZ_CHECK(wire::version_major(f.version) == wire::kVersionMajor);
    unsigned char out[56];
    auto n = build_conn_req(ByteSpan(out, sizeof(out)), f);
    FUZZ_CHECK(n.is_ok() && n.value() == 56);
    // Bytes 2..43 (magic through paths_uuid) are significant; 44 bit 0 too.
    FUZZ_CHECK(same_bytes(out + 2, in.data() + 2, 42));
    FUZZ_CHECK((out[44] & 1) == (in[44] & 1));
    auto again = decode_conn_req(ConstByteSpan(out, sizeof(out)));
    FUZZ_CHECK(again.is_ok() && again.value().first_conn == f.first_conn);
}

void fuzz_conn_rsp(ConstByteSpan in)
{
    auto r = decode_conn_rsp(in);
    if (r) {
        const ConnRspFields f = r.value();
        FUZZ_CHECK(f.queue_depth >= 1);
        FUZZ_CHECK(f.chunk_size() <= 0xffffffffu);
        FUZZ_CHECK(wire::imm_can_address(f.queue_depth, u32(f.chunk_size())));
        FUZZ_CHECK((f.flags & ~wire::kConnRspFlagsKnown) == 0);
        auto g = make_chunk_geometry(f.queue_depth, u32(f.chunk_size()));
        FUZZ_CHECK(g.is_ok());
        unsigned char out[56];
        auto n = build_conn_rsp(ByteSpan(out, sizeof(out)), f);
        FUZZ_CHECK(n.is_ok() && n.value() == 56);
        FUZZ_CHECK(same_bytes(out, in.data(), 20));
    }
    auto rej = decode_conn_reject(in);
    if (rej) {
        FUZZ_CHECK(rej.value() < 0 && rej.value() >= -32768);
        if (rej.value() >= -4095) {
            unsigned char out[56];
            FUZZ_CHECK(build_conn_reject(ByteSpan(out, sizeof(out)), rej.value()).is_ok());
            FUZZ_CHECK(same_bytes(out, in.data(), 2) && same_bytes(out + 4, in.data() + 4, 2));
        }
    }
}

}  // namespace

FUZZ_TARGET(data, size)
{
    const ConstByteSpan in(data, size);
    fuzz_conn_req(in);
    fuzz_conn_rsp(in);
    return 0;
}
