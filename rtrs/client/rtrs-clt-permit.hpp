// rtrs-client: the user's permit (one per server chunk) and where a chunk
// lives on the server.
#pragma once

#include "rtrs/client/rtrs-clt-common.hpp"
#include "rtrs/client/rtrs-clt-faults.hpp"
#include <cxxrt/array.hpp>

namespace rtrs::clt {

// The user's handle for one server chunk, and the IO it currently carries.
// Written by rtrs_client_request(); read by whichever path carries the IO
// (fail-over re-issues it from these fields).
struct Permit : cxxrt::Pinned {
    Permit(Session& owner, u32 permit_id) : session(owner), id(permit_id) {}

    Session& session;
    const u32 id;
    cxxrt::Array<u8> user_header;  // user_header_size + 1 bytes
    rtrs_direction direction = RTRS_READ;
    u32 header_length = 0;
    scatterlist* sg = nullptr;
    u32 sg_count = 0;
    u32 data_length = 0;
    rtrs_client_done_fn done = nullptr;
    void* done_context = nullptr;
    // rtrs_client_request_polled: the polled connection (of any path) that
    // carries the IO, also after a fail-over; kNotPolled: the submitting
    // CPU's interrupt-driven one.
    static constexpr int kNotPolled = -1;
    int poll_queue = kNotPolled;
    // The slot of the path carrying the IO (Path::submit), for abort().
    Atomic<u32> path_index{0};
    // rtrs_client_abort(final): a fail-over completes it with -ETIMEDOUT.
    Atomic<bool> aborted{false};
};

// Where chunk i lives on the server, per path (rkey may change per IO with
// always_invalidate; written from softirq, read on submission).
struct RemoteChunk {
    u64 addr;
    u32 rkey;
    u32 length;
};

}  // namespace rtrs::clt
