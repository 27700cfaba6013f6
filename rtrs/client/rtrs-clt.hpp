// The RTRS client transport: sessions, paths, connections and requests.
//
// Objects and ownership (all made in process context):
//   Session      one per rtrs_client_open(); owns its Paths, the permit pool
//                and one Permit per server chunk (the user's handle).
//   Path         one per destination; owns, while connected, its
//                ClientConnections (cid 0 = service, 1..N = IO), its
//                protection domain, the chunk table from INFO_RSP and one
//                PathRequest per permit (DMA buffer, scatterlist, MR).
//   ClientConnection  one RDMA-CM id + CQ + QP; the CM event handler of its
//                id and the owner of its receive slots.
//
// Contexts:
//   - connect, teardown, reconnect, heartbeat: process context, in work
//     items of the module's workqueue (or the opener's thread), serialised
//     per path by Path::control_;
//   - CM events: the CM's work queues (a handler never destroys its own id:
//     teardown runs from the path's error work);
//   - completions: softirq (PollContext::kSoftirq CQs), never sleeping;
//   - rtrs_client_request: any context that may not sleep.
// IO submission never takes a lock: a submitter announces itself in the
// path's submitter count and re-checks the state; teardown first leaves the
// connected state, then waits for the count to drop to zero, then drains
// the QPs, so no post can race with QP destruction and no completion can
// race with fail-over.
#pragma once

// One header per concern; this one gathers them for the client's .cpp files.
#include "rtrs/client/rtrs-clt-common.hpp"
#include "rtrs/client/rtrs-clt-faults.hpp"
#include <cxxrt/array.hpp>
#include "rtrs/client/rtrs-clt-permit.hpp"
#include "rtrs/client/rtrs-clt-path-request.hpp"
#include "rtrs/client/rtrs-clt-connection.hpp"
#include "rtrs/client/rtrs-clt-path.hpp"
#include "rtrs/client/rtrs-clt-session.hpp"
