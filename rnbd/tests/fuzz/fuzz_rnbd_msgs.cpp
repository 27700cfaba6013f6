// libFuzzer target: every RNBD message decoder. Input: 1 byte of limits
// selection, 4 bytes data_len, then the user header.
#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rnbd/core/rnbd-codec.hpp"

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

bool is_power_of_two(u64 value) { return value != 0 && (value & (value - 1)) == 0; }

// The client's OPEN_RSP check (validate_open_rsp) against a model of the
// limits issue 7 requires before anything reaches the block layer: logical
// block size a power of two in 512..PAGE_SIZE, physical a power of two >=
// logical, segments and sectors non-zero (at least a page and a block per
// request), a size whose byte count fits loff_t, discard granularity a
// non-zero multiple of the block size when discard is offered, known
// cache-policy bits. Accepted answers keep every one of them.
void check_open_rsp_limits(const OpenRspFields& f, u32 page_size)
{
    auto valid = validate_open_rsp(f, page_size);
    const u64 lbs = f.logical_block_size, pbs = f.physical_block_size;
    bool expected = is_power_of_two(lbs) && lbs >= 512 && lbs <= page_size && is_power_of_two(pbs) && pbs >= lbs &&
                    f.max_segments != 0 && u64(f.max_hw_sectors) * 512 >= page_size &&
                    u64(f.max_hw_sectors) * 512 >= lbs && f.nsectors <= (u64(1) << 54) - 1;
    if (f.max_discard_sectors != 0)
        expected = expected && f.discard_granularity != 0 && f.discard_granularity % lbs == 0 &&
                   f.discard_alignment < f.discard_granularity;
    expected = expected && (f.cache_policy & ~wire::kCachePolicyKnown) == 0;
    FUZZ_CHECK(valid.is_ok() == expected);
    if (valid.is_error()) {
        FUZZ_CHECK(valid.to_errno() == -cxxrt::err::kInval || valid.to_errno() == -cxxrt::err::kProto);
        return;
    }
    FUZZ_CHECK(lbs <= page_size && lbs >= 512);
}

// An OPEN_RSP built from shaped fields (block sizes powers of two around
// the page size, small and huge counts), so the limits are reached far
// more often than from raw bytes; then decoded and checked as the client
// does.
void fuzz_open_rsp_fields(fuzz::Input& input)
{
    auto shaped = [&input](u32 limit) -> u32 {
        const u8 shape = input.take_u8();
        switch (shape % 4) {
        case 0: return 0;
        case 1: return 1u << (shape >> 2) % 32;
        case 2: return input.take_u8();
        default: return u32(input.take_u32() % (u64(limit) + 1));
        }
    };
    OpenRspFields f;
    f.device_id = input.take_u32();
    f.nsectors = input.take_bool() ? input.take_u64() : input.take_u32();
    f.max_hw_sectors = shaped(0xffffffffu);
    f.max_discard_sectors = shaped(0xffffffffu);
    f.discard_granularity = shaped(0xffffffffu);
    f.discard_alignment = shaped(0xffffffffu);
    f.physical_block_size = u16(shaped(0xffff));
    f.logical_block_size = u16(shaped(0xffff));
    f.max_segments = u16(shaped(0xffff));
    f.secure_discard = u16(input.take_u8() & 1);
    f.cache_policy = input.take_u8() & 7;
    const u32 page_size = input.take_bool() ? 65536 : 4096;
    unsigned char message[64] = {};
    auto built = build_open_rsp(ByteSpan(message, sizeof(message)), f);
    if (built.is_error())
        return;
    auto decoded = decode_open_rsp(ConstByteSpan(message, built.value()));
    if (decoded.is_ok())
        check_open_rsp_limits(decoded.value(), page_size);
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
        for (cxxrt::size_t i = 0; i < v.dev_name.length(); ++i)  // no control character
            FUZZ_CHECK(static_cast<unsigned char>(v.dev_name[i]) >= 0x20 && v.dev_name[i] != 0x7f);
        FUZZ_CHECK(v.dev_name.data() == reinterpret_cast<const char*>(in.data()) + 6);
        FUZZ_CHECK(build_open(ByteSpan(g_out, 264), v.access_mode, v.dev_name, v.io_mode).is_ok());
        FUZZ_CHECK(__builtin_memcmp(g_out, in.data(), 2) == 0 && g_out[4] == in[4]);
        FUZZ_CHECK(__builtin_memcmp(g_out + 6, in.data() + 6, v.dev_name.length() + 1) == 0);
        auto again = decode_open(ConstByteSpan(g_out, 264));
        FUZZ_CHECK(again.is_ok() && again.value().dev_name == v.dev_name && again.value().io_mode == v.io_mode);
    }
    if (auto r = decode_open_rsp(in)) {
        const OpenRspFields f = r.value();
        check_open_rsp_limits(f, (selector & 4) ? 65536 : 4096);
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
        FUZZ_CHECK(u32(f.op) < wire::kIoOpCount);
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
    if (size > 0 && data[0] == 0xff) {
        fuzz::Input input(data + 1, size - 1);
        fuzz_open_rsp_fields(input);
        return 0;
    }
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
