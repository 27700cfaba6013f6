// libFuzzer target: INFO_REQ and INFO_RSP on the service connection.
// Input: 2 bytes queue depth, 1 byte chunk-size exponent, 2 bytes
// descriptor limit, then the message.
#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rtrs/core/rtrs-codec.hpp"

using namespace rtrs;
using namespace rtrs::codec;

namespace {

constinit SgEntry g_descs[wire::kMaxQueueDepth];
constinit unsigned char g_out[8 + 16 * wire::kMaxQueueDepth];

// No byte below 0x20 or equal to 0x7f (the model of a name without control
// characters, written out independently of the codec's check).
bool printable(StringView name)
{
    for (cxxrt::size_t i = 0; i < name.length(); ++i)
        if (static_cast<unsigned char>(name[i]) < 0x20 || name[i] == 0x7f)
            return false;
    return true;
}

void fuzz_info_req(ConstByteSpan in)
{
    auto r = decode_info_req(in);
    if (!r)
        return;
    const StringView name = r.value().pathname;
    FUZZ_CHECK(name.length() >= 1 && name.length() <= wire::kMaxNameLength);
    FUZZ_CHECK(!name.contains('/') && !name.contains('.') && !name.contains('\0') && printable(name));
    FUZZ_CHECK(name.data() == reinterpret_cast<const char*>(in.data()) + 2);
    unsigned char out[272];
    FUZZ_CHECK(build_info_req(ByteSpan(out, sizeof(out)), name).is_ok());
    auto again = decode_info_req(ConstByteSpan(out, sizeof(out)));
    FUZZ_CHECK(again.is_ok() && again.value().pathname == name);
}

void fuzz_info_rsp(const unsigned char* data, __SIZE_TYPE__ size)
{
    if (size < 5)
        return;
    InfoRspLimits limits;
    limits.queue_depth = u32(data[0]) | (u32(data[1]) << 8);
    limits.chunk_size = 1u << (data[2] % 29);
    limits.max_descs = u32(data[3]) | (u32(data[4]) << 8);
    const ConstByteSpan in(data + 5, size - 5);
    auto r = decode_info_rsp(in, limits);
    if (!r)
        return;
    const InfoRspView& v = r.value();
    FUZZ_CHECK(v.sg_cnt >= 1 && v.sg_cnt <= limits.max_descs);
    FUZZ_CHECK(v.descs.size() == cxxrt::size_t(v.sg_cnt) * 16);
    FUZZ_CHECK(v.descs.data() == in.data() + 8 && 8 + v.descs.size() <= in.size());
    FUZZ_CHECK(limits.queue_depth % v.sg_cnt == 0);
    u64 total = 0;
    for (__SIZE_TYPE__ i = 0; i < v.sg_cnt; ++i) {
        g_descs[i] = v.desc(i);
        FUZZ_CHECK(g_descs[i].len != 0 && g_descs[i].len % limits.chunk_size == 0);
        total += g_descs[i].len;
    }
    FUZZ_CHECK(total == u64(limits.queue_depth) * limits.chunk_size);
    // Every chunk id resolves to an address inside some descriptor.
    for (u32 id = 0; id < limits.queue_depth && id < 64; ++id)
        FUZZ_CHECK(info_rsp_chunk(v, limits.chunk_size, id).is_ok());
    FUZZ_CHECK(!info_rsp_chunk(v, limits.chunk_size, limits.queue_depth).is_ok());

    auto n = build_info_rsp(ByteSpan(g_out, sizeof(g_out)), Span<const SgEntry>(g_descs, v.sg_cnt));
    FUZZ_CHECK(n.is_ok() && n.value() == 8 + v.descs.size());
    FUZZ_CHECK(__builtin_memcmp(g_out, in.data(), 4) == 0);
    FUZZ_CHECK(__builtin_memcmp(g_out + 8, in.data() + 8, v.descs.size()) == 0);
}

}  // namespace

FUZZ_TARGET(data, size)
{
    fuzz_info_req(ConstByteSpan(data, size));
    fuzz_info_rsp(data, size);
    return 0;
}
