// An opened file (struct file) served through the VFS: a disk image, or a
// device node opened as a file. Reads go through the page cache; writes
// may bypass it (write_direct) where the file allows O_DIRECT. Everything
// but the size and identity queries: process context, sleeps. Closed when
// the object goes.
#pragma once

#include <cxxrt/native_owner.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>

#include "kernel/block/path.hpp"
#include "kernel/block/kapi-blkdev.h"

namespace kernel::block {

using namespace cxxrt::integers;

class File : cxxrt::Pinned {
public:
    // Opens what `path` found (no second lookup by name), O_RDONLY or O_RDWR.
    cxxrt::Result<void> open(const FilesystemPath& path, bool writable)
    {
        ::file* file = nullptr;
        CXXRT_TRY(cxxrt::to_result(kapi_file_open_path(path.native(), writable, &file)));
        file_ = Opened(file);
        return {};
    }
    void close() { file_.reset(); }

    // Bytes (the size of the device for a device node). Any context.
    u64 size() const { return kapi_file_size(file()); }
    // Identity: the filesystem's device number and the inode number; for a
    // device node the device's number and 0. Any context.
    u32 device_number() const { return kapi_file_dev(file()); }
    u64 inode_number() const { return kapi_file_ino(file()); }
    // O_DIRECT is possible (FMODE_CAN_ODIRECT). Any context.
    bool can_direct() const { return kapi_file_can_direct(file()) != 0; }

    // Bytes done or -errno.
    long read(void* buffer, u32 length, u64 position) const
    {
        return kapi_file_read(file(), buffer, length, position);
    }
    long write(const void* buffer, u32 length, u64 position) const
    {
        return kapi_file_write(file(), buffer, length, position);
    }
    // Bypassing the page cache, from kmalloc'd memory; -EINVAL where the
    // file or the range does not allow it.
    long write_direct(void* buffer, u32 length, u64 position) const
    {
        return kapi_file_write_direct(file(), buffer, length, position);
    }
    // vfs_fsync_range of [position, position + length); length 0: all.
    cxxrt::Result<void> sync(u64 position, u64 length) const
    {
        return cxxrt::to_result(kapi_file_sync(file(), position, length));
    }
    // Deallocates a range, keeping the size (punch hole).
    cxxrt::Result<void> punch_hole(u64 position, u64 length) const
    {
        return cxxrt::to_result(kapi_file_punch_hole(file(), position, length));
    }

private:
    ::file* file() const { return file_.get(); }

    using Opened = cxxrt::Owned<::file, kapi_file_close>;
    Opened file_;
};

}  // namespace kernel::block
