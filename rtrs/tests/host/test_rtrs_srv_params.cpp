#include <gtest/gtest.h>

#include "rtrs/core/rtrs-srv-params.hpp"

using rtrs::srv::make_params;
using rtrs::srv::ParamError;

TEST(ServerParams, DefaultsAreValid)
{
    auto p = make_params(128 * 1024, 512, true);
    ASSERT_TRUE(p.is_ok());
    EXPECT_EQ(p.value().max_io_size(), 126976u);
}

TEST(ServerParams, RejectsEachBadValue)
{
    ParamError why{};
    EXPECT_TRUE(make_params(4096, 512, true, &why).is_error());
    EXPECT_EQ(why, ParamError::kChunkSize);
    EXPECT_TRUE(make_params(100000, 512, true, &why).is_error());  // not a power of two
    EXPECT_EQ(why, ParamError::kChunkSize);
    EXPECT_TRUE(make_params(8192, 0, true, &why).is_error());
    EXPECT_EQ(why, ParamError::kQueueDepth);
    EXPECT_TRUE(make_params(8192, 65536, true, &why).is_error());
    EXPECT_EQ(why, ParamError::kQueueDepth);
    // 16 bits of queue depth + 24 bits of 16 MiB offsets > 28 bits
    EXPECT_TRUE(make_params(16 << 20, 65535, true, &why).is_error());
    EXPECT_EQ(why, ParamError::kTooManyBits);
}

TEST(ServerParams, Limits)
{
    auto p = make_params(128 * 1024, 512, true);
    ASSERT_TRUE(p.is_ok());
    rtrs::srv::Params params = p.value();
    EXPECT_EQ(params.max_sessions, 64u);
    EXPECT_EQ(params.info_timeout_ms, 10000u);
    EXPECT_TRUE(rtrs::srv::set_limits(params, 8, 2000).is_ok());
    EXPECT_EQ(params.max_sessions, 8u);
    EXPECT_EQ(params.info_timeout_ms, 2000u);
    ParamError why{};
    EXPECT_TRUE(rtrs::srv::set_limits(params, 0, 2000, &why).is_error());
    EXPECT_EQ(why, ParamError::kMaxSessions);
    EXPECT_TRUE(rtrs::srv::set_limits(params, 65536, 2000, &why).is_error());
    EXPECT_EQ(why, ParamError::kMaxSessions);
    EXPECT_TRUE(rtrs::srv::set_limits(params, 8, 999, &why).is_error());
    EXPECT_EQ(why, ParamError::kInfoTimeout);
    EXPECT_TRUE(rtrs::srv::set_limits(params, 8, 300001, &why).is_error());
    EXPECT_EQ(why, ParamError::kInfoTimeout);
    EXPECT_EQ(params.max_sessions, 8u);  // unchanged by refused values
}
