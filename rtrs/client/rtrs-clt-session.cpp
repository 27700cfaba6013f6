// rtrs-client: a session (a group of paths to one server session), its
// permits, path selection and fail-over, and the user's link events.
#include <cxxrt/log.hpp>
#include <cxxrt/scope_guard.hpp>
#include "rtrs/client/rtrs-clt-upcalls.h"
#include "rtrs/client/rtrs-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::clt {

namespace {

bool valid_address(const rtrs_address& address, bool optional)
{
    switch (address.family) {
    case RTRS_ADDRESS_NONE: return optional;
    case RTRS_ADDRESS_IPV4:
    case RTRS_ADDRESS_IPV6:
    case RTRS_ADDRESS_GID: return true;
    default: return false;
    }
}

Result<void> check_open_params(const rtrs_client_open_params& params)
{
    if (!params.session_name || !params.paths || params.path_count == 0 || params.path_count > kMaxPaths)
        return Error(cxxrt::err::kInval);
    CXXRT_TRY(codec::check_path_name(cxxrt::StringView(params.session_name)));
    for (u32 i = 0; i < params.path_count; ++i)
        if (!valid_address(params.paths[i].destination, false) || !valid_address(params.paths[i].source, true))
            return Error(cxxrt::err::kInval);
    if (params.max_reconnect_attempts < ReconnectBudget::kMinAttempts ||
        params.max_reconnect_attempts > ReconnectBudget::kMaxAttempts)
        return Error(cxxrt::err::kInval);
    if (!IoHold::valid(params.io_hold_timeout_ms))
        return Error(cxxrt::err::kInval);
    if (params.poll_queues > kMaxPollQueues)
        return Error(cxxrt::err::kInval);
    return {};
}

}  // namespace

Result<Session*> Session::open(const rtrs_client_callbacks& callbacks, const rtrs_client_open_params& params)
{
    CXXRT_TRY(check_open_params(params));
    cxxrt::StringView name(params.session_name);
    auto made = CXXRT_TRY(cxxrt::make_unique<Session>(Gfp::kernel()));
    Session& session = *made;
    cxxrt::copy_bytes(session.name_, name.data(), name.length());
    // Before anything is connected or created: a second open of a live
    // session's name fails here, not half-way on the server or in sysfs.
    auto claimed = session_names().claim(session.name_entry_, session.name_);
    if (!claimed) {
        cxxrt::log::err_ratelimited("session %s: the name is in use by another session", session.name_);
        return claimed.error();
    }
    session.callbacks_ = callbacks;
    cxxrt::random_bytes(session.uuid_.bytes);
    session.reconnect_delay_seconds_ = params.reconnect_delay_seconds;
    session.max_reconnect_attempts_.store(params.max_reconnect_attempts);
    {
        cxxrt::MutexGuard guard(session.setup_);
        (void)session.hold_.set_timeout(params.io_hold_timeout_ms);
    }
    session.user_header_size_ = params.user_header_size;
    session.poll_queues_ = params.poll_queues;
    session.port_ = params.paths[0].destination.port;
    session.cursors_ = CXXRT_TRY(cxxrt::PerCpu<u32>::create(Gfp::kernel()));
    session.paths_ = CXXRT_TRY(cxxrt::Array<Atomic<Path*>>::create(Gfp::kernel(), kMaxPaths));
    // From the first path on, every failure closes what was started before
    // the session goes.
    cxxrt::ScopeGuard close_on_failure([&session] { session.close(); });
    for (u32 i = 0; i < params.path_count; ++i) {
        Path* path = cxxrt::allocate<Path>(Gfp::kernel(), session, i, params.paths[i], i == 0);
        if (!path)
            return Error(cxxrt::err::kNoMem);
        session.publish(i, path);
        CXXRT_TRY(path->init());
    }
    const u32 path_count = session.slot_count();
    CXXRT_TRY(session.connect_first(path_count));
    CXXRT_TRY(session.create_permits());
    CXXRT_TRY(session.create_directory());
    close_on_failure.dismiss();
    for (u32 i = 0; i < path_count; ++i) {
        if (session.path_at(i)->connected())
            session.path_at(i)->create_sysfs();
        else
            session.path_at(i)->start_reconnecting();
    }
    return made.release();
}

// Paths connect one after the other, as upstream does; the session is
// usable once one of them is up, the others keep trying in the background.
Result<void> Session::connect_first(u32 path_count)
{
    Result<void> first_error = Error(cxxrt::err::kNotConn);
    u32 connected = 0;
    OpenRetry retry;
    for (;;) {
        for (u32 i = 0; i < path_count; ++i) {
            auto opened = path_at(i)->open();
            if (opened)
                ++connected;
            else if (first_error.error().code() == cxxrt::err::kNotConn)
                first_error = opened.error();
        }
        if (connected)
            return {};
        const u32 delay_ms = retry.next_delay_ms(first_error.error().code());
        if (!delay_ms)
            break;
        cxxrt::log::info("session %s: the server reset the connect (is it still closing a session of this name?), "
                         "again in %u ms",
                         name_, delay_ms);
        cxxrt::sleep_ms(delay_ms);
        // A new identity: the server may still hold the refused attempt
        // under the old one.
        cxxrt::random_bytes(uuid_.bytes);
        first_error = Error(cxxrt::err::kNotConn);
    }
    cxxrt::log::err("session %s: no path could connect (%d)", name_, first_error.to_errno());
    return first_error.error();
}

Result<void> Session::create_directory()
{
    auto directory = cxxrt::make_unique<SessionDirectory>(Gfp::kernel());
    if (directory)
        sysfs_ = directory.release_value();
    auto created = directory ? sysfs_->create(*this) : Result<void>(directory.error());
    if (!created) {
        // -EEXIST: another session of this name exists.
        cxxrt::log::err("session %s: no sysfs directory (%d)", name_, created.to_errno());
        return created.error();
    }
    return {};
}

Result<void> Session::create_permits()
{
    CXXRT_TRY(permits_.init(queue_depth_, Gfp::kernel()));
    permit_objects_ = CXXRT_TRY(
        cxxrt::Array<Permit>::create(Gfp::kernel(), queue_depth_, [this](u32 index) { return Permit(*this, index); }));
    for (Permit& permit : permit_objects_)
        permit.user_header = CXXRT_TRY(cxxrt::Array<u8>::create_zeroed(Gfp::kernel(), user_header_size_ + 1));
    return {};
}

void Session::publish(u32 slot, Path* path)
{
    paths_[slot].store(path, cxxrt::MemoryOrder::kRelease);
    if (path && slot >= slots_.load())
        slots_.store(slot + 1, cxxrt::MemoryOrder::kRelease);
}

void Session::close()
{
    {
        // Waits for a running add_path/remove_path; none starts after this.
        cxxrt::MutexGuard guard(paths_mutex_);
        closing_.store(true);
    }
    const u32 count = slot_count();
    for (u32 i = 0; i < count; ++i)
        if (Path* path = path_at(i))
            path->close();
    // Its work checks closing_: nothing is reported after this.
    hold_work_.cancel_sync();
    // Directories last: their handlers may still have been running.
    for (u32 i = 0; i < count; ++i)
        if (Path* path = path_at(i))
            path->remove_sysfs();
    sysfs_.reset();
}

Session::~Session()
{
    session_names().release(name_entry_);
    for (Atomic<Path*>& slot : paths_)
        cxxrt::destroy(slot.load(cxxrt::MemoryOrder::kRelaxed));
}

namespace {

// Does `address` name the same path as `path` (destination, and the source
// when the new one gives one)?
bool same_path(const Path& path, const rtrs_path_address& address)
{
    if (!same_address(to_address(path.address().destination), to_address(address.destination)) ||
        path.address().destination.port != address.destination.port)
        return false;
    if (address.source.family == RTRS_ADDRESS_NONE)
        return true;
    const Address source = path.address().source.family != RTRS_ADDRESS_NONE ? to_address(path.address().source)
                                                                              : path.resolved_source();
    return same_address(source, to_address(address.source));
}

}  // namespace

Result<void> Session::add_path(const rtrs_path_address& address)
{
    if (!valid_address(address.destination, false) || !valid_address(address.source, true))
        return Error(cxxrt::err::kInval);
    cxxrt::MutexGuard guard(paths_mutex_);
    if (closing_.load())
        return Error(cxxrt::err::kBusy);
    u32 free_slot = kMaxPaths;
    for (u32 i = 0; i < kMaxPaths; ++i) {
        Path* path = path_at(i);
        if (!path) {
            if (free_slot == kMaxPaths)
                free_slot = i;
            continue;
        }
        if (same_path(*path, address))
            return Error(cxxrt::err::kExist);
    }
    if (free_slot == kMaxPaths) {
        cxxrt::log::err_ratelimited("session %s: add_path: already %u paths", name_, kMaxPaths);
        return Error(cxxrt::err::kInval);
    }
    // With no path up the server may have forgotten the session: this one
    // may create it again (upstream: a path added to a session without paths).
    const bool first_conn = connected_paths_.load() == 0;
    Path* path = cxxrt::allocate<Path>(Gfp::kernel(), *this, free_slot, address, first_conn);
    if (!path)
        return Error(cxxrt::err::kNoMem);
    auto ready = path->init();
    if (!ready) {
        cxxrt::destroy(path);
        return ready.error();
    }
    // Published while connecting: IO skips it until it is connected.
    publish(free_slot, path);
    auto opened = path->open();
    if (!opened) {
        cxxrt::log::err("session %s: add_path: the new path did not connect (%d)", name_, opened.to_errno());
        publish(free_slot, nullptr);
        cxxrt::synchronize_rcu();
        path->close();
        path->remove_sysfs();
        cxxrt::destroy(path);
        return opened.error();
    }
    return {};
}

Result<void> Session::remove_path(Path& path)
{
    cxxrt::MutexGuard guard(paths_mutex_);
    if (closing_.load())
        return {};  // close() removes it
    const u32 slot = path.index();
    if (slot >= kMaxPaths || path_at(slot) != &path)
        return Error(cxxrt::err::kNoEnt);
    // No new IO picks it after the grace period; its in-flight IO fails
    // over to the other paths when close() tears it down.
    publish(slot, nullptr);
    cxxrt::synchronize_rcu();
    path.close();
    path.remove_sysfs();
    cxxrt::destroy(&path);
    return {};
}

Result<void> Session::agree_parameters(const codec::ConnRspFields& params, u32 mr_pages, u32 max_send_sge)
{
    cxxrt::MutexGuard guard(setup_);
    if (u64(user_header_size_) + wire::rdma_read_size(1) > params.max_hdr_size) {
        cxxrt::log::err("session %s: user header of %u bytes exceeds the server's %u", name_,
                        user_header_size_, params.max_hdr_size);
        return Error(cxxrt::err::kMsgSize);
    }
    const u32 max_io = cxxrt::min(params.max_io_size, mr_pages * ib::MemoryRegion::kPageSize);
    if (queue_depth_ == 0) {
        queue_depth_ = params.queue_depth;
        max_io_size_ = max_io;
        // A WRITE carries every data entry plus the header in one work request.
        u32 sge = max_send_sge > 1 ? max_send_sge - 1 : 1;
        max_segments_ = cxxrt::min(cxxrt::min(sge, kMaxSge - 1), mr_pages);
        return {};
    }
    if (params.queue_depth != queue_depth_ || max_io < max_io_size_) {
        cxxrt::log::err("session %s: path offers queue depth %u / max IO %u, the session has %u / %u",
                        name_, params.queue_depth, max_io, queue_depth_, max_io_size_);
        return Error(cxxrt::err::kInval);
    }
    return {};
}

void Session::query(rtrs_client_attributes& attributes) const
{
    attributes.queue_depth = queue_depth_;
    attributes.max_io_size = max_io_size_;
    attributes.max_segments = max_segments_;
    attributes.poll_queues = poll_queues_;
    cxxrt::copy_bytes(attributes.session_name, name_, sizeof(attributes.session_name));
}

Permit* Session::get_permit(rtrs_wait wait)
{
    u32 id = permits_.try_get(cxxrt::current_cpu_hint());
    if (id == PermitPool::kNone && wait == RTRS_WAIT)
        permit_wait_.wait([&] { return (id = permits_.try_get(0)) != PermitPool::kNone; });
    if (id == PermitPool::kNone)
        return nullptr;
    return &permit_objects_[id];
}

cxxrt::Result<Permit*> Session::get_permit_within(unsigned int timeout_ms)
{
    u32 id = permits_.try_get(cxxrt::current_cpu_hint());
    if (id == PermitPool::kNone)
        CXXRT_TRY(permit_wait_.wait_interruptible_timeout(
            [&] { return (id = permits_.try_get(0)) != PermitPool::kNone; }, timeout_ms));
    return &permit_objects_[id];
}

void Session::put_permit(Permit& permit)
{
    if (!permits_.put(permit.id)) {
        cxxrt::log::err("session %s: permit %u returned twice", name_, permit.id);
        return;
    }
    // One permit back: one waiter may take it (once per IO: no lock taken
    // when nobody waits).
    permit_wait_.wake_up_if_waiting();
}

Result<void> Session::request(Permit& permit, rtrs_direction direction, u32 header_length, scatterlist* sg, u32 sg_count,
                              u32 data_length, rtrs_client_done_fn done, void* done_context, int poll_queue)
{
    if (!done || header_length > user_header_size_ || data_length > max_io_size_ ||
        (direction != RTRS_READ && direction != RTRS_WRITE))
        return Error(cxxrt::err::kInval);
    if (poll_queue != Permit::kNotPolled && (poll_queue < 0 || u32(poll_queue) >= poll_queues_))
        return Error(cxxrt::err::kInval);
    permit.poll_queue = poll_queue;
    if (data_length && (!sg || sg_count == 0 || sg_count > max_segments_))
        return Error(cxxrt::err::kInval);
    permit.direction = direction;
    permit.header_length = header_length;
    permit.sg = sg;
    permit.sg_count = data_length ? sg_count : 0;
    permit.data_length = data_length;
    permit.done = done;
    permit.done_context = done_context;
    permit.aborted.store(false);
    return submit(permit, nullptr);
}

// The live paths as the selectors see them: each slot read when asked.
struct Session::LivePaths {
    const Session& session;
    u32 count;
    size_t size() const { return count; }
    PathSlot operator[](size_t i) const
    {
        PathSlot slot;
        if (Path* path = session.path_at(u32(i))) {
            slot.connected = path->connected();
            slot.inflight = path->inflight();
            slot.latency_ns = path->latency_ns();
        }
        return slot;
    }
};

Result<void> Session::submit(Permit& permit, Path* excluded)
{
    size_t excluded_index = excluded ? excluded->index() : kNoPath;
    Result<void> last = Error(cxxrt::err::kNotConn);
    // Paths are freed only after a grace period (remove_path).
    cxxrt::RcuReadGuard rcu;
    const u32 count = slot_count();
    for (u32 attempt = 0; attempt < count; ++attempt) {
        size_t chosen = kNoPath;
        {
            cxxrt::CpuGuard cpu;
            u32& cursor = cursors_.this_cpu(cpu);
            u32 position = cursor;
            chosen = select_path_in(PathPolicy(policy_.load(cxxrt::MemoryOrder::kRelaxed)), LivePaths{*this, count},
                                    &position, excluded_index);
            cursor = position;
        }
        if (chosen == kNoPath)
            return last;
        Path* path = path_at(u32(chosen));
        if (!path)
            continue;
        last = path->submit(permit);
        if (last)
            return last;
        excluded_index = chosen;
    }
    return last;
}

int Session::poll(u32 poll_queue)
{
    if (poll_queue >= poll_queues_)
        return -cxxrt::err::kInval;
    // Every connected path: IO of this queue may have failed over to any.
    cxxrt::RcuReadGuard rcu;
    int reaped = 0;
    const u32 count = slot_count();
    for (u32 i = 0; i < count; ++i)
        if (Path* path = path_at(i))
            reaped += path->poll(poll_queue);
    return reaped;
}

void Session::fail_over(Permit& permit, Path& failed)
{
    if (permit.aborted.load()) {
        g_counters.failover_errors.add(1);
        complete(permit, -cxxrt::err::kTimedOut);
        return;
    }
    if (!closing_.load() && submit(permit, &failed))
        return;
    // Not a server's answer (remote errnos never include it): the user may
    // hold the IO and submit it again once a path is back.
    g_counters.failover_errors.add(1);
    complete(permit, -cxxrt::err::kNotConn);
}

void Session::abort(Permit& permit, bool final)
{
    if (final)
        permit.aborted.store(true);
    // The path stays allocated while we look (remove_path waits for a
    // grace period after clearing its slot).
    cxxrt::RcuReadGuard rcu;
    const u32 index = permit.path_index.load();
    if (index >= slot_count())
        return;
    if (Path* path = path_at(index))
        path->fail(final ? "IO aborted after timeouts" : "IO timed out");
}

void Session::complete(Permit& permit, int error)
{
    permit.done(permit.done_context, error);
}

void Session::report(rtrs_link_event event)
{
    if (callbacks_.link_event)
        callbacks_.link_event(callbacks_.context, event);
}

void Session::path_up()
{
    cxxrt::MutexGuard guard(setup_);
    if (connected_paths_.fetch_add(1) == 0 && link_down_reported_) {
        link_down_reported_ = false;
        hold_.stop();
        // Not the sync cancel: the work takes setup_. If it runs anyway it
        // finds the hold stopped.
        (void)hold_work_.cancel();
        report(RTRS_LINK_RECONNECTED);
    }
}

void Session::path_down()
{
    cxxrt::MutexGuard guard(setup_);
    if (connected_paths_.fetch_sub(1) == 1 && !closing_.load()) {
        link_down_reported_ = true;
        hold_.start(now_ns());
        report(RTRS_LINK_DISCONNECTED);
        schedule_hold_expiry();
    }
}

void Session::schedule_hold_expiry()
{
    if (!hold_.holding() || closing_.load())
        return;
    if (hold_.expire_if_due(now_ns())) {
        if (hold_.timeout_ms())
            cxxrt::log::warn("session %s: no path back within io_hold_timeout_ms (%u ms): held IO fails",
                             name_, hold_.timeout_ms());
        report(RTRS_LINK_HOLD_EXPIRED);
        return;
    }
    (void)hold_work_.mod_on(workqueue(), static_cast<unsigned long>(hold_.remaining_ms(now_ns())));
}

void Session::hold_expiry()
{
    cxxrt::MutexGuard guard(setup_);
    schedule_hold_expiry();
}

Result<void> Session::set_io_hold_timeout(u64 timeout_ms)
{
    cxxrt::MutexGuard guard(setup_);
    if (!hold_.set_timeout(timeout_ms))
        return Error(cxxrt::err::kInval);
    // During an outage the deadline moves (from the outage's start).
    schedule_hold_expiry();
    return {};
}

}  // namespace rtrs::clt
