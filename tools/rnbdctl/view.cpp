// See view.hpp; the JSON shape is documented in Documentation/rnbdctl.md
// (keep both in step).
#include "tools/rnbdctl/view.hpp"

#include "tools/rnbdctl/table.hpp"
#include "tools/rnbdctl/text.hpp"

namespace rnbdctl {

namespace {

int64_t times(int64_t value, int64_t factor) { return value == kUnknown ? kUnknown : value * factor; }

void json_latency(JsonWriter& json, const LatencyHistogram& latency)
{
    if (!latency.present) {
        json.null("latency");
        return;
    }
    json.begin_object("latency");
    json.begin_array("buckets");
    for (size_t row = 0; row < kLatencyRows; ++row) {
        json.begin_object();
        // "< 2^row ms"; the last row is ">= 65536 ms" (no upper bound).
        if (row + 1 < kLatencyRows)
            json.number("below_ms", int64_t(1) << row);
        else
            json.null("below_ms");
        json.number("reads", int64_t(latency.reads[row]));
        json.number("writes", int64_t(latency.writes[row]));
        json.end_object();
    }
    json.end_array();
    json.number("max_read_ms", int64_t(latency.max_read_ms));
    json.number("max_write_ms", int64_t(latency.max_write_ms));
    json.end_object();
}

size_t connected_paths(const ClientSession& session)
{
    size_t count = 0;
    for (const ClientPath& path : session.paths)
        count += path.state == "connected";
    return count;
}

std::string join(const std::vector<std::string>& items)
{
    std::string text;
    for (const std::string& item : items)
        text += (text.empty() ? "" : ",") + item;
    return text;
}

void json_string_array(JsonWriter& json, const char* key, const std::vector<std::string>& items)
{
    json.begin_array(key);
    for (const std::string& item : items)
        json.string(item);
    json.end_array();
}

// Client and server paths share their identity and their stats/rdma
// counters; one writer each keeps the two JSON shapes in step. Only the
// client knows a path's state, which sits between the addresses and the HCA
// in its object (state == nullptr leaves it out).
template <typename Path>
void json_path_identity(JsonWriter& json, const Path& path, const std::string* state)
{
    json.string("name", path.name);
    json.string("src_addr", path.src_addr);
    json.string("dst_addr", path.dst_addr);
    if (state)
        json.string("state", *state);
    json.string("hca_name", path.hca_name);
    json.number("hca_port", path.hca_port);
}

template <typename Path>
void json_path_traffic(JsonWriter& json, const Path& path)
{
    json.number("read_requests", path.read_requests);
    json.number("read_bytes", path.read_bytes);
    json.number("write_requests", path.write_requests);
    json.number("write_bytes", path.write_bytes);
    json.number("inflight", path.inflight);
}

// "mlx5_0:1", or "-" where the path does not say (Linux's older modules).
template <typename Path>
std::string hca_cell(const Path& path)
{
    return path.hca_name.empty() ? "-" : path.hca_name + ":" + cell(path.hca_port);
}

// A "label: value" line of `show`; the value may come from sysfs.
void print_field(FILE* out, const char* label, const std::string& value)
{
    fprintf(out, "%s%s\n", label, printable(value).c_str());
}

}  // namespace

void json_client_device(JsonWriter& json, const ClientDevice& device, const char* key)
{
    json.begin_object(key);
    json.string("name", device.name);
    json.string("dev", "/dev/" + device.name);
    json.string("session", device.session);
    json.string("device_path", device.device_path);
    json.string("access_mode", device.access_mode);
    json.string("io_mode", device.io_mode);
    json.number("nr_poll_queues", device.nr_poll_queues);
    json.string("state", device.state);
    json.number("size_sectors", device.size_sectors);
    json.number("size_bytes", times(device.size_sectors, 512));
    json.boolean("read_only", device.read_only);
    json.end_object();
}

void json_client_path(JsonWriter& json, const ClientPath& path, const char* key)
{
    json.begin_object(key);
    json_path_identity(json, path, &path.state);
    json.number("heartbeat_rtt_ns", path.latency_ns);
    json.begin_object("stats");
    json_path_traffic(json, path);
    json.number("failovers", path.failovers);
    json.number("reconnects_successful", path.reconnects_successful);
    json.number("reconnects_failed", path.reconnects_failed);
    json_latency(json, path.latency);
    json.end_object();
    json.end_object();
}

void json_client_session(JsonWriter& json, const ClientSession& session, const char* key)
{
    json.begin_object(key);
    json.string("name", session.name);
    json.string("mpath_policy", session.mpath_policy);
    json.number("max_reconnect_attempts", session.max_reconnect_attempts);
    json.number("io_hold_timeout_ms", session.io_hold_timeout_ms);
    json.number("connected_paths", int64_t(connected_paths(session)));
    json_string_array(json, "devices", session.devices);
    json.begin_array("paths");
    for (const ClientPath& path : session.paths)
        json_client_path(json, path);
    json.end_array();
    json.end_object();
}

void json_server_device(JsonWriter& json, const ServerDevice& device)
{
    json.begin_object();
    json.string("name", device.name);
    if (device.block_dev.empty())
        json.null("block_dev");
    else
        json.string("block_dev", device.block_dev);
    json.begin_array("sessions");
    for (const ServerExportSession& entry : device.sessions) {
        json.begin_object();
        json.string("session", entry.session);
        json.string("access_mode", entry.access_mode);
        json.boolean("read_only", entry.read_only);
        json.string("mapping_path", entry.mapping_path);
        json.end_object();
    }
    json.end_array();
    json.end_object();
}

void json_server_session(JsonWriter& json, const ServerSession& session)
{
    json.begin_object();
    json.string("name", session.name);
    json_string_array(json, "devices", session.devices);
    json.begin_array("paths");
    for (const ServerPath& path : session.paths) {
        json.begin_object();
        json_path_identity(json, path, nullptr);
        json.begin_object("stats");
        json_path_traffic(json, path);
        json.end_object();
        json.end_object();
    }
    json.end_array();
    json.end_object();
}

void table_client_devices(FILE* out, const std::vector<ClientDevice>& devices, Sizes sizes)
{
    Table table({"DEVICE", "SESSION", "DEVICE_PATH", "ACCESS", "IO_MODE", "STATE", "SIZE"});
    for (const ClientDevice& device : devices)
        table.add({"/dev/" + device.name, cell(device.session), cell(device.device_path), cell(device.access_mode),
                   cell(device.io_mode), cell(device.state), size_cell(times(device.size_sectors, 512), sizes)});
    table.print(out);
}

void table_client_sessions(FILE* out, const std::vector<ClientSession>& sessions, Sizes)
{
    Table table({"SESSION", "POLICY", "DEVICES", "PATH", "STATE", "HCA", "RTT_NS"});
    for (const ClientSession& session : sessions) {
        const std::string devices = cell(join(session.devices));
        if (session.paths.empty())
            table.add({session.name, cell(session.mpath_policy), devices, "-", "-", "-", "-"});
        for (const ClientPath& path : session.paths)
            table.add({session.name, cell(session.mpath_policy), devices, path.name, cell(path.state),
                       hca_cell(path),
                       cell(path.latency_ns)});
    }
    table.print(out);
}

void table_client_path_stats(FILE* out, const std::vector<ClientSession>& sessions, Sizes sizes)
{
    Table table({"SESSION", "PATH", "STATE", "READS", "READ_BYTES", "WRITES", "WRITE_BYTES", "INFLIGHT", "FAILOVERS",
                 "RECONNECTS", "RTT_NS"});
    for (const ClientSession& session : sessions)
        for (const ClientPath& path : session.paths)
            table.add({session.name, path.name, cell(path.state), cell(path.read_requests),
                       size_cell(path.read_bytes, sizes), cell(path.write_requests), size_cell(path.write_bytes, sizes),
                       cell(path.inflight), cell(path.failovers),
                       cell(path.reconnects_successful) + "/" + cell(path.reconnects_failed), cell(path.latency_ns)});
    table.print(out);
}

void table_server_devices(FILE* out, const std::vector<ServerDevice>& devices, Sizes)
{
    Table table({"EXPORT", "BLOCK_DEV", "SESSION", "ACCESS", "READ_ONLY", "MAPPING_PATH"});
    for (const ServerDevice& device : devices) {
        if (device.sessions.empty())
            table.add({device.name, cell(device.block_dev), "-", "-", "-", "-"});
        for (const ServerExportSession& entry : device.sessions)
            table.add({device.name, cell(device.block_dev), entry.session, cell(entry.access_mode),
                       entry.read_only ? "yes" : "no", cell(entry.mapping_path)});
    }
    table.print(out);
}

void table_server_sessions(FILE* out, const std::vector<ServerSession>& sessions, Sizes sizes)
{
    Table table({"SESSION", "EXPORTS", "PATH", "HCA", "READS", "READ_BYTES", "WRITES", "WRITE_BYTES", "INFLIGHT"});
    for (const ServerSession& session : sessions) {
        const std::string devices = cell(join(session.devices));
        if (session.paths.empty())
            table.add({session.name, devices, "-", "-", "-", "-", "-", "-", "-"});
        for (const ServerPath& path : session.paths)
            table.add({session.name, devices, path.name,
                       hca_cell(path),
                       cell(path.read_requests), size_cell(path.read_bytes, sizes), cell(path.write_requests),
                       size_cell(path.write_bytes, sizes), cell(path.inflight)});
    }
    table.print(out);
}

void text_client_device(FILE* out, const ClientDevice& device, Sizes sizes)
{
    print_field(out, "device:         ", "/dev/" + device.name);
    print_field(out, "session:        ", cell(device.session));
    print_field(out, "device_path:    ", cell(device.device_path));
    print_field(out, "access_mode:    ", cell(device.access_mode));
    print_field(out, "io_mode:        ", cell(device.io_mode));
    print_field(out, "nr_poll_queues: ", cell(device.nr_poll_queues));
    print_field(out, "state:          ", cell(device.state));
    const std::string bytes = cell(times(device.size_sectors, 512));
    const std::string read_only = device.read_only ? ", read-only" : "";
    if (sizes == Sizes::kBytes || device.size_sectors == kUnknown)
        fprintf(out, "size:           %s bytes (%s sectors)%s\n", bytes.c_str(), cell(device.size_sectors).c_str(),
                read_only.c_str());
    else
        fprintf(out, "size:           %s (%s bytes, %s sectors)%s\n",
                size_cell(times(device.size_sectors, 512), sizes).c_str(), bytes.c_str(),
                cell(device.size_sectors).c_str(), read_only.c_str());
}

void text_client_session(FILE* out, const ClientSession& session, Sizes sizes)
{
    print_field(out, "session:                ", session.name);
    print_field(out, "mpath_policy:           ", cell(session.mpath_policy));
    print_field(out, "max_reconnect_attempts: ", cell(session.max_reconnect_attempts));
    print_field(out, "io_hold_timeout_ms:     ", cell(session.io_hold_timeout_ms));
    print_field(out, "devices:                ", cell(join(session.devices)));
    fprintf(out, "paths:\n");
    table_client_path_stats(out, {session}, sizes);
}

}  // namespace rnbdctl
