// libFuzzer target: every RNBD message decoder. Input: 1 byte of limits
// selection, 4 bytes data_len, then the user header.
#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rnbd/rnbd-codec.hpp"

using namespace rnbd;
using namespace rnbd::codec;

namespace {

constinit unsigned char g_out[264];

bool has_dotdot_component(StringView s)
{
    __SIZE_TYPE__ start = 0;
    for (__SIZE_TYPE__ i = 0; i <= s.length(); ++i) {
        if (i == s.length() || s[i] == '/') {
            if (i - start == 2 && s[start] == '.' && s[start + 1] == '.')
                return true;
            start = i + 1;
        }
    }
    return false;
}

void fuzz_all(ConstByteSpan in, u8 selector, u32 data_len)
{
    auto type = decode_type(in);
    if (type)
        FUZZ_CHECK(u16(type.value()) < wire::kMsgTypeCount);

    if (auto r = decode_sess_info(in)) {
        FUZZ_CHECK(r.value().ver >= 1 && r.value().negotiated <= wire::kVersionMajor);
        FUZZ_CHECK(build_sess_info(ByteSpan(g_out, 36), r.value().ver).is_ok());
        FUZZ_CHECK(__builtin_memcmp(g_out, in.data(), 2) == 0 && g_out[4] == in[4]);
    }
    if (auto r = decode_sess_info_rsp(in)) {
        FUZZ_CHECK(r.value() >= 1 && r.value() <= wire::kVersionMajor);
        FUZZ_CHECK(build_sess_info_rsp(ByteSpan(g_out, 36), r.value()).is_ok());
        FUZZ_CHECK(__builtin_memcmp(g_out, in.data(), 2) == 0 && g_out[4] == in[4]);
    }
    if (auto r = decode_open(in)) {
        const OpenView v = r.value();
        FUZZ_CHECK(u8(v.access_mode) < wire::kAccessModeCount);
        FUZZ_CHECK(v.dev_name.length() >= 1 && v.dev_name.length() < wire::kNameMax);
        FUZZ_CHECK(!v.dev_name.contains('\0') && !has_dotdot_component(v.dev_name));
        FUZZ_CHECK(v.dev_name.data() == reinterpret_cast<const char*>(in.data()) + 6);
        FUZZ_CHECK(build_open(ByteSpan(g_out, 264), v.access_mode, v.dev_name, v.io_mode).is_ok());
        FUZZ_CHECK(__builtin_memcmp(g_out, in.data(), 2) == 0 && g_out[4] == in[4]);
        FUZZ_CHECK(__builtin_memcmp(g_out + 6, in.data() + 6, v.dev_name.length() + 1) == 0);
        auto again = decode_open(ConstByteSpan(g_out, 264));
        FUZZ_CHECK(again.is_ok() && again.value().dev_name == v.dev_name && again.value().io_mode == v.io_mode);
    }
    if (auto r = decode_open_rsp(in)) {
        const OpenRspFields f = r.value();
        FUZZ_CHECK(f.logical_block_size >= 512 && f.physical_block_size >= f.logical_block_size);
        FUZZ_CHECK((f.cache_policy & ~wire::kCachePolicyKnown) == 0);
        FUZZ_CHECK(build_open_rsp(ByteSpan(g_out, 56), f).is_ok());
        FUZZ_CHECK(__builtin_memcmp(g_out, in.data(), 2) == 0);
        FUZZ_CHECK(__builtin_memcmp(g_out + 4, in.data() + 4, 40) == 0 && g_out[45] == in[45]);
    }
    if (auto r = decode_close(in)) {
        FUZZ_CHECK(build_close(ByteSpan(g_out, 8), r.value()).is_ok());
        FUZZ_CHECK(__builtin_memcmp(g_out, in.data(), 2) == 0 && __builtin_memcmp(g_out + 4, in.data() + 4, 4) == 0);
    }

    IoLimits limits;
    limits.data_len = data_len;
    limits.max_io_size = (selector & 1) ? (1u << 20) : 0xffffffffu;
    limits.device_sectors = (selector & 2) ? (u64(1) << (selector >> 2)) : 0;
    limits.session_ver = (selector & 0x80) ? 1 : 2;
    if (auto r = decode_io(in, limits)) {
        const IoFields f = r.value();
        FUZZ_CHECK(u32(f.op) < wire::kIoOpCount && f.op != wire::IoOp::kWriteSame);
        FUZZ_CHECK((f.flags & ~wire::kIoFlagsKnown) == 0);
        FUZZ_CHECK(f.bi_size % 512 == 0);
        if (f.op == wire::IoOp::kRead || f.op == wire::IoOp::kWrite)
            FUZZ_CHECK(f.bi_size == data_len && f.bi_size >= 1 && f.bi_size <= limits.max_io_size);
        else
            FUZZ_CHECK(data_len == 0);
        if (f.op != wire::IoOp::kFlush) {
            const u64 end = f.sector + (f.bi_size >> 9);
            FUZZ_CHECK(end >= f.sector);
            if (limits.device_sectors)
                FUZZ_CHECK(end <= limits.device_sectors);
        }
        FUZZ_CHECK(build_io(ByteSpan(g_out, 32), f).is_ok());
        FUZZ_CHECK(__builtin_memcmp(g_out, in.data(), 2) == 0 && __builtin_memcmp(g_out + 4, in.data() + 4, 20) == 0);
        auto again = decode_io(ConstByteSpan(g_out, 32), limits);
        FUZZ_CHECK(again.is_ok() && again.value().sector == f.sector && again.value().prio == f.prio);
    }
}

}  // namespace

FUZZ_TARGET(data, size)
{
    if (size < 5)
        return 0;
    const u8 selector = data[0];
    const u32 data_len = u32(data[1]) | (u32(data[2]) << 8) | (u32(data[3]) << 16) | (u32(data[4]) << 24);
    fuzz_all(ConstByteSpan(data + 5, size - 5), selector, data_len);
    // data_len usually equals bi_size for valid requests: try that too.
    if (size >= 5 + 24) {
        const u32 bi_size = u32(data[5 + 20]) | (u32(data[5 + 21]) << 8) | (u32(data[5 + 22]) << 16) |
                            (u32(data[5 + 23]) << 24);
        fuzz_all(ConstByteSpan(data + 5, size - 5), selector, bi_size);
    }
    return 0;
}
