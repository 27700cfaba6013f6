// RTRS path statistics: recording, reset and the sysfs text; the formats
// and where they come from are listed in rtrs-stats.hpp.
#include "rtrs/core/rtrs-stats.hpp"

#include <cxxrt/bits.hpp>
#include <cxxrt/errno.hpp>
#include <cxxrt/text.hpp>

namespace rtrs {

namespace {

using cxxrt::Error;
using cxxrt::TextBuffer;
namespace err = cxxrt::err;

constexpr u64 kU64Max = ~u64(0);

// Counters wrap like the kernel's u64 per-CPU counters would; sums wrap the
// same way rather than trapping, since a stats file must always print.
constexpr u64 wrapping_add(u64 a, u64 b) { return a + b; }

struct RdmaTotals {
    DirectionCounters read;
    DirectionCounters write;
    u64 failovers = 0;
};

template <typename CpuStats>
void add_directions(RdmaTotals& totals, const CpuStats& cpu)
{
    totals.read.count = wrapping_add(totals.read.count, cpu.read.count);
    totals.read.bytes = wrapping_add(totals.read.bytes, cpu.read.bytes);
    totals.write.count = wrapping_add(totals.write.count, cpu.write.count);
    totals.write.bytes = wrapping_add(totals.write.bytes, cpu.write.bytes);
}

void append_directions(TextBuffer& text, const RdmaTotals& totals)
{
    text.append_unsigned(totals.read.count);
    text.append(' ');
    text.append_unsigned(totals.read.bytes);
    text.append(' ');
    text.append_unsigned(totals.write.count);
    text.append(' ');
    text.append_unsigned(totals.write.bytes);
}

template <typename CpuStats>
CompletionCounters sum_completions(Span<const CpuStats> per_cpu)
{
    CompletionCounters sum;
    for (const CpuStats& cpu : per_cpu) {
        if (cpu.completions.max_per_call > sum.max_per_call)
            sum.max_per_call = cpu.completions.max_per_call;
        sum.total = wrapping_add(sum.total, cpu.completions.total);
        sum.calls = wrapping_add(sum.calls, cpu.completions.calls);
    }
    return sum;
}

// share / whole in tenths of a percent, rounded down, without overflowing
// the multiply: when share * 1000 would not fit, whole is above 10^16 and
// dividing by whole / 1000 (rounded up, so the result still rounds down)
// is off by at most one tenth.
u64 per_mille(u64 share, u64 whole)
{
    if (whole == 0)
        return 0;
    if (share >= whole)
        return 1000;
    if (share <= kU64Max / 1000)
        return share * 1000 / whole;
    // Not divide_round_up(): its (whole + 999) wraps for whole near 2^64.
    u64 divisor = whole / 1000 + (whole % 1000 != 0 ? 1 : 0);
    return share / divisor;
}

// The label in front of each sg_entries row: "= n" for the exact counts,
// "< n" for the ranges, ">=n" for the open-ended last one (right-aligned in
// three columns, as the IBTRS table printed them).
void append_sg_row_label(TextBuffer& text, size_t bucket)
{
    if (bucket <= kSgExactLimit) {
        text.append(StringView("= ", 2));
        text.append_unsigned(bucket, 3);
    } else if (bucket + 1 < kSgBucketCount) {
        // Buckets 5, 6, 7 hold lengths below 8, 16, 32.
        text.append(StringView("< ", 2));
        text.append_unsigned(u64(1) << (bucket - 2), 3);
    } else {
        text.append(StringView(">=", 2));
        text.append_unsigned(u64(1) << (bucket - 3), 3);
    }
    text.append(':');
}

void clear_completions(CompletionCounters& counters) { counters = CompletionCounters{}; }

// "a b\n", the shape of most two-number attributes.
void append_pair_line(TextBuffer& text, u64 first, u64 second)
{
    text.append_unsigned(first);
    text.append(' ');
    text.append_unsigned(second);
    text.append('\n');
}

// One counter of every CPU on one line: " v0 v1 ..." when the separator
// comes first (the table of cpu_migration), "v0 v1 ... " otherwise.
enum class Separator { kBefore, kAfter };
template <typename Counter>
void append_per_cpu(TextBuffer& text, Span<const ClientCpuStats> per_cpu, Counter ClientCpuStats::*counter,
                    Separator separator)
{
    for (const ClientCpuStats& cpu : per_cpu) {
        if (separator == Separator::kBefore)
            text.append(' ');
        text.append_unsigned(cpu.*counter);
        if (separator == Separator::kAfter)
            text.append(' ');
    }
}

}  // namespace

// --- recording ---

size_t sg_bucket_index(u32 sg_entries)
{
    if (sg_entries <= kSgExactLimit)
        return sg_entries;
    // 5..7 -> 5, 8..15 -> 6, 16..31 -> 7, 32.. -> 8.
    size_t index = size_t(cxxrt::ilog2(sg_entries)) + 3;
    return index < kSgBucketCount ? index : kSgBucketCount - 1;
}

size_t latency_bucket_index(u64 milliseconds)
{
    if (milliseconds == 0)
        return 0;
    // Bucket n (n >= 1) holds [2^(n-1), 2^n) ms.
    size_t index = size_t(cxxrt::ilog2(milliseconds)) + 1;
    return index < kLatencyBucketCount ? index : kLatencyBucketCount - 1;
}

void record_request(ClientCpuStats& stats, Direction direction, u64 bytes, u32 sg_entries)
{
    DirectionCounters& counters = direction == Direction::kRead ? stats.read : stats.write;
    ++counters.count;
    counters.bytes += bytes;
    ++stats.sg_buckets[sg_bucket_index(sg_entries)];
    ++stats.sg_total;
}

void record_request(ServerCpuStats& stats, Direction direction, u64 bytes)
{
    DirectionCounters& counters = direction == Direction::kRead ? stats.read : stats.write;
    ++counters.count;
    counters.bytes += bytes;
}

void record_latency(ClientCpuStats& stats, Direction direction, u64 milliseconds)
{
    size_t bucket = latency_bucket_index(milliseconds);
    if (direction == Direction::kRead) {
        ++stats.latency_read[bucket];
        if (milliseconds > stats.latency_max_read_ms)
            stats.latency_max_read_ms = milliseconds;
    } else {
        ++stats.latency_write[bucket];
        if (milliseconds > stats.latency_max_write_ms)
            stats.latency_max_write_ms = milliseconds;
    }
}

void record_failover(ClientCpuStats& stats) { ++stats.failovers; }

void record_completions(CompletionCounters& counters, u32 handled_in_this_call)
{
    // A poll that found nothing is not a batch: it would only pull the
    // average below the batch size.
    if (handled_in_this_call == 0)
        return;
    if (handled_in_this_call > counters.max_per_call)
        counters.max_per_call = handled_in_this_call;
    counters.total += handled_in_this_call;
    ++counters.calls;
}

void record_polled(ClientCpuStats& stats, u32 reaped_in_this_poll)
{
    if (reaped_in_this_poll == 0)
        return;
    stats.polled.completions += reaped_in_this_poll;
    ++stats.polled.polls;
}

void record_migration_to(ClientCpuStats& stats) { ++stats.migrations_to; }

// --- reset ---

void reset_rdma(Span<ClientCpuStats> per_cpu)
{
    for (ClientCpuStats& cpu : per_cpu) {
        cpu.read = DirectionCounters{};
        cpu.write = DirectionCounters{};
        cpu.failovers = 0;
    }
}

void reset_rdma(Span<ServerCpuStats> per_cpu)
{
    for (ServerCpuStats& cpu : per_cpu) {
        cpu.read = DirectionCounters{};
        cpu.write = DirectionCounters{};
    }
}

void reset_cpu_migration(Span<ClientCpuStats> per_cpu)
{
    for (ClientCpuStats& cpu : per_cpu) {
        cpu.migrations_from = 0;
        cpu.migrations_to = 0;
    }
}

void reset_sg_entries(Span<ClientCpuStats> per_cpu)
{
    for (ClientCpuStats& cpu : per_cpu) {
        cpu.sg_total = 0;
        for (u64& bucket : cpu.sg_buckets)
            bucket = 0;
    }
}

void reset_latency(Span<ClientCpuStats> per_cpu)
{
    for (ClientCpuStats& cpu : per_cpu) {
        for (size_t i = 0; i < kLatencyBucketCount; ++i) {
            cpu.latency_read[i] = 0;
            cpu.latency_write[i] = 0;
        }
        cpu.latency_max_read_ms = 0;
        cpu.latency_max_write_ms = 0;
    }
}

void reset_completions(Span<ClientCpuStats> per_cpu)
{
    for (ClientCpuStats& cpu : per_cpu)
        clear_completions(cpu.completions);
}

void reset_completions(Span<ServerCpuStats> per_cpu)
{
    for (ServerCpuStats& cpu : per_cpu)
        clear_completions(cpu.completions);
}

void reset_polled(Span<ClientCpuStats> per_cpu)
{
    for (ClientCpuStats& cpu : per_cpu)
        cpu.polled = PollCounters{};
}

void reset_reconnects(ReconnectCounters& reconnects)
{
    // Zero, not -1: after a reset the path has been up, so the next
    // successful connect is a real reconnect.
    reconnects.successful = 0;
    reconnects.failed = 0;
}

void reset_all(Span<ClientCpuStats> per_cpu, ReconnectCounters& reconnects)
{
    reset_rdma(per_cpu);
    reset_cpu_migration(per_cpu);
    reset_sg_entries(per_cpu);
    reset_latency(per_cpu);
    reset_completions(per_cpu);
    reset_polled(per_cpu);
    reset_reconnects(reconnects);
}

void reset_all(Span<ServerCpuStats> per_cpu)
{
    reset_rdma(per_cpu);
    reset_completions(per_cpu);
}

Result<void> parse_reset_request(StringView text)
{
    if (!text.is_empty() && text[text.length() - 1] == '\n')
        text = text.substring(0, text.length() - 1);
    if (text.length() == 1 && (text[0] == '1' || text[0] == '0'))
        return {};
    return Error(err::kInval);
}

// --- formatting ---

size_t format_client_rdma(Span<const ClientCpuStats> per_cpu, u32 inflight, Span<char> out)
{
    RdmaTotals totals;
    for (const ClientCpuStats& cpu : per_cpu) {
        add_directions(totals, cpu);
        totals.failovers = wrapping_add(totals.failovers, cpu.failovers);
    }
    TextBuffer text(out);
    append_directions(text, totals);
    text.append(' ');
    append_pair_line(text, inflight, totals.failovers);
    return text.length();
}

size_t format_server_rdma(Span<const ServerCpuStats> per_cpu, u32 inflight, Span<char> out)
{
    RdmaTotals totals;
    for (const ServerCpuStats& cpu : per_cpu)
        add_directions(totals, cpu);
    TextBuffer text(out);
    append_directions(text, totals);
    text.append(' ');
    text.append_unsigned(inflight);
    text.append('\n');
    return text.length();
}

size_t format_server_rdma_counts(Span<const ServerCpuStats> per_cpu, Span<char> out)
{
    RdmaTotals totals;
    for (const ServerCpuStats& cpu : per_cpu)
        add_directions(totals, cpu);
    TextBuffer text(out);
    append_directions(text, totals);
    text.append('\n');
    return text.length();
}

size_t format_reconnects(const ReconnectCounters& reconnects, Span<char> out)
{
    TextBuffer text(out);
    text.append_signed(reconnects.successful);
    text.append(' ');
    text.append_signed(reconnects.failed);
    text.append('\n');
    return text.length();
}

size_t format_cpu_migration(Span<const ClientCpuStats> per_cpu, Span<char> out)
{
    TextBuffer text(out);
    text.append(StringView("    ", 4));
    for (size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
        text.append(StringView(" CPU", 4));
        text.append_unsigned(cpu);
    }
    text.append(StringView("\nfrom:", 6));
    append_per_cpu(text, per_cpu, &ClientCpuStats::migrations_from, Separator::kBefore);
    text.append(StringView("\nto  :", 6));
    append_per_cpu(text, per_cpu, &ClientCpuStats::migrations_to, Separator::kBefore);
    text.append('\n');
    return text.length();
}

namespace {
// "v0 v1 ... \n": one counter of every CPU (cpu_migration_from, _to).
size_t format_per_cpu_line(Span<const ClientCpuStats> per_cpu, u32 ClientCpuStats::*counter, Span<char> out)
{
    TextBuffer text(out);
    append_per_cpu(text, per_cpu, counter, Separator::kAfter);
    text.append('\n');
    return text.length();
}
}  // namespace

size_t format_cpu_migration_from(Span<const ClientCpuStats> per_cpu, Span<char> out)
{
    return format_per_cpu_line(per_cpu, &ClientCpuStats::migrations_from, out);
}

size_t format_cpu_migration_to(Span<const ClientCpuStats> per_cpu, Span<char> out)
{
    return format_per_cpu_line(per_cpu, &ClientCpuStats::migrations_to, out);
}

size_t format_sg_entries(Span<const ClientCpuStats> per_cpu, Span<char> out)
{
    TextBuffer text(out);
    text.append(StringView("n\\cpu:", 6));
    for (size_t cpu = 0; cpu < per_cpu.size(); ++cpu)
        text.append_unsigned(cpu, 5);
    for (size_t bucket = 0; bucket < kSgBucketCount; ++bucket) {
        text.append('\n');
        append_sg_row_label(text, bucket);
        for (const ClientCpuStats& cpu : per_cpu) {
            u64 hits = cpu.sg_buckets[bucket];
            if (hits == 0) {
                // A bare 0 instead of "0.0" keeps empty cells easy to spot.
                text.append(StringView("    0", 5));
                continue;
            }
            u64 tenths = per_mille(hits, cpu.sg_total);
            text.append(' ');
            text.append_unsigned(tenths / 10, 2);
            text.append('.');
            text.append_unsigned(tenths % 10);
        }
    }
    text.append(StringView("\ntotal:", 7));
    append_per_cpu(text, per_cpu, &ClientCpuStats::sg_total, Separator::kBefore);
    text.append('\n');
    return text.length();
}

size_t format_rdma_latency(Span<const ClientCpuStats> per_cpu, Span<char> out)
{
    TextBuffer text(out);
    for (size_t bucket = 0; bucket < kLatencyBucketCount; ++bucket) {
        u64 reads = 0;
        u64 writes = 0;
        for (const ClientCpuStats& cpu : per_cpu) {
            reads = wrapping_add(reads, cpu.latency_read[bucket]);
            writes = wrapping_add(writes, cpu.latency_write[bucket]);
        }
        if (bucket + 1 < kLatencyBucketCount) {
            text.append(StringView("< ", 2));
            text.append_unsigned(u64(1) << bucket, 6);
        } else {
            text.append(StringView(">= ", 3));
            text.append_unsigned(u64(1) << kLatencyMaxLog, 5);
        }
        text.append(StringView(" ms: ", 5));
        append_pair_line(text, reads, writes);
    }
    u64 max_read = 0;
    u64 max_write = 0;
    for (const ClientCpuStats& cpu : per_cpu) {
        if (cpu.latency_max_read_ms > max_read)
            max_read = cpu.latency_max_read_ms;
        if (cpu.latency_max_write_ms > max_write)
            max_write = cpu.latency_max_write_ms;
    }
    text.append(StringView(" maximum ms: ", 13));
    append_pair_line(text, max_read, max_write);
    return text.length();
}

size_t format_client_completions(Span<const ClientCpuStats> per_cpu, Span<char> out)
{
    CompletionCounters sum = sum_completions(per_cpu);
    TextBuffer text(out);
    append_pair_line(text, sum.max_per_call, sum.calls ? sum.total / sum.calls : 0);
    return text.length();
}

size_t format_server_completions(Span<const ServerCpuStats> per_cpu, Span<char> out)
{
    CompletionCounters sum = sum_completions(per_cpu);
    TextBuffer text(out);
    text.append_unsigned(sum.max_per_call);
    text.append(' ');
    append_pair_line(text, sum.total, sum.calls);
    return text.length();
}

size_t format_client_polled(Span<const ClientCpuStats> per_cpu, Span<char> out)
{
    u64 completions = 0;
    u64 polls = 0;
    for (const ClientCpuStats& cpu : per_cpu) {
        completions = wrapping_add(completions, cpu.polled.completions);
        polls = wrapping_add(polls, cpu.polled.polls);
    }
    TextBuffer text(out);
    append_pair_line(text, completions, polls);
    return text.length();
}

size_t format_reset_all_usage(Span<char> out)
{
    TextBuffer text(out);
    text.append(StringView("Usage: echo 1 > reset_all to clear every statistic of this path\n"));
    return text.length();
}

}  // namespace rtrs
