// Text from sysfs is untrusted: a session's name is chosen by the remote
// peer, and a name may hold any byte but '/' and NUL (invalid UTF-8,
// terminal escape sequences, newlines). Every output takes such text apart
// here, one UTF-8 character at a time, and writes each character its own
// safe way: tables and messages through printable(), JSON in json.cpp,
// Prometheus label values in prometheus.cpp (Documentation/rnbdctl.md,
// "Untrusted names").
#pragma once

#include <cstddef>
#include <string>

namespace rnbdctl {

// What next_utf8 gives for a byte that starts no valid UTF-8 character.
inline constexpr char32_t kInvalidByte = 0xFFFFFFFF;
// U+FFFD, which JSON and Prometheus output put in place of an invalid byte.
inline constexpr char32_t kReplacementCharacter = 0xFFFD;

struct Utf8Character {
    char32_t code_point;  // kInvalidByte for an invalid byte
    size_t length;        // bytes taken: 1 for an invalid byte
};

// The character at `offset` (< text.size()). A truncated sequence, an
// overlong form, a surrogate or a code point above U+10FFFF is invalid:
// its first byte alone is taken, so the next call resynchronizes.
Utf8Character next_utf8(const std::string& text, size_t offset);
void append_utf8(std::string& out, char32_t code_point);
// The C0 controls, DEL and the C1 controls (U+0080..U+009F): the characters
// a terminal may act on rather than show.
bool is_control_character(char32_t code_point);

// For tables, text and error messages: printable characters as they are, a
// control character or an invalid byte as \xNN for each of its bytes, and a
// backslash as \\ so that an escape in the output is never the name's own
// text (as `ls -b` does).
std::string printable(const std::string& text);
// The columns printable(text) takes on a terminal, counted as characters
// (a wide East Asian character counts one; tables align names by it).
size_t display_width(const std::string& printable_text);

}  // namespace rnbdctl
