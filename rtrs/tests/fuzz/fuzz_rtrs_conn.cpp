// libFuzzer target: RDMA CM private data (CON_REQ, CON_RSP accept/reject).
// Anything decoded must re-encode to the same significant bytes.
#include "rtrs/rtrs-codec.hpp"

using namespace rtrs;
using namespace rtrs::codec;

namespace {

void check(bool ok)
{
    if (!ok)
        __builtin_trap();
}

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
    check(in.size() >= sizeof(wire::ConnReq));
    check(f.cid_num >= 1 && f.cid_num <= wire::kMaxConnectionsPerPath && f.cid < f.cid_num);
    check(wire::version_major(f.version) == wire::kVersionMajor);
    unsigned char out[56];
    auto n = build_conn_req(ByteSpan(out, sizeof(out)), f);
    check(n.is_ok() && n.value() == 56);
    // Bytes 2..43 (magic through paths_uuid) are significant; 44 bit 0 too.
    check(same_bytes(out + 2, in.data() + 2, 42));
    check((out[44] & 1) == (in[44] & 1));
    auto again = decode_conn_req(ConstByteSpan(out, sizeof(out)));
    check(again.is_ok() && again.value().first_conn == f.first_conn);
}

void fuzz_conn_rsp(ConstByteSpan in)
{
    auto r = decode_conn_rsp(in);
    if (r) {
        const ConnRspFields f = r.value();
        check(f.queue_depth >= 1);
        check(f.chunk_size() <= 0xffffffffu);
        check(wire::imm_can_address(f.queue_depth, u32(f.chunk_size())));
        check((f.flags & ~wire::kConnRspFlagsKnown) == 0);
        auto g = make_chunk_geometry(f.queue_depth, u32(f.chunk_size()));
        check(g.is_ok());
        unsigned char out[56];
        auto n = build_conn_rsp(ByteSpan(out, sizeof(out)), f);
        check(n.is_ok() && n.value() == 56);
        check(same_bytes(out, in.data(), 20));
    }
    auto rej = decode_conn_reject(in);
    if (rej) {
        check(rej.value() < 0 && rej.value() >= -32768);
        if (rej.value() >= -4095) {
            unsigned char out[56];
            check(build_conn_reject(ByteSpan(out, sizeof(out)), rej.value()).is_ok());
            check(same_bytes(out, in.data(), 2) && same_bytes(out + 4, in.data() + 4, 2));
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, __SIZE_TYPE__ size)
{
    const ConstByteSpan in(data, size);
    fuzz_conn_req(in);
    fuzz_conn_rsp(in);
    return 0;
}
