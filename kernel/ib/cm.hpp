// kernel::ib — RDMA-CM: connection identifiers and their events.
//
// A CmId owns one rdma_cm_id. Its events go to a CmEventHandler (a control
// plane interface, so virtual is fine). Threading and lifetime rules, which
// come from the RDMA CM itself:
//   - Handlers run in process context on the CM's work queues, one event at
//     a time per id, with the id's handler mutex held. They may sleep,
//     allocate with Gfp::kernel(), create QPs, accept, reject and connect
//     (connect_from_handler), post work requests.
//   - A handler must never destroy the CmId it is called for (rdma_destroy_id
//     waits for the running handler: deadlock). Hand the teardown to a work
//     item or to the thread that owns the object.
//   - After DEVICE_REMOVAL the CM waits until every id on the device is
//     destroyed: the owner must destroy the id (and the QP, CQ, PD, MRs on
//     that device) soon, from another context.
// C++ always owns its ids: the upcall never asks the CM to destroy an id
// that a CmId holds. The one exception is a connect request that is refused
// (see CmEventHandler::on_connect_request).
#pragma once

#include <cxxrt/new.hpp>
#include <cxxrt/unique_ptr.hpp>
#include "kernel/ib/ib.hpp"

namespace kernel::ib {

class CmId;

enum class CmEventType : int {
    kAddrResolved = KABI_RDMA_CM_EVENT_ADDR_RESOLVED,
    kAddrError = KABI_RDMA_CM_EVENT_ADDR_ERROR,
    kRouteResolved = KABI_RDMA_CM_EVENT_ROUTE_RESOLVED,
    kRouteError = KABI_RDMA_CM_EVENT_ROUTE_ERROR,
    kConnectRequest = KABI_RDMA_CM_EVENT_CONNECT_REQUEST,
    kConnectResponse = KABI_RDMA_CM_EVENT_CONNECT_RESPONSE,
    kConnectError = KABI_RDMA_CM_EVENT_CONNECT_ERROR,
    kUnreachable = KABI_RDMA_CM_EVENT_UNREACHABLE,
    kRejected = KABI_RDMA_CM_EVENT_REJECTED,
    kEstablished = KABI_RDMA_CM_EVENT_ESTABLISHED,
    kDisconnected = KABI_RDMA_CM_EVENT_DISCONNECTED,
    kDeviceRemoval = KABI_RDMA_CM_EVENT_DEVICE_REMOVAL,
    kAddrChange = KABI_RDMA_CM_EVENT_ADDR_CHANGE,
    kTimewaitExit = KABI_RDMA_CM_EVENT_TIMEWAIT_EXIT,
};

struct CmEvent {
    CmEventType type;
    // Negative errno for most errors; for kRejected the IB CM reject reason
    // (positive; 28 = IB_CM_REJ_CONSUMER_DEFINED), see reject_reason_text().
    int status;
    // The peer's private data: connect request (up to 56 bytes used by the
    // peer, the span may be longer, zero padded), established (the accept's,
    // up to 196), rejected (only a consumer-defined reject carries any).
    // Empty for other events. Valid only during the handler call.
    ConstByteSpan private_data;

    const char* name() const { return kapi_rdma_event_msg(int(type)); }
};

// The new cm_id of a connect request, before C++ owns it. Valid only during
// on_connect_request().
class IncomingConnection : cxxrt::Pinned {
public:
    explicit IncomingConnection(rdma_cm_id* raw) : raw_(raw) {}
    Device device() const { return Device(kapi_rdma_cm_id_device(raw_)); }
    u32 port() const { return kapi_rdma_cm_id_port(raw_); }
    // This side's and the peer's address of the request.
    SockAddr source_address() const { return SockAddr::copy_of(kapi_rdma_cm_id_src_sockaddr(raw_)); }
    SockAddr destination_address() const { return SockAddr::copy_of(kapi_rdma_cm_id_dst_sockaddr(raw_)); }
    bool adopted() const { return adopted_ != nullptr; }
    // Refuses the request without adopting it (IB_CM_REJ_CONSUMER_DEFINED
    // with private data, at most kMaxRejectPrivateData); then return an
    // error from on_connect_request so the CM destroys the id.
    Result<void> reject(ConstByteSpan private_data) const;

private:
    friend class CmId;
    rdma_cm_id* raw_;
    CmId* adopted_ = nullptr;
    bool given_back_ = false;  // adopted, then freed inside the handler
};

class CmEventHandler {
public:
    // Every event of an id that C++ owns. Process context, may sleep, the
    // id's handler mutex held (see the file comment).
    virtual void on_cm_event(CmId& id, const CmEvent& event) = 0;

    // A connect request on a listener. To take the connection: CmId::adopt()
    // the incoming id (giving it its own handler), create its QP, accept()
    // it, and return 0. To refuse: reject() or not, and return a negative
    // errno; the CM then destroys the new id after the return, and if it was
    // adopted, that CmId is left inert (raw() == nullptr): free it whenever.
    // The default refuses every request.
    virtual int on_connect_request(CmId& listener, IncomingConnection& incoming, const CmEvent& event);

protected:
    ~CmEventHandler() = default;
};

class CmId final : cxxrt::Pinned {
    struct Private {};

public:
    enum class PortSpace : int { kTcp = KABI_RDMA_PS_TCP, kIb = KABI_RDMA_PS_IB };

    // A new id (RC). Process context.
    static Result<cxxrt::UniquePtr<CmId>> create(cxxrt::Gfp gfp, CmEventHandler& handler,
                                                 PortSpace space = PortSpace::kTcp);
    // Takes ownership of a connect request's id; events now go to handler.
    // Only from on_connect_request().
    static Result<cxxrt::UniquePtr<CmId>> adopt(cxxrt::Gfp gfp, IncomingConnection& incoming,
                                                CmEventHandler& handler);

    CmId(Private, CmEventHandler& handler) : handler_(&handler) {}
    // rdma_destroy_id: process context, never from this id's own handler.
    // Destroy the QueuePair first.
    ~CmId();

    // Server side: bind then listen (process context).
    Result<void> bind(const SockAddr& addr);
    Result<void> listen(int backlog);
    // Client side, asynchronous: kAddrResolved/kAddrError, then
    // resolve_route (usually from the handler): kRouteResolved/kRouteError.
    Result<void> resolve_addr(const SockAddr* source, const SockAddr& destination, int timeout_ms);
    Result<void> resolve_route(int timeout_ms);
    // Connect with private data (at most kMaxConnectPrivateData). Use
    // connect_from_handler inside this id's handler (on kRouteResolved, as
    // RTRS does), connect() anywhere else. Ends in kEstablished, kRejected,
    // kUnreachable or kConnectError.
    Result<void> connect(ConstByteSpan private_data, u8 retry_count, u8 rnr_retry_count);
    Result<void> connect_from_handler(ConstByteSpan private_data, u8 retry_count, u8 rnr_retry_count);
    // Accept/reject a connect request, from on_connect_request() (the
    // handler mutex is held there). The QP must exist before accept.
    Result<void> accept(ConstByteSpan private_data, u8 rnr_retry_count);
    // The QP's local ACK timeout (4.096 us * 2^timeout); before accept/connect.
    Result<void> set_ack_timeout(u8 timeout) { return cxxrt::to_result(kapi_rdma_set_ack_timeout(raw_, timeout)); }
    Result<void> reject(ConstByteSpan private_data);
    // The QP goes to the error state (posted WRs flush) and a DREQ goes out.
    // The side that receives kDisconnected must answer with its own
    // disconnect() (it sends the DREP): only then does the initiator get its
    // kDisconnected at once (else when the DREQ times out, tens of seconds
    // on rxe). Process context; allowed inside the id's own handler.
    Result<void> disconnect();

    Device device() const { return Device(kapi_rdma_cm_id_device(raw_)); }
    u32 port() const { return kapi_rdma_cm_id_port(raw_); }
    SockAddr source_address() const { return SockAddr::copy_of(kapi_rdma_cm_id_src_sockaddr(raw_)); }
    SockAddr destination_address() const { return SockAddr::copy_of(kapi_rdma_cm_id_dst_sockaddr(raw_)); }
    const char* reject_reason_text(int status) const { return kapi_rdma_reject_msg(raw_, status); }
    rdma_cm_id* raw() const { return raw_; }
    CmEventHandler& handler() const { return *handler_; }

    // The C upcall lands here (kernel_ib_cm_event).
    static int dispatch(void* context, rdma_cm_id* cm_id, const CmEvent& event);

private:
    rdma_cm_id* raw_ = nullptr;
    CmEventHandler* handler_;
    // Set while the connect request handler that adopted it runs.
    IncomingConnection* adopting_ = nullptr;
};

}  // namespace kernel::ib
