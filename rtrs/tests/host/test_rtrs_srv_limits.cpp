#include <gtest/gtest.h>

#include "rtrs/core/rtrs-srv-limits.hpp"

using rtrs::AddressFamily;
using rtrs::srv::admit_path;
using rtrs::srv::client_key;
using rtrs::srv::ClientKey;
using rtrs::srv::ClientLedger;
using rtrs::srv::Params;
using rtrs::srv::Refusal;
using rtrs::srv::refusal_errno;

namespace {

using Bytes = cxxrt::u8[16];

ClientKey ipv4(cxxrt::u8 a, cxxrt::u8 b, cxxrt::u8 c, cxxrt::u8 d)
{
    Bytes bytes = {a, b, c, d};
    return client_key(AddressFamily::kIpv4, bytes);
}

ClientKey ipv6(cxxrt::u16 group3, cxxrt::u16 group7)
{
    Bytes bytes = {0x20, 0x01, 0x0d, 0xb8, 0, 0, cxxrt::u8(group3 >> 8), cxxrt::u8(group3), 0, 0, 0, 0, 0, 0,
                   cxxrt::u8(group7 >> 8), cxxrt::u8(group7)};
    return client_key(AddressFamily::kIpv6, bytes);
}

Params small_limits()
{
    Params p;
    p.max_sessions_per_client = 2;
    p.max_connections_per_path = 4;
    p.max_connections_per_client = 5;
    p.max_connections = 8;
    return p;
}

}  // namespace

TEST(ServerLimits, Ipv4KeyIsTheAddress)
{
    EXPECT_TRUE(ipv4(192, 0, 2, 1) == ipv4(192, 0, 2, 1));
    EXPECT_FALSE(ipv4(192, 0, 2, 1) == ipv4(192, 0, 2, 2));
}

TEST(ServerLimits, Ipv6KeyIsTheSlash64)
{
    // 2001:db8:0:1::1 and 2001:db8:0:1::ffff share a /64; 2001:db8:0:2::1 does not.
    EXPECT_TRUE(ipv6(1, 1) == ipv6(1, 0xffff));
    EXPECT_FALSE(ipv6(1, 1) == ipv6(2, 1));
}

TEST(ServerLimits, Ipv4MappedIpv6IsTheIpv4Client)
{
    Bytes mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
    EXPECT_TRUE(client_key(AddressFamily::kIpv6, mapped) == ipv4(192, 0, 2, 1));
    EXPECT_FALSE(client_key(AddressFamily::kIpv6, mapped) == ipv4(192, 0, 2, 17));
}

TEST(ServerLimits, GidKeyIsTheWholeGid)
{
    Bytes a = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 2, 0xc9, 3, 0, 1, 0, 2};
    Bytes b = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 2, 0xc9, 3, 0, 1, 0, 3};
    EXPECT_FALSE(client_key(AddressFamily::kGid, a) == client_key(AddressFamily::kGid, b));
    EXPECT_TRUE(client_key(AddressFamily::kGid, a) == client_key(AddressFamily::kGid, a));
}

TEST(ServerLimits, PathConnections)
{
    Params p = small_limits();
    EXPECT_EQ(admit_path(p, 4), Refusal::kNone);
    EXPECT_EQ(admit_path(p, 5), Refusal::kPathConnections);
    EXPECT_EQ(admit_path(Params{}, 4096), Refusal::kPathConnections);
    EXPECT_EQ(admit_path(Params{}, 512), Refusal::kNone);
}

TEST(ServerLimits, ErrnosAreOnesAClientPassesOn)
{
    EXPECT_EQ(refusal_errno(Refusal::kNone), 0);
    EXPECT_EQ(refusal_errno(Refusal::kClientSessions), -16);
    EXPECT_EQ(refusal_errno(Refusal::kClientConnections), -16);
    EXPECT_EQ(refusal_errno(Refusal::kPathConnections), -22);
    EXPECT_EQ(refusal_errno(Refusal::kConnections), -28);
    EXPECT_STREQ(rtrs::srv::refusal_limit_name(Refusal::kClientSessions), "max_sessions_per_client");
    EXPECT_EQ(rtrs::srv::refusal_limit(small_limits(), Refusal::kConnections), 8u);
}

TEST(ServerLimits, SessionsPerClientLeaveOthersRoom)
{
    Params p = small_limits();
    ClientLedger ledger;
    ASSERT_TRUE(ledger.init(4, cxxrt::Gfp::kernel()).is_ok());
    ClientKey a = ipv4(192, 0, 2, 1), b = ipv4(198, 51, 100, 1);
    EXPECT_EQ(ledger.charge_session(p, a), Refusal::kNone);
    EXPECT_EQ(ledger.charge_session(p, a), Refusal::kNone);
    EXPECT_EQ(ledger.charge_session(p, a), Refusal::kClientSessions);
    EXPECT_EQ(ledger.charge_session(p, b), Refusal::kNone);
    EXPECT_EQ(ledger.usage(a).sessions, 2u);
    EXPECT_EQ(ledger.total().sessions, 3u);
    // Another address of the same IPv6 /64 is the same client.
    EXPECT_EQ(ledger.charge_session(p, ipv6(7, 1)), Refusal::kNone);
    EXPECT_EQ(ledger.charge_session(p, ipv6(7, 2)), Refusal::kNone);
    EXPECT_EQ(ledger.charge_session(p, ipv6(7, 3)), Refusal::kClientSessions);
    EXPECT_EQ(ledger.charge_session(p, ipv6(8, 1)), Refusal::kNone);
    EXPECT_EQ(ledger.clients(), 4u);
}

TEST(ServerLimits, ReleaseOnCloseGivesTheRoomBack)
{
    Params p = small_limits();
    ClientLedger ledger;
    ASSERT_TRUE(ledger.init(2, cxxrt::Gfp::kernel()).is_ok());
    ClientKey a = ipv4(192, 0, 2, 1), b = ipv4(198, 51, 100, 1), c = ipv4(192, 0, 2, 17);
    ASSERT_EQ(ledger.charge_session(p, a), Refusal::kNone);
    ASSERT_EQ(ledger.charge_session(p, b), Refusal::kNone);
    // The table is full: a third client is refused until one goes.
    EXPECT_EQ(ledger.charge_session(p, c), Refusal::kClients);
    EXPECT_EQ(refusal_errno(Refusal::kClients), -28);
    ledger.release_session(a);
    EXPECT_EQ(ledger.clients(), 1u);
    EXPECT_EQ(ledger.charge_session(p, c), Refusal::kNone);
    EXPECT_EQ(ledger.usage(b).sessions, 1u);
    ledger.release_session(b);
    ledger.release_session(c);
    ledger.release_session(c);  // a second release changes nothing
    EXPECT_EQ(ledger.clients(), 0u);
    EXPECT_EQ(ledger.total().sessions, 0u);
}

TEST(ServerLimits, ConnectionsPerClientAndInTotal)
{
    Params p = small_limits();
    ClientLedger ledger;
    ASSERT_TRUE(ledger.init(4, cxxrt::Gfp::kernel()).is_ok());
    ClientKey a = ipv4(192, 0, 2, 1), b = ipv4(198, 51, 100, 1), c = ipv4(192, 0, 2, 17);
    // Only a client with a session has connections.
    EXPECT_EQ(ledger.charge_connection(p, a), Refusal::kClientConnections);
    ASSERT_EQ(ledger.charge_session(p, a), Refusal::kNone);
    ASSERT_EQ(ledger.charge_session(p, b), Refusal::kNone);
    ASSERT_EQ(ledger.charge_session(p, c), Refusal::kNone);
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(ledger.charge_connection(p, a), Refusal::kNone);
    EXPECT_EQ(ledger.check_connection(p, a), Refusal::kClientConnections);
    EXPECT_EQ(ledger.charge_connection(p, a), Refusal::kClientConnections);
    // a at its limit: b still connects, until the server-wide budget (8).
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(ledger.charge_connection(p, b), Refusal::kNone);
    EXPECT_EQ(ledger.charge_connection(p, c), Refusal::kConnections);
    EXPECT_EQ(ledger.total().connections, 8u);
    // A closed path gives its connections back.
    ledger.release_connections(a, 5);
    EXPECT_EQ(ledger.usage(a).connections, 0u);
    EXPECT_EQ(ledger.charge_connection(p, c), Refusal::kNone);
    // More released than held is clamped.
    ledger.release_connections(b, 100);
    EXPECT_EQ(ledger.total().connections, 1u);
    ledger.release_session(a);
    ledger.release_session(b);
    EXPECT_EQ(ledger.clients(), 1u);
    // A session released before its connections stays listed until they go.
    ledger.release_session(c);
    EXPECT_EQ(ledger.clients(), 1u);
    ledger.release_connections(c, 1);
    EXPECT_EQ(ledger.clients(), 0u);
}

TEST(ServerLimits, ParamsBounds)
{
    Params p;
    rtrs::srv::ParamError why{};
    EXPECT_EQ(p.max_sessions_per_client, 8u);
    EXPECT_EQ(p.max_connections_per_path, 512u);
    EXPECT_TRUE(rtrs::srv::set_client_limits(p, 2, 4096, 10, 20).is_ok());
    EXPECT_EQ(p.max_connections_per_path, 4096u);
    EXPECT_TRUE(rtrs::srv::set_client_limits(p, 0, 4, 10, 20, &why).is_error());
    EXPECT_EQ(why, rtrs::srv::ParamError::kMaxSessionsPerClient);
    EXPECT_TRUE(rtrs::srv::set_client_limits(p, 2, 4097, 10, 20, &why).is_error());
    EXPECT_EQ(why, rtrs::srv::ParamError::kMaxConnectionsPerPath);
    EXPECT_TRUE(rtrs::srv::set_client_limits(p, 2, 4, 0, 20, &why).is_error());
    EXPECT_EQ(why, rtrs::srv::ParamError::kMaxConnectionsPerClient);
    EXPECT_TRUE(rtrs::srv::set_client_limits(p, 2, 4, 10, (1 << 20) + 1, &why).is_error());
    EXPECT_EQ(why, rtrs::srv::ParamError::kMaxConnections);
}
