// Sysfs input parsing; see parse.hpp. Kernel-independent: built into every
// module and into the host unit tests and fuzzers unchanged.
#include <cxxrt/bits.hpp>
#include <cxxrt/parse.hpp>

namespace cxxrt::parse {

namespace {

constexpr bool is_blank(char c) { return c == ' ' || c == '\t'; }
constexpr bool is_control(char c) { return c == '\0' || c == '\n' || c == '\r'; }

Error fail(Reason* out, Reason reason, int code = err::kInval)
{
    if (out)
        *out = reason;
    return Error(code);
}

int digit_value(char c, unsigned base)
{
    int v = -1;
    if (c >= '0' && c <= '9')
        v = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
        v = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
        v = c - 'A' + 10;
    return v;
}

}  // namespace

const char* reason_text(Reason reason)
{
    switch (reason) {
    case Reason::kNone: return "no error";
    case Reason::kEmpty: return "empty input";
    case Reason::kNotANumber: return "not a number";
    case Reason::kOutOfRange: return "number out of range";
    case Reason::kControlCharacter: return "embedded NUL or newline";
    case Reason::kMissingEquals: return "token is not key=value";
    case Reason::kEmptyKey: return "empty key";
    case Reason::kEmptyValue: return "empty value";
    case Reason::kUnknownKey: return "unknown key";
    case Reason::kDuplicateKey: return "key given too many times";
    case Reason::kMissingKey: return "required key missing";
    case Reason::kTooManyTokens: return "too many options";
    case Reason::kTooLong: return "input too long";
    }
    return "unknown";
}

StringView trim_line(StringView text)
{
    size_t begin = 0;
    size_t end = text.length();
    if (end > 0 && text[end - 1] == '\n')
        --end;
    while (begin < end && is_blank(text[begin]))
        ++begin;
    while (end > begin && is_blank(text[end - 1]))
        --end;
    return text.substring(begin, end - begin);
}

bool has_control_character(StringView text)
{
    for (size_t i = 0; i < text.length(); ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f)
            return true;
    }
    return false;
}

Result<u64> parse_unsigned(StringView text, u64 max_value, Reason* reason)
{
    if (text.is_empty())
        return fail(reason, Reason::kEmpty);
    unsigned base = 10;
    size_t i = 0;
    if (text.length() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        i = 2;
    }
    u64 value = 0;
    for (; i < text.length(); ++i) {
        int digit = digit_value(text[i], base);
        if (digit < 0)
            return fail(reason, Reason::kNotANumber);
        if (!checked_mul<u64>(value, base, value) || !checked_add<u64>(value, u64(digit), value))
            return fail(reason, Reason::kOutOfRange, err::kRange);
    }
    if (value > max_value)
        return fail(reason, Reason::kOutOfRange, err::kRange);
    return value;
}

Result<u64> parse_line_in_range(StringView line, u64 min_value, u64 max_value)
{
    auto parsed = parse_unsigned(trim_line(line), max_value);
    if (parsed.is_error() || parsed.value() < min_value)
        return Error(err::kInval);
    return parsed.value();
}

Result<s64> parse_signed(StringView text, s64 min_value, s64 max_value, Reason* reason)
{
    bool negative = !text.is_empty() && text[0] == '-';
    StringView digits = negative ? text.substring(1) : text;
    if (digits.is_empty() || digits[0] == '-' || digits[0] == '+')
        return fail(reason, Reason::kNotANumber);
    // The magnitude of the most negative value is one more than the max.
    u64 limit = negative ? u64(NumericLimits<s64>::max) + 1 : u64(NumericLimits<s64>::max);
    auto magnitude = parse_unsigned(digits, limit, reason);
    if (magnitude.is_error())
        return magnitude.error();
    s64 value = negative ? s64(0 - magnitude.value()) : s64(magnitude.value());
    if (value < min_value || value > max_value)
        return fail(reason, Reason::kOutOfRange, err::kRange);
    return value;
}

Result<bool> parse_bool(StringView text, Reason* reason)
{
    if (text == "1" || text == "y" || text == "Y" || text == "on")
        return true;
    if (text == "0" || text == "n" || text == "N" || text == "off")
        return false;
    return fail(reason, text.is_empty() ? Reason::kEmpty : Reason::kNotANumber);
}

Result<size_t> parse_options(StringView input, Span<const OptionSpec> specs, Span<Option> out, ParseError* error,
                             size_t max_length)
{
    ParseError scratch;
    ParseError& e = error ? *error : scratch;
    auto reject = [&e](Reason reason, StringView token) {
        e.reason = reason;
        e.token = token;
        return Error(err::kInval);
    };
    if (input.length() > max_length)
        return reject(Reason::kTooLong, {});
    StringView line = trim_line(input);
    for (size_t i = 0; i < line.length(); ++i)
        if (is_control(line[i]))
            return reject(Reason::kControlCharacter, {});

    constexpr size_t kMaxSpecs = 32;
    if (specs.size() > kMaxSpecs)
        return reject(Reason::kTooManyTokens, {});
    u8 seen[kMaxSpecs] = {};
    size_t count = 0;

    size_t position = 0;
    while (position < line.length()) {
        while (position < line.length() && is_blank(line[position]))
            ++position;
        size_t start = position;
        while (position < line.length() && !is_blank(line[position]))
            ++position;
        if (start == position)
            break;
        StringView token = line.substring(start, position - start);
        size_t equals = token.find('=');
        if (equals == token.length())
            return reject(Reason::kMissingEquals, token);
        StringView key = token.substring(0, equals);
        StringView value = token.substring(equals + 1);
        if (key.is_empty())
            return reject(Reason::kEmptyKey, token);
        if (value.is_empty())
            return reject(Reason::kEmptyValue, key);
        size_t index = 0;
        while (index < specs.size() && !(specs[index].key == key))
            ++index;
        if (index == specs.size())
            return reject(Reason::kUnknownKey, key);
        if (seen[index] >= specs[index].max_count)
            return reject(Reason::kDuplicateKey, key);
        if (count == out.size())
            return reject(Reason::kTooManyTokens, key);
        ++seen[index];
        out[count++] = Option{key, value, u16(index)};
    }
    if (count == 0)
        return reject(Reason::kEmpty, {});
    for (size_t index = 0; index < specs.size(); ++index)
        if (specs[index].required && seen[index] == 0)
            return reject(Reason::kMissingKey, specs[index].key);
    return count;
}

}  // namespace cxxrt::parse
