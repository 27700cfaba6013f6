#include <gtest/gtest.h>

#include "rtrs/core/rtrs-srv-protocol.hpp"

using rtrs::srv::ClientMessage;
using rtrs::srv::PathProtocol;
using rtrs::srv::Verdict;
using State = PathProtocol::State;

namespace {

// A path with n connections, all accepted and established.
void open_path(PathProtocol& path, unsigned n)
{
    ASSERT_TRUE(path.init(cxxrt::u16(n)).is_ok());
    for (unsigned cid = 0; cid < n; ++cid) {
        ASSERT_TRUE(path.connection_request(cxxrt::u16(cid)).is_ok());
        ASSERT_EQ(path.established(cxxrt::u16(cid)), Verdict::kAccept);
    }
}

void make_ready(PathProtocol& path, unsigned n)
{
    open_path(path, n);
    ASSERT_EQ(path.received(0, ClientMessage::kInfoRequest), Verdict::kAccept);
    ASSERT_TRUE(path.info_done());
    ASSERT_TRUE(path.ready());
}

}  // namespace

TEST(ServerProtocol, NormalLifecycle)
{
    PathProtocol path;
    make_ready(path, 3);
    EXPECT_EQ(path.received(1, ClientMessage::kIoRequest), Verdict::kAccept);
    EXPECT_EQ(path.received(0, ClientMessage::kIoRequest), Verdict::kAccept);  // Linux's control IO
    EXPECT_EQ(path.received(0, ClientMessage::kHeartbeat), Verdict::kAccept);
    EXPECT_EQ(path.received(0, ClientMessage::kHeartbeatAck), Verdict::kAccept);
    EXPECT_EQ(path.info_deadline(), Verdict::kIgnore);
    EXPECT_TRUE(path.close());
    EXPECT_FALSE(path.close());
    EXPECT_EQ(path.received(1, ClientMessage::kIoRequest), Verdict::kIgnore);
    EXPECT_EQ(path.info_requests_accepted(), 1u);
}

TEST(ServerProtocol, ConnectRequestsChecked)
{
    PathProtocol path;
    ASSERT_TRUE(path.init(2).is_ok());
    EXPECT_FALSE(path.init(2).is_ok());
    EXPECT_TRUE(path.connection_request(0).is_ok());
    EXPECT_EQ(path.connection_request(0).to_errno(), -17);  // EEXIST
    EXPECT_EQ(path.connection_request(2).to_errno(), -22);  // EINVAL
    EXPECT_EQ(path.established(1), Verdict::kClose);       // never requested
    path.close();
    EXPECT_EQ(path.connection_request(1).to_errno(), -104);  // ECONNRESET: closing path takes nothing
}

TEST(ServerProtocol, InfoRequestOnceOnServiceConnection)
{
    PathProtocol twice;
    make_ready(twice, 2);
    EXPECT_EQ(twice.received(0, ClientMessage::kInfoRequest), Verdict::kClose);

    PathProtocol on_io;
    open_path(on_io, 2);
    EXPECT_EQ(on_io.received(1, ClientMessage::kInfoRequest), Verdict::kClose);

    PathProtocol while_answering;
    open_path(while_answering, 2);
    EXPECT_EQ(while_answering.received(0, ClientMessage::kInfoRequest), Verdict::kAccept);
    EXPECT_EQ(while_answering.received(0, ClientMessage::kInfoRequest), Verdict::kClose);
}

TEST(ServerProtocol, IoOnlyAfterInfo)
{
    PathProtocol before;
    open_path(before, 2);
    EXPECT_EQ(before.received(1, ClientMessage::kIoRequest), Verdict::kClose);

    PathProtocol during;
    open_path(during, 2);
    ASSERT_EQ(during.received(0, ClientMessage::kInfoRequest), Verdict::kAccept);
    EXPECT_EQ(during.received(1, ClientMessage::kIoRequest), Verdict::kClose);
}

TEST(ServerProtocol, MessagesOnUnknownConnectionsClose)
{
    PathProtocol path;
    ASSERT_TRUE(path.init(3).is_ok());
    ASSERT_TRUE(path.connection_request(0).is_ok());
    // Accepted but not yet established: the first message may come first.
    EXPECT_EQ(path.received(0, ClientMessage::kInfoRequest), Verdict::kAccept);
    ASSERT_TRUE(path.info_done());
    EXPECT_EQ(path.received(2, ClientMessage::kIoRequest), Verdict::kClose);
    EXPECT_EQ(path.received(7, ClientMessage::kIoRequest), Verdict::kClose);
}

TEST(ServerProtocol, HeartbeatsOnlyOnServiceConnectionWhenReady)
{
    PathProtocol early;
    open_path(early, 2);
    EXPECT_EQ(early.received(0, ClientMessage::kHeartbeat), Verdict::kClose);

    PathProtocol on_io;
    make_ready(on_io, 2);
    EXPECT_EQ(on_io.received(1, ClientMessage::kHeartbeatAck), Verdict::kClose);
}

TEST(ServerProtocol, UnknownImmediatesClose)
{
    PathProtocol path;
    make_ready(path, 2);
    EXPECT_EQ(path.received(1, ClientMessage::kOther), Verdict::kClose);
    EXPECT_EQ(rtrs::srv::classify_client_immediate(0x10000005u), ClientMessage::kOther);  // a response type
    EXPECT_EQ(rtrs::srv::classify_client_immediate(0xf0000000u), ClientMessage::kOther);
    EXPECT_EQ(rtrs::srv::classify_client_immediate(0x80000001u), ClientMessage::kOther);  // heartbeat with payload
    EXPECT_EQ(rtrs::srv::classify_client_immediate(0x80000000u), ClientMessage::kHeartbeat);
    EXPECT_EQ(rtrs::srv::classify_client_immediate(0x90000000u), ClientMessage::kHeartbeatAck);
    EXPECT_EQ(rtrs::srv::classify_client_immediate(0x00001234u), ClientMessage::kIoRequest);
}

TEST(ServerProtocol, InfoDeadline)
{
    PathProtocol silent;
    open_path(silent, 2);
    EXPECT_EQ(silent.info_deadline(), Verdict::kClose);

    PathProtocol answering;
    open_path(answering, 2);
    ASSERT_EQ(answering.received(0, ClientMessage::kInfoRequest), Verdict::kAccept);
    EXPECT_EQ(answering.info_deadline(), Verdict::kClose);  // stuck between INFO_REQ and INFO_RSP

    PathProtocol closed;
    open_path(closed, 1);
    closed.close();
    EXPECT_EQ(closed.info_deadline(), Verdict::kIgnore);
    EXPECT_FALSE(closed.info_done());
}
