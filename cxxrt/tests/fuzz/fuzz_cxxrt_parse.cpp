// libFuzzer target: the sysfs input parsers of cxxrt/parse.hpp, each
// against a model written from its documented contract. Oracles:
//   - parse_unsigned / parse_signed accept exactly the documented forms
//     (decimal, 0x hex; a '-' only for signed) and give the value the C
//     library computes; never a sign, a blank or trailing junk; a value
//     beyond 64 bits or the caller's bound is -ERANGE, never wrapped;
//   - parse_bool accepts exactly its eight spellings;
//   - trim_line drops one trailing newline and the blanks around, and
//     returns a view into its input;
//   - parse_options (the key=value tokenizer) accepts exactly what the model
//     tokenizer accepts; what it returns are views of the input in input
//     order, each key from the table, each value non-empty and blank-free,
//     no key more often than allowed, every required key present, and a
//     refusal carries a reason.
#include <errno.h>
#include <string.h>

#include <cxxrt/errno.hpp>
#include <cxxrt/parse.hpp>

#include "cxxrt/tests/fuzz/fuzz-support.hpp"

namespace {

using namespace cxxrt::parse;
using namespace cxxrt::integers;
using fuzz::size_t;
using fuzz::StringView;
using fuzz::u64;
using fuzz::u8;
namespace err = cxxrt::err;

using u128 = unsigned __int128;

// 0 for a value (in *value), or the negative errno parse_unsigned owes.
int model_unsigned(StringView text, u64 max_value, u64* value)
{
    if (text.is_empty())
        return -err::kInval;
    unsigned base = 10;
    size_t i = 0;
    if (text.length() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        i = 2;
    }
    u128 total = 0;
    for (; i < text.length(); ++i) {
        const char c = text[i];
        int digit = -1;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        else if (base == 16 && c >= 'A' && c <= 'F')
            digit = c - 'A' + 10;
        if (digit < 0)
            return -err::kInval;
        total = total * base + unsigned(digit);
        if (total > ~u64(0))
            return -err::kRange;
    }
    if (total > max_value)
        return -err::kRange;
    *value = u64(total);
    return 0;
}

// The C library's reading of an accepted number, as a second opinion.
void check_with_libc(StringView text, u64 value, bool is_signed)
{
    char copy[64];
    if (text.length() >= sizeof(copy))
        return;
    memcpy(copy, text.data(), text.length());
    copy[text.length()] = '\0';
    const StringView digits = (is_signed && text[0] == '-') ? text.substring(1) : text;
    const bool hex = digits.length() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
    // What strtoull tolerates and we must not: blanks and signs up front.
    FUZZ_CHECK(copy[0] != ' ' && copy[0] != '\t' && copy[0] != '+' && (is_signed || copy[0] != '-'));
    char* end = nullptr;
    errno = 0;
    if (is_signed) {
        const long long parsed = strtoll(copy, &end, hex ? 16 : 10);
        FUZZ_CHECK(errno == 0 && *end == '\0' && u64(parsed) == value);
    } else {
        const unsigned long long parsed = strtoull(copy, &end, hex ? 16 : 10);
        FUZZ_CHECK(errno == 0 && *end == '\0' && parsed == value);
    }
}

void fuzz_numbers(fuzz::Input& input)
{
    const u8 shape = input.take_u8();
    u64 max_value = input.take_u64();
    if (shape & 1)
        max_value = ~u64(0);
    const StringView text = input.take_rest_as_string();

    Reason reason = Reason::kNone;
    auto parsed = parse_unsigned(text, max_value, &reason);
    u64 expected = 0;
    const int model = model_unsigned(text, max_value, &expected);
    if (model != 0) {
        FUZZ_CHECK(parsed.is_error() && parsed.to_errno() == model);
        FUZZ_CHECK(reason != Reason::kNone);
    } else {
        FUZZ_CHECK(parsed.is_ok() && parsed.value() == expected && expected <= max_value);
        check_with_libc(text, expected, false);
    }

    // Signed: a bound pair from the input, or the full range.
    s64 low = s64(input.take_u64());
    s64 high = s64(max_value);
    if (shape & 2) {
        low = cxxrt::NumericLimits<s64>::min;
        high = cxxrt::NumericLimits<s64>::max;
    }
    auto signed_value = parse_signed(text, low, high, &reason);
    const bool negative = !text.is_empty() && text[0] == '-';
    const StringView digits = negative ? text.substring(1) : text;
    u64 magnitude = 0;
    int signed_model = -err::kInval;
    if (!digits.is_empty() && digits[0] != '-' && digits[0] != '+') {
        const u64 limit = negative ? (u64(1) << 63) : (u64(1) << 63) - 1;
        signed_model = model_unsigned(digits, limit, &magnitude);
    }
    if (signed_model == 0) {
        const s64 value = negative ? s64(0 - magnitude) : s64(magnitude);
        if (value < low || value > high)
            signed_model = -err::kRange;
        else
            magnitude = u64(value);
    }
    if (signed_model != 0) {
        FUZZ_CHECK(signed_value.is_error() && signed_value.to_errno() == signed_model);
    } else {
        FUZZ_CHECK(signed_value.is_ok() && u64(signed_value.value()) == magnitude);
        FUZZ_CHECK(signed_value.value() >= low && signed_value.value() <= high);
        check_with_libc(text, magnitude, true);
    }

    auto boolean = parse_bool(text);
    const bool is_true = text == "1" || text == "y" || text == "Y" || text == "on";
    const bool is_false = text == "0" || text == "n" || text == "N" || text == "off";
    FUZZ_CHECK(boolean.is_ok() == (is_true || is_false));
    if (boolean.is_ok())
        FUZZ_CHECK(boolean.value() == is_true);
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

void fuzz_trim(StringView text)
{
    const StringView trimmed = trim_line(text);
    FUZZ_CHECK(fuzz::points_into(trimmed, text.data(), text.length()));
    if (trimmed.is_empty())
        return;
    FUZZ_CHECK(!is_blank(trimmed[0]) && !is_blank(trimmed[trimmed.length() - 1]));
    // Only blanks before; after: blanks, then at most one newline at the end.
    for (const char* p = text.data(); p < trimmed.data(); ++p)
        FUZZ_CHECK(is_blank(*p));
    const char* end = text.data() + text.length();
    const char* after = trimmed.data() + trimmed.length();
    if (after < end && end[-1] == '\n')
        --end;
    for (const char* p = after; p < end; ++p)
        FUZZ_CHECK(is_blank(*p));
}

constexpr size_t kSpecCount = 5;
constexpr size_t kMaxOut = 12;

// The model tokenizer: true when parse_options must accept. Written from
// the header's contract, with its own loops.
bool model_options(StringView input, const OptionSpec* specs, size_t out_size, size_t max_length,
                   size_t* tokens_out)
{
    if (input.length() > max_length)
        return false;
    size_t end = input.length();
    if (end > 0 && input[end - 1] == '\n')
        --end;
    u8 seen[kSpecCount] = {};
    size_t tokens = 0;
    size_t i = 0;
    for (;;) {
        while (i < end && is_blank(input[i]))
            ++i;
        if (i == end)
            break;
        const size_t start = i;
        while (i < end && !is_blank(input[i])) {
            const char c = input[i];
            if (c == '\0' || c == '\n' || c == '\r')
                return false;
            ++i;
        }
        const StringView token = input.substring(start, i - start);
        const size_t equals = token.find('=');
        if (equals == 0 || equals + 1 >= token.length())
            return false;  // no '=', empty key or empty value
        const StringView key = token.substring(0, equals);
        size_t index = 0;
        while (index < kSpecCount && !(specs[index].key == key))
            ++index;
        if (index == kSpecCount || seen[index] == specs[index].max_count || tokens == out_size)
            return false;
        ++seen[index];
        ++tokens;
    }
    if (tokens == 0)
        return false;
    for (size_t index = 0; index < kSpecCount; ++index)
        if (specs[index].required && seen[index] == 0)
            return false;
    *tokens_out = tokens;
    return true;
}

void fuzz_options(fuzz::Input& input)
{
    OptionSpec specs[kSpecCount] = {
        {StringView("sessname"), 1, true},
        {StringView("path"), 4, false},
        {StringView("device_path"), 1, true},
        {StringView("access_mode"), 1, false},
        {StringView("nr_poll_queues"), 1, false},
    };
    // The table's rules come from the input too.
    const u8 rules = input.take_u8();
    for (size_t i = 0; i < kSpecCount; ++i) {
        if (rules & (1u << i))
            specs[i].required = !specs[i].required;
    }
    specs[1].max_count = u8(rules >> 5);
    const size_t out_size = input.take_u8() % (kMaxOut + 1);
    const size_t max_length = input.take_bool() ? 4096 : input.take_u8();
    const StringView text = input.take_rest_as_string();

    Option out[kMaxOut];
    ParseError error;
    auto parsed = parse_options(text, cxxrt::Span<const OptionSpec>(specs, kSpecCount),
                                cxxrt::Span<Option>(out, out_size), &error, max_length);
    size_t expected_tokens = 0;
    const bool expected = model_options(text, specs, out_size, max_length, &expected_tokens);
    FUZZ_CHECK(parsed.is_ok() == expected);
    if (parsed.is_error()) {
        FUZZ_CHECK(parsed.to_errno() == -err::kInval && error.reason != Reason::kNone);
        FUZZ_CHECK(reason_text(error.reason) != nullptr);
        if (error.reason == Reason::kMissingKey) {
            bool from_table = false;
            for (const OptionSpec& spec : specs)
                from_table = from_table || error.token.data() == spec.key.data();
            FUZZ_CHECK(from_table);
        } else if (!error.token.is_empty()) {
            FUZZ_CHECK(fuzz::points_into(error.token, text.data(), text.length()));
        }
        return;
    }
    const size_t count = parsed.value();
    FUZZ_CHECK(count == expected_tokens && count >= 1 && count <= out_size);
    u8 seen[kSpecCount] = {};
    const char* previous_end = text.data();
    for (size_t i = 0; i < count; ++i) {
        const Option& option = out[i];
        FUZZ_CHECK(option.spec_index < kSpecCount && option.key == specs[option.spec_index].key);
        FUZZ_CHECK(++seen[option.spec_index] <= specs[option.spec_index].max_count);
        FUZZ_CHECK(fuzz::points_into(option.key, text.data(), text.length()));
        FUZZ_CHECK(fuzz::points_into(option.value, text.data(), text.length()));
        // key '=' value, contiguous, after the previous option.
        FUZZ_CHECK(option.key.data() >= previous_end);
        FUZZ_CHECK(option.value.data() == option.key.data() + option.key.length() + 1);
        FUZZ_CHECK(option.key.data()[option.key.length()] == '=');
        FUZZ_CHECK(!option.value.is_empty());
        for (size_t j = 0; j < option.value.length(); ++j) {
            const char c = option.value[j];
            FUZZ_CHECK(!is_blank(c) && c != '\0' && c != '\n' && c != '\r');
        }
        previous_end = option.value.data() + option.value.length();
    }
    for (size_t index = 0; index < kSpecCount; ++index)
        if (specs[index].required)
            FUZZ_CHECK(seen[index] > 0);
}

}  // namespace

FUZZ_TARGET(data, size)
{
    fuzz::Input input(data, size);
    switch (input.take_u8() % 3) {
    case 0:
        fuzz_numbers(input);
        break;
    case 1:
        fuzz_trim(input.take_rest_as_string());
        break;
    default:
        fuzz_options(input);
        break;
    }
    return 0;
}
