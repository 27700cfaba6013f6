// See prometheus.hpp. Each metric family is written whole (HELP, TYPE,
// samples) before the next, as the format requires; a value sysfs did not
// give is left out rather than written as 0.
#include "tools/rnbdctl/prometheus.hpp"

#include <cstdio>
#include <functional>
#include <set>
#include <vector>

#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/text.hpp"

namespace rnbdctl {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string label_text(const Labels& labels)
{
    if (labels.empty())
        return {};
    std::string text = "{";
    for (size_t i = 0; i < labels.size(); ++i)
        text += (i ? "," : "") + labels[i].first + "=\"" + prometheus_escape(labels[i].second) + "\"";
    return text + "}";
}

std::string seconds(double value)
{
    char text[64];
    snprintf(text, sizeof(text), "%.9g", value);
    return text;
}

class Exposition {
public:
    void family(const char* name, const char* type, const char* help)
    {
        name_ = name;
        text_ += std::string("# HELP ") + name + " " + help + "\n";
        text_ += std::string("# TYPE ") + name + " " + type + "\n";
    }
    void sample(const Labels& labels, int64_t value, const char* suffix = "")
    {
        if (value == kUnknown)
            return;
        sample_text(labels, std::to_string(value), suffix);
    }
    // Two names that differ only in bytes prometheus_escape replaces give
    // the same series; Prometheus refuses a file that repeats one, so the
    // first is written and the others are left out.
    void sample_text(const Labels& labels, const std::string& value, const char* suffix = "")
    {
        const std::string series = name_ + suffix + label_text(labels);
        if (written_.insert(series).second)
            text_ += series + " " + value + "\n";
    }
    const std::string& text() const { return text_; }

private:
    std::string name_;
    std::string text_;
    std::set<std::string> written_;
};

Labels path_labels(const std::string& session, const std::string& path)
{
    return {{"session", session}, {"path", path}};
}

struct PathCounter {
    const char* name;
    const char* help;
    int64_t ClientPath::*field;
};

void client_metrics(const Sysfs& sysfs, Exposition& out)
{
    std::vector<ClientDevice> devices = read_client_devices(sysfs);
    std::vector<ClientSession> sessions = read_client_sessions(sysfs);

    out.family("rnbd_client_device_info", "gauge", "Mapped rnbd device (always 1), with its mapping as labels.");
    for (const ClientDevice& device : devices)
        out.sample({{"device", device.name},
                    {"session", device.session},
                    {"device_path", device.device_path},
                    {"access_mode", device.access_mode},
                    {"io_mode", device.io_mode}},
                   1);
    out.family("rnbd_client_device_open", "gauge", "1 when the device is open on the server, 0 when closed.");
    for (const ClientDevice& device : devices)
        out.sample({{"device", device.name}}, device.state == "open" ? 1 : 0);
    out.family("rnbd_client_device_size_bytes", "gauge", "Size of the mapped device in bytes.");
    for (const ClientDevice& device : devices)
        out.sample({{"device", device.name}}, device.size_sectors == kUnknown ? kUnknown : device.size_sectors * 512);

    out.family("rnbd_client_session_info", "gauge", "RTRS client session (always 1), with its policy as a label.");
    for (const ClientSession& session : sessions)
        out.sample({{"session", session.name}, {"mpath_policy", session.mpath_policy}}, 1);
    out.family("rnbd_client_session_paths", "gauge", "Paths of the session.");
    for (const ClientSession& session : sessions)
        out.sample({{"session", session.name}}, int64_t(session.paths.size()));

    out.family("rnbd_client_path_up", "gauge", "1 when the path is connected, else 0.");
    for (const ClientSession& session : sessions)
        for (const ClientPath& path : session.paths)
            out.sample({{"session", session.name},
                        {"path", path.name},
                        {"src_addr", path.src_addr},
                        {"dst_addr", path.dst_addr},
                        {"state", path.state}},
                       path.state == "connected" ? 1 : 0);

    constexpr PathCounter kCounters[] = {
        {"rnbd_client_path_read_requests_total", "Read requests sent on the path.", &ClientPath::read_requests},
        {"rnbd_client_path_read_bytes_total", "Bytes read over the path.", &ClientPath::read_bytes},
        {"rnbd_client_path_write_requests_total", "Write requests sent on the path.", &ClientPath::write_requests},
        {"rnbd_client_path_write_bytes_total", "Bytes written over the path.", &ClientPath::write_bytes},
        {"rnbd_client_path_failovers_total", "Requests failed over from this path to another.",
         &ClientPath::failovers},
    };
    for (const PathCounter& counter : kCounters) {
        out.family(counter.name, "counter", counter.help);
        for (const ClientSession& session : sessions)
            for (const ClientPath& path : session.paths)
                out.sample(path_labels(session.name, path.name), path.*counter.field);
    }
    out.family("rnbd_client_path_inflight_requests", "gauge", "Requests in flight on the path.");
    for (const ClientSession& session : sessions)
        for (const ClientPath& path : session.paths)
            out.sample(path_labels(session.name, path.name), path.inflight);
    out.family("rnbd_client_path_reconnects_total", "counter", "Reconnects of the path, by result.");
    for (const ClientSession& session : sessions)
        for (const ClientPath& path : session.paths) {
            Labels labels = path_labels(session.name, path.name);
            labels.push_back({"result", "successful"});
            // -1 until the first connect (that one is not a reconnect).
            out.sample(labels, path.reconnects_successful == kUnknown ? kUnknown
                                                                      : std::max<int64_t>(0, path.reconnects_successful));
            labels.back().second = "failed";
            out.sample(labels, path.reconnects_failed);
        }
    out.family("rnbd_client_path_heartbeat_rtt_seconds", "gauge", "Round trip of the path's last heartbeat.");
    for (const ClientSession& session : sessions)
        for (const ClientPath& path : session.paths)
            if (path.latency_ns != kUnknown)
                out.sample_text(path_labels(session.name, path.name), seconds(double(path.latency_ns) / 1e9));

    // stats/rdma_lat as a histogram per direction: row k counts requests
    // under 2^k ms, so its cumulative count is the bucket le=2^k ms; the
    // last row (>= 65536 ms) only adds to +Inf. The file has no sum of
    // latencies, so there is no _sum sample.
    out.family("rnbd_client_path_request_latency_seconds", "histogram",
               "Request latency on the path (power-of-two millisecond buckets; no _sum: not measured).");
    for (const ClientSession& session : sessions)
        for (const ClientPath& path : session.paths) {
            if (!path.latency.present)
                continue;
            for (int direction = 0; direction < 2; ++direction) {
                const uint64_t* rows = direction == 0 ? path.latency.reads : path.latency.writes;
                Labels labels = path_labels(session.name, path.name);
                labels.push_back({"op", direction == 0 ? "read" : "write"});
                labels.push_back({"le", ""});
                uint64_t cumulative = 0;
                for (size_t row = 0; row < kLatencyRows; ++row) {
                    cumulative += rows[row];
                    if (row + 1 < kLatencyRows) {
                        labels.back().second = seconds(double(uint64_t(1) << row) / 1000.0);
                        out.sample(labels, int64_t(cumulative), "_bucket");
                    }
                }
                labels.back().second = "+Inf";
                out.sample(labels, int64_t(cumulative), "_bucket");
                labels.pop_back();
                out.sample(labels, int64_t(cumulative), "_count");
            }
        }
    out.family("rnbd_client_path_request_latency_max_seconds", "gauge", "Longest request latency seen on the path.");
    for (const ClientSession& session : sessions)
        for (const ClientPath& path : session.paths) {
            if (!path.latency.present)
                continue;
            Labels labels = path_labels(session.name, path.name);
            labels.push_back({"op", "read"});
            out.sample_text(labels, seconds(double(path.latency.max_read_ms) / 1000.0));
            labels.back().second = "write";
            out.sample_text(labels, seconds(double(path.latency.max_write_ms) / 1000.0));
        }
}

void server_metrics(const Sysfs& sysfs, Exposition& out)
{
    std::vector<ServerDevice> devices = read_server_devices(sysfs);
    std::vector<ServerSession> sessions = read_server_sessions(sysfs);
    out.family("rnbd_server_export_info", "gauge", "Device opened by clients (always 1).");
    for (const ServerDevice& device : devices)
        out.sample({{"export", device.name}, {"block_dev", device.block_dev}}, 1);
    out.family("rnbd_server_export_mapping_info", "gauge", "A session's mapping of an export (always 1).");
    for (const ServerDevice& device : devices)
        for (const ServerExportSession& entry : device.sessions)
            out.sample({{"export", device.name},
                        {"session", entry.session},
                        {"access_mode", entry.access_mode},
                        {"read_only", entry.read_only ? "1" : "0"}},
                       1);
    out.family("rnbd_server_session_paths", "gauge", "Paths of the RTRS server session.");
    for (const ServerSession& session : sessions)
        out.sample({{"session", session.name}}, int64_t(session.paths.size()));
    struct Counter {
        const char* name;
        const char* type;
        const char* help;
        int64_t ServerPath::*field;
    };
    constexpr Counter kCounters[] = {
        {"rnbd_server_path_read_requests_total", "counter", "Read requests served on the path.",
         &ServerPath::read_requests},
        {"rnbd_server_path_read_bytes_total", "counter", "Bytes read over the path.", &ServerPath::read_bytes},
        {"rnbd_server_path_write_requests_total", "counter", "Write requests served on the path.",
         &ServerPath::write_requests},
        {"rnbd_server_path_write_bytes_total", "counter", "Bytes written over the path.", &ServerPath::write_bytes},
        {"rnbd_server_path_inflight_requests", "gauge", "Requests held by the server's user.", &ServerPath::inflight},
    };
    for (const Counter& counter : kCounters) {
        out.family(counter.name, counter.type, counter.help);
        for (const ServerSession& session : sessions)
            for (const ServerPath& path : session.paths)
                out.sample(path_labels(session.name, path.name), path.*counter.field);
    }
}

}  // namespace

std::string prometheus_escape(const std::string& value)
{
    std::string out;
    for (size_t offset = 0; offset < value.size();) {
        const Utf8Character character = next_utf8(value, offset);
        const char32_t code_point = character.code_point;
        if (code_point == '\\')
            out += "\\\\";
        else if (code_point == '"')
            out += "\\\"";
        else if (code_point == '\n')
            out += "\\n";
        else if (code_point == kInvalidByte || is_control_character(code_point))
            // The format has no escape for a byte or another control; the
            // text must be UTF-8, and is often shown on a terminal.
            append_utf8(out, kReplacementCharacter);
        else
            out.append(value, offset, character.length);
        offset += character.length;
    }
    return out;
}

std::string format_prometheus(const Sysfs& sysfs)
{
    Exposition out;
    out.family("rnbd_client_module_loaded", "gauge", "1 when rnbd-client is loaded.");
    out.sample({}, client_loaded(sysfs) ? 1 : 0);
    out.family("rnbd_server_module_loaded", "gauge", "1 when rnbd-server is loaded.");
    out.sample({}, server_loaded(sysfs) ? 1 : 0);
    client_metrics(sysfs, out);
    server_metrics(sysfs, out);
    return out.text();
}

}  // namespace rnbdctl
