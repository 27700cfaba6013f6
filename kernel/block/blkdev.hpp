// An opened block device (struct block_device): the open (by device
// number, read or read-write, not exclusive), its queue properties, its
// kernel name and sysfs object. Closed when the object goes. Opening and
// closing: process context (sleeps); properties: any context while open.
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/sysfs.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>

#include "kernel/block/kapi-blkdev.h"

namespace kernel::block {

using namespace cxxrt::integers;

class BlockDevice : cxxrt::Pinned {
public:
    BlockDevice() = default;
    ~BlockDevice() { close(); }

    cxxrt::Result<void> open(u32 device_number, bool writable)
    {
        void* handle = nullptr;
        ::block_device* bdev = nullptr;
        CXXRT_TRY(cxxrt::to_result(kapi_blkdev_open_by_dev(device_number, writable, &handle, &bdev)));
        handle_ = handle;
        bdev_ = bdev;
        writable_ = writable;
        return {};
    }
    void close()
    {
        bdev_ = nullptr;
        if (void* handle = cxxrt::exchange(handle_, nullptr))
            kapi_blkdev_close(handle, writable_);
    }

    bool read_only() const { return kapi_blkdev_read_only(bdev_) != 0; }
    u64 sectors() const { return kapi_blkdev_nr_sectors(bdev_); }
    u32 logical_block_size() const { return kapi_blkdev_logical_block_size(bdev_); }
    u32 physical_block_size() const { return kapi_blkdev_physical_block_size(bdev_); }
    u32 max_segments() const { return kapi_blkdev_max_segments(bdev_); }
    u32 max_hw_sectors() const { return kapi_blkdev_max_hw_sectors(bdev_); }
    u32 max_discard_sectors() const { return kapi_blkdev_max_discard_sectors(bdev_); }
    u32 discard_granularity() const { return kapi_blkdev_discard_granularity(bdev_); }
    u32 discard_alignment() const { return kapi_blkdev_discard_alignment(bdev_); }
    u32 max_secure_erase_sectors() const { return kapi_blkdev_max_secure_erase_sectors(bdev_); }
    // The largest WRITE_ZEROES the device does itself; 0 if none.
    u32 max_write_zeroes_sectors() const { return kapi_blkdev_write_zeroes_sectors(bdev_); }
    bool write_cache() const { return kapi_blkdev_write_cache(bdev_) != 0; }
    bool fua() const { return kapi_blkdev_fua(bdev_) != 0; }
    u32 device_number() const { return kapi_blkdev_devt(bdev_); }
    // The kernel's name ("%pg": ram0, sda1, loop3), truncated to `out`.
    void name(cxxrt::Span<char> out) const { kapi_blkdev_name(bdev_, out.data(), u32(out.size())); }
    // The device's sysfs directory (a symlink target).
    cxxrt::sysfs::KobjRef kobject() const { return cxxrt::sysfs::KobjRef(kapi_blkdev_kobj(bdev_)); }

    ::block_device* native() const { return bdev_; }

private:
    void* handle_ = nullptr;  // what close takes: the block_device, or (Linux 6.9+) a file
    ::block_device* bdev_ = nullptr;
    bool writable_ = false;
};

}  // namespace kernel::block
