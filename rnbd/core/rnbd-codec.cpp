// RNBD message builders and validating decoders (see rnbd-codec.hpp).
#include "rnbd/core/rnbd-codec.hpp"

#include <cxxrt/bits.hpp>
#include <cxxrt/endian.hpp>
#include <cxxrt/errno.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/utility.hpp>

namespace rnbd::codec {

namespace {

namespace err = cxxrt::err;
using wire::MsgType;

template <typename T>
bool read_wire(ConstByteSpan in, T& out)
{
    if (in.size() < sizeof(T))
        return false;
    cxxrt::copy_bytes(&out, in.data(), sizeof(T));
    return true;
}

template <typename T>
Result<size_t> emit(ByteSpan out, const T& value)
{
    if (out.size() < sizeof(T))
        return Error(err::kMsgSize);
    cxxrt::copy_bytes(out.data(), &value, sizeof(T));
    return sizeof(T);
}

wire::MsgHdr header(MsgType type)
{
    wire::MsgHdr h{};
    h.type.set(u16(type));
    return h;
}

// Shared front part of every decoder: length and type.
Result<void> expect(ConstByteSpan data, size_t min_size, MsgType type)
{
    if (data.size() < min_size)
        return Error(err::kBadMsg);
    if (cxxrt::load_le<u16>(data.data()) != u16(type))
        return Error(err::kProto);
    return {};
}

}  // namespace

Result<wire::MsgType> decode_type(ConstByteSpan data)
{
    if (data.size() < sizeof(wire::MsgHdr))
        return Error(err::kBadMsg);
    const u16 type = cxxrt::load_le<u16>(data.data());
    if (type >= wire::kMsgTypeCount)
        return Error(err::kProto);
    return MsgType(type);
}

// --- SESS_INFO / SESS_INFO_RSP --------------------------------------------------

namespace {

// Both carry one thing: a major version, never 0 (reserved bytes zero).
template <typename Msg>
Result<size_t> build_version(ByteSpan out, MsgType type, u8 ver)
{
    if (ver == 0)
        return Error(err::kInval);
    Msg m{};
    m.hdr = header(type);
    m.ver = ver;
    return emit(out, m);
}

template <typename Msg>
Result<u8> decode_version(ConstByteSpan data, MsgType type)
{
    CXXRT_TRY(expect(data, sizeof(Msg), type));
    Msg m;
    read_wire(data, m);
    if (m.ver == 0)
        return Error(err::kProto);
    return u8(m.ver);
}

}  // namespace

Result<size_t> build_sess_info(ByteSpan out, u8 ver)
{
    return build_version<wire::SessInfoMsg>(out, MsgType::kSessInfo, ver);
}

Result<SessInfoView> decode_sess_info(ConstByteSpan data)
{
    const u8 ver = CXXRT_TRY(decode_version<wire::SessInfoMsg>(data, MsgType::kSessInfo));
    SessInfoView v;
    v.ver = ver;
    v.negotiated = cxxrt::min(ver, wire::kVersionMajor);
    return v;
}

Result<size_t> build_sess_info_rsp(ByteSpan out, u8 ver)
{
    return build_version<wire::SessInfoRspMsg>(out, MsgType::kSessInfoRsp, ver);
}

Result<u8> decode_sess_info_rsp(ConstByteSpan data, u8 our_ver)
{
    const u8 ver = CXXRT_TRY(decode_version<wire::SessInfoRspMsg>(data, MsgType::kSessInfoRsp));
    if (ver > our_ver)
        return Error(err::kProto);
    return ver;
}

// --- OPEN -----------------------------------------------------------------------

Result<void> check_device_path(StringView path)
{
    if (path.is_empty())
        return Error(err::kInval);
    if (path.length() >= wire::kNameMax)
        return Error(err::kNameTooLong);
    // The path is logged and names the device's sysfs directory: no
    // control characters (NUL included).
    if (cxxrt::parse::has_control_character(path))
        return Error(err::kInval);
    size_t start = 0;
    while (start <= path.length()) {
        StringView rest = path.substring(start);
        const size_t slash = rest.find('/');
        const StringView component = rest.substring(0, slash);
        if (component == StringView("..", 2))
            return Error(err::kInval);
        start += slash + 1;
    }
    return {};
}

wire::IoMode io_mode_from_wire(u8 value)
{
    if (value == u8(wire::IoMode::kBlockIo) || value == u8(wire::IoMode::kFileIo))
        return wire::IoMode(value);
    return wire::IoMode::kUnspecified;
}

Result<size_t> build_open(ByteSpan out, wire::AccessMode access_mode, StringView dev_name, wire::IoMode io_mode)
{
    if (u8(access_mode) >= wire::kAccessModeCount || u8(io_mode) > u8(wire::IoMode::kFileIo))
        return Error(err::kInval);
    CXXRT_TRY(check_device_path(dev_name));
    wire::OpenMsg m{};
    m.hdr = header(MsgType::kOpen);
    m.access_mode = u8(access_mode);
    m.io_mode = u8(io_mode);
    cxxrt::copy_bytes(m.dev_name, dev_name.data(), dev_name.length());
    return emit(out, m);
}

Result<OpenView> decode_open(ConstByteSpan data)
{
    CXXRT_TRY(expect(data, sizeof(wire::OpenMsg), MsgType::kOpen));
    const u8 access = data[__builtin_offsetof(wire::OpenMsg, access_mode)];
    if (access >= wire::kAccessModeCount)
        return Error(err::kInval);
    const char* name = reinterpret_cast<const char*>(data.data() + __builtin_offsetof(wire::OpenMsg, dev_name));
    const size_t length = cxxrt::string_length(name, wire::kNameMax);
    if (length == wire::kNameMax)
        return Error(err::kNameTooLong);
    OpenView v;
    v.access_mode = wire::AccessMode(access);
    v.io_mode = io_mode_from_wire(data[__builtin_offsetof(wire::OpenMsg, io_mode)]);
    v.dev_name = StringView(name, length);
    CXXRT_TRY(check_device_path(v.dev_name));
    return v;
}

// --- OPEN_RSP -----------------------------------------------------------------

namespace {
Result<void> check_open_rsp(const OpenRspFields& f)
{
    const u32 lbs = f.logical_block_size;
    const u32 pbs = f.physical_block_size;
    if (lbs < wire::kSectorSize || !cxxrt::is_power_of_two(lbs))
        return Error(err::kInval);
    if (pbs < lbs || !cxxrt::is_power_of_two(pbs))
        return Error(err::kInval);
    if (f.max_hw_sectors == 0 || f.max_segments == 0)
        return Error(err::kInval);
    if (f.nsectors > (cxxrt::NumericLimits<u64>::max >> wire::kSectorShift))
        return Error(err::kRange);
    if ((f.cache_policy & ~wire::kCachePolicyKnown) != 0)
        return Error(err::kProto);
    return {};
}
}  // namespace

Result<size_t> build_open_rsp(ByteSpan out, const OpenRspFields& f)
{
    CXXRT_TRY(check_open_rsp(f));
    wire::OpenRspMsg m{};
    m.hdr = header(MsgType::kOpenRsp);
    m.device_id.set(f.device_id);
    m.nsectors.set(f.nsectors);
    m.max_hw_sectors.set(f.max_hw_sectors);
    m.max_write_zeroes_sectors.set(f.max_write_zeroes_sectors);
    m.max_discard_sectors.set(f.max_discard_sectors);
    m.discard_granularity.set(f.discard_granularity);
    m.discard_alignment.set(f.discard_alignment);
    m.physical_block_size.set(f.physical_block_size);
    m.logical_block_size.set(f.logical_block_size);
    m.max_segments.set(f.max_segments);
    m.secure_discard.set(f.secure_discard);
    m.cache_policy = f.cache_policy;
    return emit(out, m);
}

Result<OpenRspFields> decode_open_rsp(ConstByteSpan data)
{
    CXXRT_TRY(expect(data, sizeof(wire::OpenRspMsg), MsgType::kOpenRsp));
    wire::OpenRspMsg m;
    read_wire(data, m);
    OpenRspFields f;
    f.device_id = m.device_id.get();
    f.nsectors = m.nsectors.get();
    f.max_hw_sectors = m.max_hw_sectors.get();
    f.max_write_zeroes_sectors = m.max_write_zeroes_sectors.get();
    f.max_discard_sectors = m.max_discard_sectors.get();
    f.discard_granularity = m.discard_granularity.get();
    f.discard_alignment = m.discard_alignment.get();
    f.physical_block_size = m.physical_block_size.get();
    f.logical_block_size = m.logical_block_size.get();
    f.max_segments = m.max_segments.get();
    f.secure_discard = m.secure_discard.get();
    f.cache_policy = m.cache_policy;
    CXXRT_TRY(check_open_rsp(f));
    return f;
}

Result<void> validate_open_rsp(const OpenRspFields& f, u32 page_size)
{
    const u32 lbs = f.logical_block_size;
    const u32 pbs = f.physical_block_size;
    if (lbs < wire::kSectorSize || lbs > page_size || !cxxrt::is_power_of_two(lbs))
        return Error(err::kInval);
    if (pbs < lbs || !cxxrt::is_power_of_two(pbs))
        return Error(err::kInval);
    if (f.max_segments == 0 || f.max_hw_sectors == 0 || u64(f.max_hw_sectors) * wire::kSectorSize < page_size ||
        u64(f.max_hw_sectors) * wire::kSectorSize < lbs)
        return Error(err::kInval);
    constexpr u64 kMaxBytes = u64(cxxrt::NumericLimits<cxxrt::s64>::max);
    if (f.nsectors > (kMaxBytes >> wire::kSectorShift))
        return Error(err::kInval);
    if (f.max_discard_sectors != 0) {
        if (f.discard_granularity == 0 || f.discard_granularity % lbs != 0 ||
            f.discard_alignment >= f.discard_granularity)
            return Error(err::kInval);
    }
    if ((f.cache_policy & ~wire::kCachePolicyKnown) != 0)
        return Error(err::kProto);
    return {};
}

// --- CLOSE ----------------------------------------------------------------------

Result<size_t> build_close(ByteSpan out, u32 device_id)
{
    wire::CloseMsg m{};
    m.hdr = header(MsgType::kClose);
    m.device_id.set(device_id);
    return emit(out, m);
}

Result<u32> decode_close(ConstByteSpan data)
{
    CXXRT_TRY(expect(data, sizeof(wire::CloseMsg), MsgType::kClose));
    wire::CloseMsg m;
    read_wire(data, m);
    return m.device_id.get();
}

// --- IO -------------------------------------------------------------------------

Result<size_t> build_io(ByteSpan out, const IoFields& f)
{
    if (u32(f.op) >= wire::kIoOpCount || (f.flags & ~wire::kIoFlagsKnown) != 0)
        return Error(err::kInval);
    wire::IoMsg m{};
    m.hdr = header(MsgType::kIo);
    m.device_id.set(f.device_id);
    m.sector.set(f.sector);
    m.rw.set(wire::make_rw(f.op, f.flags));
    m.bi_size.set(f.bi_size);
    m.prio.set(f.prio);
    return emit(out, m);
}

Result<IoFields> decode_io(ConstByteSpan data, const IoLimits& limits)
{
    CXXRT_TRY(expect(data, wire::kIoMsgV1Size, MsgType::kIo));
    // A version-1 peer sends the message without prio: copy what is there.
    wire::IoMsg m{};
    cxxrt::copy_bytes(&m, data.data(), cxxrt::min<size_t>(data.size(), sizeof(m)));

    IoFields f;
    f.device_id = m.device_id.get();
    f.sector = m.sector.get();
    f.bi_size = m.bi_size.get();
    const u32 rw = m.rw.get();
    const u32 op = wire::rw_op(rw);
    f.flags = wire::rw_flags(rw);
    if (op >= wire::kIoOpCount || (f.flags & ~wire::kIoFlagsKnown) != 0)
        return Error(err::kProto);
    f.op = wire::IoOp(op);
    if (data.size() >= sizeof(wire::IoMsg) && limits.session_ver >= wire::kVersionMajor)
        f.prio = m.prio.get();

    if (f.bi_size % wire::kSectorSize != 0)
        return Error(err::kInval);
    switch (f.op) {
    case wire::IoOp::kRead:
    case wire::IoOp::kWrite:
        if (f.bi_size == 0 || f.bi_size != limits.data_len || f.bi_size > limits.max_io_size)
            return Error(err::kInval);
        break;
    case wire::IoOp::kDiscard:
    case wire::IoOp::kSecureErase:
    case wire::IoOp::kWriteZeroes:
        if (f.bi_size == 0 || limits.data_len != 0)
            return Error(err::kInval);
        break;
    case wire::IoOp::kFlush:
        if (f.bi_size != 0 || limits.data_len != 0)
            return Error(err::kInval);
        return f;
    default:
        return Error(err::kProto);
    }

    u64 end = 0;
    if (!cxxrt::checked_add<u64>(f.sector, f.bi_size >> wire::kSectorShift, end) ||
        end > (cxxrt::NumericLimits<u64>::max >> wire::kSectorShift))
        return Error(err::kRange);
    if (limits.device_sectors != 0 && end > limits.device_sectors)
        return Error(err::kRange);
    return f;
}

}  // namespace rnbd::codec
