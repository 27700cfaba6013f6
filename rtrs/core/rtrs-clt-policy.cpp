// Path selection policies; see rtrs-clt-policy.hpp for the contract.
#include "rtrs/core/rtrs-clt-policy.hpp"

#include <cxxrt/errno.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/text.hpp>

namespace rtrs::clt {

namespace {

using cxxrt::Error;
using cxxrt::TextBuffer;
namespace err = cxxrt::err;

struct PolicyName {
    PathPolicy policy;
    StringView name;
    StringView short_name;
    StringView tag;  // the abbreviation upstream prints in parentheses
};

constexpr PolicyName kPolicyNames[] = {
    {PathPolicy::kRoundRobin, StringView("round-robin", 11), StringView("rr", 2), StringView("RR", 2)},
    {PathPolicy::kMinInflight, StringView("min-inflight", 12), StringView("mi", 2), StringView("MI", 2)},
    {PathPolicy::kMinLatency, StringView("min-latency", 11), StringView("ml", 2), StringView("ML", 2)},
};

constexpr char lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

bool equals_ignoring_case(StringView a, StringView b)
{
    if (a.length() != b.length())
        return false;
    for (size_t i = 0; i < a.length(); ++i)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

}  // namespace

size_t select_round_robin(Span<const PathSlot> paths, u32* cursor, size_t excluded)
{
    return select_round_robin_in(paths, cursor, excluded);
}

size_t select_min_inflight(Span<const PathSlot> paths, size_t start, size_t excluded)
{
    return select_minimum_in(paths, start, excluded, [](const PathSlot& slot) { return u64(slot.inflight); });
}

size_t select_min_latency(Span<const PathSlot> paths, size_t start, size_t excluded)
{
    return select_minimum_in(paths, start, excluded, [](const PathSlot& slot) { return slot.latency_ns; });
}

size_t select_path(PathPolicy policy, Span<const PathSlot> paths, u32* cursor, size_t excluded)
{
    return select_path_in(policy, paths, cursor, excluded);
}

Result<PathPolicy> parse_policy(StringView text)
{
    StringView word = cxxrt::parse::trim_line(text);
    if (word.is_empty())
        return Error(err::kInval);
    for (size_t i = 0; i < word.length(); ++i)
        if (word[i] == '\0' || word[i] == '\n')
            return Error(err::kInval);
    // A lone digit is the numeric form upstream also accepts.
    if (word.length() == 1 && word[0] >= '0' && word[0] <= '2')
        return PathPolicy(word[0] - '0');
    for (const PolicyName& entry : kPolicyNames)
        if (equals_ignoring_case(word, entry.name) || equals_ignoring_case(word, entry.short_name))
            return entry.policy;
    return Error(err::kInval);
}

StringView policy_name(PathPolicy policy)
{
    for (const PolicyName& entry : kPolicyNames)
        if (entry.policy == policy)
            return entry.name;
    return StringView("unknown", 7);
}

size_t format_policy(PathPolicy policy, Span<char> out)
{
    TextBuffer text(out);
    for (const PolicyName& entry : kPolicyNames) {
        if (entry.policy != policy)
            continue;
        text.append(entry.name);
        text.append(StringView(" (", 2));
        text.append(entry.tag);
        text.append(StringView(": ", 2));
        text.append_unsigned(u64(policy));
        text.append(StringView(")\n", 2));
        return text.length();
    }
    text.append(StringView("Unknown (", 9));
    text.append_unsigned(u64(policy));
    text.append(StringView(")\n", 2));
    return text.length();
}

}  // namespace rtrs::clt
