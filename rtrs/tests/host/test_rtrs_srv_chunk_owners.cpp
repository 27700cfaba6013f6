#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "rtrs/core/rtrs-srv-chunk-owners.hpp"

using rtrs::srv::ChunkOwners;
using Take = ChunkOwners::Take;

namespace {

constexpr ChunkOwners::Owner kPathA = 0x1000;
constexpr ChunkOwners::Owner kPathB = 0x2000;

}  // namespace

TEST(ChunkOwners, StartsFree)
{
    ChunkOwners owners;
    ASSERT_TRUE(owners.init(4, cxxrt::Gfp::kernel()).is_ok());
    EXPECT_EQ(owners.size(), 4u);
    EXPECT_EQ(owners.held(), 0u);
    for (cxxrt::u32 i = 0; i < 4; ++i)
        EXPECT_EQ(owners.holder(i), ChunkOwners::kFree);
}

TEST(ChunkOwners, InitOnceAndNeverEmpty)
{
    ChunkOwners owners;
    EXPECT_TRUE(owners.init(0, cxxrt::Gfp::kernel()).is_error());
    ASSERT_TRUE(owners.init(2, cxxrt::Gfp::kernel()).is_ok());
    EXPECT_TRUE(owners.init(2, cxxrt::Gfp::kernel()).is_error());
}

TEST(ChunkOwners, NotInitialisedRefusesEverything)
{
    ChunkOwners owners;
    EXPECT_EQ(owners.take(0, kPathA), Take::kOutOfRange);
    owners.release(0);  // no effect, no crash
    EXPECT_EQ(owners.holder(0), ChunkOwners::kFree);
}

// The fail-over case: path A's IO is still in the backend when the client
// re-sends the same chunk id on path B. B must not get the chunk.
TEST(ChunkOwners, AnotherPathsChunkIsRefusedUntilReleased)
{
    ChunkOwners owners;
    ASSERT_TRUE(owners.init(4, cxxrt::Gfp::kernel()).is_ok());
    EXPECT_EQ(owners.take(0, kPathA), Take::kTaken);
    EXPECT_EQ(owners.holder(0), kPathA);
    EXPECT_EQ(owners.take(0, kPathB), Take::kHeldByOther);
    EXPECT_EQ(owners.holder(0), kPathA);  // the refusal changed nothing
    EXPECT_EQ(owners.take(1, kPathB), Take::kTaken);  // other chunks are B's to take
    EXPECT_EQ(owners.held(), 2u);
    owners.release(0);
    EXPECT_EQ(owners.take(0, kPathB), Take::kTaken);  // the retry succeeds
    EXPECT_EQ(owners.holder(0), kPathB);
    owners.release(0);
    owners.release(1);
    EXPECT_EQ(owners.held(), 0u);
}

TEST(ChunkOwners, SecondIoOfTheSameOwnerIsToldApart)
{
    ChunkOwners owners;
    ASSERT_TRUE(owners.init(1, cxxrt::Gfp::kernel()).is_ok());
    EXPECT_EQ(owners.take(0, kPathA), Take::kTaken);
    EXPECT_EQ(owners.take(0, kPathA), Take::kHeldBySelf);
    EXPECT_EQ(owners.holder(0), kPathA);
}

TEST(ChunkOwners, OutOfRangeAndFreeOwnerAreRefused)
{
    ChunkOwners owners;
    ASSERT_TRUE(owners.init(2, cxxrt::Gfp::kernel()).is_ok());
    EXPECT_EQ(owners.take(2, kPathA), Take::kOutOfRange);
    EXPECT_EQ(owners.take(~cxxrt::u32(0), kPathA), Take::kOutOfRange);
    EXPECT_EQ(owners.take(0, ChunkOwners::kFree), Take::kOutOfRange);
    owners.release(7);
    EXPECT_EQ(owners.holder(7), ChunkOwners::kFree);
    EXPECT_EQ(owners.held(), 0u);
}

// Paths on several CPUs race for the same few chunks: a chunk is never
// held by two at once, and every take is matched by its release.
TEST(ChunkOwners, NeverTwoHoldersUnderContention)
{
    constexpr cxxrt::u32 kChunks = 3;
    ChunkOwners owners;
    ASSERT_TRUE(owners.init(kChunks, cxxrt::Gfp::kernel()).is_ok());
    std::vector<std::atomic<int>> using_chunk(kChunks);
    std::atomic<int> overlaps{0}, taken{0}, refused{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            const ChunkOwners::Owner me = ChunkOwners::Owner(0x100 * (t + 1));
            for (int i = 0; i < 20000; ++i) {
                const cxxrt::u32 chunk = cxxrt::u32(i + t) % kChunks;
                switch (owners.take(chunk, me)) {
                case Take::kTaken:
                    if (using_chunk[chunk].fetch_add(1) != 0)
                        overlaps.fetch_add(1);
                    using_chunk[chunk].fetch_sub(1);
                    taken.fetch_add(1);
                    owners.release(chunk);
                    break;
                case Take::kHeldByOther:
                    refused.fetch_add(1);
                    break;
                default:
                    overlaps.fetch_add(1000);  // never: each thread releases before its next take
                    break;
                }
            }
        });
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(overlaps.load(), 0);
    EXPECT_EQ(taken.load() + refused.load(), 4 * 20000);
    EXPECT_GT(taken.load(), 0);
    EXPECT_EQ(owners.held(), 0u);
}
