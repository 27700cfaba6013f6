// rtrs-client: a session, the user's handle (rtrs_client_open).
#pragma once

#include "rtrs/client/rtrs-clt-common.hpp"
#include "rtrs/client/rtrs-clt-faults.hpp"
#include <cxxrt/array.hpp>
#include "rtrs/client/rtrs-clt-permit.hpp"
#include "rtrs/client/rtrs-clt-path-request.hpp"
#include "rtrs/client/rtrs-clt-connection.hpp"
#include "rtrs/client/rtrs-clt-path.hpp"

namespace rtrs::clt {

class Session : cxxrt::Pinned {
public:
    Session() = default;
    ~Session();

    static Result<Session*> open(const rtrs_client_callbacks& callbacks, const rtrs_client_open_params& params);
    void close();

    // sysfs add_path / remove_path (process context; serialised by paths_mutex_).
    Result<void> add_path(const rtrs_path_address& address);
    Result<void> remove_path(Path& path);

    void query(rtrs_client_attributes& attributes) const;
    Permit* get_permit(rtrs_wait wait);
    // Process context: a permit within timeout_ms; -ETIMEDOUT, or
    // -ERESTARTSYS on a signal (rtrs_client_get_permit_timeout).
    cxxrt::Result<Permit*> get_permit_within(unsigned int timeout_ms);
    void put_permit(Permit& permit);
    // poll_queue: Permit::kNotPolled, or a polled connection's index.
    Result<void> request(Permit& permit, rtrs_direction direction, u32 header_length, scatterlist* sg, u32 sg_count,
                         u32 data_length, rtrs_client_done_fn done, void* done_context,
                         int poll_queue = Permit::kNotPolled);
    // rtrs_client_poll: reaps polled connection poll_queue of every path.
    int poll(u32 poll_queue);
    u32 poll_queues() const { return poll_queues_; }

    // Picks a connected path (not `excluded`) and submits; error if none took it.
    Result<void> submit(Permit& permit, Path* excluded);
    // Process context: re-issues an IO of a failed path, or fails it
    // (-ENOTCONN: no path; -ETIMEDOUT: aborted).
    void fail_over(Permit& permit, Path& failed);
    // Any context: fails the path carrying the permit's IO (rtrs_client_abort).
    void abort(Permit& permit, bool final);
    // io_hold_timeout_ms (sysfs and rtrs_client_set_io_hold_timeout).
    Result<void> set_io_hold_timeout(u64 timeout_ms);
    static void complete(Permit& permit, int error);

    // Path life, from the paths' work items (process context).
    Result<void> agree_parameters(const codec::ConnRspFields& params, u32 mr_pages, u32 max_send_sge);
    void path_up();
    void path_down();

    const char* name() const { return name_; }
    const wire::Uuid& uuid() const { return uuid_; }
    u32 user_header_size() const { return user_header_size_; }
    u32 max_segments() const { return max_segments_; }
    u32 reconnect_delay_ms() const { return reconnect_delay_seconds_ * 1000; }
    int max_reconnect_attempts() const { return max_reconnect_attempts_.load(); }
    bool closing() const { return closing_.load(); }
    SessionDirectory* sysfs() const { return sysfs_.get(); }

    // sysfs (rtrs-clt-sysfs.cpp); process context.
    Result<void> show_max_reconnect_attempts(cxxrt::sysfs::Output& out);
    Result<void> store_max_reconnect_attempts(cxxrt::sysfs::Input& in);
    Result<void> show_mpath_policy(cxxrt::sysfs::Output& out);
    Result<void> store_mpath_policy(cxxrt::sysfs::Input& in);
    Result<void> store_add_path(cxxrt::sysfs::Input& in);
    Result<void> show_io_hold_timeout_ms(cxxrt::sysfs::Output& out);
    Result<void> store_io_hold_timeout_ms(cxxrt::sysfs::Input& in);

private:
    // Steps of open(); a failure leaves the closing to open().
    Result<void> connect_first(u32 path_count);
    Result<void> create_permits();
    Result<void> create_directory();
    // The path in slot i, or null (a free or removed slot). Any context;
    // under RCU (or paths_mutex_) the path stays alive while used.
    Path* path_at(u32 i) const { return paths_[i].load(cxxrt::MemoryOrder::kAcquire); }
    u32 slot_count() const { return slots_.load(cxxrt::MemoryOrder::kAcquire); }
    void publish(u32 slot, Path* path);
    struct LivePaths;
    // The user's link event, under setup_ (events reach it in order).
    void report(rtrs_link_event event) CXXRT_REQUIRES(setup_);
    // Arms hold_work_ for the hold's deadline, or expires it now.
    void schedule_hold_expiry() CXXRT_REQUIRES(setup_);
    void hold_expiry();  // hold_work_

    char name_[wire::kNameMax + 1] = {};
    SessionNames::Entry name_entry_;  // claimed before any path connects
    rtrs_client_callbacks callbacks_{};
    wire::Uuid uuid_{};
    u32 reconnect_delay_seconds_ = 0;
    Atomic<int> max_reconnect_attempts_{-1};
    u32 user_header_size_ = 0;
    u32 poll_queues_ = 0;  // polled connections per path
    // kMaxPaths slots, published with release stores and read under RCU by
    // the IO path; slots_ is the high-water mark of used slots. Removal
    // clears a slot and waits for an RCU grace period before freeing.
    cxxrt::Array<Atomic<Path*>> paths_;
    Atomic<u32> slots_{0};
    cxxrt::Mutex paths_mutex_{cxxrt::lock_class<"rtrs::clt::Session::paths_mutex_">};  // add_path, remove_path, close
    u16 port_ = 0;
    // Parameters agreed between paths; link events.
    cxxrt::Mutex setup_{cxxrt::lock_class<"rtrs::clt::Session::setup_">};
    // Set by the first path's agree_parameters (under setup_), fixed from
    // then on: the IO path reads them unlocked.
    u32 queue_depth_ = 0;
    u32 max_io_size_ = 0;
    u32 max_segments_ = 0;
    PermitPool permits_;
    cxxrt::Array<Permit> permit_objects_;
    cxxrt::WaitQueue permit_wait_{cxxrt::lock_class<"rtrs::clt::Session::permit_wait_">};
    Atomic<u8> policy_{u8(PathPolicy::kMinInflight)};
    cxxrt::PerCpu<u32> cursors_;
    Atomic<u32> connected_paths_{0};
    bool link_down_reported_ CXXRT_GUARDED_BY(setup_) = false;
    IoHold hold_ CXXRT_GUARDED_BY(setup_);
    cxxrt::DelayedWork hold_work_{cxxrt::lock_class<"rtrs::clt::Session::hold_work_">,
                                  cxxrt::Callback::to<&Session::hold_expiry>(this)};
    Atomic<bool> closing_{false};
    UniquePtr<SessionDirectory> sysfs_;
};

}  // namespace rtrs::clt
