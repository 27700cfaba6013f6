// libFuzzer target: the RTRS client's multipath policy, both the sysfs
// parser (mpath_policy) and the selectors the IO path runs. Oracles:
//   - parse_policy accepts exactly the documented spellings (a model
//     written from rtrs-clt-policy.hpp): "0".."2", the names and short
//     names in any case, blanks around, one trailing newline; nothing with
//     trailing junk, a NUL or a second newline;
//   - what it accepts prints (format_policy) and names (policy_name) to text
//     that parses back to the same policy;
//   - a selector returns a connected path that is not the excluded one, or
//     kNoPath exactly when there is none; min-inflight and min-latency
//     return a minimum; round-robin moves its cursor just past its choice.
// Input: 1 byte mode, then fields.
#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rtrs/core/rtrs-clt-policy.hpp"

namespace {

using namespace rtrs::clt;

char lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

bool same_ignoring_case(StringView text, const char* word)
{
    StringView expected(word);
    if (text.length() != expected.length())
        return false;
    for (size_t i = 0; i < text.length(); ++i)
        if (lower(text[i]) != expected[i])
            return false;
    return true;
}

// The documented grammar, independently: the policy, or -1 for a refusal.
int model_parse(StringView text)
{
    size_t end = text.length();
    if (end > 0 && text[end - 1] == '\n')
        --end;
    size_t begin = 0;
    while (begin < end && (text[begin] == ' ' || text[begin] == '\t'))
        ++begin;
    while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t'))
        --end;
    const StringView word = text.substring(begin, end - begin);
    static const char* const kSpellings[3][3] = {
        {"0", "round-robin", "rr"},
        {"1", "min-inflight", "mi"},
        {"2", "min-latency", "ml"},
    };
    for (int policy = 0; policy < 3; ++policy)
        for (const char* spelling : kSpellings[policy])
            if (same_ignoring_case(word, spelling))
                return policy;
    return -1;
}

void fuzz_parse(StringView text)
{
    auto parsed = parse_policy(text);
    const int expected = model_parse(text);
    if (parsed.is_error()) {
        FUZZ_CHECK(parsed.to_errno() == -cxxrt::err::kInval);
        FUZZ_CHECK(expected == -1);
        return;
    }
    FUZZ_CHECK(int(parsed.value()) == expected);

    // What the file prints, and the bare name, parse back to the policy.
    char shown[64];
    const size_t length = format_policy(parsed.value(), cxxrt::Span<char>(shown));
    FUZZ_CHECK(length > 0 && length < sizeof(shown) && shown[length] == '\0' && shown[length - 1] == '\n');
    size_t name_end = 0;
    while (name_end < length && shown[name_end] != ' ')
        ++name_end;
    auto again = parse_policy(StringView(shown, name_end));
    FUZZ_CHECK(again.is_ok() && again.value() == parsed.value());
    auto by_name = parse_policy(policy_name(parsed.value()));
    FUZZ_CHECK(by_name.is_ok() && by_name.value() == parsed.value());
}

constexpr size_t kMaxPaths = 130;  // a little above upstream's limit of 128

void fuzz_select(fuzz::Input& input)
{
    PathSlot slots[kMaxPaths];
    const PathPolicy policy = PathPolicy(input.take_u8() % 3);
    const size_t count = input.take_u8() % (kMaxPaths + 1);
    const u8 excluded_byte = input.take_u8();
    const size_t excluded = excluded_byte == 0xff ? kNoPath : excluded_byte % (count + 2);
    u32 cursor = input.take_u32();
    for (size_t i = 0; i < count; ++i) {
        slots[i].connected = input.take_bool();
        // Small values make ties, which the tie rule must survive.
        slots[i].inflight = input.take_bool() ? input.take_u32() : input.take_u8() % 4;
        slots[i].latency_ns = input.take_bool() ? input.take_u64() : input.take_u8() % 4;
    }
    const cxxrt::Span<const PathSlot> paths(slots, count);
    const u32 cursor_before = cursor;
    const size_t chosen = select_path(policy, paths, &cursor, excluded);

    bool any_usable = false;
    for (size_t i = 0; i < count; ++i)
        if (slots[i].connected && i != excluded)
            any_usable = true;
    if (chosen == kNoPath) {
        FUZZ_CHECK(!any_usable);
        FUZZ_CHECK(cursor == cursor_before);
        return;
    }
    FUZZ_CHECK(chosen < count);
    FUZZ_CHECK(slots[chosen].connected && chosen != excluded);
    switch (policy) {
    case PathPolicy::kRoundRobin:
        FUZZ_CHECK(cursor == u32((chosen + 1) % count));
        // No usable path between the cursor and the choice was skipped.
        for (size_t i = cursor_before % count; i != chosen; i = (i + 1) % count)
            FUZZ_CHECK(!slots[i].connected || i == excluded);
        break;
    case PathPolicy::kMinInflight:
        FUZZ_CHECK(cursor == cursor_before);
        for (size_t i = 0; i < count; ++i)
            if (slots[i].connected && i != excluded)
                FUZZ_CHECK(slots[chosen].inflight <= slots[i].inflight);
        // Ties go to the first minimum scanning from the cursor.
        for (size_t i = cursor_before % count; i != chosen; i = (i + 1) % count)
            if (slots[i].connected && i != excluded)
                FUZZ_CHECK(slots[chosen].inflight < slots[i].inflight);
        break;
    case PathPolicy::kMinLatency:
        FUZZ_CHECK(cursor == cursor_before);
        for (size_t i = 0; i < count; ++i)
            if (slots[i].connected && i != excluded)
                FUZZ_CHECK(slots[chosen].latency_ns <= slots[i].latency_ns);
        // Ties go to the first minimum scanning from the cursor.
        for (size_t i = cursor_before % count; i != chosen; i = (i + 1) % count)
            if (slots[i].connected && i != excluded)
                FUZZ_CHECK(slots[chosen].latency_ns < slots[i].latency_ns);
        break;
    }
}

}  // namespace

FUZZ_TARGET(data, size)
{
    fuzz::Input input(data, size);
    if (input.take_u8() & 1)
        fuzz_select(input);
    else
        fuzz_parse(input.take_rest_as_string());
    return 0;
}
