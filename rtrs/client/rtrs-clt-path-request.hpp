// rtrs-client: a path's per-permit request (DMA buffer, scatterlist, MR).
#pragma once

#include "rtrs/client/rtrs-clt-common.hpp"
#include "rtrs/client/rtrs-clt-faults.hpp"
#include <cxxrt/array.hpp>
#include "rtrs/client/rtrs-clt-permit.hpp"

namespace rtrs::clt {

// Per path and permit: the DMA-mapped memory one IO needs on that path.
class PathRequest : cxxrt::Pinned {
public:
    PathRequest(Path& path, u32 id) : path_(path), id_(id) {}
    ~PathRequest() { delayed_.cancel_sync(); }
    Result<void> init(ib::Device device, const RefPtr<ib::ProtectionDomain>& pd, u32 message_size, u32 segments,
                      u32 mr_pages);

private:
    friend class Path;
    void on_invalidated(const ib::WorkCompletion& wc);
    void on_delay_over();  // fault injection: a held-back completion

    Path& path_;
    const u32 id_;
    UniquePtr<ib::DmaBuffer> message_;  // user header, then the RTRS message
    UniquePtr<ib::ScatterList> sg_;
    UniquePtr<ib::MemoryRegion> mr_;
    Permit* permit_ = nullptr;
    ClientConnection* connection_ = nullptr;
    bool sg_mapped_ = false;
    bool in_read_slot_ = false;  // a READ landing in the path's read slot of this id
    int pending_errno_ = 0;
    bool pending_invalidate_locally_ = false;
    u32 submit_cpu_ = 0;
    u64 submitted_ns_ = 0;  // cxxrt::local_clock_ns() at submission, for stats/rdma_lat
    cxxrt::DelayedWork delayed_{cxxrt::lock_class<"rtrs::clt::PathRequest::delayed_">,
                                cxxrt::Callback::to<&PathRequest::on_delay_over>(this)};
    ib::Completion invalidate_done_{ib::Completion::member<PathRequest, &PathRequest::on_invalidated>, this};
};

}  // namespace rtrs::clt
