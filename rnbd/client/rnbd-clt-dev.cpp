// rnbd-client: one mapped device's life — map (the open exchange, the
// gendisk and its limits), remap, unmap, and the block device's
// open/release. The IO path is rnbd-clt-dev-io.cpp, the sysfs files
// rnbd-clt-dev-sysfs.cpp.
#include <cxxrt/foreign.hpp>
#include <cxxrt/new.hpp>
#include "rnbd/trace/rnbd-events.hpp"
#include "rnbd/client/rnbd-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::clt {

namespace {

constexpr unsigned long kVirtBoundaryMask = 4096 - 1;  // segments the transport's MR pages can map
// The most sectors one IO message can name (bi_size is 32-bit bytes), in 4 KiB steps.
constexpr u32 kMaxWireSectors = (cxxrt::NumericLimits<u32>::max >> wire::kSectorShift) & ~u32(7);

}  // namespace

Device::Device(Client& client, RefPtr<Session> session, u32 index, const MapOptions& options)
    : client_(client),
      session_(cxxrt::move(session)),
      index_(index),
      access_mode_(options.access_mode),
      io_mode_(options.io_mode),
      poll_queues_(options.poll_queues)
{
    size_t length = cxxrt::min<size_t>(options.device_path.length(), wire::kNameMax - 1);
    cxxrt::copy_bytes(path_, options.device_path.data(), length);
    client_.device_created();
}

Device::~Device()
{
    // The session may close here: before the module may count us gone.
    session_.reset();
    client_.release_index(index_);
    client_.device_destroyed();
}

Session& Device::session() { return *session_; }

// The rnbd_clt events print these values by name (rnbd/trace/kapi-rnbd-trace.h).
static_assert(u8(DeviceState::kInit) == RNBD_TRACE_CLT_INIT && u8(DeviceState::kOpen) == RNBD_TRACE_CLT_OPEN &&
              u8(DeviceState::kClosed) == RNBD_TRACE_CLT_CLOSED &&
              u8(DeviceState::kUnmapping) == RNBD_TRACE_CLT_UNMAPPING);
static_assert(u8(AccessMode::kReadOnly) == RNBD_TRACE_ACCESS_RO && u8(AccessMode::kReadWrite) == RNBD_TRACE_ACCESS_RW &&
              u8(AccessMode::kMigration) == RNBD_TRACE_ACCESS_MIGRATION);

void Device::set_state(DeviceState state)
{
    const u8 old = state_.exchange(u8(state), cxxrt::MemoryOrder::kAcqRel);
    if (old != u8(state))
        ktrace::rnbd_clt::dev_state(session_->name(), path_, disk_name(), old, u8(state));
}

const char* Device::disk_name() const { return disk_ ? disk_.name() : "rnbd?"; }

bool Device::same_mapping(StringView session, StringView path) const
{
    return StringView(session_->name()) == session && StringView(path_) == path;
}

Result<void> Device::set_link_names(bool session_suffix)
{
    StringView path(path_);
    size_t length = CXXRT_TRY(format_device_id(path, cxxrt::Span<char>(device_id_)));
    if (session_suffix) {
        // The seed's name is taken by the same path on another session.
        if (length + 1 + StringView(session_->name()).length() + 1 > sizeof(device_id_))
            return Error(err::kNameTooLong);
        device_id_[length] = '@';
        cxxrt::copy_bytes(device_id_ + length + 1, session_->name(), StringView(session_->name()).length() + 1);
    }
    CXXRT_TRY(format_device_link_name(path, StringView(session_->name()), cxxrt::Span<char>(link_name_)));
    return {};
}

// ---- map / unmap --------------------------------------------------------------

Result<void> Device::map()
{
    auto traced = [this](u64 nsectors, int error) {
        ktrace::rnbd_clt::map_device(session_->name(), path_, disk_name(), u8(access_mode_), nsectors, error);
    };
    // Polled queue i rides the session's polled connection i: every device
    // of a session has the session's count (upstream lets a polled session
    // carry no other device).
    if (poll_queues_ != session_->poll_queues()) {
        log::err_ratelimited("map_device: %s: nr_poll_queues=%u, but session %s has %u polled connections per path",
                             path_, poll_queues_, session_->name(), session_->poll_queues());
        traced(0, -err::kInval);
        return Error(err::kInval);
    }
    const u32 epoch = session_->epoch();
    auto opened = session_->open_device(StringView(path_), access_mode_, io_mode_);
    if (!opened) {
        log::err_ratelimited("map_device: %s on session %s: the server refused to open it (%d)", path_,
                             session_->name(), opened.to_errno());
        traced(0, opened.to_errno());
        return opened.error();
    }
    const codec::OpenRspFields& rsp = opened.value();
    opened_on_server_ = true;
    remote_id_.store(rsp.device_id);
    remote_sectors_.store(rsp.nsectors);
    open_epoch_.store(epoch);
    session_->attach(*this);
    attached_ = true;

    auto made = create_disk(rsp);
    if (made)
        made = create_sysfs();
    if (!made) {
        log::err("map_device: %s on session %s: creating the device failed (%d)", path_, session_->name(),
                 made.to_errno());
        unmap(true);
        traced(0, made.to_errno());
        return made.error();
    }
    {
        cxxrt::MutexGuard guard(lock_);
        published_ = true;
    }
    // udev saw the disk's "add" before rnbd/ existed: its rules read
    // rnbd/session and rnbd/mapping_path on this "change".
    disk_.change_uevent();
    log::info("map_device: Device mapped as %s (nsectors: %llu, logical_block_size: %u, physical_block_size: %u, "
              "max_discard_sectors: %u, discard_granularity: %u, discard_alignment: %u, secure_discard: %u, "
              "max_segments: %u, max_hw_sectors: %u, max_write_zeroes_sectors: %u, wc: %d, fua: %d)",
              disk_name(), (unsigned long long)rsp.nsectors, rsp.logical_block_size, rsp.physical_block_size,
              rsp.max_discard_sectors, rsp.discard_granularity, rsp.discard_alignment, rsp.secure_discard,
              session_->max_segments(), max_hw_sectors_, rsp.max_write_zeroes_sectors, (rsp.cache_policy & wire::kCacheWriteback) != 0,
              (rsp.cache_policy & wire::kCacheFua) != 0);
    traced(rsp.nsectors, 0);
    return {};
}

kernel::block::Limits Device::limits(const codec::OpenRspFields& rsp)
{
    const u32 transport_sectors = session_->max_io_size() / wire::kSectorSize;
    max_hw_sectors_ = cxxrt::min(transport_sectors, rsp.max_hw_sectors);
    kernel::block::Limits lim{};
    lim.logical_block_size = rsp.logical_block_size;
    lim.physical_block_size = rsp.physical_block_size;
    lim.max_hw_sectors = max_hw_sectors_;
    lim.max_segments = session_->max_segments();
    lim.virt_boundary_mask = kVirtBoundaryMask;
    lim.io_opt = session_->max_io_size();
    lim.max_discard_sectors = rsp.max_discard_sectors;
    lim.discard_granularity = rsp.discard_granularity;
    lim.discard_alignment = rsp.discard_alignment;
    lim.max_secure_erase_sectors = rsp.secure_discard ? rsp.max_discard_sectors : 0;
    // WRITE_ZEROES only where the server offers it (a 6.1 server never
    // does: the field is its always-0 max_write_same_sectors); otherwise the
    // block layer writes zeroes itself. One request's bytes fit the
    // message's 32-bit bi_size.
    lim.max_write_zeroes_sectors = cxxrt::min(rsp.max_write_zeroes_sectors, kMaxWireSectors);
    lim.write_cache = (rsp.cache_policy & wire::kCacheWriteback) != 0;
    lim.fua = (rsp.cache_policy & wire::kCacheFua) != 0;
    lim.rotational = 0;
    return lim;
}

Result<void> Device::create_disk(const codec::OpenRspFields& rsp)
{
    CXXRT_TRY(disk_.create(session_->tag_set(), limits(rsp), this));
    disk_.set_identity(rnbd_clt_disk_ops, client_.major(), index_, kMinorsPerDisk, "rnbd");
    disk_.set_capacity(rsp.nsectors);
    if (access_mode_ == AccessMode::kReadOnly)
        disk_.set_read_only();
    set_state(DeviceState::kOpen);
    CXXRT_TRY(disk_.add());
    (void)cxxrt::into_foreign(RefPtr<Device>(this));  // the disk's (its private data), dropped by free_disk
    return {};
}

Result<void> Device::create_sysfs()
{
    cxxrt::sysfs::KobjRef disk_dir = disk_.device_kobject();
    CXXRT_TRY(client_.link_device(device_id_, link_name_, disk_dir, kernel_link_, class_link_));
    CXXRT_TRY(dir_.add(this, disk_dir, "rnbd_client", &client_.device_group()));
    dir_.announce();
    CXXRT_TRY(alias_dir_.add(this, disk_dir, "rnbd", &client_.device_group()));
    alias_dir_.announce();
    return {};
}

void Device::remove_sysfs()
{
    kernel_link_.reset();
    class_link_.reset();
    alias_dir_.remove();
    dir_.remove();
}

void Device::unmap(bool force)
{
    ktrace::rnbd_clt::unmap_device(session_->name(), path_, disk_name(), force);
    set_state(DeviceState::kUnmapping);
    // Held IO fails now rather than at its next poll.
    if (disk_.added())
        disk_.run_queues();
    remove_sysfs();
    if (attached_) {
        session_->detach(*this);
        attached_ = false;
    }
    if (disk_.added()) {
        if (force)
            disk_.mark_dead();
        // Waits for the requests in flight; new ones fail (state).
        disk_.remove();
    }
    if (opened_on_server_) {
        opened_on_server_ = false;
        // Our device id means nothing in a session the server re-created
        // after an outage, until the device is re-opened there.
        if (session_->connected() && open_epoch_.load() == session_->epoch()) {
            auto closed = session_->close_device(remote_id_.load());
            if (!closed)
                log::warn("%s: CLOSE on the server failed (%d)", disk_name(), closed.to_errno());
        }
    }
    log::info("%s: unmapped (%s)", disk_name(), force ? "force" : "normal");
    // With the disk added, free_disk drops the disk's reference once the
    // last opener is gone (maybe right here; the caller's reference keeps
    // us alive). The disk's queue left the session's tag set in remove().
    disk_.reset();
}

Result<void> Device::reopen(TakeSize take)
{
    if (state() == DeviceState::kUnmapping)
        return Error(err::kNoDev);
    // Read before the OPEN: an outage meanwhile leaves the device stale.
    const u32 epoch = session_->epoch();
    codec::OpenRspFields rsp = CXXRT_TRY(session_->open_device(StringView(path_), access_mode_, io_mode_));
    remote_id_.store(rsp.device_id);
    remote_sectors_.store(rsp.nsectors);
    opened_on_server_ = true;
    cxxrt::MutexGuard guard(lock_);
    if (state() == DeviceState::kUnmapping)
        return Error(err::kNoDev);
    offered_limits_ = limits(rsp);
    limits_offered_ = true;
    open_epoch_.store(epoch);
    const bool was_closed = state() == DeviceState::kClosed;
    set_state(DeviceState::kOpen);
    // rnbd/state changed: udev rules and waiters (udevadm settle) see it.
    if (was_closed && published_)
        disk_.change_uevent();
    // The server's device may have grown or shrunk while we were away:
    // IO past its end would only fail with ERANGE there.
    if (take == TakeSize::kDisk)
        disk_.set_capacity_and_notify(rsp.nsectors);
    log::info("%s: re-opened on the server (device id %u, %llu sectors)", disk_name(), rsp.device_id,
              (unsigned long long)rsp.nsectors);
    return {};
}

bool Device::begin_unmap()
{
    cxxrt::MutexGuard guard(lock_);
    if (state() == DeviceState::kUnmapping)
        return false;
    set_state(DeviceState::kUnmapping);
    return true;
}

void Device::set_closed()
{
    cxxrt::MutexGuard guard(lock_);
    if (state() != DeviceState::kOpen && state() != DeviceState::kInit)
        return;
    set_state(DeviceState::kClosed);
    if (published_)
        disk_.change_uevent();  // rnbd/state changed
}

// ---- block device --------------------------------------------------------------

int Device::open_bdev(bool write)
{
    cxxrt::MutexGuard guard(lock_);
    if (state() == DeviceState::kUnmapping)
        return -err::kNxio;
    if (write && access_mode_ == AccessMode::kReadOnly)
        return -err::kPerm;
    ++openers_;
    return 0;
}

void Device::release_bdev()
{
    cxxrt::MutexGuard guard(lock_);
    if (openers_)
        --openers_;
}

Result<void> Device::apply_offered_limits()
{
    kernel::block::Limits lim;
    {
        cxxrt::MutexGuard guard(lock_);
        if (!limits_offered_)
            return {};
        limits_offered_ = false;
        lim = offered_limits_;
    }
    // No request in flight was built for the old limits; 6.12 checks the
    // new ones and takes all or none.
    auto updated = disk_.update_limits(lim);
    if (!updated) {
        log::err("%s: the server's queue limits refused by the block layer (%d)", disk_name(), updated.to_errno());
        return updated;
    }
    log::info("%s: queue limits as the server offers them now: logical block %u, %u sectors per IO, "
              "discard %u, write zeroes %u sectors",
              disk_name(), lim.logical_block_size, lim.max_hw_sectors, lim.max_discard_sectors,
              lim.max_write_zeroes_sectors);
    return {};
}

}  // namespace rnbd::clt

// ---- upcalls from kapi-rnbd-clt-blk.c: the disk -----------------------------------------------------

// Each converts the kernel's handles to the views of kernel/block/ at once.

using rnbd::clt::Device;
using rnbd::clt::IoRequest;

extern "C" int rnbd_clt_cxx_open(void* device, int write) noexcept
{
    return static_cast<Device*>(device)->open_bdev(write != 0);
}

extern "C" void rnbd_clt_cxx_release(void* device) noexcept
{
    static_cast<Device*>(device)->release_bdev();
}

extern "C" void rnbd_clt_cxx_free_disk(void* device) noexcept
{
    (void)cxxrt::from_foreign<cxxrt::RefPtr<Device>>(device);  // the disk's reference
}
