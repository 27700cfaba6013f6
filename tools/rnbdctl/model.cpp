// Reading the sysfs tree into the structs of model.hpp.
#include "tools/rnbdctl/model.hpp"

#include <stdlib.h>

#include <algorithm>

namespace rnbdctl {

namespace {

int64_t read_number(const Sysfs& sysfs, const std::string& file)
{
    std::string text;
    if (!sysfs.read(file, text))
        return kUnknown;
    std::vector<int64_t> numbers = parse_numbers(text);
    return numbers.empty() ? kUnknown : numbers[0];
}

// Client and server paths name their ends and their HCA in the same files;
// one reader keeps the two sides from drifting apart.
template <typename Path>
void read_path_endpoints(const Sysfs& sysfs, const std::string& dir, Path& path)
{
    path.src_addr = sysfs.read_or(dir + "/src_addr", "");
    path.dst_addr = sysfs.read_or(dir + "/dst_addr", "");
    path.hca_name = sysfs.read_or(dir + "/hca_name", "");
    path.hca_port = read_number(sysfs, dir + "/hca_port");
}

// stats/rdma of either side begins "read_requests read_bytes
// write_requests write_bytes inflight"; the client's (failovers follow)
// counts only when all five are there (least 5), the server's from four.
template <typename Path>
void take_rdma_counters(const std::vector<int64_t>& rdma, size_t least, Path& path)
{
    if (rdma.size() < least || rdma.size() < 4)
        return;
    path.read_requests = rdma[0];
    path.read_bytes = rdma[1];
    path.write_requests = rdma[2];
    path.write_bytes = rdma[3];
    if (rdma.size() >= 5)
        path.inflight = rdma[4];
}

void read_client_path(const Sysfs& sysfs, const std::string& dir, ClientPath& path)
{
    read_path_endpoints(sysfs, dir, path);
    path.state = sysfs.read_or(dir + "/state", "unknown");
    path.latency_ns = read_number(sysfs, dir + "/cur_latency");
    std::vector<int64_t> rdma = parse_numbers(sysfs.read_or(dir + "/stats/rdma", ""));
    take_rdma_counters(rdma, 5, path);
    if (rdma.size() >= 6)
        path.failovers = rdma[5];
    std::vector<int64_t> reconnects = parse_numbers(sysfs.read_or(dir + "/stats/reconnects", ""));
    if (reconnects.size() >= 2) {
        path.reconnects_successful = reconnects[0];
        path.reconnects_failed = reconnects[1];
    }
    std::string latency;
    if (sysfs.read(dir + "/stats/rdma_lat", latency))
        parse_latency_histogram(latency, path.latency);
}

// Every entry of `dir` that `read_one` accepts (it rejects names that are
// not of its kind, e.g. sda under block/), in directory order.
template <typename Entry>
std::vector<Entry> read_every(const Sysfs& sysfs, const char* dir,
                              bool (*read_one)(const Sysfs&, const std::string&, Entry&))
{
    std::vector<Entry> entries;
    for (const std::string& name : sysfs.list(dir)) {
        Entry entry;
        if (read_one(sysfs, name, entry))
            entries.push_back(entry);
    }
    return entries;
}

}  // namespace

std::vector<int64_t> parse_numbers(const std::string& text)
{
    std::vector<int64_t> numbers;
    const char* p = text.c_str();
    while (*p) {
        if ((*p >= '0' && *p <= '9') || (*p == '-' && p[1] >= '0' && p[1] <= '9')) {
            char* end = nullptr;
            long long value = strtoll(p, &end, 10);
            numbers.push_back(value);
            p = end;
            continue;
        }
        // Only blanks separate numbers; a word ("ns") ends the list.
        if (*p != ' ' && *p != '\t' && *p != '\n')
            break;
        ++p;
    }
    return numbers;
}

bool parse_latency_histogram(const std::string& text, LatencyHistogram& out)
{
    out = LatencyHistogram{};
    size_t row = 0;
    size_t start = 0;
    bool have_maximum = false;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        size_t colon = line.find("ms:");
        if (colon == std::string::npos)
            continue;
        std::vector<int64_t> values = parse_numbers(line.substr(colon + 3));
        if (values.size() != 2 || values[0] < 0 || values[1] < 0)
            return false;
        if (line.find("maximum") != std::string::npos) {
            out.max_read_ms = uint64_t(values[0]);
            out.max_write_ms = uint64_t(values[1]);
            have_maximum = true;
            continue;
        }
        if (row >= kLatencyRows)
            return false;
        out.reads[row] = uint64_t(values[0]);
        out.writes[row] = uint64_t(values[1]);
        ++row;
    }
    out.present = row == kLatencyRows && have_maximum;
    return out.present;
}

std::string policy_word(const std::string& text)
{
    size_t end = text.find(' ');
    return end == std::string::npos ? text : text.substr(0, end);
}

std::string client_device_dir(const Sysfs& sysfs, const std::string& name)
{
    if (name.rfind("rnbd", 0) != 0 || name.find('/') != std::string::npos)
        return {};
    for (const char* sub : {"rnbd_client", "rnbd"}) {
        std::string dir = std::string(kBlockDir) + "/" + name + "/" + sub;
        if (sysfs.is_directory(dir))
            return dir;
    }
    return {};
}

bool client_loaded(const Sysfs& sysfs) { return sysfs.is_directory(kClientClassDevices) || sysfs.exists(kMapDevice); }

bool server_loaded(const Sysfs& sysfs) { return sysfs.is_directory(kServerDevices); }

bool read_client_device(const Sysfs& sysfs, const std::string& name, ClientDevice& out)
{
    std::string dir = client_device_dir(sysfs, name);
    if (dir.empty())
        return false;
    out = ClientDevice{};
    out.name = name;
    out.session = sysfs.read_or(dir + "/session", "");
    out.device_path = sysfs.read_or(dir + "/mapping_path", "");
    out.access_mode = sysfs.read_or(dir + "/access_mode", "");
    out.io_mode = sysfs.read_or(dir + "/io_mode", "");
    out.nr_poll_queues = read_number(sysfs, dir + "/nr_poll_queues");
    out.state = sysfs.read_or(dir + "/state", "unknown");
    out.size_sectors = read_number(sysfs, std::string(kBlockDir) + "/" + name + "/size");
    out.read_only = read_number(sysfs, std::string(kBlockDir) + "/" + name + "/ro") == 1;
    return true;
}

std::vector<ClientDevice> read_client_devices(const Sysfs& sysfs)
{
    return read_every<ClientDevice>(sysfs, kBlockDir, read_client_device);
}

bool read_client_session(const Sysfs& sysfs, const std::string& name, ClientSession& out)
{
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
        return false;
    const std::string dir = std::string(kRtrsClientClass) + "/" + name;
    if (!sysfs.is_directory(dir))
        return false;
    out = ClientSession{};
    out.name = name;
    out.mpath_policy = policy_word(sysfs.read_or(dir + "/mpath_policy", sysfs.read_or(dir + "/mp_policy", "")));
    out.max_reconnect_attempts = read_number(sysfs, dir + "/max_reconnect_attempts");
    out.io_hold_timeout_ms = read_number(sysfs, dir + "/io_hold_timeout_ms");
    for (const std::string& path_name : sysfs.list(dir + "/paths")) {
        ClientPath path;
        path.name = path_name;
        read_client_path(sysfs, dir + "/paths/" + path_name, path);
        out.paths.push_back(path);
    }
    for (const ClientDevice& device : read_client_devices(sysfs))
        if (device.session == name)
            out.devices.push_back(device.name);
    return true;
}

std::vector<ClientSession> read_client_sessions(const Sysfs& sysfs)
{
    return read_every<ClientSession>(sysfs, kRtrsClientClass, read_client_session);
}

std::vector<ServerDevice> read_server_devices(const Sysfs& sysfs)
{
    std::vector<ServerDevice> devices;
    for (const std::string& name : sysfs.list(kServerDevices)) {
        const std::string dir = std::string(kServerDevices) + "/" + name;
        ServerDevice device;
        device.name = name;
        device.block_dev = sysfs.link_target_name(dir + "/block_dev");
        for (const std::string& session : sysfs.list(dir + "/sessions")) {
            const std::string sdir = dir + "/sessions/" + session;
            ServerExportSession entry;
            entry.session = session;
            entry.access_mode = sysfs.read_or(sdir + "/access_mode", "");
            entry.read_only = read_number(sysfs, sdir + "/read_only") == 1;
            entry.mapping_path = sysfs.read_or(sdir + "/mapping_path", "");
            device.sessions.push_back(entry);
        }
        devices.push_back(device);
    }
    return devices;
}

std::vector<ServerSession> read_server_sessions(const Sysfs& sysfs)
{
    std::vector<ServerSession> sessions;
    std::vector<ServerDevice> devices = read_server_devices(sysfs);
    for (const std::string& name : sysfs.list(kRtrsServerClass)) {
        const std::string dir = std::string(kRtrsServerClass) + "/" + name;
        if (!sysfs.is_directory(dir))
            continue;
        ServerSession session;
        session.name = name;
        for (const std::string& path_name : sysfs.list(dir + "/paths")) {
            const std::string pdir = dir + "/paths/" + path_name;
            ServerPath path;
            path.name = path_name;
            read_path_endpoints(sysfs, pdir, path);
            take_rdma_counters(parse_numbers(sysfs.read_or(pdir + "/stats/rdma", "")), 4, path);
            session.paths.push_back(path);
        }
        for (const ServerDevice& device : devices)
            for (const ServerExportSession& entry : device.sessions)
                if (entry.session == name)
                    session.devices.push_back(device.name);
        sessions.push_back(session);
    }
    return sessions;
}

}  // namespace rnbdctl
