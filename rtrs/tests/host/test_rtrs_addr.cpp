// Host tests of path address parsing and printing (common/rtrs-addr).
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <string>

#include <cxxrt/errno.hpp>

#include "common/rtrs-addr.hpp"

using namespace rtrs;
namespace err = cxxrt::err;

namespace {

StringView view(const std::string& s) { return StringView(s.data(), s.size()); }

std::string format(const Address& a)
{
    char buffer[kMaxPathNameLength + 1];
    auto r = format_address(a, Span<char>(buffer));
    EXPECT_TRUE(r.is_ok());
    if (r.is_error())
        return "<error>";
    EXPECT_EQ(r.value(), std::string(buffer).size());
    return std::string(buffer, r.value());
}

// Parse then print: what the path's sysfs files would show.
std::string round_trip(const std::string& text)
{
    auto r = parse_address(view(text));
    EXPECT_TRUE(r.is_ok()) << text;
    if (r.is_error())
        return "<error>";
    return format(r.value());
}

int parse_errno(const std::string& text) { return parse_address(view(text)).to_errno(); }
int path_errno(const std::string& text) { return parse_path(view(text)).to_errno(); }

// libc's inet_pton as an independent oracle for the address bytes.
void expect_same_as_libc(const std::string& literal)
{
    unsigned char expected[16] = {};
    ASSERT_EQ(inet_pton(AF_INET6, literal.c_str(), expected), 1) << literal;
    auto r = parse_address(view("ip:" + literal));
    ASSERT_TRUE(r.is_ok()) << literal;
    EXPECT_EQ(r.value().family, AddressFamily::kIpv6);
    EXPECT_EQ(0, memcmp(expected, r.value().bytes, 16)) << literal;
    // Printing must give what the kernel's %pI6c gives; glibc's inet_ntop
    // follows the same RFC 5952 rules except for the dotted tails, which
    // only the mapped/ISATAP cases use (tested separately).
    char text[INET6_ADDRSTRLEN] = {};
    ASSERT_NE(inet_ntop(AF_INET6, expected, text, sizeof(text)), nullptr);
    std::string printed = format(r.value());
    if (printed.find('.') == std::string::npos && std::string(text).find('.') == std::string::npos) {
        EXPECT_EQ(printed, "ip:" + std::string(text)) << literal;
    }
}

}  // namespace

TEST(RtrsAddr, Ipv4)
{
    auto r = parse_address("ip:192.0.2.1");
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().family, AddressFamily::kIpv4);
    EXPECT_EQ(r.value().bytes[0], 192);
    EXPECT_EQ(r.value().bytes[1], 0);
    EXPECT_EQ(r.value().bytes[2], 2);
    EXPECT_EQ(r.value().bytes[3], 1);
    for (int i = 4; i < 16; ++i)
        EXPECT_EQ(r.value().bytes[i], 0);
    EXPECT_EQ(round_trip("ip:0.0.0.0"), "ip:0.0.0.0");
    EXPECT_EQ(round_trip("ip:255.255.255.255"), "ip:255.255.255.255");
    EXPECT_EQ(round_trip("ip:10.50.100.66"), "ip:10.50.100.66");
}

TEST(RtrsAddr, Ipv4Rejects)
{
    for (const char* bad : {"ip:256.0.0.1", "ip:1.2.3.256", "ip:1.2.3", "ip:1.2.3.4.5", "ip:1..2.3", "ip:.1.2.3",
                            "ip:1.2.3.", "ip:01.2.3.4", "ip:1.2.3.04", "ip:1.2.3.4a", "ip:a1.2.3.4", "ip:+1.2.3.4",
                            "ip:-1.2.3.4", "ip: 1.2.3.4", "ip:1.2.3.4 ", "ip:1000.2.3.4", "ip:99999999999.1.1.1",
                            "ip:1.2.3.4%1", "ip:", "ip", "", "IP:1.2.3.4", "ipv4:1.2.3.4", "1.2.3.4",
                            "ip:0x1.2.3.4", "ip:1.2.3.4/24", "ip:1.2.3.4:1234"})
        EXPECT_EQ(parse_errno(bad), -err::kInval) << bad;
}

TEST(RtrsAddr, Ipv6Forms)
{
    expect_same_as_libc("2001:db8::1");
    expect_same_as_libc("::");
    expect_same_as_libc("::1");
    expect_same_as_libc("1::");
    expect_same_as_libc("fe80::200:5aee:feaa:20a2");
    expect_same_as_libc("2001:DB8:0:0:1:0:0:1");
    expect_same_as_libc("2001:db8:0:0:1::1");
    expect_same_as_libc("1:2:3:4:5:6:7:8");
    expect_same_as_libc("1:2:3:4:5:6:7::");
    expect_same_as_libc("::2:3:4:5:6:7:8");
    expect_same_as_libc("1:0:0:2:0:0:0:3");
    expect_same_as_libc("0:0:1:0:0:0:0:0");
    expect_same_as_libc("1:0:2:3:4:5:6:7");
    expect_same_as_libc("::1.2.3.4");
    expect_same_as_libc("::ffff:192.0.2.1");
    expect_same_as_libc("1:2:3:4:5:6:1.2.3.4");
    expect_same_as_libc("1::5:6:255.255.255.255");
    expect_same_as_libc("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
    expect_same_as_libc("0001:0db8:0000:0000:0000:0000:0000:0001");
}

TEST(RtrsAddr, Ipv6CompressedPrintingMatchesKernel)
{
    // The kernel's %pI6c: longest zero run (first on a tie), never a single
    // zero group, lower case, no leading zeros.
    EXPECT_EQ(round_trip("ip:2001:0db8:0000:0000:0000:0000:0000:0001"), "ip:2001:db8::1");
    EXPECT_EQ(round_trip("ip:1:0:0:2:0:0:3:4"), "ip:1::2:0:0:3:4");
    EXPECT_EQ(round_trip("ip:1:0:2:3:4:5:6:7"), "ip:1:0:2:3:4:5:6:7");
    EXPECT_EQ(round_trip("ip:0:0:0:0:0:0:0:0"), "ip:::");
    EXPECT_EQ(round_trip("ip:::ffff:0.0.0.0"), "ip:::ffff:0.0.0.0");
    EXPECT_EQ(round_trip("ip:1:2:3:4:5:6:7:0"), "ip:1:2:3:4:5:6:7:0");
    EXPECT_EQ(round_trip("ip:1:2:3:4:5:6:0:0"), "ip:1:2:3:4:5:6::");
}

TEST(RtrsAddr, Ipv6DottedTailOnlyForMappedAndIsatap)
{
    EXPECT_EQ(round_trip("ip:::ffff:192.0.2.1"), "ip:::ffff:192.0.2.1");
    EXPECT_EQ(round_trip("ip:::ffff:c000:201"), "ip:::ffff:192.0.2.1");
    EXPECT_EQ(round_trip("ip:fe80::5efe:c000:201"), "ip:fe80::5efe:192.0.2.1");
    EXPECT_EQ(round_trip("ip:fe80::200:5efe:c000:201"), "ip:fe80::200:5efe:192.0.2.1");
    // IPv4-compatible (deprecated) prints as hex groups in the kernel.
    EXPECT_EQ(round_trip("ip:::1.2.3.4"), "ip:::102:304");
}

TEST(RtrsAddr, Ipv6Rejects)
{
    for (const char* bad :
         {"ip:1::2::3", "ip:::1::", "ip::::", "ip::1", "ip:1:", "ip:1:2:3:4:5:6:7", "ip:1:2:3:4:5:6:7:8:9",
          "ip:1:2:3:4:5:6:7:8::", "ip:::1:2:3:4:5:6:7:8", "ip:1::2:3:4:5:6:7:8", "ip:12345::", "ip:g::",
          "ip:1:2:3:4:5:6:7:1.2.3.4", "ip:1.2.3.4::", "ip:::1.2.3.4:5", "ip:::256.1.1.1", "ip:::01.1.1.1",
          "ip:[::1]", "ip:::1 ", "ip: ::1", "ip:1:::2", "ip:fe80::1%", "ip:2001:db8::1%1", "ip:::1%1",
          "ip:fe80::1%0", "ip:fe80::1%4294967296", "ip:fe80::1%eth/0", "ip:fe80::1%eth0%1",
          "ip:fe80::1%abcdefghijklmnop", "ip:fe80::1%.", "ip:fe80::1%..", "ip:1.2.3.4%eth0"})
        EXPECT_EQ(parse_errno(bad), -err::kInval) << bad;
}

TEST(RtrsAddr, Ipv6Scope)
{
    auto numeric = parse_address("ip:fe80::1%3");
    ASSERT_TRUE(numeric.is_ok());
    EXPECT_EQ(numeric.value().scope_id, 3u);
    EXPECT_FALSE(numeric.value().has_scope_name());
    auto large = parse_address("ip:fe80::1%4294967295");
    ASSERT_TRUE(large.is_ok());
    EXPECT_EQ(large.value().scope_id, 4294967295u);
    auto named = parse_address("ip:fe80::1%veth0");
    ASSERT_TRUE(named.is_ok());
    EXPECT_EQ(named.value().scope_id, 0u);
    EXPECT_TRUE(named.value().scope_name_view() == "veth0");
    auto longest = parse_address("ip:febf::1%abcdefghijklmno");
    ASSERT_TRUE(longest.is_ok());
    EXPECT_EQ(longest.value().scope_name_length, 15);
    // The scope does not show in the printed form (the kernel omits it).
    EXPECT_EQ(format(named.value()), "ip:fe80::1");
}

TEST(RtrsAddr, Gid)
{
    auto r = parse_address("gid:fe80::200:5aee:feaa:20a2");
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().family, AddressFamily::kGid);
    EXPECT_EQ(r.value().bytes[0], 0xfe);
    EXPECT_EQ(r.value().bytes[15], 0xa2);
    // %pI6: all eight groups, four digits each.
    EXPECT_EQ(format(r.value()), "gid:fe80:0000:0000:0000:0200:5aee:feaa:20a2");
    EXPECT_EQ(round_trip("gid:::"), "gid:0000:0000:0000:0000:0000:0000:0000:0000");
    EXPECT_EQ(round_trip("gid:FE80:0:0:0:2:C903:1:2"), "gid:fe80:0000:0000:0000:0002:c903:0001:0002");
    EXPECT_EQ(round_trip("gid:::ffff:1.2.3.4"), "gid:0000:0000:0000:0000:0000:ffff:0102:0304");
    for (const char* bad : {"gid:", "gid:1.2.3.4", "gid:fe80::1%1", "gid:fe80::1::2", "GID:fe80::1", "gid:fe80:1",
                            "gid::fe80::1"})
        EXPECT_EQ(parse_errno(bad), -err::kInval) << bad;
}

TEST(RtrsAddr, PathForms)
{
    auto dst_only = parse_path("ip:192.0.2.1");
    ASSERT_TRUE(dst_only.is_ok());
    EXPECT_FALSE(dst_only.value().has_source);
    EXPECT_EQ(dst_only.value().source.family, AddressFamily::kNone);
    EXPECT_EQ(dst_only.value().port, kDefaultPort);
    EXPECT_EQ(format(dst_only.value().destination), "ip:192.0.2.1");

    for (const char* text : {"ip:198.51.100.1,ip:192.0.2.1", "ip:198.51.100.1@ip:192.0.2.1"}) {
        auto r = parse_path(text, 4321);
        ASSERT_TRUE(r.is_ok()) << text;
        EXPECT_TRUE(r.value().has_source);
        EXPECT_EQ(r.value().port, 4321);
        EXPECT_EQ(format(r.value().source), "ip:198.51.100.1");
        EXPECT_EQ(format(r.value().destination), "ip:192.0.2.1");
    }
    auto v6 = parse_path("ip:2001:db8::2@ip:2001:db8::1\n");
    ASSERT_TRUE(v6.is_ok());
    EXPECT_EQ(format(v6.value().source), "ip:2001:db8::2");
    auto gid = parse_path("gid:fe80::2,gid:fe80::1");
    ASSERT_TRUE(gid.is_ok());
    EXPECT_EQ(gid.value().destination.family, AddressFamily::kGid);
}

TEST(RtrsAddr, PathRejects)
{
    for (const char* bad : {"", "\n", ",", "@", "ip:1.2.3.4,", "ip:1.2.3.4@", ",ip:1.2.3.4", "@ip:1.2.3.4",
                            "ip:1.2.3.4,ip:1.2.3.5,ip:1.2.3.6", "ip:1.2.3.4@ip:1.2.3.5@ip:1.2.3.6",
                            "ip:1.2.3.4,ip:1.2.3.5@ip:1.2.3.6", "ip:1.2.3.4,,ip:1.2.3.5", "ip:1.2.3.4@@ip:1.2.3.5",
                            "ip:1.2.3.4 ip:1.2.3.5", "ip:1.2.3.4,ip:2001:db8::1", "gid:fe80::1,ip:1.2.3.4",
                            "ip:1.2.3.4\n\n", "ip:1.2.3.4\nip:1.2.3.5", "ip:1.2.3.4\r", "tcp:1.2.3.4"})
        EXPECT_EQ(path_errno(bad), -err::kInval) << bad;
    EXPECT_EQ(parse_path(StringView("ip:1.2.3.4\0", 11)).to_errno(), -err::kInval);
    EXPECT_EQ(parse_path(StringView("ip:1.2\0.3.4", 11)).to_errno(), -err::kInval);
    EXPECT_EQ(parse_path("ip:1.2.3.4", 0).to_errno(), -err::kInval);
}

TEST(RtrsAddr, Overlong)
{
    std::string long_v6 = "ip:0000:0000:0000:0000:0000:0000:0000:0000" + std::string(30, '0');
    EXPECT_EQ(parse_errno(long_v6), -err::kInval);
    std::string huge(100000, '1');
    EXPECT_EQ(parse_errno("ip:" + huge), -err::kInval);
    EXPECT_EQ(path_errno("ip:" + huge), -err::kInval);
    // The longest valid text is accepted.
    std::string longest = "ip:ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255";
    EXPECT_EQ(parse_errno(longest), 0);
    std::string pair = "ip:fe80:ffff:ffff:ffff:ffff:ffff:ffff:ffff%abcdefghijklmno";
    EXPECT_EQ(path_errno(pair + "," + pair), 0);
}

TEST(RtrsAddr, PathNameAsUpstream)
{
    auto path = parse_path("ip:198.51.100.1@ip:192.0.2.1");
    ASSERT_TRUE(path.is_ok());
    char buffer[kMaxPathNameLength + 1];
    auto n = format_path_name(path.value().source, path.value().destination, Span<char>(buffer));
    ASSERT_TRUE(n.is_ok());
    EXPECT_EQ(std::string(buffer, n.value()), "ip:198.51.100.1@ip:192.0.2.1");

    auto gid = parse_path("gid:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff@gid:fe80::1");
    ASSERT_TRUE(gid.is_ok());
    auto m = format_path_name(gid.value().source, gid.value().destination, Span<char>(buffer));
    ASSERT_TRUE(m.is_ok());
    EXPECT_EQ(m.value(), kMaxPathNameLength);
    EXPECT_EQ(std::string(buffer, m.value()),
              "gid:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff@gid:fe80:0000:0000:0000:0000:0000:0000:0001");

    // No source: the glue must fill it in first.
    auto dst_only = parse_path("ip:192.0.2.1");
    EXPECT_EQ(format_path_name(dst_only.value().source, dst_only.value().destination, Span<char>(buffer)).to_errno(),
              -err::kInval);
}

TEST(RtrsAddr, FormatNeverOverflows)
{
    auto path = parse_path("ip:198.51.100.1@ip:192.0.2.1");
    ASSERT_TRUE(path.is_ok());
    const std::string full = "ip:198.51.100.1@ip:192.0.2.1";
    for (size_t size = 0; size <= full.size(); ++size) {
        char buffer[64];
        memset(buffer, 'Z', sizeof(buffer));
        auto n = format_path_name(path.value().source, path.value().destination, Span<char>(buffer, size));
        EXPECT_EQ(n.to_errno(), -err::kNameTooLong) << size;
        for (size_t i = size; i < sizeof(buffer); ++i)
            ASSERT_EQ(buffer[i], 'Z') << "wrote past " << size;
        if (size > 0) {
            EXPECT_EQ(std::string(buffer), full.substr(0, size - 1));
        }
    }
    char exact[29];
    EXPECT_EQ(format_path_name(path.value().source, path.value().destination, Span<char>(exact)).value(), 28u);
}

TEST(RtrsAddr, SameAddress)
{
    auto a = parse_address("ip:fe80::1%2");
    auto b = parse_address("ip:FE80:0::1%2");
    auto c = parse_address("ip:fe80::1%3");
    auto d = parse_address("gid:fe80::1");
    ASSERT_TRUE(a.is_ok() && b.is_ok() && c.is_ok() && d.is_ok());
    EXPECT_TRUE(same_address(a.value(), b.value()));
    EXPECT_FALSE(same_address(a.value(), c.value()));
    EXPECT_FALSE(same_address(a.value(), d.value()));
}
