// rnbd-server: the backing object of a mapping (block device or file) and
// the export policy applied to it, the file_export_dir parameter, the
// exported Device with its sysfs directory, and a mapping's sysfs files.
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/parse.hpp>
#include "rnbd/kapi-blkdev.h"
#include "rnbd/rnbd-srv-kapi.h"
#include "rnbd/rnbd-srv-policy.hpp"
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

// ---- PathBuffer ----

PathBuffer::PathBuffer() : data_(allocate_array<char>(Gfp::kernel(), policy::kPathMax)) {}
PathBuffer::~PathBuffer() { free_array(data_); }
Span<char> PathBuffer::span() { return Span<char>(data_, policy::kPathMax); }

namespace {

// A looked-up path (struct path) and its reference, dropped at scope end.
class KernelPath : Pinned {
public:
    KernelPath() = default;
    ~KernelPath()
    {
        if (held_)
            kapi_path_put(storage_);
    }

    Result<void> lookup(const char* name)
    {
        CXXRT_TRY(to_result(kapi_path_lookup(name, storage_)));
        held_ = true;
        return {};
    }
    const void* native() const { return storage_; }
    policy::ObjectKind kind() const { return policy::object_kind(kapi_path_mode(storage_)); }
    bool nodev() const { return kapi_path_nodev(storage_) != 0; }
    u32 rdev() const { return kapi_path_rdev(storage_); }
    bool is_under(const KernelPath& dir) const { return kapi_path_is_under(storage_, dir.storage_) != 0; }

private:
    alignas(KABI_ALIGNOF_PATH) unsigned char storage_[KABI_SIZEOF_PATH];
    bool held_ = false;
};

// Whether the object at `object` lies inside the directory named by
// `file_export_dir` (looked up now: the parameter may have changed, or the
// directory may be gone, since it was set).
bool inside_file_export_dir(const KernelPath& object, const char* file_export_dir)
{
    KernelPath dir;
    if (dir.lookup(file_export_dir).is_error() || dir.kind() != policy::ObjectKind::kDirectory)
        return false;
    return object.is_under(dir);
}

}  // namespace

// ---- Backing ----

Result<void> Backing::open(const char* path, bool writable, wire::IoMode mode, const char* file_export_dir)
{
    refusal_ = "";
    KernelPath object;
    auto found = object.lookup(path);
    if (found.is_error()) {
        refusal_ = "lookup failed";
        return found.error();
    }
    policy::ExportFacts facts;
    facts.kind = object.kind();
    facts.nodev_mount = object.nodev();
    facts.file_export_enabled = file_export_dir[0] != '\0';
    if (facts.kind == policy::ObjectKind::kRegularFile && facts.file_export_enabled)
        facts.inside_file_export_dir = inside_file_export_dir(object, file_export_dir);
    const policy::ExportDecision decision = policy::decide_export(facts, mode);
    if (decision.error) {
        refusal_ = decision.reason;
        return Error::from_errno(decision.error);
    }
    writable_ = writable;
    if (decision.open_as == policy::OpenAs::kBlockDevice) {
        void* opened = nullptr;
        void* bdev = nullptr;
        CXXRT_TRY(to_result(kapi_blkdev_open_by_dev(object.rdev(), writable, &opened, &bdev)));
        if (writable && kapi_blkdev_read_only(bdev)) {
            kapi_blkdev_close(opened, writable);
            refusal_ = "read-write open of a read-only block device";
            return Error(err::kAccess);
        }
        kind_ = IoKind::kBlock;
        handle_ = bdev;
        open_handle_ = opened;
        logical_block_size_ = kapi_blkdev_logical_block_size(bdev);
        // Offered as the device does it: the block layer would otherwise
        // emulate it here with writes of zeroes, which the client's own
        // block layer does as well without the round trip of a new op.
        max_write_zeroes_sectors_ = kapi_blkdev_write_zeroes_sectors(bdev);
        key_dev_ = kapi_blkdev_devt(bdev);
        key_ino_ = 0;
        return {};
    }
    CXXRT_TRY(to_result(kapi_path_permission(object.native(), writable)));
    void* file = nullptr;
    CXXRT_TRY(to_result(kapi_file_open_path(object.native(), writable, &file)));
    kind_ = IoKind::kFile;
    handle_ = file;
    open_handle_ = file;
    file_is_block_node_ = facts.kind == policy::ObjectKind::kBlockDevice;
    can_direct_ = kapi_file_can_direct(file) != 0;
    logical_block_size_ = wire::kSectorSize;
    key_dev_ = kapi_file_dev(file);
    key_ino_ = kapi_file_ino(file);
    return {};
}

void Backing::close()
{
    handle_ = nullptr;
    void* handle = exchange(open_handle_, nullptr);
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
    // Files: none offered (fallocate ranges are not served as write-zeroes).
    rsp.max_write_zeroes_sectors = max_write_zeroes_sectors_;
    if (kind_ == IoKind::kBlock) {
        void* bdev = handle_;
        rsp.logical_block_size = u16(logical_block_size_);
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
    rsp.logical_block_size = u16(logical_block_size_);
    rsp.physical_block_size = u16(logical_block_size_);
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
    Completion drained{lock_class<"rnbd::srv::SessDev::drain::drained">};
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

Result<void> copy_file_export_dir(Span<char> out)
{
    rnbd_srv_params_lock();
    TextBuffer text(out);
    text.append(StringView(rnbd_srv_file_export_dir()));
    rnbd_srv_params_unlock();
    return text.truncated() ? Result<void>(Error(err::kNameTooLong)) : Result<void>();
}

}  // namespace rnbd::srv

extern "C" int rnbd_srv_cxx_set_file_export_dir(const char* value, char* storage, unsigned int size) noexcept
{
    using namespace rnbd::srv;
    auto checked = policy::check_file_export_dir(StringView(value));
    if (checked.is_error())
        return checked.to_errno();
    const size_t length = checked.value();
    if (length + 1 > size)
        return -err::kNameTooLong;
    if (length == 0) {
        storage[0] = '\0';
        return 0;
    }
    PathBuffer candidate;
    if (!candidate.data())
        return -err::kNoMem;
    copy_bytes(candidate.data(), value, length);
    candidate.data()[length] = '\0';
    KernelPath dir;
    auto found = dir.lookup(candidate.data());
    if (found.is_error())
        return found.to_errno();
    if (dir.kind() != policy::ObjectKind::kDirectory)
        return -policy::kErrNotDir;
    copy_bytes(storage, candidate.data(), length + 1);
    return 0;
}

extern "C" int rnbd_srv_cxx_set_dev_search_path(const char* value, char* storage, unsigned int size) noexcept
{
    using namespace rnbd::srv;
    auto checked = policy::check_dev_search_path(StringView(value));
    if (checked.is_error()) {
        log::err("dev_search_path refused: not an absolute path below PATH_MAX bytes");
        return checked.to_errno();
    }
    const size_t length = checked.value();
    if (length + 1 > size)
        return -err::kInval;
    copy_bytes(storage, value, length);
    storage[length] = '\0';
    return 0;
}
