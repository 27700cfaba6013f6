// Host tests of the rnbd client's map_device option parser: valid lines
// map to the right MapOptions, and every hostile line is refused with
// -EINVAL and the reason the log line will print.
#include <gtest/gtest.h>

#include <deque>
#include <string>

#include <cxxrt/errno.hpp>

#include "rnbd/core/rnbd-clt-options.hpp"

using namespace rnbd::clt;
namespace err = cxxrt::err;
using cxxrt::parse::Reason;

namespace {

constexpr cxxrt::u32 kCpus = 8;

std::string str(StringView v) { return std::string(v.data(), v.length()); }

struct Outcome {
    int rc = 0;
    MapError error;
    MapOptions options;
};

// MapOptions points into the input: keep every input alive.
const std::string& keep(const std::string& text)
{
    static std::deque<std::string> inputs;
    return inputs.emplace_back(text);
}

Outcome map(const std::string& text)
{
    const std::string& input = keep(text);
    Outcome o;
    o.rc = parse_map_options(StringView(input.data(), input.size()), kCpus, o.options, &o.error).to_errno();
    return o;
}

void expect_rejected(const std::string& text, MapReason reason, const std::string& token = "")
{
    Outcome o = map(text);
    EXPECT_EQ(o.rc, -err::kInval) << text;
    EXPECT_EQ(o.error.reason, reason) << text << " -> " << map_reason_text(o.error);
    if (!token.empty()) {
        EXPECT_EQ(str(o.error.token), token) << text;
    }
    EXPECT_NE(std::string(map_reason_text(o.error)), "no error");
}

void expect_syntax(const std::string& text, Reason syntax, const std::string& token = "")
{
    Outcome o = map(text);
    EXPECT_EQ(o.rc, -err::kInval) << text;
    EXPECT_EQ(o.error.reason, MapReason::kSyntax) << text;
    EXPECT_EQ(o.error.syntax, syntax) << text << " -> " << map_reason_text(o.error);
    if (!token.empty()) {
        EXPECT_EQ(str(o.error.token), token) << text;
    }
}

const std::string kBase = "sessname=blya path=ip:192.0.2.1 device_path=/dev/ram0";

}  // namespace

TEST(MapOptions, SeedQuickStart)
{
    Outcome o = map("sessname=blya path=ip:10.50.100.66 device_path=/dev/ram0\n");
    ASSERT_EQ(o.rc, 0) << map_reason_text(o.error);
    EXPECT_EQ(str(o.options.session_name), "blya");
    EXPECT_EQ(str(o.options.device_path), "/dev/ram0");
    ASSERT_EQ(o.options.path_count, 1);
    EXPECT_FALSE(o.options.paths[0].has_source);
    EXPECT_EQ(o.options.paths[0].destination.family, rtrs::AddressFamily::kIpv4);
    EXPECT_EQ(o.options.paths[0].port, 1234);
    EXPECT_EQ(o.options.destination_port, 1234);
    EXPECT_EQ(o.options.access_mode, AccessMode::kReadWrite);
    EXPECT_EQ(o.options.io_mode, IoMode::kBlockIo);
    EXPECT_EQ(o.options.poll_queues, 0u);
}

TEST(MapOptions, EveryOption)
{
    Outcome o = map("dest_port=4321 sessname=s1 path=ip:198.51.100.2,ip:198.51.100.1 "
                    "path=ip:2001:db8::2@ip:2001:db8::1 path=gid:fe80::1 device_path=vol/a access_mode=migration "
                    "io_mode=fileio input_mode=mq nr_poll_queues=2");
    ASSERT_EQ(o.rc, 0) << map_reason_text(o.error);
    EXPECT_EQ(o.options.path_count, 3);
    EXPECT_TRUE(o.options.paths[0].has_source);
    EXPECT_EQ(o.options.paths[1].destination.family, rtrs::AddressFamily::kIpv6);
    EXPECT_EQ(o.options.paths[2].destination.family, rtrs::AddressFamily::kGid);
    // dest_port applies to every path, wherever it stands.
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(o.options.paths[i].port, 4321);
    EXPECT_EQ(o.options.destination_port, 4321);
    EXPECT_EQ(o.options.access_mode, AccessMode::kMigration);
    EXPECT_EQ(o.options.io_mode, IoMode::kFileIo);
    EXPECT_EQ(o.options.poll_queues, 2u);
}

TEST(MapOptions, AccessModes)
{
    EXPECT_EQ(map(kBase + " access_mode=ro").options.access_mode, AccessMode::kReadOnly);
    EXPECT_EQ(map(kBase + " access_mode=rw").options.access_mode, AccessMode::kReadWrite);
    expect_rejected(kBase + " access_mode=RW", MapReason::kBadAccessMode, "RW");
    expect_rejected(kBase + " access_mode=readonly", MapReason::kBadAccessMode);
    expect_rejected(kBase + " io_mode=block", MapReason::kBadIoMode, "block");
}

TEST(MapOptions, InputModeRqIsNotSupported)
{
    EXPECT_EQ(map(kBase + " input_mode=mq").rc, 0);
    Outcome o = map(kBase + " input_mode=rq");
    EXPECT_EQ(o.rc, -err::kInval);
    EXPECT_EQ(o.error.reason, MapReason::kInputModeRqUnsupported);
    EXPECT_NE(std::string(map_reason_text(o.error)).find("rq is not supported"), std::string::npos);
    expect_rejected(kBase + " input_mode=blk", MapReason::kBadInputMode, "blk");
}

TEST(MapOptions, PollQueues)
{
    EXPECT_EQ(map(kBase + " nr_poll_queues=-1").options.poll_queues, kCpus);
    EXPECT_EQ(map(kBase + " nr_poll_queues=0").options.poll_queues, 0u);
    EXPECT_EQ(map(kBase + " nr_poll_queues=8").options.poll_queues, 8u);
    expect_rejected(kBase + " nr_poll_queues=9", MapReason::kBadPollQueues, "9");
    expect_rejected(kBase + " nr_poll_queues=-2", MapReason::kBadPollQueues);
    expect_rejected(kBase + " nr_poll_queues=x", MapReason::kBadPollQueues);
    expect_rejected(kBase + " nr_poll_queues=99999999999999999999", MapReason::kBadPollQueues);
}

TEST(MapOptions, IoHoldTimeout)
{
    Outcome plain = map(kBase);
    EXPECT_EQ(plain.options.io_hold_timeout_ms, kDefaultIoHoldTimeoutMs);
    EXPECT_FALSE(plain.options.io_hold_timeout_given);
    Outcome zero = map(kBase + " io_hold_timeout_ms=0");
    EXPECT_EQ(zero.rc, 0);
    EXPECT_EQ(zero.options.io_hold_timeout_ms, 0u);
    EXPECT_TRUE(zero.options.io_hold_timeout_given);
    EXPECT_EQ(map(kBase + " io_hold_timeout_ms=3600000").options.io_hold_timeout_ms, 3600000u);
    EXPECT_EQ(map("io_hold_timeout_ms=1500 " + kBase).options.io_hold_timeout_ms, 1500u);
    for (const char* bad : {"3600001", "-1", "+5", "5s", "0x", "18446744073709551616"})
        expect_rejected(kBase + " io_hold_timeout_ms=" + bad, MapReason::kBadIoHoldTimeout);
    expect_syntax(kBase + " io_hold_timeout_ms=1 io_hold_timeout_ms=2", Reason::kDuplicateKey);
}

TEST(MapOptions, DestinationPort)
{
    EXPECT_EQ(map(kBase + " dest_port=1").options.destination_port, 1);
    EXPECT_EQ(map(kBase + " dest_port=65535").options.paths[0].port, 65535);
    for (const char* bad : {"0", "65536", "-1", "+80", "80a", "4294967297", "0x"})
        expect_rejected(kBase + " dest_port=" + bad, MapReason::kBadDestinationPort, bad);
}

TEST(MapOptions, SessionNameLimits)
{
    std::string longest(kMaxNameLength, 's');
    Outcome ok = map("sessname=" + longest + " path=ip:192.0.2.1 device_path=/dev/ram0");
    ASSERT_EQ(ok.rc, 0);
    EXPECT_EQ(ok.options.session_name.length(), kMaxNameLength);
    expect_rejected("sessname=" + std::string(kMaxNameLength + 1, 's') + " path=ip:192.0.2.1 device_path=/dev/ram0",
                    MapReason::kSessionNameTooLong);
    expect_rejected("sessname=" + std::string(3000, 's') + " path=ip:192.0.2.1 device_path=/dev/ram0",
                    MapReason::kSessionNameTooLong);
    for (const char* bad : {"a/b", ".", "..", "/"})
        expect_rejected(std::string("sessname=") + bad + " path=ip:192.0.2.1 device_path=x",
                        MapReason::kSessionNameInvalid, bad);
    expect_rejected("sessname=a\x01z path=ip:192.0.2.1 device_path=x", MapReason::kSessionNameInvalid);
    expect_rejected("sessname=a\x7fz path=ip:192.0.2.1 device_path=x", MapReason::kSessionNameInvalid);
    EXPECT_EQ(map("sessname=..a path=ip:192.0.2.1 device_path=x").rc, 0);
}

TEST(MapOptions, DevicePathLimits)
{
    std::string longest = "/" + std::string(kMaxNameLength - 1, 'd');
    EXPECT_EQ(map("sessname=s path=ip:192.0.2.1 device_path=" + longest).rc, 0);
    expect_rejected("sessname=s path=ip:192.0.2.1 device_path=" + longest + "d", MapReason::kDevicePathTooLong);
    expect_rejected("sessname=s path=ip:192.0.2.1 device_path=/dev/\x1b[0m", MapReason::kDevicePathInvalid);
    // ".." is the server's to refuse; the client passes it on.
    EXPECT_EQ(map("sessname=s path=ip:192.0.2.1 device_path=../etc/passwd").rc, 0);
}

TEST(MapOptions, BadAddresses)
{
    for (const char* bad : {"ip:256.1.1.1", "ip:1.2.3", "ip:01.2.3.4", "ip:1::2::3", "ip:1.2.3.4,", ",ip:1.2.3.4",
                            "ip:1.2.3.4,ip:1.2.3.5,ip:1.2.3.6", "ip:1.2.3.4@ip:1.2.3.5@ip:1.2.3.6", "1.2.3.4",
                            "gid:1.2.3.4", "ip:1.2.3.4,ip:2001:db8::1", "ip:2001:db8::1%eth0", "tcp:1.2.3.4"}) {
        std::string line = std::string("sessname=s path=") + bad + " device_path=x";
        expect_rejected(line, MapReason::kBadPath, bad);
    }
    expect_rejected("sessname=s path=ip:" + std::string(200, '1') + " device_path=x", MapReason::kBadPath);
}

TEST(MapOptions, PathCount)
{
    std::string line = "sessname=s device_path=x";
    for (int i = 1; i <= 6; ++i)
        line += " path=ip:192.0.2." + std::to_string(i);
    Outcome six = map(line);
    ASSERT_EQ(six.rc, 0) << map_reason_text(six.error);
    EXPECT_EQ(six.options.path_count, 6);
    expect_rejected(line + " path=ip:192.0.2.7", MapReason::kTooManyPaths, "path");
    expect_rejected("sessname=s path=ip:192.0.2.1 path=ip:192.0.2.1 device_path=x", MapReason::kDuplicatePath);
    expect_rejected("sessname=s path=ip:198.51.100.1@ip:192.0.2.1 path=ip:198.51.100.1,ip:192.0.2.1 device_path=x",
                    MapReason::kDuplicatePath);
    // Same destination through a different source is a different path.
    EXPECT_EQ(map("sessname=s path=ip:198.51.100.1@ip:192.0.2.1 path=ip:198.51.100.2@ip:192.0.2.1 device_path=x").rc,
              0);
}

TEST(MapOptions, MissingKeys)
{
    expect_syntax("path=ip:192.0.2.1 device_path=x", Reason::kMissingKey, "sessname");
    // path= may be left out to map another device over an existing session.
    Outcome no_path = map("sessname=s device_path=x");
    EXPECT_EQ(no_path.rc, 0);
    EXPECT_EQ(no_path.options.path_count, 0);
    expect_syntax("sessname=s path=ip:192.0.2.1", Reason::kMissingKey, "device_path");
    expect_syntax("", Reason::kEmpty);
    expect_syntax("\n", Reason::kEmpty);
}

TEST(MapOptions, UnknownAndMalformedKeys)
{
    expect_syntax(kBase + " colour=blue", Reason::kUnknownKey, "colour");
    expect_syntax(kBase + " SESSNAME=x", Reason::kUnknownKey, "SESSNAME");
    expect_syntax(kBase + " mp_policy=rr", Reason::kUnknownKey, "mp_policy");
    expect_syntax(kBase + " access_mode", Reason::kMissingEquals, "access_mode");
    expect_syntax(kBase + " access_mode=", Reason::kEmptyValue, "access_mode");
    expect_syntax(kBase + " =rw", Reason::kEmptyKey);
}

TEST(MapOptions, Duplicates)
{
    expect_syntax(kBase + " sessname=other", Reason::kDuplicateKey, "sessname");
    expect_syntax(kBase + " device_path=/dev/ram1", Reason::kDuplicateKey, "device_path");
    expect_syntax(kBase + " access_mode=ro access_mode=rw", Reason::kDuplicateKey, "access_mode");
    expect_syntax(kBase + " dest_port=1 dest_port=2", Reason::kDuplicateKey, "dest_port");
}

TEST(MapOptions, ControlCharactersAndNewlines)
{
    expect_syntax(kBase + "\naccess_mode=ro", Reason::kControlCharacter);
    expect_syntax(kBase + "\n\n", Reason::kControlCharacter);
    expect_syntax(kBase + "\r\n", Reason::kControlCharacter);
    expect_syntax("sessname=a\nb path=ip:192.0.2.1 device_path=x", Reason::kControlCharacter);
    expect_syntax(std::string("sessname=a\0b path=ip:192.0.2.1 device_path=x", 45), Reason::kControlCharacter);
    expect_syntax(kBase + std::string("\0", 1), Reason::kControlCharacter);
    EXPECT_EQ(map(kBase + "\n").rc, 0);
    EXPECT_EQ(map("  \t" + kBase + " \t\n").rc, 0);
}

TEST(MapOptions, OverlongInput)
{
    std::string line = kBase + " " + std::string(5000, ' ');
    expect_syntax(line, Reason::kTooLong);
}

TEST(MapOptions, RejectionLeavesNoStaleState)
{
    MapOptions options;
    MapError error;
    std::string good = keep(kBase + " access_mode=ro");
    ASSERT_TRUE(parse_map_options(StringView(good.data(), good.size()), kCpus, options, &error).is_ok());
    std::string bad = keep("sessname=s path=ip:1.2.3.4 device_path=x input_mode=rq");
    EXPECT_EQ(parse_map_options(StringView(bad.data(), bad.size()), kCpus, options, &error).to_errno(), -err::kInval);
    // A second parse starts from scratch: nothing of the first survives.
    std::string plain = keep("sessname=t path=ip:192.0.2.9 device_path=y");
    ASSERT_TRUE(parse_map_options(StringView(plain.data(), plain.size()), kCpus, options, &error).is_ok());
    EXPECT_EQ(options.access_mode, AccessMode::kReadWrite);
    EXPECT_EQ(options.path_count, 1);
    EXPECT_EQ(error.reason, MapReason::kNone);
    // A null error pointer is allowed.
    EXPECT_EQ(parse_map_options(StringView(bad.data(), bad.size()), kCpus, options, nullptr).to_errno(),
              -err::kInval);
}

TEST(MapOptions, UsageText)
{
    char buffer[4096];
    size_t n = format_map_usage("map_device", Span<char>(buffer));
    std::string usage(buffer, n);
    for (const char* needle : {"Usage: echo \"", "sessname=", "path=<[srcaddr@]dstaddr>", "device_path=",
                               "access_mode=<ro|rw|migration>", "io_mode=<blockio|fileio>", "input_mode=<mq>",
                               "dest_port=", "nr_poll_queues=", "\" > map_device\n",
                               "addr ::= [ ip:<ipv4> | ip:<ipv6> | gid:<gid> ]\n"})
        EXPECT_NE(usage.find(needle), std::string::npos) << needle;
    char small[10];
    EXPECT_EQ(format_map_usage("map_device", Span<char>(small)), 9u);
}

TEST(MapOptions, DeviceIds)
{
    char buffer[300];
    auto id = format_device_id("/dev/ram0", Span<char>(buffer));
    ASSERT_TRUE(id.is_ok());
    EXPECT_EQ(std::string(buffer, id.value()), "!dev!ram0");
    auto plain = format_device_id("ram0", Span<char>(buffer));
    EXPECT_EQ(std::string(buffer, plain.value()), "ram0");
    auto link = format_device_link_name("/dev/nullb0", "blktest", Span<char>(buffer));
    ASSERT_TRUE(link.is_ok());
    EXPECT_EQ(std::string(buffer, link.value()), "!dev!nullb0@blktest");
    char tiny[9];
    EXPECT_EQ(format_device_id("/dev/ram0", Span<char>(tiny)).to_errno(), -err::kNameTooLong);
    char exact[10];
    EXPECT_TRUE(format_device_id("/dev/ram0", Span<char>(exact)).is_ok());
}

TEST(MapOptions, ReasonTextsAreDistinct)
{
    for (int a = 1; a <= int(MapReason::kBadPollQueues); ++a) {
        for (int b = a + 1; b <= int(MapReason::kBadPollQueues); ++b) {
            MapError ea;
            MapError eb;
            ea.reason = MapReason(a);
            eb.reason = MapReason(b);
            EXPECT_STRNE(map_reason_text(ea), map_reason_text(eb));
        }
    }
}
