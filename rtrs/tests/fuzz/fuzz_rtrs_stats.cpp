// libFuzzer target: RTRS path statistics as sysfs sees them, a sequence of
// recordings and writes to the stats files, then every file read. Oracles:
//   - parse_reset_request accepts exactly "0" and "1", each with an optional
//     trailing newline (the documented set); anything else changes nothing;
//   - after an accepted reset_all every file reads as on a fresh path, and a
//     group reset clears its file without touching another group's;
//   - the rdma, reconnects and completions files print the sums of a model
//     kept beside the per-CPU counters (u64 wrapping, as in the kernel);
//   - every formatter, given any buffer size, stays inside the buffer,
//     NUL-terminates, returns less than the size, and prints a prefix of
//     what it prints into a whole page.
#include <string.h>

#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rtrs/core/rtrs-stats.hpp"

namespace {

using namespace rtrs;
using fuzz::u16;
using fuzz::u8;

constexpr size_t kCpus = 4;
constexpr size_t kPage = 4096;

struct Model {
    u64 read_count = 0, read_bytes = 0, write_count = 0, write_bytes = 0, failovers = 0;
    u64 server_read_count = 0, server_read_bytes = 0, server_write_count = 0, server_write_bytes = 0;
    u32 completion_max = 0;
    u64 completion_total = 0, completion_calls = 0;
    u64 polled_completions = 0, polls = 0;
};

struct State {
    ClientCpuStats client[kCpus];
    ServerCpuStats server[kCpus];
    ReconnectCounters reconnects;
    Model model;
    int resets = 0;
};
constexpr int kMaxResets = 3;

bool is_documented_reset(StringView text)
{
    return text == "0" || text == "1" || text == "0\n" || text == "1\n";
}

// One formatter of each kind, by number, into `out`.
constexpr int kFormatterCount = 13;
size_t format(const State& state, int which, cxxrt::Span<char> out)
{
    const cxxrt::Span<const ClientCpuStats> client(state.client, kCpus);
    const cxxrt::Span<const ServerCpuStats> server(state.server, kCpus);
    switch (which) {
    case 0: return format_client_rdma(client, 7, out);
    case 1: return format_server_rdma(server, 7, out);
    case 2: return format_server_rdma_counts(server, out);
    case 3: return format_reconnects(state.reconnects, out);
    case 4: return format_cpu_migration(client, out);
    case 5: return format_cpu_migration_from(client, out);
    case 6: return format_cpu_migration_to(client, out);
    case 7: return format_sg_entries(client, out);
    case 8: return format_rdma_latency(client, out);
    case 9: return format_client_completions(client, out);
    case 10: return format_server_completions(server, out);
    case 11: return format_reset_all_usage(out);
    default: return format_client_polled(client, out);
    }
}

struct Page {
    char text[kPage];
    size_t length;
};

void read_file(const State& state, int which, Page& page)
{
    page.length = format(state, which, cxxrt::Span<char>(page.text, kPage));
    FUZZ_CHECK(page.length < kPage && page.text[page.length] == '\0');
}

bool same_page(const Page& a, const Page& b) { return a.length == b.length && memcmp(a.text, b.text, a.length) == 0; }

bool equals_text(const Page& page, const char* expected)
{
    return page.length == strlen(expected) && memcmp(page.text, expected, page.length) == 0;
}

// The sums the files must show, printed by the C library.
void check_against_model(const State& state)
{
    const Model& m = state.model;
    char expected[256];
    Page page;
    read_file(state, 0, page);
    snprintf(expected, sizeof(expected), "%llu %llu %llu %llu 7 %llu\n", (unsigned long long)m.read_count,
             (unsigned long long)m.read_bytes, (unsigned long long)m.write_count,
             (unsigned long long)m.write_bytes, (unsigned long long)m.failovers);
    FUZZ_CHECK(equals_text(page, expected));
    read_file(state, 2, page);
    snprintf(expected, sizeof(expected), "%llu %llu %llu %llu\n", (unsigned long long)m.server_read_count,
             (unsigned long long)m.server_read_bytes, (unsigned long long)m.server_write_count,
             (unsigned long long)m.server_write_bytes);
    FUZZ_CHECK(equals_text(page, expected));
    read_file(state, 3, page);
    snprintf(expected, sizeof(expected), "%d %d\n", state.reconnects.successful, state.reconnects.failed);
    FUZZ_CHECK(equals_text(page, expected));
    read_file(state, 12, page);
    snprintf(expected, sizeof(expected), "%llu %llu\n", (unsigned long long)m.polled_completions,
             (unsigned long long)m.polls);
    FUZZ_CHECK(equals_text(page, expected));
    read_file(state, 10, page);
    snprintf(expected, sizeof(expected), "%u %llu %llu\n", m.completion_max, (unsigned long long)m.completion_total,
             (unsigned long long)m.completion_calls);
    FUZZ_CHECK(equals_text(page, expected));
}

void check_bounded_formatting(const State& state, fuzz::Input& input)
{
    static fuzz::GuardedBuffer<kPage> buffer;
    const int which = input.take_u8() % kFormatterCount;
    const u16 raw_size = input.take_u16();
    const size_t size = raw_size % 4 == 0 ? raw_size % 8 : raw_size % (kPage + 1);
    Page whole;
    read_file(state, which, whole);
    const size_t length = format(state, which, buffer.view(size));
    FUZZ_CHECK(buffer.untouched_past_end());
    if (size == 0) {
        FUZZ_CHECK(length == 0);
        return;
    }
    FUZZ_CHECK(length < size && buffer.data()[length] == '\0');
    FUZZ_CHECK(length <= whole.length && memcmp(buffer.data(), whole.text, length) == 0);
    // Cut only when the whole text does not fit.
    FUZZ_CHECK(length == whole.length || length == size - 1);
}

void reset_client_group(State& state, int group)
{
    const cxxrt::Span<ClientCpuStats> client(state.client, kCpus);
    // The file each group shows, before and after; all other files keep
    // their text.
    static const int kGroupFile[] = {0, 4, 7, 8, 9, 12};
    Page before[kFormatterCount];
    for (int i = 0; i < kFormatterCount; ++i)
        read_file(state, i, before[i]);
    switch (group) {
    case 0:
        reset_rdma(client);
        state.model.read_count = state.model.read_bytes = 0;
        state.model.write_count = state.model.write_bytes = state.model.failovers = 0;
        break;
    case 1: reset_cpu_migration(client); break;
    case 2: reset_sg_entries(client); break;
    case 3: reset_latency(client); break;
    case 4: reset_completions(client); break;
    default:
        reset_polled(client);
        state.model.polled_completions = state.model.polls = 0;
        break;
    }
    State fresh;
    for (int i = 0; i < kFormatterCount; ++i) {
        Page after;
        read_file(state, i, after);
        bool shows_group = i == kGroupFile[group] || (group == 1 && (i == 5 || i == 6));
        if (shows_group) {
            Page zero;
            read_file(fresh, i, zero);
            FUZZ_CHECK(same_page(after, zero));
        } else {
            FUZZ_CHECK(same_page(after, before[i]));
        }
    }
}

void step(State& state, fuzz::Input& input)
{
    const size_t cpu = input.take_u8() % kCpus;
    ClientCpuStats& client = state.client[cpu];
    ServerCpuStats& server = state.server[cpu];
    Model& m = state.model;
    switch (input.take_u8() % 11) {
    case 0: {
        const bool read = input.take_bool();
        const u64 bytes = input.take_bool() ? input.take_u64() : input.take_u16();
        record_request(client, read ? Direction::kRead : Direction::kWrite, bytes, input.take_u32());
        (read ? m.read_count : m.write_count) += 1;
        (read ? m.read_bytes : m.write_bytes) += bytes;
        break;
    }
    case 1: {
        const bool read = input.take_bool();
        const u64 bytes = input.take_bool() ? input.take_u64() : input.take_u16();
        record_request(server, read ? Direction::kRead : Direction::kWrite, bytes);
        (read ? m.server_read_count : m.server_write_count) += 1;
        (read ? m.server_read_bytes : m.server_write_bytes) += bytes;
        break;
    }
    case 2:
        record_latency(client, input.take_bool() ? Direction::kRead : Direction::kWrite,
                       input.take_bool() ? input.take_u64() : input.take_u16());
        break;
    case 3:
        record_failover(client);
        ++m.failovers;
        break;
    case 4: {
        const u32 handled = input.take_u32();
        record_completions(server.completions, handled);
        // A poll that reaped nothing is no batch.
        if (handled) {
            if (handled > m.completion_max)
                m.completion_max = handled;
            m.completion_total += handled;
            ++m.completion_calls;
        }
        const u8 reaped = input.take_u8();
        record_completions(client.completions, reaped);
        record_polled(client, reaped);
        if (reaped) {
            m.polled_completions += reaped;
            ++m.polls;
        }
        break;
    }
    case 5:
        record_migration_to(client);
        client.migrations_from += input.take_u8();  // the glue's atomic add
        break;
    case 6: {
        // A huge count, as after a long uptime: sums must wrap, not trap.
        const u64 value = ~u64(0) - input.take_u8();
        client.read.count += value;
        m.read_count += value;
        server.write.bytes += value;
        m.server_write_bytes += value;
        break;
    }
    case 7:
        if (input.take_bool())
            ++state.reconnects.failed;
        else
            ++state.reconnects.successful;
        break;
    case 8: {
        // A write to reset_all (client and server side).
        const StringView text = input.take_short_string();
        auto request = parse_reset_request(text);
        FUZZ_CHECK(request.is_ok() == is_documented_reset(text));
        if (request.is_error()) {
            FUZZ_CHECK(request.to_errno() == -cxxrt::err::kInval);
            return;
        }
        // Reading every file twice is the slow part: a few resets per
        // input find as much as many.
        if (++state.resets > kMaxResets)
            return;
        reset_all(cxxrt::Span<ClientCpuStats>(state.client, kCpus), state.reconnects);
        reset_all(cxxrt::Span<ServerCpuStats>(state.server, kCpus));
        state.model = Model{};
        State fresh;
        reset_reconnects(fresh.reconnects);
        for (int i = 0; i < kFormatterCount; ++i) {
            Page after, zero;
            read_file(state, i, after);
            read_file(fresh, i, zero);
            FUZZ_CHECK(same_page(after, zero));
        }
        break;
    }
    case 9:
        if (++state.resets <= kMaxResets)
            reset_client_group(state, input.take_u8() % 6);
        break;
    default:
        check_bounded_formatting(state, input);
        break;
    }
}

}  // namespace

FUZZ_TARGET(data, size)
{
    static State state;
    state = State{};
    fuzz::Input input(data, size);
    for (int steps = 0; steps < 64 && !input.is_empty(); ++steps)
        step(state, input);
    check_against_model(state);
    return 0;
}
