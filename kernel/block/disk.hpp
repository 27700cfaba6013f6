// A gendisk of a blk-mq tag set: /dev/<name> and /sys/block/<name>.
//
// Owning: create() allocates it with its queue limits (the owner becomes
// the disk's queuedata and private_data, which the upcalls receive); the
// destructor, or reset(), drops the reference create() took (put_disk).
// In between, add() makes it visible and remove() (del_gendisk) takes it
// away again, waiting for the requests in flight; reset() and the
// destructor remove a disk still visible before they put it. An added
// disk's last reference going away runs the free_disk upcall: the owner
// keeps itself alive for it. Process context unless noted.
#pragma once

#include <cxxrt/native_owner.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/sysfs.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>

#include "kernel/block/limits.hpp"
#include "kernel/block/tag-set.hpp"
#include "kernel/block/kapi-blk.h"

namespace kernel::block {

using namespace cxxrt::integers;

class Disk : cxxrt::Pinned {
public:
    // blk_mq_alloc_disk on `set` with `limits` (copied; the kernel validates them).
    template <class Pdu>
    [[nodiscard]] cxxrt::Result<void> create(const TagSet<Pdu>& set, const Limits& limits, void* owner)
    {
        gendisk* made = nullptr;
        CXXRT_TRY(cxxrt::to_result(kapi_disk_alloc(set.handle(), &limits, owner, &made)));
        disk_ = Allocated(made);
        return {};
    }
    // Named "<prefix><index>", minors index * minors onwards, with the
    // driver's `ops` (its C boundary's open/release/free_disk).
    void set_identity(const block_device_operations& ops, int major, u32 index, u32 minors, const char* prefix)
    {
        kapi_disk_identity(disk(), &ops, major, index, minors, prefix);
    }
    void set_capacity(u64 sectors) { kapi_set_capacity(disk(), sectors); }
    void set_read_only() { kapi_set_read_only(disk()); }

    // add_disk: partitions are scanned (IO is issued) before it returns.
    [[nodiscard]] cxxrt::Result<void> add()
    {
        CXXRT_TRY(cxxrt::to_result(kapi_add_disk(disk())));
        visible_ = Visible(disk());
        return {};
    }
    // Added and not removed since.
    bool added() const { return bool(visible_); }
    // blk_mark_disk_dead: every new IO fails at once. Added disks only.
    void mark_dead() { kapi_mark_disk_dead(disk()); }
    // del_gendisk: waits for the requests in flight. Nothing if not added.
    void remove() { visible_.reset(); }
    // put_disk (after remove()): with the disk added before, the free_disk
    // upcall follows once the last opener is gone (maybe inside this call).
    void reset()
    {
        visible_.reset();
        disk_.reset();
    }

    explicit operator bool() const { return bool(disk_); }
    // Any context.
    const char* name() const { return kapi_disk_name(disk()); }
    // /sys/block/<name>: a parent for the driver's own directories.
    cxxrt::sysfs::KobjRef device_kobject() const
    {
        return cxxrt::sysfs::KobjRef::of_device(kapi_disk_device(disk()));
    }

    // After add(): the new size with a uevent (set_capacity_and_notify).
    void set_capacity_and_notify(u64 sectors) { kapi_set_capacity_notify(disk(), sectors); }
    // KOBJ_CHANGE on the disk: udev looks at it again.
    void change_uevent() { kapi_disk_change_uevent(disk()); }
    // Re-runs every hardware queue (asynchronously).
    void run_queues() { kapi_run_queues(disk()); }
    // The live disk's limits replaced, the queue frozen around it (no
    // request in flight was built for the old ones; new ones wait). Where
    // the kernel validates the update, all or nothing.
    [[nodiscard]] cxxrt::Result<void> update_limits(const Limits& limits)
    {
        kapi_freeze_queue(disk());
        int rc = kapi_update_limits(disk(), &limits);
        kapi_unfreeze_queue(disk());
        return cxxrt::to_result(rc);
    }

private:
    gendisk* disk() const { return disk_.get(); }

    // The reference create() took, and what add() set up: the disk in the
    // system, until del_gendisk. Members go in reverse order: removed
    // before the put.
    using Allocated = cxxrt::Owned<gendisk, kapi_put_disk>;
    using Visible = cxxrt::Owned<gendisk, kapi_del_gendisk>;
    Allocated disk_;
    Visible visible_;
};

}  // namespace kernel::block
