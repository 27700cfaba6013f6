// rnbd-server: the backing object of a mapping (block device or file), the
// exported Device with its sysfs directory, and a mapping's sysfs files.
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/parse.hpp>
#include "rnbd/kapi-blkdev.h"
#include "rnbd/rnbd-srv-kapi.h"
#include "rnbd/rnbd-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::srv {

using namespace cxxrt;

namespace {

// Limits we announce for objects served through the VFS.
constexpr u32 kFileMaxHwSectors = 1024;  // 512 KiB; the client caps to the RTRS chunk anyway
constexpr u16 kFileMaxSegments = 128;
constexpr u32 kFileDiscardGranularity = 4096;
constexpr u32 kFileMaxDiscardSectors = 1u << 16;  // 32 MiB per discard

}  // namespace

// ---- Backing ----

Result<void> Backing::open(const char* path, bool writable, wire::IoMode mode)
{
    const int is_blk = kapi_path_is_blockdev(path);
    if (is_blk < 0)
        return Error::from_errno(is_blk);
    writable_ = writable;
    if (is_blk == 1 && mode != wire::IoMode::kFileIo) {
        void* bdev = nullptr;
        CXXRT_TRY(to_result(kapi_blkdev_open(path, writable, &bdev)));
        kind_ = IoKind::kBlock;
        handle_ = bdev;
        key_dev_ = kapi_blkdev_devt(bdev);
        key_ino_ = 0;
        return {};
    }
    void* file = nullptr;
    CXXRT_TRY(to_result(kapi_file_open(path, writable, &file)));
    const int file_kind = kapi_file_kind(file);
    if (file_kind == 0) {
        kapi_file_close(file);
        return Error(err::kInval);  // neither a regular file nor a block device
    }
    kind_ = IoKind::kFile;
    handle_ = file;
    file_is_block_node_ = file_kind == 2;
    can_direct_ = kapi_file_can_direct(file) != 0;
    key_dev_ = kapi_file_dev(file);
    key_ino_ = kapi_file_ino(file);
    return {};
}

void Backing::close()
{
    void* handle = exchange(handle_, nullptr);
    if (!handle)
        return;
    if (kind_ == IoKind::kBlock)
        kapi_blkdev_close(handle, writable_);
    else
        kapi_file_close(handle);
}

u64 Backing::sectors() const
{
    if (!handle_)
        return 0;
    if (kind_ == IoKind::kBlock)
        return kapi_blkdev_nr_sectors(handle_);
    return kapi_file_size(handle_) >> wire::kSectorShift;
}

void Backing::fill_open_rsp(codec::OpenRspFields& rsp) const
{
    rsp.nsectors = sectors();
    rsp.max_write_same_sectors = 0;
    if (kind_ == IoKind::kBlock) {
        void* bdev = handle_;
        rsp.logical_block_size = u16(kapi_blkdev_logical_block_size(bdev));
        rsp.physical_block_size = u16(kapi_blkdev_physical_block_size(bdev));
        rsp.max_segments = u16(min(kapi_blkdev_max_segments(bdev), 0xffffu));
        rsp.max_hw_sectors = kapi_blkdev_max_hw_sectors(bdev);
        rsp.max_discard_sectors = kapi_blkdev_max_discard_sectors(bdev);
        rsp.discard_granularity = kapi_blkdev_discard_granularity(bdev);
        rsp.discard_alignment = kapi_blkdev_discard_alignment(bdev);
        rsp.secure_discard = u16(min(kapi_blkdev_max_secure_erase_sectors(bdev), 0xffffu));
        rsp.cache_policy = u8((kapi_blkdev_write_cache(bdev) ? wire::kCacheWriteback : 0) |
                              (kapi_blkdev_fua(bdev) ? wire::kCacheFua : 0));
        return;
    }
    // Through the VFS: writes that do not bypass the page cache are made
    // durable by flush (fsync) and FUA (fsync of the range).
    rsp.logical_block_size = u16(wire::kSectorSize);
    rsp.physical_block_size = u16(wire::kSectorSize);
    rsp.max_segments = kFileMaxSegments;
    rsp.max_hw_sectors = kFileMaxHwSectors;
    const bool can_punch = !file_is_block_node_;
    rsp.max_discard_sectors = can_punch ? kFileMaxDiscardSectors : 0;
    rsp.discard_granularity = can_punch ? kFileDiscardGranularity : 0;
    rsp.discard_alignment = 0;
    rsp.secure_discard = 0;
    rsp.cache_policy = u8(wire::kCacheWriteback | wire::kCacheFua);
}

// ---- Device ----

Device::Device(u32 key_dev, u64 key_ino)
    : key_dev_(key_dev), key_ino_(key_ino), kobj_(Callback::to<&Device::kobj_released>(this)),
      sessions_(Callback::to<&Device::sessions_released>(this))
{
}

Result<void> Device::add_sysfs(sysfs::KobjRef parent, const Backing& backing)
{
    CXXRT_TRY(kobj_.add(this, parent, name_));
    CXXRT_TRY(sessions_.add(this, kobj_, "sessions"));
    if (backing.kind() == IoKind::kBlock) {
        CXXRT_TRY(sysfs::create_link(kobj_, sysfs::KobjRef(kapi_blkdev_kobj(backing.handle())), "block_dev"));
        linked_ = true;
    }
    return {};
}

void Device::remove_sysfs()
{
    if (linked_)
        sysfs::remove_link(kobj_, "block_dev");
    linked_ = false;
    sysfs::Kobject* dirs[] = {&sessions_, &kobj_};
    Completion* gone[] = {&sessions_gone_, &kobj_gone_};
    for (int i = 0; i < 2; ++i) {
        if (!dirs[i]->is_added())
            continue;
        dirs[i]->del();
        dirs[i]->put();
        gone[i]->wait();
    }
}

void Device::set_name(const Backing& backing, const char* mapping_path)
{
    if (backing.kind() == IoKind::kBlock) {
        kapi_blkdev_name(backing.handle(), name_, sizeof(name_));
        return;
    }
    size_t n = 0;
    for (; mapping_path[n] != '\0' && n + 1 < sizeof(name_); ++n)
        name_[n] = mapping_path[n] == '/' ? '!' : mapping_path[n];
    name_[n] = '\0';
}

// ---- SessDev ----

SessDev::SessDev(Session& session, u32 id, wire::AccessMode mode, StringView mapping_path)
    : session_(session), id_(id), access_mode_(mode), kobj_(Callback::to<&SessDev::kobj_released>(this))
{
    const size_t n = min(mapping_path.length(), sizeof(mapping_path_) - 1);
    copy_bytes(mapping_path_, mapping_path.data(), n);
    mapping_path_[n] = '\0';
}

SessDev::~SessDev()
{
    CXXRT_ASSERT(!module_ref_);
}

void SessDev::put()
{
    if (refs_.fetch_sub(1, MemoryOrder::kAcqRel) == 1)
        drained_->complete();
}

void SessDev::drain()
{
    Completion drained;
    drained_ = &drained;
    put();
    drained.wait();
    drained_ = nullptr;
}

Result<void> SessDev::show_read_only(sysfs::Output& out)
{
    out.print("%d\n", read_only() ? 1 : 0);
    return {};
}

Result<void> SessDev::show_access_mode(sysfs::Output& out)
{
    out.print("%s\n", access_mode_name(access_mode_));
    return {};
}

Result<void> SessDev::show_mapping_path(sysfs::Output& out)
{
    out.print("%s\n", mapping_path_);
    return {};
}

Result<void> SessDev::store_force_close(sysfs::Input& in)
{
    if (!(in.line() == StringView("1"))) {
        log::err_ratelimited("%s@%s: force_close: only '1' is accepted", mapping_path_, session_.name());
        return Error(err::kInval);
    }
    return session_.force_close(*this, in);
}

namespace {

constexpr sysfs::Attribute<SessDev> kSessDevAttributes[] = {
    {"read_only", 0444, &SessDev::show_read_only, nullptr},
    {"access_mode", 0444, &SessDev::show_access_mode, nullptr},
    {"mapping_path", 0444, &SessDev::show_mapping_path, nullptr},
    {"force_close", 0644, nullptr, &SessDev::store_force_close, "Usage: echo 1 > force_close\n"},
};
constexpr sysfs::GroupSpec kSessDevGroup = sysfs::group(kSessDevAttributes);

}  // namespace

const sysfs::GroupSpec& sess_dev_group_spec() { return kSessDevGroup; }

}  // namespace rnbd::srv
