// rtrs-client: a session (a group of paths to one server session), its
// permits, path selection and fail-over, and the user's link events.
#include <cxxrt/log.hpp>
#include "rtrs/rtrs-clt-kapi.h"
#include "rtrs/rtrs-clt.hpp"
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

}  // namespace

Result<Session*> Session::open(const rtrs_client_callbacks& callbacks, const rtrs_client_open_params& params)
{
    if (!params.session_name || !params.paths || params.path_count == 0 || params.path_count > kMaxPaths)
        return Error(cxxrt::err::kInval);
    cxxrt::StringView name(params.session_name);
    CXXRT_TRY(codec::check_path_name(name));
    for (u32 i = 0; i < params.path_count; ++i)
        if (!valid_address(params.paths[i].destination, false) || !valid_address(params.paths[i].source, true))
            return Error(cxxrt::err::kInval);
    if (params.max_reconnect_attempts < ReconnectBudget::kMinAttempts ||
        params.max_reconnect_attempts > ReconnectBudget::kMaxAttempts)
        return Error(cxxrt::err::kInval);

    auto made = CXXRT_TRY(cxxrt::make_unique<Session>(Gfp::kernel()));
    Session& session = *made;
    cxxrt::copy_bytes(session.name_, name.data(), name.length());
    session.callbacks_ = callbacks;
    kapi_rtrs_clt_random_bytes(session.uuid_.bytes, sizeof(session.uuid_.bytes));
    session.reconnect_delay_seconds_ = params.reconnect_delay_seconds;
    session.max_reconnect_attempts_.store(params.max_reconnect_attempts);
    session.user_header_size_ = params.user_header_size;
    session.cursors_ = CXXRT_TRY(cxxrt::PerCpu<u32>::create(Gfp::kernel()));
    session.paths_ = cxxrt::allocate_array<Path*>(Gfp::kernel(), params.path_count);
    if (!session.paths_)
        return Error(cxxrt::err::kNoMem);
    for (u32 i = 0; i < params.path_count; ++i) {
        Path* path = cxxrt::allocate<Path>(Gfp::kernel(), session, i, params.paths[i]);
        if (!path) {
            session.close();
            return Error(cxxrt::err::kNoMem);
        }
        session.paths_[i] = path;
        session.path_count_ = i + 1;
        auto ready = path->init();
        if (!ready) {
            session.close();
            return ready.error();
        }
    }

    // Paths connect one after the other, as upstream does; the session is
    // usable once one of them is up, the others keep trying in the background.
    Result<void> first_error = Error(cxxrt::err::kNotConn);
    u32 connected = 0;
    for (u32 i = 0; i < session.path_count_; ++i) {
        auto opened = session.paths_[i]->open();
        if (opened)
            ++connected;
        else if (first_error.error().code() == cxxrt::err::kNotConn)
            first_error = opened.error();
    }
    if (connected == 0) {
        cxxrt::log::err("session %s: no path could connect (%d)", session.name_,
                        first_error.to_errno());
        session.close();
        return first_error.error();
    }
    auto permits = session.create_permits();
    if (!permits) {
        session.close();
        return permits.error();
    }
    auto directory = make_session_sysfs();
    if (directory)
        session.sysfs_ = directory.release_value();
    auto created = directory ? session.sysfs_->create(session) : Result<void>(directory.error());
    if (!created) {
        // -EEXIST: another session of this name exists.
        cxxrt::log::err("session %s: no sysfs directory (%d)", session.name_, created.to_errno());
        session.close();
        return created.error();
    }
    for (u32 i = 0; i < session.path_count_; ++i) {
        if (session.paths_[i]->connected())
            session.paths_[i]->create_sysfs();
        else
            session.paths_[i]->start_reconnecting();
    }
    return made.release();
}

Result<void> Session::create_permits()
{
    CXXRT_TRY(permits_.init(queue_depth_, Gfp::kernel()));
    CXXRT_TRY(permit_objects_.create(Gfp::kernel(), queue_depth_,
                                     [this](void* where, u32 index) { new (where) Permit(*this, index); }));
    for (u32 i = 0; i < queue_depth_; ++i) {
        permit_objects_[i].user_header = cxxrt::allocate_array<u8>(Gfp::kernel(), user_header_size_ + 1);
        if (!permit_objects_[i].user_header)
            return Error(cxxrt::err::kNoMem);
    }
    return {};
}

void Session::close()
{
    closing_.store(true);
    for (u32 i = 0; i < path_count_; ++i)
        paths_[i]->close();
    // Directories last: their handlers may still have been running.
    for (u32 i = 0; i < path_count_; ++i)
        paths_[i]->remove_sysfs();
    sysfs_.reset();
}

Session::~Session()
{
    for (u32 i = 0; i < path_count_; ++i)
        cxxrt::destroy(paths_[i]);
    cxxrt::free_array(paths_);
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
    cxxrt::copy_bytes(attributes.session_name, name_, sizeof(attributes.session_name));
}

Permit* Session::get_permit(rtrs_wait wait)
{
    u32 id = permits_.try_get(kapi_smp_processor_id());
    if (id == PermitPool::kNone && wait == RTRS_WAIT)
        permit_wait_.wait([&] { return (id = permits_.try_get(0)) != PermitPool::kNone; });
    if (id == PermitPool::kNone)
        return nullptr;
    return &permit_objects_[id];
}

void Session::put_permit(Permit& permit)
{
    if (!permits_.put(permit.id)) {
        cxxrt::log::err("session %s: permit %u returned twice", name_, permit.id);
        return;
    }
    permit_wait_.wake_up();
}

int Session::request(Permit& permit, rtrs_direction direction, u32 header_length, scatterlist* sg, u32 sg_count,
                     u32 data_length, rtrs_client_done_fn done, void* done_context)
{
    if (!done || header_length > user_header_size_ || data_length > max_io_size_ ||
        (direction != RTRS_READ && direction != RTRS_WRITE))
        return -cxxrt::err::kInval;
    if (data_length && (!sg || sg_count == 0 || sg_count > max_segments_))
        return -cxxrt::err::kInval;
    permit.direction = direction;
    permit.header_length = header_length;
    permit.sg = sg;
    permit.sg_count = data_length ? sg_count : 0;
    permit.data_length = data_length;
    permit.done = done;
    permit.done_context = done_context;
    return submit(permit, nullptr).to_errno();
}

Result<void> Session::submit(Permit& permit, Path* excluded)
{
    size_t excluded_index = excluded ? excluded->index() : kNoPath;
    Result<void> last = Error(cxxrt::err::kNotConn);
    for (u32 attempt = 0; attempt < path_count_; ++attempt) {
        PathSlot slots[kMaxPaths];
        for (u32 i = 0; i < path_count_; ++i) {
            slots[i].connected = paths_[i]->connected();
            slots[i].inflight = paths_[i]->inflight();
            slots[i].latency_ns = paths_[i]->heartbeat().last_rtt_ns();
        }
        size_t chosen = kNoPath;
        {
            cxxrt::CpuGuard cpu;
            u32& cursor = cursors_.this_cpu(cpu);
            u32 position = cursor;
            chosen = select_path(PathPolicy(policy_.load(cxxrt::MemoryOrder::kRelaxed)),
                                 cxxrt::Span<const PathSlot>(slots, path_count_), &position, excluded_index);
            cursor = position;
        }
        if (chosen == kNoPath)
            return last;
        last = paths_[chosen]->submit(permit);
        if (last)
            return last;
        excluded_index = chosen;
    }
    return last;
}

void Session::fail_over(Permit& permit, Path& failed)
{
    if (!closing_.load() && submit(permit, &failed))
        return;
    complete(permit, -cxxrt::err::kConnReset);
}

void Session::complete(Permit& permit, int error)
{
    permit.done(permit.done_context, error);
}

void Session::path_up()
{
    bool reconnected = false;
    {
        cxxrt::MutexGuard guard(setup_);
        if (connected_paths_.fetch_add(1) == 0 && link_down_reported_) {
            link_down_reported_ = false;
            reconnected = true;
        }
    }
    if (reconnected && callbacks_.link_event)
        callbacks_.link_event(callbacks_.context, RTRS_LINK_RECONNECTED);
}

void Session::path_down()
{
    bool disconnected = false;
    {
        cxxrt::MutexGuard guard(setup_);
        if (connected_paths_.fetch_sub(1) == 1 && !closing_.load()) {
            link_down_reported_ = true;
            disconnected = true;
        }
    }
    if (disconnected && callbacks_.link_event)
        callbacks_.link_event(callbacks_.context, RTRS_LINK_DISCONNECTED);
}

}  // namespace rtrs::clt
