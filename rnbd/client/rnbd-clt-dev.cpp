// rnbd-client: one mapped device — its gendisk and blk-mq queues, the IO
// path onto RTRS, and /sys/block/rnbd<N>/{rnbd_client,rnbd}/.
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/percpu.hpp>
#include "kernel/trace/rnbd-events.hpp"
#include "rnbd/client/rnbd-clt-upcalls.h"
#include "rnbd/client/rnbd-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::clt {

using cxxrt::ByteSpan;
using cxxrt::Result;
using cxxrt::StringView;
using cxxrt::sysfs::Input;
using cxxrt::sysfs::Output;
namespace err = cxxrt::err;
namespace log = cxxrt::log;

namespace {

constexpr u32 kRequeueDelayMs = 10;
// Held IO looks at the device again this often (and at once on a kick).
constexpr u32 kHoldPollMs = 100;

u8 owner_load(const IoRequest& io) { return __atomic_load_n(&io.owner, __ATOMIC_ACQUIRE); }
bool owner_change(IoRequest& io, u8 from, u8 to)
{
    return __atomic_compare_exchange_n(&io.owner, &from, to, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

// Errors after which the request is queued again rather than failed: no
// path carried it (ENOTCONN, the transport's own verdict, never a server's),
// or the transport had no room for it right now.
bool retry_error(int error)
{
    return error == -err::kNotConn || error == -err::kAgain || error == -err::kNoMem;
}
constexpr unsigned long kVirtBoundaryMask = 4096 - 1;  // segments the transport's MR pages can map
// The most sectors one IO message can name (bi_size is 32-bit bytes), in 4 KiB steps.
constexpr u32 kMaxWireSectors = (cxxrt::NumericLimits<u32>::max >> wire::kSectorShift) & ~u32(7);

const char* access_mode_name(AccessMode mode)
{
    switch (mode) {
    case AccessMode::kReadOnly: return "ro";
    case AccessMode::kReadWrite: return "rw";
    case AccessMode::kMigration: return "migration";
    }
    return "unknown";
}

const char* state_name(DeviceState state)
{
    switch (state) {
    case DeviceState::kInit: return "init";
    case DeviceState::kOpen: return "open";
    case DeviceState::kClosed: return "closed";
    case DeviceState::kUnmapping: return "unmapped";
    }
    return "unknown";
}

}  // namespace

Device::Device(Client& client, RefPtr<Session> session, u32 index, const MapOptions& options)
    : client_(client),
      session_(cxxrt::move(session)),
      index_(index),
      access_mode_(options.access_mode),
      io_mode_(options.io_mode),
      poll_queues_(options.poll_queues),
      dir_(cxxrt::Callback::to<&Device::kobject_released>(this)),
      alias_dir_(cxxrt::Callback::to<&Device::kobject_released>(this))
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

// The rnbd_clt events print these values by name (kernel/trace/kapi-rnbd-trace.h).
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

block::Limits Device::limits(const codec::OpenRspFields& rsp)
{
    const u32 transport_sectors = session_->max_io_size() / wire::kSectorSize;
    max_hw_sectors_ = cxxrt::min(transport_sectors, rsp.max_hw_sectors);
    block::Limits lim{};
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
    // One hardware queue per CPU; the transport picks the connection of
    // the CPU that submits, so each queue rides its CPU's connection. The
    // polled queues (nr_poll_queues) follow, polled queue i riding the
    // session's polled connection i; reads share the default queues.
    default_queues_ = cxxrt::num_online_cpus();
    const block::TagSetShape shape{
        .hardware_queues = default_queues_ + poll_queues_,
        .maps = poll_queues_ ? block::kQueueTypes : 1u,
        .depth = session_->queue_depth(),
        .scatterlist_entries = session_->max_segments(),
    };
    CXXRT_TRY(tag_set_.create(shape, this));
    CXXRT_TRY(disk_.create(tag_set_, limits(rsp), this));
    disk_.set_identity(client_.major(), index_, kMinorsPerDisk, "rnbd");
    disk_.set_capacity(rsp.nsectors);
    if (access_mode_ == AccessMode::kReadOnly)
        disk_.set_read_only();
    set_state(DeviceState::kOpen);
    CXXRT_TRY(disk_.add());
    ref();  // the disk's, dropped by free_disk
    return {};
}

Result<void> Device::create_sysfs()
{
    cxxrt::sysfs::KobjRef disk_dir = disk_.device_kobject();
    CXXRT_TRY(client_.link_device(device_id_, link_name_, disk_dir, kernel_link_, class_link_));
    CXXRT_TRY(dir_.add(this, disk_dir, "rnbd_client"));
    CXXRT_TRY(dir_.add_group(client_.device_group()));
    dir_.uevent_add();
    CXXRT_TRY(alias_dir_.add(this, disk_dir, "rnbd"));
    CXXRT_TRY(alias_dir_.add_group(client_.device_group()));
    alias_dir_.uevent_add();
    return {};
}

void Device::remove_sysfs()
{
    client_.unlink_device(device_id_, link_name_, kernel_link_, class_link_);
    cxxrt::sysfs::Kobject* dirs[] = {&alias_dir_, &dir_};
    for (cxxrt::sysfs::Kobject* dir : dirs) {
        if (!dir->is_added())
            continue;
        dir->del();
        dir->put();
        kobjects_gone_.wait();
    }
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
    // us alive). The tag set goes after the disk.
    disk_.reset();
    tag_set_.destroy();
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

// ---- IO path ----------------------------------------------------------------------

void Device::init_request(IoRequest& io)
{
    io.device = this;
    io.rq = block::Request(nullptr);
    io.permit = nullptr;
    io.error = 0;
    io.owner = kOwnerIdle;
    io.timeouts = 0;
    io.sg = tag_set_.init_table(io);
}

// The device cannot carry IO now (closed, or not re-opened since the last
// outage): held while the session is within its io_hold_timeout_ms, else EIO.
block::Status Device::hold_or_fail(block::HardwareQueue queue)
{
    if (session_->link_mode() != Session::kHolding)
        return block::Status::kIoError;
    queue.delay_run(kHoldPollMs);
    return block::Status::kDeviceResource;
}

void Device::kick()
{
    // kInit: the disk may not exist yet (it is made after the device joins
    // the session); its state is set only once the disk is there.
    if (state() != DeviceState::kInit && disk_)
        disk_.run_queues();
}

block::Status Device::queue_rq(block::HardwareQueue queue, block::Request rq, IoRequest& io)
{
    const DeviceState current = state();
    if (current == DeviceState::kUnmapping || current == DeviceState::kInit)
        return block::Status::kIoError;
    if (current != DeviceState::kOpen || open_epoch_.load(cxxrt::MemoryOrder::kRelaxed) != session_->epoch())
        return hold_or_fail(queue);
    const block::RequestInfo info = rq.info();
    wire::IoOp op;
    switch (info.op) {
    case block::Op::kRead: op = wire::IoOp::kRead; break;
    case block::Op::kWrite: op = wire::IoOp::kWrite; break;
    case block::Op::kFlush: op = wire::IoOp::kFlush; break;
    case block::Op::kDiscard: op = wire::IoOp::kDiscard; break;
    case block::Op::kSecureErase: op = wire::IoOp::kSecureErase; break;
    case block::Op::kWriteZeroes: op = wire::IoOp::kWriteZeroes; break;
    default: return block::Status::kNotSupported;
    }
    rtrs_client_session* rtrs = session_->rtrs();
    rtrs_client_permit* permit = rtrs_client_get_permit(rtrs, RTRS_NO_WAIT);
    if (!permit) {
        // Every chunk of the session is busy: blk-mq retries, and we kick
        // the queue in case no request of this queue is in flight.
        queue.delay_run(kRequeueDelayMs);
        return block::Status::kResource;
    }
    codec::IoFields fields;
    fields.device_id = remote_id_.load(cxxrt::MemoryOrder::kRelaxed);
    fields.sector = info.sector;
    fields.op = op;
    fields.flags = (info.sync ? u32(wire::kIoFlagSync) : 0u) | (info.flush_or_fua ? u32(wire::kIoFlagFua) : 0u);
    fields.bi_size = info.bytes;
    fields.prio = info.prio;
    auto built = codec::build_io(ByteSpan(static_cast<u8*>(rtrs_client_permit_header(permit)), kUserHeaderSize),
                                 fields);
    if (!built) {
        rtrs_client_put_permit(rtrs, permit);
        return block::Status::kIoError;
    }
    io.rq = rq;
    io.permit = permit;
    io.error = 0;
    rq.start();
    const bool data = op == wire::IoOp::kRead || op == wire::IoOp::kWrite;
    const u32 count = data ? rq.map_sg(io.sg) : 0;
    const rtrs_direction direction = op == wire::IoOp::kRead ? RTRS_READ : RTRS_WRITE;
    __atomic_store_n(&io.owner, u8(kOwnerTransport), __ATOMIC_RELEASE);
    int rc = 0;
    if (queue.type() == block::QueueType::kPoll)
        rc = rtrs_client_request_polled(rtrs, permit, queue.number() - default_queues_, direction,
                                        kIoMessageSize, io.sg, count, data ? info.bytes : 0, &Device::io_done, &io);
    else
        rc = rtrs_client_request(rtrs, permit, direction, kIoMessageSize, io.sg, count, data ? info.bytes : 0,
                                 &Device::io_done, &io);
    // Refused at once (no path, no room, ...): completed like an answer,
    // so complete_rq decides between a retry and an error in one place.
    if (rc != 0)
        io_done(&io, rc);
    return block::Status::kOk;
}

void Device::map_queues(block::QueueMaps maps)
{
    maps.map(block::QueueType::kDefault, default_queues_, 0);
    if (poll_queues_ == 0)
        return;
    maps.map(block::QueueType::kRead, default_queues_, 0);
    maps.map(block::QueueType::kPoll, poll_queues_, default_queues_);
}

int Device::poll(u32 queue_num)
{
    if (queue_num < default_queues_)
        return 0;
    const int reaped = rtrs_client_poll(session_->rtrs(), queue_num - default_queues_);
    return reaped > 0 ? reaped : 0;
}

// KAPI: the transport's completion, softirq or process context, no sleep.
void Device::io_done(void* context, int error)
{
    IoRequest& io = *static_cast<IoRequest*>(context);
    io.error = error;
    for (;;) {
        const u8 owner = owner_load(io);
        // The timeout handler is asking the transport about this permit:
        // it completes the request when it is done.
        if (owner == kOwnerTimeout) {
            if (owner_change(io, owner, kOwnerAnswered))
                return;
            continue;
        }
        if (owner_change(io, owner, kOwnerIdle))
            break;
    }
    io.device->finish_io(io);
}

void Device::finish_io(IoRequest& io)
{
    rtrs_client_put_permit(session_->rtrs(), cxxrt::exchange(io.permit, nullptr));
    io.rq.complete();
}

void Device::complete_rq(IoRequest& io)
{
    int error = io.error;
    if (retry_error(error) && state() != DeviceState::kUnmapping &&
        (error != -err::kNotConn || session_->link_mode() != Session::kFailing)) {
        // Dispatched again after a short delay; queue_rq then holds it
        // while the session has no path (and fails it once the hold ends).
        io.rq.requeue(kRequeueDelayMs);
        return;
    }
    if (error == -err::kTimedOut || error == -err::kNotConn)
        error = -err::kIo;  // aborted after timeouts / the hold ended
    if (error)
        log::err_ratelimited("%s: IO failed (%d)", disk_name(), io.error);
    io.timeouts = 0;
    io.rq.end(error);
}

// The block layer's request timeout. The request's memory may still be
// written by RDMA until the transport gives it back, so it is never just
// completed here: the transport fails the path carrying it (draining that
// path's queue pairs) and gives it back: failed over the first time, with
// -ETIMEDOUT (EIO) the kTimeoutsBeforeAbort-th time. Never reset forever.
int Device::timeout(IoRequest& io)
{
    if (!owner_change(io, kOwnerTransport, kOwnerTimeout))
        return 1;  // not with the transport: being completed or re-queued
    if (io.timeouts < 255)
        ++io.timeouts;
    const bool final = io.timeouts >= kTimeoutsBeforeAbort;
    log::warn_ratelimited("%s: IO timed out (%u. time), %s", disk_name(), u32(io.timeouts),
                          final ? "aborting it" : "failing its path");
    rtrs_client_abort(session_->rtrs(), io.permit, final ? 1 : 0);
    if (owner_change(io, kOwnerTimeout, kOwnerTransport))
        return 1;
    // Answered while we asked (kOwnerAnswered): ours to complete.
    __atomic_store_n(&io.owner, u8(kOwnerIdle), __ATOMIC_RELEASE);
    finish_io(io);
    return 0;
}

// ---- sysfs --------------------------------------------------------------------------

Result<void> Device::show_state(Output& out)
{
    out.print("%s\n", state_name(state()));
    return {};
}

Result<void> Device::show_session(Output& out)
{
    out.print("%s\n", session_->name());
    return {};
}

Result<void> Device::show_mapping_path(Output& out)
{
    out.print("%s\n", path_);
    return {};
}

Result<void> Device::show_access_mode(Output& out)
{
    out.print("%s\n", access_mode_name(access_mode_));
    return {};
}

Result<void> Device::show_io_mode(Output& out)
{
    out.print("%s\n", io_mode_ == IoMode::kFileIo ? "fileio" : "blockio");
    return {};
}

Result<void> Device::show_nr_poll_queues(Output& out)
{
    out.print("%u\n", poll_queues_);
    return {};
}

Result<void> Device::store_unmap_device(Input& in)
{
    StringView line = in.line();
    bool force = line == StringView("force");
    if (!force && !(line == StringView("normal"))) {
        log::err_ratelimited("%s: unmap_device takes 'normal' or 'force'", disk_name());
        return Error(err::kInval);
    }
    // Once our file is removed below, nothing else keeps the module loaded
    // while the CLOSE waits for the server (up to kMessageTimeoutMs): hold
    // it ourselves, so `rmmod rnbd-client` meanwhile fails with EBUSY
    // instead of freeing the code this write runs. Refused while unloading:
    // module exit unmaps every device itself.
    if (!rnbd_clt_module_get())
        return Error(err::kNoDev);
    auto result = unmap_from_sysfs(in, force);
    rnbd_clt_module_put();
    return result;
}

Result<void> Device::unmap_from_sysfs(Input& in, bool force)
{
    {
        cxxrt::MutexGuard guard(lock_);
        if (!published_ || state() == DeviceState::kUnmapping)
            return Error(err::kNoDev);
        if (!force && openers_) {
            log::err_ratelimited("%s: unmap_device normal refused: the device is open (%u openers)", disk_name(),
                                 openers_);
            return Error(err::kBusy);
        }
        set_state(DeviceState::kUnmapping);
    }
    // Our own file first, so tearing the directory down does not wait for
    // this very write.
    if (!in.remove_self())
        return Error(err::kNoDev);
    RefPtr<Device> self(this);
    client_.forget_device(*this);  // the registry's (mapped) reference comes back to us
    unmap(force);
    unref();
    return {};
}

Result<void> Device::store_remap_device(Input& in)
{
    auto yes = cxxrt::parse::parse_unsigned(in.line(), 1);
    if (!yes || yes.value() != 1) {
        log::err_ratelimited("%s: remap_device takes '1'", disk_name());
        return Error(err::kInval);
    }
    {
        // The session lock orders us with the reconnect's own re-open, so the
        // state looked at is the one the OPEN below replaces.
        cxxrt::MutexGuard session_guard(session_->lock_);
        {
            cxxrt::MutexGuard guard(lock_);
            if (!published_ || state() == DeviceState::kUnmapping)
                return Error(err::kNoDev);
            // As upstream: an open device has nothing to re-open (its size
            // follows the server through resize); a second OPEN would only
            // change the disk under its users.
            if (state() == DeviceState::kOpen) {
                log::err_ratelimited("%s: remap_device refused: the device is open on the server", disk_name());
                return Error(err::kAlready);
            }
            if (state() != DeviceState::kClosed)
                return Error(err::kBusy);
        }
        auto reopened = reopen(TakeSize::kDisk);
        if (!reopened) {
            log::err_ratelimited("%s: remap_device: the server refused the re-open (%d)", disk_name(),
                                 reopened.to_errno());
            return reopened;
        }
        // IO held (or failing) since the device closed goes out now.
        kick();
    }
    // The server's device may not be the one it was (another device behind
    // the path, other limits): the disk takes what it offers now.
    return apply_offered_limits();
}

Result<void> Device::apply_offered_limits()
{
    block::Limits lim;
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

Result<void> Device::store_resize(Input& in)
{
    cxxrt::parse::Reason reason = cxxrt::parse::Reason::kNone;
    auto sectors = cxxrt::parse::parse_unsigned(in.line(), ~u64(0) >> wire::kSectorShift, &reason);
    if (!sectors || sectors.value() == 0) {
        log::err_ratelimited("%s: resize takes a size in 512-byte sectors", disk_name());
        return Error(err::kInval);
    }
    {
        cxxrt::MutexGuard guard(lock_);
        if (!published_ || state() != DeviceState::kOpen)
            return Error(err::kNoDev);
    }
    if (sectors.value() > remote_sectors_.load()) {
        // Learn the server's current size (it may have grown).
        cxxrt::MutexGuard guard(session_->lock_);
        CXXRT_TRY(reopen(TakeSize::kOnly));
    }
    // What that OPEN (or a reconnect's since the last update) offered.
    CXXRT_TRY(apply_offered_limits());
    if (sectors.value() > remote_sectors_.load()) {
        log::err_ratelimited("%s: resize to %llu sectors refused: the server's device has %llu", disk_name(),
                             (unsigned long long)sectors.value(), (unsigned long long)remote_sectors_.load());
        return Error(err::kInval);
    }
    disk_.set_capacity_and_notify(sectors.value());
    return {};
}

namespace {
constexpr cxxrt::sysfs::Attribute<Device> kDeviceAttributes[] = {
    {"unmap_device", 0644, nullptr, &Device::store_unmap_device, "Usage: echo <normal|force> > unmap_device\n"},
    {"remap_device", 0644, nullptr, &Device::store_remap_device, "Usage: echo <1> > remap_device\n"},
    {"resize", 0644, nullptr, &Device::store_resize, "Usage: echo <new size in sectors> > resize\n"},
    {"state", 0444, &Device::show_state, nullptr},
    {"session", 0444, &Device::show_session, nullptr},
    {"mapping_path", 0444, &Device::show_mapping_path, nullptr},
    {"access_mode", 0444, &Device::show_access_mode, nullptr},
    {"io_mode", 0444, &Device::show_io_mode, nullptr},
    {"nr_poll_queues", 0444, &Device::show_nr_poll_queues, nullptr},
};
constexpr cxxrt::sysfs::GroupSpec kDeviceGroup = cxxrt::sysfs::group(kDeviceAttributes);

}  // namespace

const cxxrt::sysfs::GroupSpec& device_group_spec() { return kDeviceGroup; }

}  // namespace rnbd::clt

// ---- upcalls from kernel/block/kapi-blk.c -----------------------------------------------------

// Each converts the kernel's handles to the views of kernel/block/ at once.

using rnbd::clt::Device;
using rnbd::clt::IoRequest;
namespace block = rnbd::block;

extern "C" void rnbd_clt_cxx_init_request(void* device, void* pdu) noexcept
{
    static_cast<Device*>(device)->init_request(*static_cast<IoRequest*>(pdu));
}

extern "C" int rnbd_clt_cxx_queue_rq(void* device, blk_mq_hw_ctx* hctx, request* rq, void* pdu) noexcept
{
    return int(static_cast<Device*>(device)->queue_rq(block::HardwareQueue(hctx), block::Request(rq),
                                                      *static_cast<IoRequest*>(pdu)));
}

extern "C" void rnbd_clt_cxx_map_queues(void* device, blk_mq_tag_set* tag_set) noexcept
{
    static_cast<Device*>(device)->map_queues(block::QueueMaps(tag_set));
}

extern "C" int rnbd_clt_cxx_poll(void* device, unsigned int queue_num) noexcept
{
    return static_cast<Device*>(device)->poll(queue_num);
}

extern "C" void rnbd_clt_cxx_complete_rq(request*, void* pdu) noexcept
{
    IoRequest& io = *static_cast<IoRequest*>(pdu);
    io.device->complete_rq(io);
}

extern "C" int rnbd_clt_cxx_timeout(void* device, request*, void* pdu) noexcept
{
    return static_cast<Device*>(device)->timeout(*static_cast<IoRequest*>(pdu));
}

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
    static_cast<Device*>(device)->unref();
}
