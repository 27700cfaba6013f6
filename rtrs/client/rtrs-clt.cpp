// rtrs-client: module lifecycle and the exported C API: the rtrs_client_*
// functions of include/rtrs/rtrs-api.h are defined here (rtrs-clt-export.c
// exports them, and wraps open and close in the module reference).
#include <cxxrt/foreign.hpp>
#include <cxxrt/log.hpp>
#include <cxxrt/module-api.h>
#include "rtrs/client/rtrs-clt-upcalls.h"
#include "rtrs/client/rtrs-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::clt {

namespace {
// Created at module init, destroyed at exit; sessions keep the module
// pinned, so it outlives every path that queues work on it.
constinit cxxrt::Workqueue* g_workqueue = nullptr;
constinit SessionNames* g_session_names = nullptr;
}  // namespace

constinit Faults g_faults = {};
constinit u32 g_read_slots = 0;
constinit Counters g_counters = {};

cxxrt::Workqueue& workqueue() { return *g_workqueue; }
SessionNames& session_names() { return *g_session_names; }
u64 now_ns() { return cxxrt::monotonic_ns(); }

}  // namespace rtrs::clt

using namespace rtrs::clt;

// The handles of include/rtrs/rtrs-api.h are the objects' addresses.
CXXRT_FOREIGN_HANDLE(rtrs_client_session, rtrs::clt::Session);
CXXRT_FOREIGN_HANDLE(rtrs_client_permit, rtrs::clt::Permit);
using cxxrt::from_handle;
using cxxrt::to_handle;

namespace {

// Module unload, and a load that failed half-way: each step undoes only
// what exists (null globals are skipped), in the reverse order of init.
void unload()
{
    rtrs::SysfsTree::exit();
    cxxrt::destroy(cxxrt::exchange(g_session_names, nullptr));
    cxxrt::destroy(cxxrt::exchange(g_workqueue, nullptr));
    (void)cxxrt_module_exit();
}

}  // namespace

extern "C" int rtrs_clt_cxx_init(int read_slots) noexcept
{
    if (read_slots < 0 || u32(read_slots) > ReadSlots::kMaxSlots)
        return -cxxrt::err::kInval;
    g_read_slots = u32(read_slots);
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    // Reclaim-safe: block IO (rnbd) may depend on a reconnect finishing.
    auto queue = cxxrt::Workqueue::create("rtrs_client_wq", cxxrt::wq::kMemReclaim);
    auto holder = queue ? cxxrt::make_unique<cxxrt::Workqueue>(cxxrt::Gfp::kernel(), queue.release_value())
                        : cxxrt::Result<cxxrt::UniquePtr<cxxrt::Workqueue>>(cxxrt::Error(cxxrt::err::kNoMem));
    if (!holder) {
        unload();
        return holder.to_errno();
    }
    g_workqueue = holder.value().release();
    g_session_names = cxxrt::allocate<SessionNames>(cxxrt::Gfp::kernel());
    if (!g_session_names) {
        unload();
        return -cxxrt::err::kNoMem;
    }
    // /sys/kernel/debug/rtrs_client/: the fault knobs (struct Faults) and the
    // request counters (struct Counters, read-only use).
    const cxxrt::debugfs::File files[] = {
        {"fault_drop_heartbeats", &g_faults.drop_heartbeats},
        {"fault_drop_heartbeat_acks", &g_faults.drop_heartbeat_acks},
        {"fault_qp_error", &g_faults.qp_error},
        {"fault_delay_ms", &g_faults.delay_ms},
        {"fault_delay_paths", &g_faults.delay_paths},
        {"fault_drop_responses", &g_faults.drop_responses},
        {"fault_inv_post_fail", &g_faults.inv_post_fail},
        {"fault_inv_bad_key", &g_faults.inv_bad_key},
        {"fault_inv_flush", &g_faults.inv_flush},
        {"fault_id_delay_ms", &g_faults.id_delay_ms},
        {"fault_ack_timeout", &g_faults.ack_timeout},
        {"submitted", &g_counters.submitted},
        {"failovers", &g_counters.failovers},
        {"failover_errors", &g_counters.failover_errors},
    };
    cxxrt::debugfs::create_files(cxxrt_module_debugfs_dir(), files);
    auto tree = sysfs_init();
    if (!tree) {
        unload();
        return tree.to_errno();
    }
    cxxrt::log::info("loaded, RTRS protocol %u.%u", rtrs::wire::kVersionMajor,
                     rtrs::wire::kVersionMinor);
    return 0;
}

extern "C" void rtrs_clt_cxx_exit(void) noexcept
{
    unload();
    cxxrt::log::info("unloaded");
}

extern "C" rtrs_client_session* rtrs_clt_cxx_open(const rtrs_client_callbacks* callbacks,
                                                  const rtrs_client_open_params* params) noexcept
{
    if (!callbacks || !params)
        return cxxrt::err_ptr<rtrs_client_session>(cxxrt::Error(cxxrt::err::kInval));
    return cxxrt::to_handle_or_err_ptr(Session::open(*callbacks, *params));
}

extern "C" void rtrs_clt_cxx_close(rtrs_client_session* session) noexcept
{
    Session* s = from_handle(session);
    if (!s)
        return;
    s->close();
    cxxrt::destroy(s);
}

extern "C" int rtrs_client_query(rtrs_client_session* session, rtrs_client_attributes* attributes) noexcept
{
    if (!session || !attributes)
        return -cxxrt::err::kInval;
    from_handle(session)->query(*attributes);
    return 0;
}

extern "C" rtrs_client_permit* rtrs_client_get_permit(rtrs_client_session* session, rtrs_wait wait) noexcept
{
    if (!session)
        return nullptr;
    return to_handle(from_handle(session)->get_permit(wait));
}

extern "C" int rtrs_client_get_permit_timeout(rtrs_client_session* session, unsigned int timeout_ms,
                                              rtrs_client_permit** permit) noexcept
{
    if (!session || !permit)
        return -cxxrt::err::kInval;
    auto got = from_handle(session)->get_permit_within(timeout_ms);
    if (got.is_error())
        return got.to_errno();
    *permit = to_handle(got.value());
    return 0;
}

extern "C" void rtrs_client_put_permit(rtrs_client_session* session, rtrs_client_permit* permit) noexcept
{
    if (session && permit)
        from_handle(session)->put_permit(*from_handle(permit));
}

extern "C" void* rtrs_client_permit_header(rtrs_client_permit* permit) noexcept
{
    return permit ? from_handle(permit)->user_header.data() : nullptr;
}

extern "C" int rtrs_client_request(rtrs_client_session* session, rtrs_client_permit* permit,
                                   rtrs_direction direction, unsigned int header_length, scatterlist* sg,
                                   unsigned int sg_count, unsigned int data_length, rtrs_client_done_fn done,
                                   void* done_context) noexcept
{
    if (!session || !permit)
        return -cxxrt::err::kInval;
    return from_handle(session)
        ->request(*from_handle(permit), direction, header_length, sg, sg_count, data_length, done, done_context)
        .to_errno();
}

extern "C" int rtrs_client_request_polled(rtrs_client_session* session, rtrs_client_permit* permit,
                                          unsigned int poll_queue, rtrs_direction direction,
                                          unsigned int header_length, scatterlist* sg, unsigned int sg_count,
                                          unsigned int data_length, rtrs_client_done_fn done,
                                          void* done_context) noexcept
{
    if (!session || !permit)
        return -cxxrt::err::kInval;
    return from_handle(session)
        ->request(*from_handle(permit), direction, header_length, sg, sg_count, data_length, done, done_context,
                  int(cxxrt::min<unsigned int>(poll_queue, kMaxPollQueues)))
        .to_errno();
}

extern "C" int rtrs_client_poll(rtrs_client_session* session, unsigned int poll_queue) noexcept
{
    if (!session)
        return -cxxrt::err::kInval;
    return from_handle(session)->poll(poll_queue);
}

extern "C" int rtrs_client_set_io_hold_timeout(rtrs_client_session* session, unsigned int timeout_ms) noexcept
{
    if (!session)
        return -cxxrt::err::kInval;
    return from_handle(session)->set_io_hold_timeout(timeout_ms).to_errno();
}

extern "C" void rtrs_client_abort(rtrs_client_session* session, rtrs_client_permit* permit, int final) noexcept
{
    if (session && permit)
        from_handle(session)->abort(*from_handle(permit), final != 0);
}
