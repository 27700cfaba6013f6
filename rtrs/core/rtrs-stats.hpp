// Per-path statistics of the RTRS client and server, and the text their
// sysfs files under .../paths/<src@dst>/stats/ print.
//
// The kernel side keeps one ClientCpuStats / ServerCpuStats per possible
// CPU (alloc_percpu) and updates only the local one on the IO path, so the
// record_* helpers below are plain, non-atomic increments. The one field
// written from a foreign CPU, `migrations_from`, is updated by the kernel
// glue with an atomic add on the field's address; these helpers never touch
// it. To print, the glue passes the per-CPU array (index = CPU number) to a
// format_* function, which sums and writes into the caller's page: the
// output is NUL-terminated and cut short rather than overflowing, and the
// returned length never exceeds the buffer size minus one.
//
// Formats (source in brackets):
//   rdma (client)    "<rd cnt> <rd bytes> <wr cnt> <wr bytes> <inflight> <failovers>\n" [seed 000/002, upstream]
//   rdma (server)    "<rd cnt> <rd bytes> <wr cnt> <wr bytes> <inflight>\n"               [seed 000/002]
//                    or without <inflight>, as upstream 6.1 prints it                      [upstream]
//   reconnects       "<successful> <failed>\n", signed                                   [seed, upstream]
//   cpu_migration    header " CPU<n>" per CPU, then "from:" and "to  :" rows             [seed 000, IBTRS]
//   cpu_migration_from / cpu_migration_to   "<n> " per CPU then "\n"                     [upstream 6.1]
//   sg_entries       per-CPU percentage table of sg list lengths                         [seed 000, IBTRS]
//   rdma_lat         power-of-two ms buckets, read and write columns, then maximum       [seed 000, IBTRS]
//   wc_completion    client "<max> <average>\n", server "<max> <total> <calls>\n"         [seed 000]
//   poll_completions client "<completions> <polls>\n": reaped by polling callers         [ours]
//   reset_all        read: usage text; write "1" (upstream) or "0" (seed) clears all.
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>

namespace rtrs {

using cxxrt::Result;
using namespace cxxrt::integers;
using cxxrt::Span;
using cxxrt::StringView;

enum class Direction : unsigned char { kRead = 0, kWrite = 1 };

struct DirectionCounters {
    u64 count = 0;  // requests
    u64 bytes = 0;  // payload plus user header
};

// Scatter-gather list lengths: exact counts 0..4, then the power-of-two
// ranges 5..7, 8..15, 16..31, and 32 or more.
inline constexpr u32 kSgExactLimit = 4;
inline constexpr size_t kSgBucketCount = 9;

// Latency buckets: "< 1 ms", "< 2 ms", ... "< 65536 ms" (17 rows), then
// ">= 65536 ms".
inline constexpr unsigned kLatencyMaxLog = 16;
inline constexpr size_t kLatencyBucketCount = kLatencyMaxLog + 2;

// Batches: the work completions one poll of a completion queue reaped
// (kernel::ib::CompletionQueue: up to 256 per softirq run, or what a polling
// caller reaped). Polls that reaped nothing are not counted.
struct CompletionCounters {
    u32 max_per_call = 0;  // the largest batch
    u64 total = 0;         // completions
    u64 calls = 0;         // polls that reaped at least one
};

// Completions reaped by callers polling a polled connection
// (rtrs_client_poll), not by interrupts: polls counted only when they
// reaped something.
struct PollCounters {
    u64 completions = 0;
    u64 polls = 0;
};

struct ClientCpuStats {
    DirectionCounters read;
    DirectionCounters write;
    u64 failovers = 0;
    // A response was expected on this CPU but completed elsewhere. Written
    // by the other CPU, atomically, by the glue.
    u32 migrations_from = 0;
    // A response completed on this CPU though it was expected elsewhere.
    u32 migrations_to = 0;
    u64 sg_total = 0;
    u64 sg_buckets[kSgBucketCount] = {};
    u64 latency_read[kLatencyBucketCount] = {};
    u64 latency_write[kLatencyBucketCount] = {};
    u64 latency_max_read_ms = 0;
    u64 latency_max_write_ms = 0;
    CompletionCounters completions;
    PollCounters polled;
};

struct ServerCpuStats {
    DirectionCounters read;
    DirectionCounters write;
    CompletionCounters completions;
};

// Per path, not per CPU: reconnects happen in one work item at a time.
// `successful` starts at -1 because the first connect is not a reconnect
// (it becomes 0 when the path first comes up), as upstream does.
struct ReconnectCounters {
    s32 successful = -1;
    s32 failed = 0;
};

// --- recording (local CPU's struct, preemption disabled by the caller) ---

void record_request(ClientCpuStats& stats, Direction direction, u64 bytes, u32 sg_entries);
void record_request(ServerCpuStats& stats, Direction direction, u64 bytes);
void record_latency(ClientCpuStats& stats, Direction direction, u64 milliseconds);
void record_failover(ClientCpuStats& stats);
void record_completions(CompletionCounters& counters, u32 handled_in_this_call);
void record_polled(ClientCpuStats& stats, u32 reaped_in_this_poll);
// Only the "to" side: see migrations_from above.
void record_migration_to(ClientCpuStats& stats);

size_t sg_bucket_index(u32 sg_entries);
size_t latency_bucket_index(u64 milliseconds);

// --- reset (each clears the named group on every CPU) ---

void reset_rdma(Span<ClientCpuStats> per_cpu);
void reset_rdma(Span<ServerCpuStats> per_cpu);
void reset_cpu_migration(Span<ClientCpuStats> per_cpu);
void reset_sg_entries(Span<ClientCpuStats> per_cpu);
void reset_latency(Span<ClientCpuStats> per_cpu);
void reset_completions(Span<ClientCpuStats> per_cpu);
void reset_completions(Span<ServerCpuStats> per_cpu);
void reset_polled(Span<ClientCpuStats> per_cpu);
void reset_reconnects(ReconnectCounters& reconnects);
// Everything above; the glue also zeroes its inflight counter.
void reset_all(Span<ClientCpuStats> per_cpu, ReconnectCounters& reconnects);
void reset_all(Span<ServerCpuStats> per_cpu);

// A write to any stats file: "1" (upstream's value) or "0" (the seed's),
// with an optional trailing newline, resets; anything else is -EINVAL and
// changes nothing.
[[nodiscard]] Result<void> parse_reset_request(StringView text);

// --- formatting ---

size_t format_client_rdma(Span<const ClientCpuStats> per_cpu, u32 inflight, Span<char> out);
size_t format_server_rdma(Span<const ServerCpuStats> per_cpu, u32 inflight, Span<char> out);
// Upstream 6.1's four-value form of the server's rdma file.
size_t format_server_rdma_counts(Span<const ServerCpuStats> per_cpu, Span<char> out);
size_t format_reconnects(const ReconnectCounters& reconnects, Span<char> out);
size_t format_cpu_migration(Span<const ClientCpuStats> per_cpu, Span<char> out);
size_t format_cpu_migration_from(Span<const ClientCpuStats> per_cpu, Span<char> out);
size_t format_cpu_migration_to(Span<const ClientCpuStats> per_cpu, Span<char> out);
size_t format_sg_entries(Span<const ClientCpuStats> per_cpu, Span<char> out);
size_t format_rdma_latency(Span<const ClientCpuStats> per_cpu, Span<char> out);
size_t format_client_completions(Span<const ClientCpuStats> per_cpu, Span<char> out);
size_t format_server_completions(Span<const ServerCpuStats> per_cpu, Span<char> out);
size_t format_client_polled(Span<const ClientCpuStats> per_cpu, Span<char> out);
size_t format_reset_all_usage(Span<char> out);

}  // namespace rtrs
