// What rnbdctl reads from sysfs, as plain structs: the client's devices and
// RTRS sessions with their paths and stats, and the server's exports and
// sessions. Readers are tolerant: a file that is missing (Linux's own
// modules lack some of ours) leaves its field at the "unknown" value, so
// list/show/stats work against either implementation. Where the files live
// is Documentation/sysfs.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/rnbdctl/sysfs.hpp"

namespace rnbdctl {

inline constexpr int64_t kUnknown = INT64_MIN;

// sysfs locations, relative to the root.
inline constexpr const char* kBlockDir = "block";
inline constexpr const char* kMapDevice = "kernel/rnbd_client/map_device";
inline constexpr const char* kClientClassDevices = "class/rnbd-client/ctl/devices";
inline constexpr const char* kClientModuleDir = "kernel/rnbd_client";
inline constexpr const char* kRtrsClientClass = "class/rtrs-client";
inline constexpr const char* kServerDevices = "class/rnbd-server/ctl/devices";
inline constexpr const char* kServerModuleDir = "class/rnbd-server";
inline constexpr const char* kRtrsServerClass = "class/rtrs-server";

// stats/rdma_lat: "< 1 ms" ... "< 65536 ms" and ">= 65536 ms".
inline constexpr size_t kLatencyRows = 18;

struct LatencyHistogram {
    bool present = false;
    // Per row: requests whose latency fell in it (not cumulative).
    uint64_t reads[kLatencyRows] = {};
    uint64_t writes[kLatencyRows] = {};
    uint64_t max_read_ms = 0;
    uint64_t max_write_ms = 0;
};

struct ClientPath {
    std::string name;  // the directory, "<src>@<dst>"
    std::string src_addr;
    std::string dst_addr;
    std::string state;  // connected | disconnected | ...
    std::string hca_name;
    int64_t hca_port = kUnknown;
    int64_t latency_ns = kUnknown;  // last heartbeat round trip
    // stats/rdma
    int64_t read_requests = kUnknown, read_bytes = kUnknown, write_requests = kUnknown, write_bytes = kUnknown;
    int64_t inflight = kUnknown, failovers = kUnknown;
    // stats/reconnects (successful starts at -1 before the first connect)
    int64_t reconnects_successful = kUnknown, reconnects_failed = kUnknown;
    LatencyHistogram latency;
};

struct ClientSession {
    std::string name;
    std::string mpath_policy;  // round-robin | min-inflight | min-latency
    int64_t max_reconnect_attempts = kUnknown;
    int64_t io_hold_timeout_ms = kUnknown;
    std::vector<ClientPath> paths;
    std::vector<std::string> devices;  // rnbdN of this session
};

struct ClientDevice {
    std::string name;  // rnbdN
    std::string session;
    std::string device_path;  // mapping_path: the path on the server
    std::string access_mode;
    std::string io_mode;
    int64_t nr_poll_queues = kUnknown;
    std::string state;  // open | closed
    int64_t size_sectors = kUnknown;
    bool read_only = false;
};

struct ServerExportSession {
    std::string session;
    std::string access_mode;
    bool read_only = false;
    std::string mapping_path;
};

struct ServerDevice {
    std::string name;
    std::string block_dev;  // empty for a file export
    std::vector<ServerExportSession> sessions;
};

struct ServerPath {
    std::string name;
    std::string src_addr;  // the client
    std::string dst_addr;  // the server
    std::string hca_name;
    int64_t hca_port = kUnknown;
    int64_t read_requests = kUnknown, read_bytes = kUnknown, write_requests = kUnknown, write_bytes = kUnknown;
    int64_t inflight = kUnknown;
};

struct ServerSession {
    std::string name;
    std::vector<ServerPath> paths;
    std::vector<std::string> devices;  // exports this session has open
};

// The per-device attribute directory: rnbd_client/ (ours) or rnbd/ (ours
// and Linux's); empty when `name` is not an rnbd device.
std::string client_device_dir(const Sysfs& sysfs, const std::string& name);

bool client_loaded(const Sysfs& sysfs);
bool server_loaded(const Sysfs& sysfs);

std::vector<ClientDevice> read_client_devices(const Sysfs& sysfs);
bool read_client_device(const Sysfs& sysfs, const std::string& name, ClientDevice& out);
std::vector<ClientSession> read_client_sessions(const Sysfs& sysfs);
bool read_client_session(const Sysfs& sysfs, const std::string& name, ClientSession& out);
std::vector<ServerDevice> read_server_devices(const Sysfs& sysfs);
std::vector<ServerSession> read_server_sessions(const Sysfs& sysfs);

// Parsers of single files, exposed for the tests.
bool parse_latency_histogram(const std::string& text, LatencyHistogram& out);
std::vector<int64_t> parse_numbers(const std::string& text);
// "round-robin (RR: 0)" -> "round-robin"
std::string policy_word(const std::string& text);

}  // namespace rnbdctl
