// RTRS message builders and validating decoders (see rtrs-codec.hpp).
#include "rtrs/core/rtrs-codec.hpp"

#include <cxxrt/bits.hpp>
#include <cxxrt/endian.hpp>
#include <cxxrt/errno.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/utility.hpp>

namespace rtrs::codec {

namespace {

namespace err = cxxrt::err;
using wire::MsgType;

// Copies a wire struct out of a byte buffer (any alignment). False when
// [offset, offset + sizeof(T)) is not inside the buffer.
template <typename T>
bool read_wire(ConstByteSpan in, size_t offset, T& out)
{
    if (!in.contains_range(offset, sizeof(T)))
        return false;
    cxxrt::copy_bytes(&out, in.data() + offset, sizeof(T));
    return true;
}

template <typename T>
void write_wire(ByteSpan out, size_t offset, const T& value)
{
    cxxrt::copy_bytes(out.data() + offset, &value, sizeof(T));
}

u16 peek_u16(ConstByteSpan in, size_t offset) { return cxxrt::load_le<u16>(in.data() + offset); }

void store_sg_entry(ByteSpan out, size_t offset, const SgEntry& e)
{
    wire::SgDesc d{};
    d.addr.set(e.addr);
    d.key.set(e.key);
    d.len.set(e.len);
    write_wire(out, offset, d);
}

bool version_supported(u16 packed) { return wire::version_major(packed) == wire::kVersionMajor; }

// The front of a fixed-size message's builder: room for all of it
// (-EMSGSIZE before any other check) ...
template <typename M>
Result<void> room_for(ByteSpan out)
{
    if (out.size() < sizeof(M))
        return Error(err::kMsgSize);
    return {};
}

// ... and its end: the message at the start of `out`, and its size.
template <typename M>
size_t emit(ByteSpan out, const M& m)
{
    write_wire(out, 0, m);
    return sizeof(M);
}

// CON_REQ and CON_RSP start with the magic and a version; they are read
// only whole, with the magic and our major version.
template <typename M>
M with_magic(u16 version)
{
    M m{};
    m.magic.set(wire::kMagic);
    m.version.set(version);
    return m;
}

template <typename M>
Result<M> read_with_magic(ConstByteSpan data)
{
    M m;
    if (!read_wire(data, 0, m))
        return Error(err::kBadMsg);
    if (m.magic.get() != wire::kMagic || !version_supported(m.version.get()))
        return Error(err::kProto);
    return m;
}

// The other messages start with their type; they are read only whole and
// of that type.
template <typename M>
M with_type(MsgType type)
{
    M m{};
    m.type.set(u16(type));
    return m;
}

template <typename M>
Result<M> read_with_type(ConstByteSpan data, MsgType type)
{
    M m;
    if (!read_wire(data, 0, m))
        return Error(err::kBadMsg);
    if (m.type.get() != u16(type))
        return Error(err::kProto);
    return m;
}

}  // namespace

SgEntry load_sg_entry(ConstByteSpan descs, size_t index)
{
    wire::SgDesc d{};
    SgEntry e;
    if (!read_wire(descs, index * sizeof(wire::SgDesc), d))
        return e;
    e.addr = d.addr.get();
    e.key = d.key.get();
    e.len = d.len.get();
    return e;
}

// ---------------------------------------------------------------------------
// CON_REQ / CON_RSP
// ---------------------------------------------------------------------------

Result<size_t> build_conn_req(ByteSpan out, const ConnReqFields& f)
{
    CXXRT_TRY(room_for<wire::ConnReq>(out));
    if (f.cid_num == 0 || f.cid >= f.cid_num || f.cid_num > wire::kMaxConnectionsPerPath)
        return Error(err::kInval);
    auto m = with_magic<wire::ConnReq>(f.version);
    m.cid.set(f.cid);
    m.cid_num.set(f.cid_num);
    m.recon_cnt.set(f.recon_cnt);
    m.sess_uuid = f.sess_uuid;
    m.paths_uuid = f.paths_uuid;
    m.flags = u8((f.first_conn ? wire::kConnReqFirstConnection : 0) | (f.key_after_data ? wire::kConnReqKeyAfterData : 0));
    return emit(out, m);
}

Result<ConnReqFields> decode_conn_req(ConstByteSpan data, const ConnReqLimits& limits)
{
    const auto m = CXXRT_TRY(read_with_magic<wire::ConnReq>(data));
    ConnReqFields f;
    f.version = m.version.get();
    f.cid = m.cid.get();
    f.cid_num = m.cid_num.get();
    f.recon_cnt = m.recon_cnt.get();
    f.sess_uuid = m.sess_uuid;
    f.paths_uuid = m.paths_uuid;
    f.first_conn = (m.flags & wire::kConnReqFirstConnection) != 0;
    f.key_after_data = (m.flags & wire::kConnReqKeyAfterData) != 0;
    if (f.cid_num == 0 || f.cid_num > limits.max_connections || f.cid >= f.cid_num)
        return Error(err::kInval);
    return f;
}

Result<size_t> build_conn_rsp(ByteSpan out, const ConnRspFields& f)
{
    CXXRT_TRY(room_for<wire::ConnRsp>(out));
    const u64 chunk = f.chunk_size();
    if (f.queue_depth == 0 || f.max_io_size == 0 || f.max_hdr_size == 0 || chunk > cxxrt::NumericLimits<u32>::max ||
        !wire::imm_can_address(f.queue_depth, u32(chunk)) || (f.flags & ~wire::kConnRspFlagsKnown) != 0)
        return Error(err::kInval);
    auto m = with_magic<wire::ConnRsp>(f.version);
    m.queue_depth.set(f.queue_depth);
    m.max_io_size.set(f.max_io_size);
    m.max_hdr_size.set(f.max_hdr_size);
    m.flags.set(f.flags);
    return emit(out, m);
}

Result<size_t> build_conn_reject(ByteSpan out, int negative_errno)
{
    CXXRT_TRY(room_for<wire::ConnRsp>(out));
    if (negative_errno >= 0 || negative_errno < -4095)
        return Error(err::kInval);
    auto m = with_magic<wire::ConnRsp>(wire::kVersion);
    m.errno_value.set(u16(negative_errno));
    return emit(out, m);
}

Result<ConnRspFields> decode_conn_rsp(ConstByteSpan data)
{
    const auto m = CXXRT_TRY(read_with_magic<wire::ConnRsp>(data));
    if (m.errno_value.get() != 0)
        return Error(err::kConnReset);
    ConnRspFields f;
    f.version = m.version.get();
    f.queue_depth = m.queue_depth.get();
    f.max_io_size = m.max_io_size.get();
    f.max_hdr_size = m.max_hdr_size.get();
    f.flags = m.flags.get();
    if ((f.flags & ~wire::kConnRspFlagsKnown) != 0)
        return Error(err::kProto);
    const u64 chunk = f.chunk_size();
    if (f.queue_depth == 0 || f.max_io_size == 0 || f.max_hdr_size == 0 || chunk > cxxrt::NumericLimits<u32>::max ||
        !wire::imm_can_address(f.queue_depth, u32(chunk)))
        return Error(err::kInval);
    return f;
}

Result<int> decode_conn_reject(ConstByteSpan data)
{
    wire::ConnRsp m;
    if (!read_wire(data, 0, m))
        return Error(err::kBadMsg);
    if (m.magic.get() != wire::kMagic)
        return Error(err::kProto);
    const int value = int(cxxrt::s16(m.errno_value.get()));
    if (value >= 0)
        return Error(err::kBadMsg);
    return value;
}

// ---------------------------------------------------------------------------
// INFO_REQ / INFO_RSP
// ---------------------------------------------------------------------------

Result<void> check_path_name(StringView name)
{
    if (name.is_empty())
        return Error(err::kInval);
    if (name.length() > wire::kMaxNameLength)
        return Error(err::kNameTooLong);
    // The name is printed in log lines and becomes a sysfs directory:
    // control characters (NUL, newline, escape, DEL) would forge log lines
    // or reach terminals.
    if (cxxrt::parse::has_control_character(name))
        return Error(err::kInval);
    for (size_t i = 0; i < name.length(); ++i) {
        const char c = name[i];
        if (c == '/' || c == '.')
            return Error(err::kInval);
    }
    return {};
}

Result<size_t> build_info_req(ByteSpan out, StringView pathname)
{
    CXXRT_TRY(room_for<wire::InfoReq>(out));
    CXXRT_TRY(check_path_name(pathname));
    auto m = with_type<wire::InfoReq>(MsgType::kInfoReq);
    cxxrt::copy_bytes(m.pathname, pathname.data(), pathname.length());
    return emit(out, m);
}

Result<InfoReqView> decode_info_req(ConstByteSpan data)
{
    if (data.size() < sizeof(wire::InfoReq))
        return Error(err::kBadMsg);
    if (peek_u16(data, __builtin_offsetof(wire::InfoReq, type)) != u16(MsgType::kInfoReq))
        return Error(err::kProto);
    const size_t at = __builtin_offsetof(wire::InfoReq, pathname);
    const char* name = reinterpret_cast<const char*>(data.data() + at);
    const size_t length = cxxrt::string_length(name, wire::kNameMax);
    if (length == wire::kNameMax)
        return Error(err::kNameTooLong);
    InfoReqView view{StringView(name, length)};
    CXXRT_TRY(check_path_name(view.pathname));
    return view;
}

Result<size_t> build_info_rsp(ByteSpan out, Span<const SgEntry> descs)
{
    if (descs.is_empty() || descs.size() > wire::kMaxQueueDepth)
        return Error(err::kInval);
    const u64 size = wire::info_rsp_size(descs.size());
    if (out.size() < size)
        return Error(err::kMsgSize);
    auto h = with_type<wire::InfoRspHeader>(MsgType::kInfoRsp);
    h.sg_cnt.set(u16(descs.size()));
    write_wire(out, 0, h);
    for (size_t i = 0; i < descs.size(); ++i)
        store_sg_entry(out, sizeof(h) + i * sizeof(wire::SgDesc), descs[i]);
    return size_t(size);
}

Result<InfoRspView> decode_info_rsp(ConstByteSpan data, const InfoRspLimits& limits)
{
    const auto h = CXXRT_TRY(read_with_type<wire::InfoRspHeader>(data, MsgType::kInfoRsp));
    const u16 sg_cnt = h.sg_cnt.get();
    if (sg_cnt == 0 || sg_cnt > limits.max_descs)
        return Error(err::kInval);
    if (data.size() < wire::info_rsp_size(sg_cnt))
        return Error(err::kBadMsg);
    if (limits.queue_depth == 0 || limits.chunk_size == 0 || limits.queue_depth % sg_cnt != 0)
        return Error(err::kInval);
    if (!wire::imm_can_address(sg_cnt, limits.chunk_size) ||
        !wire::imm_can_address(limits.queue_depth, limits.chunk_size))
        return Error(err::kInval);

    InfoRspView view;
    view.sg_cnt = sg_cnt;
    view.descs = data.slice(sizeof(h), size_t(sg_cnt) * sizeof(wire::SgDesc));
    u64 total = 0;
    for (size_t i = 0; i < sg_cnt; ++i) {
        const SgEntry e = view.desc(i);
        if (e.len == 0 || e.len % limits.chunk_size != 0)
            return Error(err::kInval);
        u64 end = 0;
        if (!cxxrt::checked_add<u64>(e.addr, e.len, end))
            return Error(err::kInval);
        total += e.len;  // at most 65535 * 2^32: no overflow in 64 bits
    }
    if (total != u64(limits.queue_depth) * limits.chunk_size)
        return Error(err::kInval);
    return view;
}

Result<SgEntry> info_rsp_chunk(const InfoRspView& view, u32 chunk_size, u32 chunk_id)
{
    if (chunk_size == 0)
        return Error(err::kInval);
    u64 skip = u64(chunk_id) * chunk_size;
    for (size_t i = 0; i < view.sg_cnt; ++i) {
        const SgEntry e = view.desc(i);
        if (skip < e.len) {
            SgEntry chunk;
            chunk.addr = e.addr + skip;
            chunk.key = e.key;
            chunk.len = chunk_size;
            return chunk;
        }
        skip -= e.len;
    }
    return Error(err::kInval);
}

// ---------------------------------------------------------------------------
// RKEY_RSP
// ---------------------------------------------------------------------------

Result<size_t> build_rkey_rsp(ByteSpan out, u16 buf_id, u32 rkey)
{
    CXXRT_TRY(room_for<wire::RkeyRsp>(out));
    auto m = with_type<wire::RkeyRsp>(MsgType::kRkeyRsp);
    m.buf_id.set(buf_id);
    m.rkey.set(rkey);
    return emit(out, m);
}

Result<RkeyRspView> decode_rkey_rsp(ConstByteSpan data, u32 queue_depth)
{
    const auto m = CXXRT_TRY(read_with_type<wire::RkeyRsp>(data, MsgType::kRkeyRsp));
    RkeyRspView view;
    view.buf_id = m.buf_id.get();
    view.rkey = m.rkey.get();
    if (view.buf_id >= queue_depth)
        return Error(err::kInval);
    return view;
}

// ---------------------------------------------------------------------------
// Chunk geometry and immediates
// ---------------------------------------------------------------------------

Result<ChunkGeometry> make_chunk_geometry(u32 queue_depth, u32 chunk_size)
{
    if (!wire::imm_can_address(queue_depth, chunk_size))
        return Error(err::kInval);
    ChunkGeometry g;
    g.queue_depth = queue_depth;
    g.chunk_size = chunk_size;
    g.offset_bits = wire::chunk_offset_bits(queue_depth);
    return g;
}

u32 imm_to_wire(u32 host_value) { return cxxrt::be32::from(host_value).raw(); }

u32 imm_from_wire(u32 wire_value)
{
    cxxrt::be32 w;
    cxxrt::copy_bytes(&w, &wire_value, sizeof(w));
    return w.get();
}

Result<Imm> decode_imm(u32 imm)
{
    const u32 type = wire::imm_type_bits(imm);
    if (!wire::is_known_imm_type(type))
        return Error(err::kProto);
    return Imm{wire::ImmType(type), wire::imm_payload(imm)};
}

namespace {
bool geometry_valid(const ChunkGeometry& g)
{
    return wire::imm_can_address(g.queue_depth, g.chunk_size) && g.offset_bits == wire::chunk_offset_bits(g.queue_depth);
}
}  // namespace

Result<u32> encode_io_request_imm(const ChunkGeometry& g, u32 chunk_id, u32 offset)
{
    if (!geometry_valid(g) || chunk_id >= g.queue_depth || offset >= g.chunk_size)
        return Error(err::kInval);
    return wire::make_imm(wire::ImmType::kIoRequest, wire::io_request_payload(g.queue_depth, chunk_id, offset));
}

Result<IoRequestImm> decode_io_request_imm(const ChunkGeometry& g, u32 imm)
{
    if (!geometry_valid(g))
        return Error(err::kInval);
    if (wire::imm_type_bits(imm) != u32(wire::ImmType::kIoRequest))
        return Error(err::kProto);
    const u32 payload = wire::imm_payload(imm);
    IoRequestImm r;
    r.chunk_id = wire::io_request_chunk_id(g.queue_depth, payload);
    r.offset = wire::io_request_offset(g.queue_depth, payload);
    if (r.chunk_id >= g.queue_depth || r.offset >= g.chunk_size)
        return Error(err::kInval);
    return r;
}

Result<u32> encode_io_response_imm(u32 msg_id, int err_value, bool invalidated)
{
    if (msg_id > wire::kIoRspIdMask || err_value > 0)
        return Error(err::kInval);
    if (err_value < -int(wire::kIoRspErrnoMask))
        err_value = -err::kIo;
    const auto type = invalidated ? wire::ImmType::kIoResponseInvalidate : wire::ImmType::kIoResponse;
    return wire::make_imm(type, wire::io_response_payload(msg_id, err_value));
}

Result<IoResponseImm> decode_io_response_imm(u32 imm, u32 queue_depth)
{
    const u32 type = wire::imm_type_bits(imm);
    if (type != u32(wire::ImmType::kIoResponse) && type != u32(wire::ImmType::kIoResponseInvalidate))
        return Error(err::kProto);
    const u32 payload = wire::imm_payload(imm);
    IoResponseImm r;
    r.msg_id = wire::io_response_msg_id(payload);
    r.err = wire::io_response_errno(payload);
    r.invalidated = type == u32(wire::ImmType::kIoResponseInvalidate);
    if (r.msg_id >= queue_depth)
        return Error(err::kInval);
    return r;
}

// ---------------------------------------------------------------------------
// READ / WRITE requests inside a chunk
// ---------------------------------------------------------------------------

namespace {
Result<IoPlan> plan(const ChunkGeometry& g, u32 data_len, u32 usr_len, u64 msg_len)
{
    if (!geometry_valid(g) || usr_len > cxxrt::NumericLimits<u16>::max)
        return Error(err::kInval);
    const u64 msg_offset = u64(data_len) + usr_len;
    const u64 total = msg_offset + msg_len;
    if (total > g.chunk_size)
        return Error(err::kMsgSize);
    IoPlan p;
    p.data_len = data_len;
    p.usr_len = usr_len;
    p.msg_offset = u32(msg_offset);
    p.msg_len = u32(msg_len);
    p.total = u32(total);
    return p;
}
}  // namespace

Result<IoPlan> plan_write(const ChunkGeometry& g, u32 data_len, u32 usr_len)
{
    return plan(g, data_len, usr_len, sizeof(wire::RdmaWrite));
}

Result<IoPlan> plan_read(const ChunkGeometry& g, u32 data_len, u32 usr_len, u32 sg_cnt)
{
    if (sg_cnt > cxxrt::NumericLimits<u16>::max)
        return Error(err::kInval);
    return plan(g, data_len, usr_len, wire::rdma_read_size(sg_cnt));
}

Result<size_t> build_rdma_write(ByteSpan out, u16 usr_len)
{
    CXXRT_TRY(room_for<wire::RdmaWrite>(out));
    auto m = with_type<wire::RdmaWrite>(MsgType::kWrite);
    m.usr_len.set(usr_len);
    return emit(out, m);
}

Result<size_t> build_rdma_read(ByteSpan out, u16 usr_len, u16 flags, Span<const SgEntry> descs)
{
    if (descs.size() > cxxrt::NumericLimits<u16>::max || (flags & ~wire::kReadFlagsKnown) != 0 ||
        ((flags & wire::kMsgFlagNeedInvalidate) != 0 && descs.is_empty()))
        return Error(err::kInval);
    const u64 size = wire::rdma_read_size(descs.size());
    if (out.size() < size)
        return Error(err::kMsgSize);
    auto h = with_type<wire::RdmaReadHeader>(MsgType::kRead);
    h.usr_len.set(usr_len);
    h.flags.set(flags);
    h.sg_cnt.set(u16(descs.size()));
    write_wire(out, 0, h);
    for (size_t i = 0; i < descs.size(); ++i)
        store_sg_entry(out, sizeof(h) + i * sizeof(wire::SgDesc), descs[i]);
    return size_t(size);
}

Result<IoRequest> decode_io_request(ConstByteSpan chunk, u32 offset, const IoLimits& limits)
{
    if (offset >= chunk.size() || limits.max_read_descs > kMaxReadDescs)
        return Error(err::kInval);
    // One fetch of the whole message (header and descriptors), then only the copy.
    struct {
        wire::RdmaReadHeader header;  // a WRITE uses its first two fields
        wire::SgDesc descs[kMaxReadDescs];
    } m;
    static_assert(sizeof(m.header) >= sizeof(wire::RdmaWrite) && sizeof(m) == 8 + 16 * kMaxReadDescs);
    // Only as many descriptors as the limit lets a READ carry (one on our
    // server): what is not fetched is never read below.
    const size_t wanted = sizeof(m.header) + size_t(limits.max_read_descs) * sizeof(wire::SgDesc);
    const size_t available = cxxrt::min(wanted, chunk.size() - offset);
    if (available < sizeof(wire::RdmaHeader))
        return Error(err::kBadMsg);
    cxxrt::fill_bytes(&m, 0, sizeof(m));
    cxxrt::fetch_once(&m, chunk.data() + offset, available);

    IoRequest request;
    request.offset = offset;
    const u16 type = m.header.type.get();
    if (type == u16(MsgType::kWrite)) {
        if (available < sizeof(wire::RdmaWrite))
            return Error(err::kBadMsg);
        request.type = MsgType::kWrite;
        request.usr_len = m.header.usr_len.get();
    } else if (type == u16(MsgType::kRead)) {
        if (available < sizeof(wire::RdmaReadHeader))
            return Error(err::kBadMsg);
        request.type = MsgType::kRead;
        request.usr_len = m.header.usr_len.get();
        request.flags = m.header.flags.get();
        request.sg_cnt = m.header.sg_cnt.get();
        if (request.sg_cnt > limits.max_read_descs)
            return Error(err::kInval);
        if (available < sizeof(m.header) + size_t(request.sg_cnt) * sizeof(wire::SgDesc))
            return Error(err::kBadMsg);
        if ((request.flags & ~wire::kReadFlagsKnown) != 0)
            return Error(err::kProto);
        if ((request.flags & wire::kMsgFlagNeedInvalidate) != 0 && request.sg_cnt == 0)
            return Error(err::kInval);
        for (size_t i = 0; i < request.sg_cnt; ++i) {
            const SgEntry entry{m.descs[i].addr.get(), m.descs[i].key.get(), m.descs[i].len.get()};
            if (entry.len == 0 || entry.len > chunk.size())
                return Error(err::kInval);
            request.descs[i] = entry;
        }
    } else {
        return Error(err::kProto);
    }
    if (request.usr_len > offset)
        return Error(err::kInval);
    request.data_len = offset - request.usr_len;
    request.data = chunk.slice(0, request.data_len);
    request.usr = chunk.slice(request.data_len, request.usr_len);
    return request;
}

}  // namespace rtrs::codec
