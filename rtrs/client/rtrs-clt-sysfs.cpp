// The client's sysfs tree. Show handlers format through the
// kernel-independent formatters of rtrs-stats / rtrs-clt-policy / rtrs-addr;
// store handlers accept exactly what the ABI documents and change nothing
// otherwise.
#include <cxxrt/log.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/percpu.hpp>
#include "rtrs/client/rtrs-clt-sysfs.hpp"
#include "rtrs/client/rtrs-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::clt {

using cxxrt::sysfs::Input;
using cxxrt::sysfs::Output;
namespace sysfs = cxxrt::sysfs;

// --- session files ------------------------------------------------------------

Result<void> Session::show_max_reconnect_attempts(Output& out)
{
    out.print("%d\n", max_reconnect_attempts_.load());
    return {};
}

Result<void> Session::store_max_reconnect_attempts(Input& in)
{
    auto value = cxxrt::parse::parse_signed(in.line(), ReconnectBudget::kMinAttempts, ReconnectBudget::kMaxAttempts);
    if (value.is_error()) {
        cxxrt::log::err_ratelimited("%s: max_reconnect_attempts: expected -1 .. %d", name_,
                                    ReconnectBudget::kMaxAttempts);
        return Error(cxxrt::err::kInval);
    }
    max_reconnect_attempts_.store(int(value.value()));
    cxxrt::MutexGuard guard(paths_mutex_);
    for (u32 i = 0; i < slot_count(); ++i)
        if (Path* path = path_at(i))
            path->set_max_reconnect_attempts(int(value.value()));
    return {};
}

Result<void> Session::show_mpath_policy(Output& out)
{
    out.commit(format_policy(PathPolicy(policy_.load()), out.remaining()));
    return {};
}

Result<void> Session::store_mpath_policy(Input& in)
{
    auto policy = parse_policy(in.text());
    if (policy.is_error()) {
        cxxrt::log::err_ratelimited("%s: mpath_policy: expected 0, 1, 2 or a policy name", name_);
        return policy.error();
    }
    policy_.store(u8(policy.value()));
    return {};
}

Result<void> Session::show_io_hold_timeout_ms(Output& out)
{
    cxxrt::MutexGuard guard(setup_);
    out.print("%u\n", hold_.timeout_ms());
    return {};
}

Result<void> Session::store_io_hold_timeout_ms(Input& in)
{
    auto value = cxxrt::parse::parse_unsigned(in.line(), IoHold::kMaxMs);
    if (value.is_error()) {
        cxxrt::log::err_ratelimited("%s: io_hold_timeout_ms: expected 0 .. %u (milliseconds)", name_,
                                    IoHold::kMaxMs);
        return Error(cxxrt::err::kInval);
    }
    return set_io_hold_timeout(value.value());
}

Result<void> Session::store_add_path(Input& in)
{
    auto parsed = parse_path(in.text(), port_);
    if (parsed.is_error()) {
        cxxrt::log::err_ratelimited("%s: add_path: expected [<src>@]<dst> or [<src>,]<dst>", name_);
        return Error(cxxrt::err::kInval);
    }
    const PathAddress& path = parsed.value();
    if (path.source.has_scope_name() || path.destination.has_scope_name()) {
        cxxrt::log::err_ratelimited("%s: add_path: give the IPv6 scope as an interface index", name_);
        return Error(cxxrt::err::kInval);
    }
    auto convert = [&](const Address& from, rtrs_address& to) {
        to.family = u32(from.family);
        cxxrt::copy_bytes(to.bytes, from.bytes, sizeof(to.bytes));
        to.scope_id = from.scope_id;
        to.port = 0;
    };
    rtrs_path_address address{};
    if (path.has_source)
        convert(path.source, address.source);
    convert(path.destination, address.destination);
    address.destination.port = path.port;
    auto added = add_path(address);
    if (added.is_error() && added.error().code() == cxxrt::err::kExist)
        cxxrt::log::err_ratelimited("%s: add_path: the session has a path with these addresses", name_);
    return added;
}

// --- path files --------------------------------------------------------------

void Path::create_sysfs()
{
    SessionDirectory* parent = session_.sysfs();
    if (!parent || !parent->exists() || (sysfs_ && sysfs_->exists()))
        return;
    if (!sysfs_) {
        auto made = cxxrt::make_unique<PathDirectory>(Gfp::kernel());
        if (made.is_error())
            return;
        sysfs_ = made.release_value();
    }
    auto created = sysfs_->create(*this, *parent, name_);
    if (created.is_error())
        cxxrt::log::err("%s: no sysfs directory for path %s (%d)", session_.name(), name_, created.to_errno());
}

void Path::remove_sysfs() { sysfs_.reset(); }

Result<void> Path::show_state(Output& out)
{
    out.print("%s\n", path_state_sysfs(state()));
    return {};
}

Result<void> Path::show_hca_name(Output& out)
{
    out.print("%s\n", hca_name_);
    return {};
}

Result<void> Path::show_hca_port(Output& out)
{
    out.print("%u\n", hca_port_);
    return {};
}

Result<void> Path::show_src_addr(Output& out)
{
    print_address(out, source_);
    return {};
}

Result<void> Path::show_dst_addr(Output& out)
{
    Address destination;
    destination.family = AddressFamily(address_.destination.family);
    cxxrt::copy_bytes(destination.bytes, address_.destination.bytes, sizeof(destination.bytes));
    print_address(out, destination);
    return {};
}

Result<void> Path::show_cur_latency(Output& out)
{
    out.print("%llu ns\n", (unsigned long long)heartbeat_.last_rtt_ns());
    return {};
}

Result<void> Path::store_disconnect(Input& in)
{
    CXXRT_TRY(accept_command(in));
    trace(ktrace::rtrs_clt::PathEvent::kCloseConns);
    // Leaves every live state; the path stays down until "reconnect".
    if (!state_.change(PathState::kClosing))
        return {};
    cxxrt::log::info("%s: path %s disconnected by the administrator", session_.name(), name_);
    finish_closing();
    return {};
}

Result<void> Path::store_reconnect(Input& in)
{
    CXXRT_TRY(accept_command(in));
    // The write does at once what an error (error_work_) or a waiting
    // reconnect (reconnect_work_) would do later: no reconnect delay, and
    // the attempt is not taken from max_reconnect_attempts. Cancelled
    // before control_, which they take; a pending error's teardown is
    // done below.
    error_work_.cancel_sync();
    reconnect_work_.cancel_sync();
    cxxrt::MutexGuard guard(control_);
    // Under control_: Path::close() sets the session closing first and
    // cancels the work items again after taking control_ itself.
    if (session_.closing())
        return Error(cxxrt::err::kBusy);
    const bool was_connected = state_.change_from(PathState::kConnected, PathState::kReconnecting);
    if (!was_connected && !state_.change_from(PathState::kClosed, PathState::kReconnecting) &&
        state_.state() != PathState::kReconnecting) {
        // Connecting (its first connect, under add_path or open) or going away.
        cxxrt::log::err_ratelimited("%s: reconnect: path %s is %s", session_.name(), name_,
                                    path_state_name(state_.state()));
        return Error(cxxrt::err::kBusy);
    }
    if (was_connected)
        cxxrt::log::info("%s: path %s reconnected by the administrator", session_.name(), name_);
    budget_.connected();
    // Idempotent: IO in flight fails over to the other paths, as on an error.
    teardown();
    // Bounded by the connect's own timeouts (address and route resolution,
    // the CM answer, INFO_RSP).
    auto connected = connect_again();
    if (connected.is_error())
        cxxrt::log::err_ratelimited("%s: reconnect of path %s failed (%d)", session_.name(), name_,
                                    connected.to_errno());
    return connected;
}

Result<void> Path::store_remove_path(Input& in)
{
    CXXRT_TRY(accept_command(in));
    // Our own file goes first, so removing the directory from inside its
    // handler does not wait for this very call. If another writer removed
    // it already, that one removes the path.
    if (!in.remove_self())
        return {};
    cxxrt::log::info("%s: path %s removed by the administrator", session_.name(), name_);
    return session_.remove_path(*this);
}

Result<void> Path::show_rdma(Output& out)
{
    return stats_.with_snapshot([&](cxxrt::Span<ClientCpuStats> stats) {
        out.commit(format_client_rdma(stats, inflight(), out.remaining()));
    });
}

Result<void> Path::show_reconnects(Output& out)
{
    out.commit(format_reconnects(reconnects_, out.remaining()));
    return {};
}

Result<void> Path::store_reconnects(Input& in)
{
    CXXRT_TRY(parse_reset_request(in.line()));
    reset_reconnects(reconnects_);
    return {};
}

Result<void> Path::store_reset_all(Input& in)
{
    CXXRT_TRY(parse_reset_request(in.line()));
    stats_.for_each_possible([](unsigned int, ClientCpuStats& stats) { stats = ClientCpuStats{}; });
    reset_reconnects(reconnects_);
    return {};
}

// The stats/ files of one group: its formatter over a snapshot, its reset
// ("1" or "0") on every CPU (rtrs-sysfs.hpp).
Result<void> Path::store_rdma(Input& in) { return reset_per_cpu<ClientCpuStats, reset_rdma>(stats_, in); }
Result<void> Path::show_cpu_migration(Output& out) { return show_per_cpu<format_cpu_migration>(stats_, out); }
Result<void> Path::show_cpu_migration_from(Output& out)
{
    return show_per_cpu<format_cpu_migration_from>(stats_, out);
}
Result<void> Path::show_cpu_migration_to(Output& out) { return show_per_cpu<format_cpu_migration_to>(stats_, out); }
Result<void> Path::store_cpu_migration(Input& in)
{
    return reset_per_cpu<ClientCpuStats, reset_cpu_migration>(stats_, in);
}
Result<void> Path::show_sg_entries(Output& out) { return show_per_cpu<format_sg_entries>(stats_, out); }
Result<void> Path::store_sg_entries(Input& in) { return reset_per_cpu<ClientCpuStats, reset_sg_entries>(stats_, in); }
Result<void> Path::show_rdma_lat(Output& out) { return show_per_cpu<format_rdma_latency>(stats_, out); }
Result<void> Path::store_rdma_lat(Input& in) { return reset_per_cpu<ClientCpuStats, reset_latency>(stats_, in); }
Result<void> Path::show_wc_completion(Output& out) { return show_per_cpu<format_client_completions>(stats_, out); }
Result<void> Path::store_wc_completion(Input& in) { return reset_per_cpu<ClientCpuStats, reset_completions>(stats_, in); }
Result<void> Path::show_poll_completions(Output& out) { return show_per_cpu<format_client_polled>(stats_, out); }
Result<void> Path::store_poll_completions(Input& in) { return reset_per_cpu<ClientCpuStats, reset_polled>(stats_, in); }

// --- the tables (after the handlers: gcc evaluates them only once defined) ---

namespace {

constexpr sysfs::Attribute<Session> kSessionAttributes[] = {
    {"max_reconnect_attempts", 0644, &Session::show_max_reconnect_attempts, &Session::store_max_reconnect_attempts},
    {"mp_policy", 0644, &Session::show_mpath_policy, &Session::store_mpath_policy},
    {"mpath_policy", 0644, &Session::show_mpath_policy, &Session::store_mpath_policy},  // upstream's name
    {"io_hold_timeout_ms", 0644, &Session::show_io_hold_timeout_ms, &Session::store_io_hold_timeout_ms},
    {"add_path", 0644, nullptr, &Session::store_add_path,
     "Usage: echo [<source addr>@]<destination addr> > add_path\n\n*addr ::= [ ip:<ipv4|ipv6> | gid:<gid> ]\n"},
};
constexpr sysfs::GroupSpec kSessionGroup = sysfs::group(kSessionAttributes);

constexpr sysfs::Attribute<Path> kPathAttributes[] = {
    {"state", 0444, &Path::show_state, nullptr},
    {"hca_name", 0444, &Path::show_hca_name, nullptr},
    {"hca_port", 0444, &Path::show_hca_port, nullptr},
    {"src_addr", 0444, &Path::show_src_addr, nullptr},
    {"dst_addr", 0444, &Path::show_dst_addr, nullptr},
    {"cur_latency", 0444, &Path::show_cur_latency, nullptr},
    {"disconnect", 0644, nullptr, &Path::store_disconnect, "Usage: echo 1 > disconnect\n"},
    {"reconnect", 0644, nullptr, &Path::store_reconnect, "Usage: echo 1 > reconnect\n"},
    {"remove_path", 0644, nullptr, &Path::store_remove_path, "Usage: echo 1 > remove_path\n"},
};
constexpr sysfs::GroupSpec kPathGroup = sysfs::group(kPathAttributes);

constexpr sysfs::Attribute<Path> kStatsAttributes[] = {
    {"rdma", 0644, &Path::show_rdma, &Path::store_rdma},
    {"reconnects", 0644, &Path::show_reconnects, &Path::store_reconnects},
    {"cpu_migration", 0644, &Path::show_cpu_migration, &Path::store_cpu_migration},
    {"cpu_migration_from", 0644, &Path::show_cpu_migration_from, &Path::store_cpu_migration},
    {"cpu_migration_to", 0644, &Path::show_cpu_migration_to, &Path::store_cpu_migration},
    {"sg_entries", 0644, &Path::show_sg_entries, &Path::store_sg_entries},
    {"rdma_lat", 0644, &Path::show_rdma_lat, &Path::store_rdma_lat},
    {"wc_completion", 0644, &Path::show_wc_completion, &Path::store_wc_completion},
    {"poll_completions", 0644, &Path::show_poll_completions, &Path::store_poll_completions},
    {"reset_all", 0644, nullptr, &Path::store_reset_all, "echo 1 to reset all statistics\n"},
};
constexpr sysfs::GroupSpec kStatsGroup = sysfs::group(kStatsAttributes);

}  // namespace

Result<void> sysfs_init() { return SysfsTree::init("rtrs-client", &kSessionGroup, kPathGroup, kStatsGroup); }

}  // namespace rtrs::clt
