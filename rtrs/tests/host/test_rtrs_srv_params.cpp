#include <gtest/gtest.h>

#include "rtrs/rtrs-srv-params.hpp"

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
