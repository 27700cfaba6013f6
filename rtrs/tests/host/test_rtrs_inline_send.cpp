// rtrs::InlineSendPolicy: which client sends run inline.
#include <gtest/gtest.h>

#include <string>

#include "rtrs/core/rtrs-inline-send.hpp"

using rtrs::InlineSendPolicy;

namespace {

// "i" for an inline send, "-" for a deferred one, per submission.
std::string run(InlineSendPolicy& policy, const std::string& alone, bool is_read = true)
{
    std::string out;
    for (char c : alone)
        out += policy.next(c == 'a', is_read) ? 'i' : '-';
    return out;
}

TEST(InlineSendPolicy, ReadsOneAtATimeAfterTheFirst)
{
    InlineSendPolicy policy;
    EXPECT_EQ(run(policy, "aaaa"), "-iii");
}

TEST(InlineSendPolicy, TheFirstIdleSubmissionAfterABusySpellIsNotInline)
{
    InlineSendPolicy policy;
    EXPECT_EQ(run(policy, "aab"), "-i-");
    // A burst: its leader found the path idle, the rest did not.
    EXPECT_EQ(run(policy, "abbb"), "----");
    EXPECT_EQ(run(policy, "aa"), "-i");
}

TEST(InlineSendPolicy, EveryBreakEveryThIdleSubmissionInARowIsDeferred)
{
    InlineSendPolicy policy;
    const std::string out = run(policy, std::string(3 * InlineSendPolicy::kBreakEvery, 'a'));
    for (size_t i = 0; i < out.size(); ++i) {
        const size_t streak = i + 1;
        const bool expect_inline = streak > 1 && streak % InlineSendPolicy::kBreakEvery != 0;
        EXPECT_EQ(out[i], expect_inline ? 'i' : '-') << "submission " << streak;
    }
}

TEST(InlineSendPolicy, WritesNeverButTheyCountAsIdleSubmissions)
{
    InlineSendPolicy policy;
    EXPECT_EQ(run(policy, "aaa", false), "---");
    EXPECT_EQ(run(policy, "a"), "i");
}

}  // namespace
