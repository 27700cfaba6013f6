// Parsers for text written to sysfs: numbers with overflow checks, and a
// tokenizer for "key=value key=value" lines checked against a table of the
// keys a file accepts. Everything here treats its input as hostile: the
// buffer is bounded, nothing is copied, and every rejection is -EINVAL
// (or -ERANGE for a number that does not fit), with a reason for the log.
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>

namespace cxxrt::parse {

// Why a parse failed, for the one log line the caller prints.
enum class Reason : u8 {
    kNone,
    kEmpty,
    kNotANumber,
    kOutOfRange,
    kControlCharacter,  // NUL or newline inside the text
    kMissingEquals,
    kEmptyKey,
    kEmptyValue,
    kUnknownKey,
    kDuplicateKey,      // more occurrences than the key allows
    kMissingKey,        // a required key is absent
    kTooManyTokens,
    kTooLong,
};
const char* reason_text(Reason reason);

// Strips one trailing "\n" (what `echo` appends) and surrounding blanks;
// any other control character left inside is the caller's to reject.
StringView trim_line(StringView text);
// Whether `text` holds a C0 control character (0x00..0x1f: NUL, newline,
// tab, escape, ...) or DEL: what a name or an address must not contain.
bool has_control_character(StringView text);

// Decimal, or hexadecimal with 0x. No sign, no blanks, no trailing garbage.
[[nodiscard]] Result<u64> parse_unsigned(StringView text, u64 max_value, Reason* reason = nullptr);
// A module parameter's or sysfs file's line (trim_line'd) holding one
// number in [min_value, max_value]; EINVAL for anything else (the setters'
// errno for a value out of its documented range).
[[nodiscard]] Result<u64> parse_line_in_range(StringView line, u64 min_value, u64 max_value);
// Decimal with an optional leading '-'.
[[nodiscard]] Result<s64> parse_signed(StringView text, s64 min_value, s64 max_value, Reason* reason = nullptr);
// "1"/"y"/"Y"/"on" and "0"/"n"/"N"/"off".
[[nodiscard]] Result<bool> parse_bool(StringView text, Reason* reason = nullptr);

struct OptionSpec {
    StringView key;
    u8 max_count;  // how many times the key may appear (path= takes several)
    bool required;
};

struct Option {
    StringView key;
    StringView value;
    u16 spec_index;  // index into the spec table
};

struct ParseError {
    Reason reason = Reason::kNone;
    StringView token;  // the offending token or key, for the log line
};

// Splits `input` on blanks into key=value tokens, checks each key against
// `specs`, and writes them in input order to `out`. Returns the number of
// options. A single trailing newline is accepted; NUL or an embedded newline
// is not. `max_length` bounds the whole input.
[[nodiscard]] Result<size_t> parse_options(StringView input, Span<const OptionSpec> specs, Span<Option> out,
                                           ParseError* error, size_t max_length = 4096);

}  // namespace cxxrt::parse
