// A looked-up path (struct path) and the reference it holds, dropped when
// the object goes: lookup opens nothing (a FIFO or a device node is only
// looked at), so a policy can decide on what it found and then open exactly
// that (BlockDevice::open by its device number, File::open through it).
// Process context.
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>

#include "cxxrt-kabi.h"
#include "kernel/block/kapi-blkdev.h"

namespace kernel::block {

using namespace cxxrt::integers;

class FilesystemPath : cxxrt::Pinned {
public:
    FilesystemPath() = default;
    ~FilesystemPath()
    {
        if (held_)
            kapi_path_put(native());
    }

    // kern_path(LOOKUP_FOLLOW): -ENOENT and the walk's other errnos.
    cxxrt::Result<void> lookup(const char* name)
    {
        CXXRT_TRY(cxxrt::to_result(kapi_path_lookup(name, native())));
        held_ = true;
        return {};
    }
    // The inode's i_mode (type and permission bits).
    u32 mode() const { return kapi_path_mode(native()); }
    // Device nodes may not be opened on this mount (nodev).
    bool nodev() const { return kapi_path_nodev(native()) != 0; }
    // The device number of a device node.
    u32 rdev() const { return kapi_path_rdev(native()); }
    // Lies under `dir` in the mount tree.
    bool is_under(const FilesystemPath& dir) const { return kapi_path_is_under(native(), dir.native()) != 0; }
    // inode_permission for reading, and writing when `writable`: -EACCES,
    // -EPERM (immutable), -EROFS.
    cxxrt::Result<void> check_permission(bool writable) const
    {
        return cxxrt::to_result(kapi_path_permission(native(), writable));
    }

    ::path* native() { return reinterpret_cast<::path*>(storage_); }
    const ::path* native() const { return reinterpret_cast<const ::path*>(storage_); }

private:
    alignas(KABI_ALIGNOF_PATH) unsigned char storage_[KABI_SIZEOF_PATH];
    bool held_ = false;
};

}  // namespace kernel::block
