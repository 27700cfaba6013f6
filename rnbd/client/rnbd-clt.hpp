// rnbd-client: remote block devices over our RTRS client.
//
// Objects (all created in process context):
//   Client   the module singleton (rnbd-clt.cpp): the control files
//            /sys/kernel/rnbd_client/map_device and its alias
//            /sys/class/rnbd-client/ctl/map_device, the devices/ link
//            directories, the registry of sessions and mapped devices, the
//            device index bitmap and the block major.
//   Session  one RTRS session (rnbd-clt-session.cpp), shared by every device
//            mapped through it; refcounted (each Device holds one). Sends
//            SESS_INFO/OPEN/CLOSE as synchronous RTRS requests, turns the
//            transport's link events into device state changes (a work item)
//            and owns the blk-mq tag set its devices share.
//   Device   one mapping = one /dev/rnbd<N> (rnbd-clt-dev{,-io,-sysfs}.cpp):
//            gendisk, /sys/block/rnbd<N>/{rnbd_client,rnbd}/ and the IO path.
//            Refcounted: the mapping holds one reference, the gendisk one
//            (dropped by free_disk), so a disk still open after a forced
//            unmap never sees a freed device.
//
// Locks (outer to inner):
//   Client::map_lock_      serialises map and the registry of devices; held
//                          across a whole map (RTRS open, OPEN, add_disk),
//                          never while removing sysfs files (see unmap)
//   Session::lock_         the session's device list, re-open on reconnect
//   Client::sessions_lock_ the session list (brief, lookups take try_ref)
//   Device::lock_          state transitions and the opener count
// The IO path takes no lock: device state and the server's device id are
// atomics, permits come from the transport, the per-request context and
// scatterlist live in the blk-mq PDU (no allocation per IO).
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/errno.hpp>
#include <cxxrt/log.hpp>
#include <cxxrt/drain.hpp>
#include <cxxrt/sysfs_dir.hpp>
#include <cxxrt/list.hpp>
#include <cxxrt/ref_counted.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/sysfs.hpp>
#include <cxxrt/wait.hpp>
#include <cxxrt/work.hpp>
#include <proto/rnbd-wire.hpp>
#include <rtrs/rtrs-api.h>

#include "kernel/block/disk.hpp"
#include "kernel/block/hardware-queue.hpp"
#include "kernel/block/limits.hpp"
#include "kernel/block/major.hpp"
#include "kernel/block/queue-maps.hpp"
#include "kernel/block/request.hpp"
#include "kernel/block/status.hpp"
#include "kernel/block/tag-set.hpp"
#include "rnbd/client/rnbd-clt-upcalls.h"
#include "rnbd/core/rnbd-clt-options.hpp"
#include "rnbd/core/rnbd-codec.hpp"

namespace rnbd::clt {

using cxxrt::Atomic;
using cxxrt::Gfp;
using cxxrt::RefPtr;
using cxxrt::sysfs::Input;
using cxxrt::sysfs::Output;
namespace err = cxxrt::err;
namespace log = cxxrt::log;

class Client;
class Session;
class Device;

// Limits of this implementation.
inline constexpr u32 kPartitionBits = 6;                  // 64 minors per disk, as upstream
inline constexpr u32 kMinorsPerDisk = 1u << kPartitionBits;
inline constexpr u32 kMaxDevices = 1u << (20 - kPartitionBits);  // MINORBITS = 20
// SESS_INFO / OPEN / CLOSE, and the wait for their permit: the module
// parameter control_timeout_ms (default 120000), within these bounds.
inline constexpr u32 kMinControlTimeoutMs = 1000;
inline constexpr u32 kMaxControlTimeoutMs = 600000;
inline constexpr u32 kReconnectDelaySeconds = 30;          // as upstream passes to RTRS
inline constexpr u32 kUserHeaderSize = sizeof(wire::OpenMsg);  // the largest RNBD message
inline constexpr u32 kIoMessageSize = sizeof(wire::IoMsg);
inline constexpr u32 kDeviceIdMax = wire::kNameMax + 1;    // "<path with !>" + NUL
inline constexpr u32 kLinkNameMax = 2 * wire::kNameMax + 2;  // "<id>@<session>" + NUL

// Who holds an IoRequest's permit (IoRequest::owner): the
// transport until its done callback, the block timeout handler while it
// asks the transport to abort. A done callback that comes while the handler
// holds it leaves the completion to the handler (kAnswered), so the handler
// never aborts a permit that already carries another request's IO.
enum class IoOwner : u8 {
    kIdle = 0,
    kTransport = 1,
    kTimeout = 2,
    kAnswered = 3,
};

// Timeouts of one request before it is aborted (fails with EIO): the first
// fails the path carrying it (the IO fails over, or is held while no path is
// up), the second fails the path again and the IO with it.
inline constexpr u8 kTimeoutsBeforeAbort = 2;

// The blk-mq per-request data (the tag set's Pdu; its scatterlist table
// follows). The tag set is the session's, so a request's memory serves each
// of the session's devices in turn: `device` is set by each dispatch.
struct IoRequest {
    Device* device;
    kernel::block::Request rq;
    rtrs_client_permit* permit;
    scatterlist* sg;  // the tag set's table behind this request
    int error;
    Atomic<IoOwner> owner;
    u8 timeouts;  // block-layer timeouts since the request was first queued
    // Refusals other than ENOTCONN (the server's or the transport's ENOMEM,
    // EAGAIN) are retried until then (monotonic ns; 0: none yet): one
    // request timeout after the first, as a requeue restarts the block
    // layer's timer.
    u64 retry_deadline_ns;
};

enum class DeviceState : u8 {
    kInit,       // being mapped
    kOpen,       // opened on the server, IO flows
    kClosed,     // the session is disconnected: IO is held or fails (Session::link_mode)
    kUnmapping,  // unmap started: IO fails, no new openers
};

class Device : public cxxrt::RefCounted<Device>, cxxrt::Pinned {
public:
    Device(Client& client, RefPtr<Session> session, u32 index, const MapOptions& options);
    ~Device();

    // The whole map after the session is ready: OPEN, disk, sysfs. Process
    // context, map lock held. On error everything it made is undone.
    cxxrt::Result<void> map();
    // The names of the links to the disk (kernel tree: the seed's device
    // id, with "@<session>" when another session has the same path).
    cxxrt::Result<void> set_link_names(bool session_suffix);
    const char* device_id() const { return device_id_; }
    // Undoes map(): sysfs, disk, CLOSE. Process context, no map lock held
    // (except for the undo of a failed map, before anything was published).
    void unmap(bool force);
    // What a successful re-OPEN does with the size the server answers.
    enum class TakeSize : u8 {
        kDisk,  // becomes the disk's capacity (reconnect, remap_device; as upstream)
        kOnly,  // only remembered as the limit for resize (resize learning the server's size)
    };
    // Re-OPEN on the server (reconnect, remap_device, resize). Session lock held.
    cxxrt::Result<void> reopen(TakeSize take);
    void set_closed();
    // Claims the unmap (module exit); false if an unmap_device write has it.
    bool begin_unmap();

    // The IO path (the blk-mq upcalls of kapi-rnbd-clt-blk.c).
    kernel::block::Status queue_rq(kernel::block::HardwareQueue queue, kernel::block::Request rq, IoRequest& io);
    // Reaps the transport's polled connection behind polled queue `queue_num`.
    int poll(u32 queue_num);
    static void io_done(void* context, int error);
    void complete_rq(IoRequest& io);
    int timeout(IoRequest& io);
    // Re-runs the queues (held IO looks at the state again). Session lock held.
    void kick();
    int open_bdev(bool write);
    void release_bdev();

    // sysfs (/sys/block/rnbd<N>/rnbd_client/ and .../rnbd/).
    cxxrt::Result<void> show_state(cxxrt::sysfs::Output& out);
    cxxrt::Result<void> show_session(cxxrt::sysfs::Output& out);
    cxxrt::Result<void> show_mapping_path(cxxrt::sysfs::Output& out);
    cxxrt::Result<void> show_access_mode(cxxrt::sysfs::Output& out);
    cxxrt::Result<void> show_io_mode(cxxrt::sysfs::Output& out);
    cxxrt::Result<void> show_nr_poll_queues(cxxrt::sysfs::Output& out);
    cxxrt::Result<void> store_unmap_device(cxxrt::sysfs::Input& in);
    cxxrt::Result<void> unmap_from_sysfs(cxxrt::sysfs::Input& in, bool force);
    cxxrt::Result<void> store_remap_device(cxxrt::sysfs::Input& in);
    cxxrt::Result<void> store_resize(cxxrt::sysfs::Input& in);

    bool same_mapping(cxxrt::StringView session, cxxrt::StringView path) const;
    DeviceState state() const { return DeviceState(state_.load(cxxrt::MemoryOrder::kAcquire)); }
    // Fires rnbd_clt:dev_state_change when the state changes.
    void set_state(DeviceState state);
    const char* disk_name() const;
    u32 index() const { return index_; }
    Session& session();

    cxxrt::ListNode registry_node;  // Client::devices_ (map_lock_)
    cxxrt::ListNode session_node;   // Session::devices_ (Session::lock_)

private:
    cxxrt::Result<void> create_disk(const codec::OpenRspFields& rsp);
    cxxrt::Result<void> create_sysfs();
    void remove_sysfs();
    // The queue limits for the server's OPEN_RSP (records max_hw_sectors_).
    kernel::block::Limits limits(const codec::OpenRspFields& rsp);
    // The limits of the server's last OPEN_RSP, if not applied yet, to the
    // live disk (queue frozen): from remap_device and resize, never from
    // the reconnect's re-open, which IO in flight waits for.
    cxxrt::Result<void> apply_offered_limits();
    void finish_io(IoRequest& io);
    kernel::block::Status hold_or_fail(kernel::block::HardwareQueue queue);
    // queue_rq's work; queue_rq resets the request's counters when it fails it.
    kernel::block::Status dispatch(kernel::block::HardwareQueue queue, kernel::block::Request rq, IoRequest& io);

    Client& client_;
    RefPtr<Session> session_;
    const u32 index_;
    char path_[wire::kNameMax + 1] = {};
    char device_id_[kDeviceIdMax] = {};
    char link_name_[kLinkNameMax] = {};
    const AccessMode access_mode_;
    const IoMode io_mode_;
    const u32 poll_queues_;

    Atomic<u8> state_{u8(DeviceState::kInit)};
    Atomic<u32> remote_id_{0};
    // The session's outage epoch when the device was last opened on the
    // server: IO flows only while it is the current one (remote_id_ is
    // meaningless in a session the server has re-created).
    Atomic<u32> open_epoch_{0};
    Atomic<u64> remote_sectors_{0};
    // Set by map() before attach(), then changed only under the session's
    // lock_ (reopen) or after detach() (unmap): another object's lock.
    bool opened_on_server_ = false;
    bool attached_ = false;  // in the session's device list
    // Written by limits(): by map() unlocked, by reopen() under lock_.
    u32 max_hw_sectors_ = 0;
    cxxrt::Mutex lock_{cxxrt::lock_class<"rnbd::clt::Device::lock_">};
    u32 openers_ CXXRT_GUARDED_BY(lock_) = 0;
    bool published_ CXXRT_GUARDED_BY(lock_) = false;  // sysfs complete: unmap allowed
    kernel::block::Limits offered_limits_ CXXRT_GUARDED_BY(lock_) = {};
    bool limits_offered_ CXXRT_GUARDED_BY(lock_) = false;  // offered_limits_ not applied yet

    // Its queue leaves the session's tag set in del_gendisk (Disk::remove),
    // or when it is put unadded; session_ keeps the tag set until then.
    kernel::block::Disk disk_;
    cxxrt::sysfs::Directory dir_;        // rnbd_client
    cxxrt::sysfs::Directory alias_dir_;  // rnbd
    // After the disk: links to it go before it does.
    cxxrt::sysfs::Link kernel_link_;  // rnbd_client/devices/<device_id_>
    cxxrt::sysfs::Link class_link_;   // rnbd-client/ctl/devices/<link_name_>
};

class Session : public cxxrt::RefCounted<Session>, cxxrt::Pinned {
public:
    explicit Session(Client& client) : client_(client) {}
    // Opens the RTRS session and exchanges SESS_INFO. Process context.
    static cxxrt::Result<RefPtr<Session>> open(Client& client, const MapOptions& options);
    ~Session();
    // Last reference (process context): leaves the registry, closes RTRS.
    void release_last_reference();

    // Synchronous RNBD control messages (process context, sleep).
    cxxrt::Result<void> send_sess_info();
    cxxrt::Result<codec::OpenRspFields> open_device(cxxrt::StringView path, AccessMode access, IoMode io_mode);
    cxxrt::Result<void> close_device(u32 remote_id);

    void attach(Device& device) { cxxrt::MutexGuard guard(lock_); devices_.push_back(device); }
    void detach(Device& device) { cxxrt::MutexGuard guard(lock_); devices_.remove(device); }

    const char* name() const { return name_; }
    rtrs_client_session* rtrs() const { return rtrs_; }
    u32 queue_depth() const { return attributes_.queue_depth; }
    u32 max_io_size() const { return attributes_.max_io_size; }
    u32 max_segments() const { return attributes_.max_segments; }
    u32 poll_queues() const { return attributes_.poll_queues; }
    // The hardware queues before the polled ones (one per CPU online when
    // the session was opened).
    u32 default_queues() const { return default_queues_; }
    const kernel::block::TagSet<IoRequest>& tag_set() const { return tag_set_; }
    // The tag set's upcalls (kapi-rnbd-clt-blk.c): each request once, at
    // allocation; the maps: default (and read) queues, then the polled ones.
    void init_request(IoRequest& io);
    void map_queues(kernel::block::QueueMaps maps);
    bool connected() const { return connected_.load(cxxrt::MemoryOrder::kRelaxed); }

    // Outages: link_state_ = epoch << 2 | mode. DISCONNECTED starts a new
    // epoch in kHolding; HOLD_EXPIRED moves it to kFailing; the end of the
    // re-open round after RECONNECTED to kUp. A device whose open_epoch_ is
    // not the current epoch (not re-opened yet) has its IO held in
    // kHolding and failed otherwise.
    enum LinkMode : u32 { kUp = 0, kHolding = 1, kFailing = 2 };
    u32 epoch() const { return link_state_.load() >> 2; }
    LinkMode link_mode() const { return LinkMode(link_state_.load() & 3); }

    cxxrt::ListNode registry_node;  // Client::sessions_ (sessions_lock_)

private:
    friend class Client;
    friend class Device;
    struct Reply;
    cxxrt::Result<void> send(rtrs_direction direction, cxxrt::ConstByteSpan message, cxxrt::ByteSpan reply);
    // One tag set for all devices, as the permits it stands for are the
    // session's: a device costs a queue, not a set of requests of its own.
    cxxrt::Result<void> create_tag_set();
    static void link_event(void* context, rtrs_link_event event);
    void handle_link_events();  // event_work_

    Client& client_;
    // name_, rtrs_, attributes_: set by open() before the session is listed, fixed after.
    char name_[wire::kNameMax + 1] = {};
    rtrs_client_session* rtrs_ = nullptr;
    rtrs_client_attributes attributes_{};
    u32 default_queues_ = 0;
    // Freed with the session: each device holds a reference until its
    // queue has left the set.
    kernel::block::TagSet<IoRequest> tag_set_;
    cxxrt::Mutex lock_{cxxrt::lock_class<"rnbd::clt::Session::lock_">};
    cxxrt::IntrusiveList<Device, &Device::session_node> devices_ CXXRT_GUARDED_BY(lock_);
    Atomic<bool> connected_{true};
    Atomic<bool> reopen_needed_{false};
    Atomic<u32> link_state_{0};
    // Set by release_last_reference: link events no longer queue work.
    Atomic<bool> closing_{false};
    cxxrt::Work event_work_{cxxrt::lock_class<"rnbd::clt::Session::event_work_">,
                            cxxrt::Callback::to<&Session::handle_link_events>(this)};
};

// The per-device files (rnbd-clt-dev-sysfs.cpp).
const cxxrt::sysfs::GroupSpec& device_group_spec();

class Client : cxxrt::Pinned {
public:
    Client();
    cxxrt::Result<void> setup();
    void teardown();

    cxxrt::Result<void> show_map_device(cxxrt::sysfs::Output& out);
    cxxrt::Result<void> store_map_device(cxxrt::sysfs::Input& in);

    // Registry of sessions (used by Session).
    RefPtr<Session> find_session(cxxrt::StringView name);
    void add_session(Session& session) { cxxrt::MutexGuard guard(sessions_lock_); sessions_.push_back(session); }
    void remove_session(Session& session) { cxxrt::MutexGuard guard(sessions_lock_); sessions_.remove(session); }

    // Device side (used by Device).
    int major() const { return major_.number(); }
    void release_index(u32 index);
    // Links to a device's disk under .../devices/ of both trees (the
    // names are kept by the links; resetting them removes them).
    cxxrt::Result<void> link_device(const char* kernel_name, const char* class_name, cxxrt::sysfs::KobjRef target,
                                    cxxrt::sysfs::Link& kernel_link, cxxrt::sysfs::Link& class_link);
    const cxxrt::sysfs::Group& device_group() const { return device_group_; }
    // A device's unmap: off the registry (the caller then tears it down).
    void forget_device(Device& device);

    void device_created() { live_devices_.enter(); }
    void device_destroyed() { live_devices_.leave(); }

private:
    // A map_device in progress, on its handler's stack. Claims let the registry
    // checks see the maps that are not published yet, and keep two maps of one
    // session from running at once (the first creates the session, the second
    // finds it), so map_lock_ is held for those checks only, never across a
    // network round trip: a server that does not answer holds up the maps of
    // its own session, not every map, unmap and rmmod.
    struct MapClaim : cxxrt::Pinned {
        MapClaim(cxxrt::StringView session_name, cxxrt::StringView device_path)
            : session(session_name), path(device_path)
        {
        }
        cxxrt::StringView session;
        cxxrt::StringView path;
        char device_id[kDeviceIdMax] = {};  // the link name it takes unless `suffixed`
        bool suffixed = false;
        cxxrt::ListNode node;
    };
    cxxrt::Result<void> map(const MapOptions& options);
    // Registers a map in progress (waits while another map of its session
    // runs); EEXIST for a mapping that exists, ENODEV while unloading.
    cxxrt::Result<void> claim_map(MapClaim& claim);
    void release_claim(MapClaim& claim);
    cxxrt::Result<u32> allocate_index();
    bool mapped(cxxrt::StringView session, cxxrt::StringView path) CXXRT_REQUIRES(map_lock_);
    bool session_claimed(cxxrt::StringView session) CXXRT_REQUIRES(map_lock_);
    bool device_id_taken(cxxrt::StringView device_id) CXXRT_REQUIRES(map_lock_);

    // Held for registry checks and updates only, never across the network.
    cxxrt::Mutex map_lock_{cxxrt::lock_class<"rnbd::clt::Client::map_lock_">};
    cxxrt::IntrusiveList<Device, &Device::registry_node> devices_ CXXRT_GUARDED_BY(map_lock_);
    cxxrt::IntrusiveList<MapClaim, &MapClaim::node> claims_ CXXRT_GUARDED_BY(map_lock_);
    Atomic<u32> claims_generation_{0};  // changes when a claim goes
    cxxrt::WaitQueue claims_changed_{cxxrt::lock_class<"rnbd::clt::Client::claims_changed_">};
    cxxrt::SpinLock index_lock_{cxxrt::lock_class<"rnbd::clt::Client::index_lock_">};
    u64 index_bits_[kMaxDevices / 64] CXXRT_GUARDED_BY(index_lock_) = {};
    cxxrt::Mutex sessions_lock_{cxxrt::lock_class<"rnbd::clt::Client::sessions_lock_">};
    cxxrt::IntrusiveList<Session, &Session::registry_node> sessions_ CXXRT_GUARDED_BY(sessions_lock_);
    Atomic<bool> exiting_{false};
    cxxrt::DrainCounter live_devices_{cxxrt::lock_class<"rnbd::clt::Client::live_devices_">};
    kernel::block::Major major_;

    cxxrt::sysfs::Group control_group_;      // map_device, device flavour (ctl)
    cxxrt::sysfs::Group kernel_group_;       // map_device, kobject flavour (/sys/kernel)
    cxxrt::sysfs::Group device_group_;       // per-device files (kobject flavour)
    cxxrt::sysfs::DeviceClass class_;        // /sys/class/rnbd-client
    cxxrt::sysfs::Device control_;           // .../ctl
    cxxrt::sysfs::Directory class_devices_;    // .../ctl/devices
    cxxrt::sysfs::Directory top_;              // /sys/kernel/rnbd_client
    cxxrt::sysfs::Directory kernel_devices_;   // /sys/kernel/rnbd_client/devices
};

}  // namespace rnbd::clt
