// Host tests of the RTRS stats counters and their exact sysfs text.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <cxxrt/errno.hpp>

#include "rtrs/core/rtrs-stats.hpp"

using namespace rtrs;
namespace err = cxxrt::err;

namespace {

constexpr size_t kPage = 4096;

template <typename Formatter>
std::string page(Formatter formatter)
{
    std::vector<char> buffer(kPage, 'Z');
    size_t n = formatter(Span<char>(buffer.data(), buffer.size()));
    EXPECT_LT(n, kPage);
    EXPECT_EQ(buffer[n], '\0');
    return std::string(buffer.data(), n);
}

template <typename T>
Span<const T> cspan(const std::vector<T>& v)
{
    return Span<const T>(v.data(), v.size());
}
template <typename T>
Span<T> mspan(std::vector<T>& v)
{
    return Span<T>(v.data(), v.size());
}

}  // namespace

TEST(RtrsStats, ClientRdmaSumsCpusSixValues)
{
    std::vector<ClientCpuStats> cpus(3);
    record_request(cpus[0], Direction::kRead, 4096, 1);
    record_request(cpus[1], Direction::kRead, 8192, 2);
    record_request(cpus[2], Direction::kWrite, 512, 1);
    record_failover(cpus[1]);
    record_failover(cpus[2]);
    EXPECT_EQ(page([&](Span<char> out) { return format_client_rdma(cspan(cpus), 7, out); }), "2 12288 1 512 7 2\n");
    std::vector<ClientCpuStats> none;
    EXPECT_EQ(page([&](Span<char> out) { return format_client_rdma(cspan(none), 0, out); }), "0 0 0 0 0 0\n");
}

TEST(RtrsStats, ServerRdmaFiveValues)
{
    std::vector<ServerCpuStats> cpus(2);
    record_request(cpus[0], Direction::kWrite, 100);
    record_request(cpus[1], Direction::kWrite, 28);
    record_request(cpus[1], Direction::kRead, 1);
    EXPECT_EQ(page([&](Span<char> out) { return format_server_rdma(cspan(cpus), 3, out); }), "1 1 2 128 3\n");
    EXPECT_EQ(page([&](Span<char> out) { return format_server_rdma_counts(cspan(cpus), out); }), "1 1 2 128\n");
}

TEST(RtrsStats, LargeCountersPrintInFull)
{
    std::vector<ClientCpuStats> cpus(1);
    cpus[0].read.count = ~cxxrt::u64(0);
    cpus[0].read.bytes = 10000000000000000000ull;
    EXPECT_EQ(page([&](Span<char> out) { return format_client_rdma(cspan(cpus), 4294967295u, out); }),
              "18446744073709551615 10000000000000000000 0 0 4294967295 0\n");
}

TEST(RtrsStats, Reconnects)
{
    ReconnectCounters reconnects;
    EXPECT_EQ(page([&](Span<char> out) { return format_reconnects(reconnects, out); }), "-1 0\n");
    reconnects.successful = 12;
    reconnects.failed = 3;
    EXPECT_EQ(page([&](Span<char> out) { return format_reconnects(reconnects, out); }), "12 3\n");
    reset_reconnects(reconnects);
    EXPECT_EQ(page([&](Span<char> out) { return format_reconnects(reconnects, out); }), "0 0\n");
}

TEST(RtrsStats, CpuMigrationTable)
{
    std::vector<ClientCpuStats> cpus(3);
    cpus[0].migrations_from = 5;
    cpus[2].migrations_from = 1;
    record_migration_to(cpus[1]);
    record_migration_to(cpus[1]);
    EXPECT_EQ(page([&](Span<char> out) { return format_cpu_migration(cspan(cpus), out); }),
              "     CPU0 CPU1 CPU2\n"
              "from: 5 0 1\n"
              "to  : 0 2 0\n");
    EXPECT_EQ(page([&](Span<char> out) { return format_cpu_migration_from(cspan(cpus), out); }), "5 0 1 \n");
    EXPECT_EQ(page([&](Span<char> out) { return format_cpu_migration_to(cspan(cpus), out); }), "0 2 0 \n");
    reset_cpu_migration(mspan(cpus));
    EXPECT_EQ(page([&](Span<char> out) { return format_cpu_migration_from(cspan(cpus), out); }), "0 0 0 \n");
}

TEST(RtrsStats, SgBuckets)
{
    EXPECT_EQ(sg_bucket_index(0), 0u);
    EXPECT_EQ(sg_bucket_index(4), 4u);
    EXPECT_EQ(sg_bucket_index(5), 5u);
    EXPECT_EQ(sg_bucket_index(7), 5u);
    EXPECT_EQ(sg_bucket_index(8), 6u);
    EXPECT_EQ(sg_bucket_index(15), 6u);
    EXPECT_EQ(sg_bucket_index(16), 7u);
    EXPECT_EQ(sg_bucket_index(31), 7u);
    EXPECT_EQ(sg_bucket_index(32), 8u);
    EXPECT_EQ(sg_bucket_index(4294967295u), 8u);
}

TEST(RtrsStats, SgEntriesTable)
{
    std::vector<ClientCpuStats> cpus(2);
    // CPU 0: three requests of 1 entry, one of 10 -> 75.0% and 25.0%.
    for (int i = 0; i < 3; ++i)
        record_request(cpus[0], Direction::kWrite, 4096, 1);
    record_request(cpus[0], Direction::kRead, 4096, 10);
    // CPU 1: one of 3 entries, two of 64 -> 33.3% and 66.6% (truncated).
    record_request(cpus[1], Direction::kRead, 4096, 3);
    record_request(cpus[1], Direction::kRead, 4096, 64);
    record_request(cpus[1], Direction::kRead, 4096, 64);
    EXPECT_EQ(page([&](Span<char> out) { return format_sg_entries(cspan(cpus), out); }),
              "n\\cpu:    0    1\n"
              "=   0:    0    0\n"
              "=   1: 75.0    0\n"
              "=   2:    0    0\n"
              "=   3:    0 33.3\n"
              "=   4:    0    0\n"
              "<   8:    0    0\n"
              "<  16: 25.0    0\n"
              "<  32:    0    0\n"
              ">= 32:    0 66.6\n"
              "total: 4 3\n");
}

TEST(RtrsStats, SgEntriesHundredPercentAndTinyShares)
{
    std::vector<ClientCpuStats> cpus(1);
    record_request(cpus[0], Direction::kRead, 1, 2);
    std::string text = page([&](Span<char> out) { return format_sg_entries(cspan(cpus), out); });
    EXPECT_NE(text.find("=   2: 100.0\n"), std::string::npos) << text;
    // One hit in 10000 rounds down to 0.0 but is still shown as a hit.
    cpus[0].sg_total = 10000;
    text = page([&](Span<char> out) { return format_sg_entries(cspan(cpus), out); });
    EXPECT_NE(text.find("=   2:  0.0\n"), std::string::npos) << text;
    // Huge counters must not overflow the percentage arithmetic.
    cpus[0].sg_buckets[2] = ~cxxrt::u64(0) / 2;
    cpus[0].sg_total = ~cxxrt::u64(0);
    text = page([&](Span<char> out) { return format_sg_entries(cspan(cpus), out); });
    EXPECT_NE(text.find("=   2: 49.9\n"), std::string::npos) << text;
}

TEST(RtrsStats, LatencyBuckets)
{
    EXPECT_EQ(latency_bucket_index(0), 0u);
    EXPECT_EQ(latency_bucket_index(1), 1u);
    EXPECT_EQ(latency_bucket_index(2), 2u);
    EXPECT_EQ(latency_bucket_index(3), 2u);
    EXPECT_EQ(latency_bucket_index(4), 3u);
    EXPECT_EQ(latency_bucket_index(32767), 15u);
    EXPECT_EQ(latency_bucket_index(32768), 16u);
    EXPECT_EQ(latency_bucket_index(65535), 16u);
    EXPECT_EQ(latency_bucket_index(65536), 17u);
    EXPECT_EQ(latency_bucket_index(~cxxrt::u64(0)), 17u);
}

TEST(RtrsStats, RdmaLatencyTable)
{
    std::vector<ClientCpuStats> cpus(2);
    record_latency(cpus[0], Direction::kRead, 0);
    record_latency(cpus[1], Direction::kRead, 0);
    record_latency(cpus[0], Direction::kWrite, 3);
    record_latency(cpus[1], Direction::kRead, 100);
    record_latency(cpus[1], Direction::kWrite, 70000);
    EXPECT_EQ(page([&](Span<char> out) { return format_rdma_latency(cspan(cpus), out); }),
              "<      1 ms: 2 0\n"
              "<      2 ms: 0 0\n"
              "<      4 ms: 0 1\n"
              "<      8 ms: 0 0\n"
              "<     16 ms: 0 0\n"
              "<     32 ms: 0 0\n"
              "<     64 ms: 0 0\n"
              "<    128 ms: 1 0\n"
              "<    256 ms: 0 0\n"
              "<    512 ms: 0 0\n"
              "<   1024 ms: 0 0\n"
              "<   2048 ms: 0 0\n"
              "<   4096 ms: 0 0\n"
              "<   8192 ms: 0 0\n"
              "<  16384 ms: 0 0\n"
              "<  32768 ms: 0 0\n"
              "<  65536 ms: 0 0\n"
              ">= 65536 ms: 0 1\n"
              " maximum ms: 100 70000\n");
    reset_latency(mspan(cpus));
    std::string cleared = page([&](Span<char> out) { return format_rdma_latency(cspan(cpus), out); });
    EXPECT_NE(cleared.find("<      1 ms: 0 0\n"), std::string::npos);
    EXPECT_NE(cleared.find(" maximum ms: 0 0\n"), std::string::npos);
}

TEST(RtrsStats, WcCompletion)
{
    std::vector<ClientCpuStats> client(2);
    record_completions(client[0].completions, 4);
    record_completions(client[0].completions, 2);
    record_completions(client[1].completions, 9);
    // max 9, 15 completions in 3 calls -> average 5.
    EXPECT_EQ(page([&](Span<char> out) { return format_client_completions(cspan(client), out); }), "9 5\n");
    std::vector<ServerCpuStats> server(2);
    record_completions(server[0].completions, 1);
    record_completions(server[1].completions, 16);
    EXPECT_EQ(page([&](Span<char> out) { return format_server_completions(cspan(server), out); }), "16 17 2\n");
    std::vector<ClientCpuStats> idle(1);
    EXPECT_EQ(page([&](Span<char> out) { return format_client_completions(cspan(idle), out); }), "0 0\n");
    reset_completions(mspan(server));
    EXPECT_EQ(page([&](Span<char> out) { return format_server_completions(cspan(server), out); }), "0 0 0\n");
}

// The batches a completion queue's polls reap, as the CQ reports them.
TEST(RtrsStats, WcCompletionBatches)
{
    std::vector<ClientCpuStats> client(2);
    // One completion per poll, as a per-completion count would record:
    // the "1 1" a batch count must never be confused with.
    for (int i = 0; i < 5; ++i)
        record_completions(client[0].completions, 1);
    EXPECT_EQ(page([&](Span<char> out) { return format_client_completions(cspan(client), out); }), "1 1\n");
    // Real batches on another CPU: the max is the largest poll anywhere,
    // the average is completions over polls, rounded down: (5+31+256)/7.
    record_completions(client[1].completions, 31);
    record_completions(client[1].completions, 256);
    EXPECT_EQ(page([&](Span<char> out) { return format_client_completions(cspan(client), out); }), "256 41\n");
    // A poll that reaped nothing is not a batch.
    record_completions(client[1].completions, 0);
    EXPECT_EQ(client[1].completions.calls, 2u);
    EXPECT_EQ(page([&](Span<char> out) { return format_client_completions(cspan(client), out); }), "256 41\n");

    std::vector<ServerCpuStats> server(1);
    record_completions(server[0].completions, 0);
    EXPECT_EQ(page([&](Span<char> out) { return format_server_completions(cspan(server), out); }), "0 0 0\n");
    record_completions(server[0].completions, 3);
    record_completions(server[0].completions, 2);
    EXPECT_EQ(page([&](Span<char> out) { return format_server_completions(cspan(server), out); }), "3 5 2\n");
    // Totals are 64-bit: four billion large polls do not wrap.
    server[0].completions.total = 0xffffffffULL * 256;
    server[0].completions.calls = 0xffffffffULL;
    record_completions(server[0].completions, 256);
    EXPECT_EQ(page([&](Span<char> out) { return format_server_completions(cspan(server), out); }),
              "256 1099511627776 4294967296\n");
}

// Completions reaped by polling callers (stats/poll_completions).
TEST(RtrsStats, PollCompletions)
{
    std::vector<ClientCpuStats> client(2);
    EXPECT_EQ(page([&](Span<char> out) { return format_client_polled(cspan(client), out); }), "0 0\n");
    record_polled(client[0], 3);
    record_polled(client[1], 5);
    record_polled(client[1], 0);  // a poll that found nothing
    EXPECT_EQ(page([&](Span<char> out) { return format_client_polled(cspan(client), out); }), "8 2\n");
    // Its own group: resetting wc_completion leaves it, reset_all clears it.
    record_completions(client[0].completions, 3);
    reset_completions(mspan(client));
    EXPECT_EQ(page([&](Span<char> out) { return format_client_polled(cspan(client), out); }), "8 2\n");
    reset_polled(mspan(client));
    EXPECT_EQ(page([&](Span<char> out) { return format_client_polled(cspan(client), out); }), "0 0\n");
    record_polled(client[0], 7);
    ReconnectCounters reconnects;
    reset_all(mspan(client), reconnects);
    EXPECT_EQ(page([&](Span<char> out) { return format_client_polled(cspan(client), out); }), "0 0\n");
}

TEST(RtrsStats, ResetAll)
{
    std::vector<ClientCpuStats> cpus(2);
    ReconnectCounters reconnects{4, 5};
    record_request(cpus[0], Direction::kRead, 10, 3);
    record_latency(cpus[1], Direction::kWrite, 9);
    record_failover(cpus[1]);
    record_migration_to(cpus[0]);
    cpus[1].migrations_from = 1;
    record_completions(cpus[0].completions, 3);
    reset_all(mspan(cpus), reconnects);
    for (const ClientCpuStats& cpu : cpus) {
        ClientCpuStats zero;
        EXPECT_EQ(0, std::memcmp(&cpu.read, &zero.read, sizeof(zero.read)));
        EXPECT_EQ(cpu.failovers, 0u);
        EXPECT_EQ(cpu.migrations_from, 0u);
        EXPECT_EQ(cpu.migrations_to, 0u);
        EXPECT_EQ(cpu.sg_total, 0u);
        for (auto bucket : cpu.sg_buckets)
            EXPECT_EQ(bucket, 0u);
        for (size_t i = 0; i < kLatencyBucketCount; ++i)
            EXPECT_EQ(cpu.latency_read[i] + cpu.latency_write[i], 0u);
        EXPECT_EQ(cpu.latency_max_write_ms, 0u);
        EXPECT_EQ(cpu.completions.calls, 0u);
    }
    EXPECT_EQ(reconnects.successful, 0);
    EXPECT_EQ(reconnects.failed, 0);

    std::vector<ServerCpuStats> server(1);
    record_request(server[0], Direction::kRead, 10);
    record_completions(server[0].completions, 3);
    reset_all(mspan(server));
    EXPECT_EQ(page([&](Span<char> out) { return format_server_rdma(cspan(server), 0, out); }), "0 0 0 0 0\n");
    EXPECT_EQ(page([&](Span<char> out) { return format_server_completions(cspan(server), out); }), "0 0 0\n");
}

TEST(RtrsStats, ResetRequestParsing)
{
    for (const char* ok : {"1", "1\n", "0", "0\n"})
        EXPECT_TRUE(parse_reset_request(ok).is_ok()) << ok;
    for (const char* bad : {"", "\n", "2", "01", "1\n\n", " 1", "yes", "10", "-1"})
        EXPECT_EQ(parse_reset_request(bad).to_errno(), -err::kInval) << bad;
    EXPECT_EQ(parse_reset_request(StringView("1\0", 2)).to_errno(), -err::kInval);
}

TEST(RtrsStats, ResetAllUsage)
{
    std::string usage = page([](Span<char> out) { return format_reset_all_usage(out); });
    EXPECT_EQ(usage.rfind("Usage: echo 1 > reset_all", 0), 0u);
    EXPECT_EQ(usage.back(), '\n');
}

TEST(RtrsStats, ManyCpusTruncateSafely)
{
    // 4096 possible CPUs do not fit a page: the text is cut, never overrun.
    std::vector<ClientCpuStats> cpus(4096);
    for (auto& cpu : cpus)
        record_request(cpu, Direction::kRead, 1, 1);
    std::vector<char> buffer(kPage + 64, 'Z');
    size_t n = format_sg_entries(cspan(cpus), Span<char>(buffer.data(), kPage));
    EXPECT_EQ(n, kPage - 1);
    EXPECT_EQ(buffer[kPage - 1], '\0');
    for (size_t i = kPage; i < buffer.size(); ++i)
        ASSERT_EQ(buffer[i], 'Z');
    n = format_cpu_migration(cspan(cpus), Span<char>(buffer.data(), kPage));
    EXPECT_EQ(n, kPage - 1);
    n = format_cpu_migration_to(cspan(cpus), Span<char>(buffer.data(), kPage));
    EXPECT_EQ(n, 4096u * 2 + 1 > kPage - 1 ? kPage - 1 : 4096u * 2 + 1);
}

TEST(RtrsStats, EveryFormatterHonoursEveryBufferSize)
{
    std::vector<ClientCpuStats> cpus(2);
    std::vector<ServerCpuStats> server(2);
    ReconnectCounters reconnects;
    record_request(cpus[0], Direction::kRead, 4096, 7);
    record_latency(cpus[0], Direction::kRead, 5);
    using Formatter = size_t (*)(Span<char>, const std::vector<ClientCpuStats>&, const std::vector<ServerCpuStats>&,
                                 const ReconnectCounters&);
    Formatter formatters[] = {
        [](Span<char> o, const auto& c, const auto&, const auto&) { return format_client_rdma(cspan(c), 1, o); },
        [](Span<char> o, const auto&, const auto& s, const auto&) { return format_server_rdma(cspan(s), 1, o); },
        [](Span<char> o, const auto&, const auto&, const auto& r) { return format_reconnects(r, o); },
        [](Span<char> o, const auto& c, const auto&, const auto&) { return format_cpu_migration(cspan(c), o); },
        [](Span<char> o, const auto& c, const auto&, const auto&) { return format_sg_entries(cspan(c), o); },
        [](Span<char> o, const auto& c, const auto&, const auto&) { return format_rdma_latency(cspan(c), o); },
        [](Span<char> o, const auto& c, const auto&, const auto&) { return format_client_completions(cspan(c), o); },
        [](Span<char> o, const auto&, const auto& s, const auto&) { return format_server_completions(cspan(s), o); },
        [](Span<char> o, const auto&, const auto&, const auto&) { return format_reset_all_usage(o); },
    };
    for (Formatter formatter : formatters) {
        std::vector<char> full(kPage);
        size_t full_length = formatter(Span<char>(full.data(), full.size()), cpus, server, reconnects);
        for (size_t size = 0; size <= full_length + 1; ++size) {
            std::vector<char> buffer(size + 8, 'Z');
            size_t n = formatter(Span<char>(buffer.data(), size), cpus, server, reconnects);
            size_t expected = size == 0 ? 0 : std::min(full_length, size - 1);
            ASSERT_EQ(n, expected);
            for (size_t i = size; i < buffer.size(); ++i)
                ASSERT_EQ(buffer[i], 'Z');
            ASSERT_EQ(0, std::memcmp(buffer.data(), full.data(), n));
        }
    }
}
