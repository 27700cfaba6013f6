// libFuzzer target: the rnbd-server's last check before an IO reaches the
// block layer, decode_io() followed by policy::check_io(), as the server
// runs them. Oracles, for every accepted IO:
//   - the byte range [sector * 512, sector * 512 + bi_size) ends at or
//     before the device's end, computed without wrapping (128 bits);
//   - nothing that changes data (write, discard, secure erase, or any op
//     other than read and flush) reaches a read-only mapping;
//   - a read arrived as an RTRS READ and a write as an RTRS WRITE;
//   - only the ops the server serves pass (never write-same or unknown);
//   - the priority is one a Linux task can have (class none with level 0,
//     or real-time, best-effort, idle with a level 0..7), and after
//     effective_ioprio() never real-time unless allowed;
//   - the range is aligned to the mapping's logical block size.
// check_io on its own is also compared with a model written from its
// documented contract, so it refuses exactly what it must and no more.
// Input: 1 byte mode, then fields (see take_* below).
#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rnbd/core/rnbd-srv-policy.hpp"

namespace {

using namespace rnbd;
using namespace cxxrt::integers;
using wire::IoOp;
namespace err = cxxrt::err;

using u128 = unsigned __int128;

// A device size the fuzzer steers: often tiny or near 2^64 sectors, where
// boundary bugs live, otherwise any value.
u64 take_device_sectors(fuzz::Input& input)
{
    const u8 shape = input.take_u8();
    const u64 raw = input.take_u64();
    switch (shape % 4) {
    case 0: return raw & 0xff;
    case 1: return ~u64(0) - (raw & 0xff);
    case 2: return (~u64(0) >> 9) - (raw & 0xff);
    default: return raw;
    }
}

u64 take_sector(fuzz::Input& input, u64 device_sectors)
{
    const u8 shape = input.take_u8();
    const u64 raw = input.take_u64();
    switch (shape % 3) {
    case 0: return device_sectors - (raw & 0xff);  // near the end, may wrap below 0
    case 1: return raw & 0xff;
    default: return raw;
    }
}

// A logical block size: usually a valid one (512..4096), sometimes anything.
u32 take_block_size(fuzz::Input& input)
{
    const u8 shape = input.take_u8();
    if (shape % 8 == 7)
        return input.take_u32();
    return 512u << (shape % 4);
}

// The mapping as check_io sees it.
rnbd::srv::policy::IoTarget make_target(u64 device_sectors, u32 block, bool read_only, u32 write_zeroes)
{
    rnbd::srv::policy::IoTarget target;
    target.max_write_zeroes_sectors = write_zeroes;
    target.sectors = device_sectors;
    target.logical_block_size = block;
    target.read_only = read_only;
    return target;
}

// A priority a Linux task can have (ioprio_check_cap, stricter for idle).
bool model_valid_prio(u16 prio)
{
    const unsigned klass = prio >> 13, level = prio & 0x1fff;
    return (klass == 0 && level == 0) || (klass >= 1 && klass <= 3 && level < 8);
}

bool model_valid_block(u32 block) { return block >= 512 && (block & (block - 1)) == 0; }

// The properties every accepted IO keeps, whatever produced it.
void check_accepted(const codec::IoFields& io, bool rtrs_read, u64 device_sectors, bool read_only, u32 block,
                    bool allow_realtime, u32 write_zeroes)
{
    if (io.op == IoOp::kWriteZeroes)
        FUZZ_CHECK(write_zeroes != 0 && io.bi_size / 512 <= write_zeroes);
    FUZZ_CHECK(model_valid_prio(io.prio));
    const u16 effective = rnbd::srv::policy::effective_ioprio(io.prio, allow_realtime);
    FUZZ_CHECK(model_valid_prio(effective));
    FUZZ_CHECK((effective & 0x1fff) == (io.prio & 0x1fff));
    if (!allow_realtime)
        FUZZ_CHECK((effective >> 13) != 1);
    else
        FUZZ_CHECK(effective == io.prio);
    FUZZ_CHECK(io.op == IoOp::kRead || io.op == IoOp::kWrite || io.op == IoOp::kFlush ||
               io.op == IoOp::kDiscard || io.op == IoOp::kSecureErase || io.op == IoOp::kWriteZeroes);
    if (io.op == IoOp::kRead)
        FUZZ_CHECK(rtrs_read);
    if (io.op == IoOp::kWrite)
        FUZZ_CHECK(!rtrs_read);
    if (read_only)
        FUZZ_CHECK(io.op == IoOp::kRead || io.op == IoOp::kFlush);
    if (io.op != IoOp::kFlush) {
        const u128 end_byte = u128(io.sector) * 512 + io.bi_size;
        FUZZ_CHECK(end_byte <= u128(device_sectors) * 512);
        FUZZ_CHECK(model_valid_block(block));
        FUZZ_CHECK(u128(io.sector) * 512 % block == 0 && io.bi_size % block == 0);
    }
}

// check_io's contract (rnbd-srv-policy.hpp), written independently.
int model_check_io(const codec::IoFields& io, bool rtrs_read, u64 device_sectors, bool read_only, u32 block,
                   u32 write_zeroes)
{
    if ((io.op == IoOp::kRead && !rtrs_read) || (io.op == IoOp::kWrite && rtrs_read))
        return -err::kInval;
    if (!model_valid_prio(io.prio))
        return -err::kInval;
    if (io.op != IoOp::kFlush && u128(io.sector) + (io.bi_size / 512) > u128(device_sectors))
        return -err::kRange;
    if (io.op != IoOp::kFlush &&
        (!model_valid_block(block) || u128(io.sector) * 512 % block != 0 || io.bi_size % block != 0))
        return -err::kInval;
    if (read_only && io.op != IoOp::kRead && io.op != IoOp::kFlush)
        return -rnbd::srv::policy::kErrRoFs;
    if (io.op == IoOp::kWriteZeroes && write_zeroes == 0)
        return -err::kOpNotSupp;
    if (io.op == IoOp::kWriteZeroes && io.bi_size / 512 > write_zeroes)
        return -err::kInval;
    return 0;
}

// check_io alone, on IOs of the shapes decode_io can hand it (a served op,
// bi_size a multiple of 512).
void fuzz_check_io(fuzz::Input& input)
{
    codec::IoFields io;
    io.op = IoOp(input.take_u8() % wire::kIoOpCount);
    const u64 device_sectors = take_device_sectors(input);
    io.sector = take_sector(input, device_sectors);
    io.bi_size = input.take_u32() & ~u32(511);
    io.flags = input.take_u32();
    io.prio = input.take_u16();
    const bool rtrs_read = input.take_bool();
    const bool read_only = input.take_bool();
    const u32 block = take_block_size(input);
    const bool allow_realtime = input.take_bool();
    const u32 write_zeroes = input.take_bool() ? input.take_u32() : 0;
    const int result =
        rnbd::srv::policy::check_io(io, rtrs_read, make_target(device_sectors, block, read_only, write_zeroes));
    FUZZ_CHECK(result == model_check_io(io, rtrs_read, device_sectors, read_only, block, write_zeroes));
    if (result == 0)
        check_accepted(io, rtrs_read, device_sectors, read_only, block, allow_realtime, write_zeroes);
}

// The server's pipeline on a message: decode with the session's limits,
// then check against the mapping. The message is either raw fuzzer bytes
// or built from fuzzed fields (which reaches the deep checks more often).
void fuzz_pipeline(fuzz::Input& input, bool raw)
{
    const u64 device_sectors = take_device_sectors(input);
    const bool rtrs_read = input.take_bool();
    const bool read_only = input.take_bool();
    const u32 block = take_block_size(input);
    const bool allow_realtime = input.take_bool();
    const u32 write_zeroes = input.take_bool() ? input.take_u32() : 0;
    codec::IoLimits limits;
    limits.max_io_size = (input.take_bool() ? 1u << 20 : 0xffffffffu);
    limits.session_ver = input.take_bool() ? 1 : wire::kVersionMajor;
    // The codec's own range check is optional (0 = not checked): the
    // server's verdict must not depend on it.
    limits.device_sectors = input.take_bool() ? device_sectors : 0;
    limits.data_len = input.take_u32();

    unsigned char message[sizeof(wire::IoMsg)] = {};
    cxxrt::ConstByteSpan bytes;
    if (raw) {
        bytes = input.take_rest();
    } else {
        codec::IoFields fields;
        fields.device_id = input.take_u32();
        fields.op = IoOp(input.take_u8() % wire::kIoOpCount);
        fields.flags = input.take_bool() ? (input.take_u32() & ~wire::kOpMask) : 0;
        fields.sector = take_sector(input, device_sectors);
        fields.bi_size = input.take_u32();
        if (input.take_bool())
            fields.bi_size &= ~u32(511);
        fields.prio = input.take_u16();
        if (input.take_bool())
            limits.data_len = fields.bi_size;
        auto built = codec::build_io(cxxrt::ByteSpan(message, sizeof(message)), fields);
        if (built.is_error())
            return;
        bytes = cxxrt::ConstByteSpan(message, built.value());
    }
    auto decoded = codec::decode_io(bytes, limits);
    if (decoded.is_error())
        return;
    const codec::IoFields& io = decoded.value();
    const int result =
        rnbd::srv::policy::check_io(io, rtrs_read, make_target(device_sectors, block, read_only, write_zeroes));
    FUZZ_CHECK(result == 0 || result == -err::kInval || result == -err::kRange ||
               result == -rnbd::srv::policy::kErrRoFs || result == -err::kOpNotSupp);
    if (result == 0)
        check_accepted(io, rtrs_read, device_sectors, read_only, block, allow_realtime, write_zeroes);
}

}  // namespace

FUZZ_TARGET(data, size)
{
    fuzz::Input input(data, size);
    switch (input.take_u8() % 3) {
    case 0:
        fuzz_check_io(input);
        break;
    case 1:
        fuzz_pipeline(input, false);
        break;
    default:
        fuzz_pipeline(input, true);
        break;
    }
    return 0;
}
