// The server's sysfs tree. Show handlers format through the
// kernel-independent formatters of rtrs-stats/rtrs-addr; store handlers
// accept exactly what the ABI documents and change nothing otherwise.
#include <cxxrt/log.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/percpu.hpp>
#include "common/rtrs-addr.hpp"
#include "rtrs/server/rtrs-srv-sysfs.hpp"
#include "rtrs/server/rtrs-srv.hpp"
#include "rtrs/core/rtrs-stats.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::srv {

using namespace cxxrt;
using sysfs::Input;
using sysfs::Output;

// Path files are handlers on Path itself (sysfs binds them to the owner).
Result<void> Path::show_hca_name(Output& out)
{
    out.print("%s\n", device_.name());
    return {};
}

Result<void> Path::show_hca_port(Output& out)
{
    out.print("%u\n", connections_[0] ? connections_[0]->connection().cm_id().port() : 0u);
    return {};
}

namespace {

// The CM's address as ours (family and bytes).
Result<Address> address_of(const ib::SockAddr& raw)
{
    auto converted = CXXRT_TRY(raw.to_addr());
    Address address;
    address.family = AddressFamily(converted.family);
    copy_bytes(address.bytes, converted.bytes, sizeof(address.bytes));
    return address;
}

}  // namespace

Result<void> Path::show_address(Output& out, bool client_side)
{
    ServerConnection* service = connections_[0].get();
    if (!service) {
        out.append(kUnknownAddressText);
        out.append("\n");
        return {};
    }
    // On the server, the CM's destination is the client.
    ib::CmId& id = service->connection().cm_id();
    auto address = address_of(client_side ? id.destination_address() : id.source_address());
    print_address(out, address.is_ok() ? address.value() : Address());
    return {};
}

Result<void> Path::show_src_addr(Output& out) { return show_address(out, true); }
Result<void> Path::show_dst_addr(Output& out) { return show_address(out, false); }

Result<void> Path::store_disconnect(Input& in)
{
    CXXRT_TRY(accept_command(in));
    schedule_close("disconnect requested through sysfs");
    return {};
}

Result<void> Path::show_rdma(Output& out)
{
    return cpu_stats_.with_snapshot([&](Span<ServerCpuStats> stats) {
        out.commit(format_server_rdma(stats, inflight_.count(), out.remaining()));
    });
}

// Stats writes take "1" (upstream) or "0" (seed 000, which names "0" as the
// reset value for every server stats file); both reset, nothing else does
// (rtrs-sysfs.hpp).
Result<void> Path::store_rdma(Input& in) { return reset_per_cpu<ServerCpuStats, reset_rdma>(cpu_stats_, in); }
Result<void> Path::store_reset_all(Input& in) { return reset_per_cpu<ServerCpuStats, reset_all>(cpu_stats_, in); }
Result<void> Path::show_wc_completion(Output& out) { return show_per_cpu<format_server_completions>(cpu_stats_, out); }
Result<void> Path::store_wc_completion(Input& in)
{
    return reset_per_cpu<ServerCpuStats, reset_completions>(cpu_stats_, in);
}

namespace {

constexpr sysfs::Attribute<Path> kPathAttributes[] = {
    {"hca_name", 0444, &Path::show_hca_name, nullptr},
    {"hca_port", 0444, &Path::show_hca_port, nullptr},
    {"src_addr", 0444, &Path::show_src_addr, nullptr},
    {"dst_addr", 0444, &Path::show_dst_addr, nullptr},
    {"disconnect", 0644, nullptr, &Path::store_disconnect, "Usage: echo 1 > disconnect\n"},
};
constexpr sysfs::GroupSpec kPathGroup = sysfs::group(kPathAttributes);

constexpr sysfs::Attribute<Path> kStatsAttributes[] = {
    {"rdma", 0644, &Path::show_rdma, &Path::store_rdma},
    {"wc_completion", 0644, &Path::show_wc_completion, &Path::store_wc_completion},
    {"reset_all", 0644, nullptr, &Path::store_reset_all, "echo 1 to reset all statistics\n"},
};
constexpr sysfs::GroupSpec kStatsGroup = sysfs::group(kStatsAttributes);

}  // namespace

Result<void> sysfs_init() { return SysfsTree::init("rtrs-server", nullptr, kPathGroup, kStatsGroup); }

Result<void> PathSysfs::create(Path& path, SessionDirectory& session)
{
    char name[kMaxPathNameLength + 1];
    ServerConnection* service = path.connection(0);
    if (!service)
        return Error(err::kInval);
    ib::CmId& id = service->connection().cm_id();
    auto client = address_of(id.destination_address());
    auto server = address_of(id.source_address());
    if (client.is_error() || server.is_error())
        return Error(err::kInval);
    size_t length = CXXRT_TRY(format_path_name(client.value(), server.value(), Span<char>(name, sizeof(name))));
    CXXRT_TRY(PathDirectory::create(path, session, name));
    copy_bytes(name_, name, min(length, sizeof(name_) - 1));
    return {};
}

}  // namespace rtrs::srv
