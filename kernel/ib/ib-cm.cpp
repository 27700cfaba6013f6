// kernel::ib — RDMA-CM ids, socket addresses and the CM event upcall.
#include "kernel/ib/cm.hpp"
#include <cxxrt/log.hpp>
#include <cxxrt/enforce.hpp>

namespace kernel::ib {

using cxxrt::Gfp;
using cxxrt::UniquePtr;
using cxxrt::to_result;

Result<SockAddr> SockAddr::from(const kapi_rdma_addr& addr)
{
    SockAddr result;
    int rc = kapi_rdma_addr_to_sockaddr(&addr, result.raw());
    if (rc < 0)
        return Error::from_errno(rc);
    return result;
}

Result<SockAddr> SockAddr::from_parts(u32 family, const u8 (&bytes)[16], u32 scope_id, u16 port)
{
    kapi_rdma_addr addr{};
    addr.family = family;
    addr.scope_id = scope_id;
    addr.port = port;
    cxxrt::copy_bytes(addr.bytes, bytes, sizeof(addr.bytes));
    return from(addr);
}

Result<SockAddr> SockAddr::any_ipv6(u16 port)
{
    const u8 unspecified[16] = {};
    return from_parts(KAPI_RDMA_AF_INET6, unspecified, 0, port);
}

Result<SockAddr> SockAddr::ipv4(const u8 (&bytes)[4], u16 port)
{
    u8 padded[16] = {};
    cxxrt::copy_bytes(padded, bytes, sizeof(bytes));
    return from_parts(KAPI_RDMA_AF_INET, padded, 0, port);
}

SockAddr SockAddr::copy_of(const sockaddr* address)
{
    SockAddr result;
    cxxrt::copy_bytes(result.storage_, address, sizeof(result.storage_));
    return result;
}

Result<kapi_rdma_addr> SockAddr::to_addr() const
{
    kapi_rdma_addr addr{};
    int rc = kapi_rdma_sockaddr_to_addr(raw(), &addr);
    if (rc < 0)
        return Error::from_errno(rc);
    return addr;
}

int CmEventHandler::on_connect_request(CmId&, IncomingConnection&, const CmEvent&)
{
    return -cxxrt::err::kConnRefused;
}

Result<UniquePtr<CmId>> CmId::create(Gfp gfp, CmEventHandler& handler, PortSpace space)
{
    auto id = CXXRT_TRY(cxxrt::make_unique<CmId>(gfp, Private{}, handler));
    int rc = 0;
    // The context is the C++ object, so it must exist first; no event can
    // arrive before the id is bound or resolving.
    id->raw_ = kapi_rdma_create_id(id.get(), int(space), &rc);
    if (!id->raw_)
        return Error::from_errno(rc);
    return id;
}

Result<UniquePtr<CmId>> CmId::adopt(Gfp gfp, IncomingConnection& incoming, CmEventHandler& handler)
{
    if (incoming.adopted_)
        return Error(cxxrt::err::kBusy);
    auto id = CXXRT_TRY(cxxrt::make_unique<CmId>(gfp, Private{}, handler));
    id->raw_ = incoming.raw_;
    kapi_rdma_set_context(id->raw_, id.get());
    incoming.adopted_ = id.get();
    id->adopting_ = &incoming;
    return id;
}

CmId::~CmId()
{
    // Freed inside the connect request handler that adopted it (a later
    // setup step failed): rdma_destroy_id would wait for that very handler.
    // Give the id back instead; the handler must then refuse the request,
    // and the CM destroys the id after it returns.
    if (adopting_) {
        adopting_->adopted_ = nullptr;
        adopting_->given_back_ = true;
        return;
    }
    if (raw_)
        kapi_rdma_destroy_id(raw_);
}

Result<void> CmId::bind(const SockAddr& addr)
{
    return to_result(kapi_rdma_bind_addr(raw_, const_cast<sockaddr*>(addr.raw())));
}

Result<void> CmId::listen(int backlog)
{
    return to_result(kapi_rdma_listen(raw_, backlog));
}

Result<void> CmId::resolve_addr(const SockAddr* source, const SockAddr& destination, int timeout_ms)
{
    sockaddr* src = source ? const_cast<sockaddr*>(source->raw()) : nullptr;
    return to_result(kapi_rdma_resolve_addr(raw_, src, const_cast<sockaddr*>(destination.raw()), timeout_ms));
}

Result<void> CmId::resolve_route(int timeout_ms)
{
    return to_result(kapi_rdma_resolve_route(raw_, (unsigned long)timeout_ms));
}

Result<void> CmId::connect(ConstByteSpan data, u8 retry_count, u8 rnr_retry_count)
{
    if (data.size() > kMaxConnectPrivateData)
        return Error(cxxrt::err::kMsgSize);
    return to_result(kapi_rdma_connect(raw_, data.data(), u8(data.size()), retry_count, rnr_retry_count));
}

Result<void> CmId::connect_from_handler(ConstByteSpan data, u8 retry_count, u8 rnr_retry_count)
{
    if (data.size() > kMaxConnectPrivateData)
        return Error(cxxrt::err::kMsgSize);
    return to_result(kapi_rdma_connect_locked(raw_, data.data(), u8(data.size()), retry_count, rnr_retry_count));
}

Result<void> CmId::accept(ConstByteSpan data, u8 rnr_retry_count)
{
    if (data.size() > kMaxAcceptPrivateData)
        return Error(cxxrt::err::kMsgSize);
    return to_result(kapi_rdma_accept(raw_, data.data(), u8(data.size()), rnr_retry_count));
}

Result<void> CmId::reject(ConstByteSpan data)
{
    if (data.size() > kMaxRejectPrivateData)
        return Error(cxxrt::err::kMsgSize);
    return to_result(kapi_rdma_reject(raw_, data.data(), u8(data.size())));
}

Result<void> IncomingConnection::reject(ConstByteSpan data) const
{
    if (data.size() > kMaxRejectPrivateData)
        return Error(cxxrt::err::kMsgSize);
    return to_result(kapi_rdma_reject(raw_, data.data(), u8(data.size())));
}

Result<void> CmId::disconnect()
{
    return to_result(kapi_rdma_disconnect(raw_));
}

int CmId::dispatch(void* context, rdma_cm_id* cm_id, const CmEvent& event)
{
    auto* id = static_cast<CmId*>(context);
    if (cm_id == id->raw_) {
        id->handler_->on_cm_event(*id, event);
        return 0;  // C++ owns the id: never let the CM destroy it
    }
    if (event.type != CmEventType::kConnectRequest) {
        // Only a connect request's new id can carry a context that is not
        // its own, and it is adopted or destroyed before this returns.
        cxxrt::log::warn_ratelimited("ib: CM event %s for an id nobody owns", event.name());
        return 0;
    }
    IncomingConnection incoming(cm_id);
    int rc = id->handler_->on_connect_request(*id, incoming, event);
    if (incoming.adopted_)
        incoming.adopted_->adopting_ = nullptr;
    if (rc == 0 && incoming.adopted_)
        return 0;
    if (incoming.adopted_)
        incoming.adopted_->raw_ = nullptr;  // the CM destroys it after we return
    if (rc == 0 && incoming.given_back_)
        cxxrt::log::warn_ratelimited("ib: a connect request was accepted but its id freed");
    return rc < 0 ? rc : -cxxrt::err::kConnRefused;
}

}  // namespace kernel::ib

// KAPI upcall: process context, the id's handler mutex held (kapi-rdma.h).
extern "C" int kernel_ib_cm_event(void* context, rdma_cm_id* cm_id, int event, int status, const void* private_data,
                                 unsigned int private_data_len) noexcept
{
    using namespace kernel::ib;
    auto type = CmEventType(event);
    bool carries_data = type == CmEventType::kConnectRequest || type == CmEventType::kEstablished ||
                        type == CmEventType::kRejected;
    if (!carries_data || !private_data)
        private_data_len = 0;
    CmEvent ev{type, status, ConstByteSpan(static_cast<const u8*>(private_data), private_data_len)};
    return CmId::dispatch(context, cm_id, ev);
}
