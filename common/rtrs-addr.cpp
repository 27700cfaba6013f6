// Path address parsing and printing; the accepted grammar is documented in
// rtrs-addr.hpp. Input is hostile (it comes from a sysfs write), so every
// step checks bounds against the StringView and nothing is copied except
// into the fixed-size result.
#include "common/rtrs-addr.hpp"

#include <cxxrt/errno.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/text.hpp>

namespace rtrs {

namespace {

using cxxrt::Error;
using cxxrt::TextBuffer;
using cxxrt::parse::has_control_character;
namespace err = cxxrt::err;

constexpr StringView kIpPrefix = StringView("ip:", 3);
constexpr StringView kGidPrefix = StringView("gid:", 4);

Error invalid() { return Error(err::kInval); }

constexpr bool is_decimal_digit(char c) { return c >= '0' && c <= '9'; }

constexpr int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Interface names may hold any printable byte except '/', ':' and blanks
// (dev_valid_name() in the kernel); a scope name must also not contain the
// path separators, or the address split would have been ambiguous.
constexpr bool is_interface_name_char(char c)
{
    return c > ' ' && c < 0x7f && c != '/' && c != ':' && c != ',' && c != '@' && c != '%';
}

// Dotted quad into out[0..3]. Strict: four octets, decimal, no sign, no
// leading zero, no empty octet, nothing after the fourth octet.
bool parse_ipv4(StringView text, u8* out)
{
    size_t position = 0;
    for (int octet = 0; octet < 4; ++octet) {
        if (octet > 0) {
            if (position >= text.length() || text[position] != '.')
                return false;
            ++position;
        }
        size_t start = position;
        unsigned value = 0;
        while (position < text.length() && is_decimal_digit(text[position])) {
            value = value * 10 + unsigned(text[position] - '0');
            ++position;
            // Three digits at most; checking inside the loop also keeps
            // `value` from growing on a long run of digits.
            if (position - start > 3 || value > 255)
                return false;
        }
        size_t digits = position - start;
        if (digits == 0)
            return false;
        if (digits > 1 && text[start] == '0')
            return false;
        out[octet] = u8(value);
    }
    return position == text.length();
}

// One RFC 4291 group: one to four hex digits.
bool parse_hex_group(StringView group, u16& word)
{
    if (group.length() > 4)
        return false;
    unsigned value = 0;
    for (size_t i = 0; i < group.length(); ++i) {
        int digit = hex_value(group[i]);
        if (digit < 0)
            return false;
        value = (value << 4) | unsigned(digit);
    }
    word = u16(value);
    return true;
}

// `count` parsed groups, "::" at `gap` (-1: none), into eight words in
// place: "::" stands for at least one zero group.
bool expand_gap(u16 (&words)[8], size_t count, int gap)
{
    if (gap < 0)
        return count == 8;
    if (count > 7)
        return false;
    size_t moved = count - size_t(gap);
    size_t zeros = 8 - count;
    for (size_t i = 0; i < moved; ++i) {
        size_t from = count - 1 - i;
        words[from + zeros] = words[from];
        words[from] = 0;
    }
    return true;
}

// RFC 4291 text into 16 bytes (network order).
bool parse_ipv6(StringView text, u8* out)
{
    u16 words[8] = {};
    size_t count = 0;
    int gap = -1;  // index in `words` where "::" stands, -1 when absent
    size_t position = 0;
    const size_t length = text.length();

    if (length == 0)
        return false;
    if (text[0] == ':') {
        if (length < 2 || text[1] != ':')
            return false;  // a lone leading ':' is not "::"
        gap = 0;
        position = 2;
        if (position == length) {
            for (size_t i = 0; i < 16; ++i)
                out[i] = 0;
            return true;  // "::" alone, the unspecified address
        }
    }

    for (;;) {
        size_t start = position;
        bool has_dot = false;
        while (position < length && text[position] != ':') {
            if (text[position] == '.')
                has_dot = true;
            ++position;
        }
        StringView group = text.substring(start, position - start);
        if (group.is_empty())
            return false;  // ":::" or a trailing single ':'
        if (has_dot) {
            // The IPv4 tail takes the last two groups and ends the text.
            if (position != length || count + 2 > 8)
                return false;
            u8 quad[4] = {};
            if (!parse_ipv4(group, quad))
                return false;
            words[count++] = u16((quad[0] << 8) | quad[1]);
            words[count++] = u16((quad[2] << 8) | quad[3]);
            break;
        }
        if (count >= 8 || !parse_hex_group(group, words[count]))
            return false;
        ++count;
        if (position == length)
            break;
        ++position;  // the ':' after the group
        if (position < length && text[position] == ':') {
            if (gap >= 0)
                return false;  // a second "::"
            gap = int(count);
            ++position;
            if (position == length)
                break;
        } else if (position == length) {
            return false;  // trailing single ':'
        }
    }

    if (!expand_gap(words, count, gap))
        return false;
    for (size_t i = 0; i < 8; ++i) {
        out[2 * i] = u8(words[i] >> 8);
        out[2 * i + 1] = u8(words[i]);
    }
    return true;
}

constexpr bool is_link_local(const u8* bytes) { return bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80; }

Result<void> parse_scope(StringView scope, Address& address)
{
    if (scope.is_empty() || scope.length() > kMaxScopeNameLength)
        return invalid();
    bool all_digits = true;
    for (size_t i = 0; i < scope.length(); ++i) {
        if (!is_interface_name_char(scope[i]))
            return invalid();
        if (!is_decimal_digit(scope[i]))
            all_digits = false;
    }
    if (!all_digits) {
        if (scope == StringView(".", 1) || scope == StringView("..", 2))
            return invalid();
        for (size_t i = 0; i < scope.length(); ++i)
            address.scope_name[i] = scope[i];
        address.scope_name_length = u8(scope.length());
        return {};
    }
    u32 value = 0;
    for (size_t i = 0; i < scope.length(); ++i) {
        u32 digit = u32(scope[i] - '0');
        if (value > (0xffffffffu - digit) / 10)
            return invalid();
        value = value * 10 + digit;
    }
    // Index 0 means "no interface"; writing it explicitly is a mistake.
    if (value == 0)
        return invalid();
    address.scope_id = value;
    return {};
}

Result<Address> parse_ip(StringView text)
{
    Address address;
    if (!text.contains(':')) {
        if (!parse_ipv4(text, address.bytes))
            return invalid();
        address.family = AddressFamily::kIpv4;
        return address;
    }
    size_t percent = text.find('%');
    StringView literal = text.substring(0, percent);
    if (!parse_ipv6(literal, address.bytes))
        return invalid();
    address.family = AddressFamily::kIpv6;
    if (percent != text.length()) {
        if (!is_link_local(address.bytes))
            return invalid();
        auto scoped = parse_scope(text.substring(percent + 1), address);
        if (scoped.is_error())
            return scoped.error();
    }
    return address;
}

void append_ipv4(TextBuffer& text, const u8* bytes)
{
    for (int i = 0; i < 4; ++i) {
        if (i > 0)
            text.append('.');
        text.append_unsigned(bytes[i]);
    }
}

// The kernel prints IPv4-mapped (::ffff:0:0/96) and ISATAP addresses with a
// dotted tail; mirror that so our directory names match upstream's.
bool prints_ipv4_tail(const u8* bytes)
{
    bool mapped = true;
    for (int i = 0; i < 10; ++i)
        if (bytes[i] != 0)
            mapped = false;
    if (mapped && bytes[10] == 0xff && bytes[11] == 0xff)
        return true;
    return (bytes[8] | 0x02) == 0x02 && bytes[9] == 0x00 && bytes[10] == 0x5e && bytes[11] == 0xfe;
}

void append_ipv6_compressed(TextBuffer& text, const u8* bytes)
{
    const bool ipv4_tail = prints_ipv4_tail(bytes);
    const int groups = ipv4_tail ? 6 : 8;
    u16 words[8] = {};
    for (int i = 0; i < 8; ++i)
        words[i] = u16((bytes[2 * i] << 8) | bytes[2 * i + 1]);

    // Longest run of zero groups, the first one on a tie, and only runs of
    // two or more are shortened to "::".
    int best_start = -1;
    int best_length = 1;
    for (int i = 0; i < groups;) {
        if (words[i] != 0) {
            ++i;
            continue;
        }
        int run = 0;
        while (i + run < groups && words[i + run] == 0)
            ++run;
        if (run > best_length) {
            best_length = run;
            best_start = i;
        }
        i += run;
    }

    bool need_colon = false;
    for (int i = 0; i < groups; ++i) {
        if (i == best_start) {
            text.append(StringView("::", 2));
            need_colon = false;
            i += best_length - 1;
            continue;
        }
        if (need_colon)
            text.append(':');
        text.append_hex(words[i]);
        need_colon = true;
    }
    if (ipv4_tail) {
        if (need_colon)
            text.append(':');
        append_ipv4(text, bytes + 12);
    }
}

void append_ipv6_full(TextBuffer& text, const u8* bytes)
{
    for (int i = 0; i < 8; ++i) {
        if (i > 0)
            text.append(':');
        text.append_hex(u16((bytes[2 * i] << 8) | bytes[2 * i + 1]), 4);
    }
}

Result<void> append_address(TextBuffer& text, const Address& address)
{
    switch (address.family) {
    case AddressFamily::kIpv4:
        text.append(kIpPrefix);
        append_ipv4(text, address.bytes);
        return {};
    case AddressFamily::kIpv6:
        text.append(kIpPrefix);
        append_ipv6_compressed(text, address.bytes);
        return {};
    case AddressFamily::kGid:
        text.append(kGidPrefix);
        append_ipv6_full(text, address.bytes);
        return {};
    case AddressFamily::kNone:
        break;
    }
    return invalid();
}

Result<size_t> finish(const TextBuffer& text)
{
    if (text.truncated())
        return Error(err::kNameTooLong);
    return text.length();
}

}  // namespace

Result<Address> parse_address(StringView text)
{
    if (text.length() > kMaxAddressTextLength || has_control_character(text))
        return invalid();
    if (text.starts_with(kIpPrefix))
        return parse_ip(text.substring(kIpPrefix.length()));
    if (text.starts_with(kGidPrefix)) {
        Address address;
        // A GID has no scope: the port GUID already names the interface.
        if (!parse_ipv6(text.substring(kGidPrefix.length()), address.bytes))
            return invalid();
        address.family = AddressFamily::kGid;
        return address;
    }
    return invalid();
}

Result<PathAddress> parse_path(StringView text, u16 port)
{
    if (!text.is_empty() && text[text.length() - 1] == '\n')
        text = text.substring(0, text.length() - 1);
    if (text.is_empty() || text.length() > kMaxPathTextLength || port == 0)
        return invalid();

    size_t separator = text.length();
    for (size_t i = 0; i < text.length(); ++i) {
        if (text[i] != ',' && text[i] != '@')
            continue;
        if (separator != text.length())
            return invalid();  // more than one separator
        separator = i;
    }

    PathAddress path;
    path.port = port;
    if (separator != text.length()) {
        auto source = parse_address(text.substring(0, separator));
        if (source.is_error())
            return source.error();
        path.source = source.value();
        path.has_source = true;
        text = text.substring(separator + 1);
    }
    auto destination = parse_address(text);
    if (destination.is_error())
        return destination.error();
    path.destination = destination.value();

    // RDMA CM binds the source and resolves towards the destination in one
    // address family: an IPv4 source for an IPv6 or GID destination could
    // only fail later, at connect time, with a less clear error.
    if (path.has_source && path.source.family != path.destination.family)
        return invalid();
    return path;
}

Result<size_t> format_address(const Address& address, Span<char> out)
{
    TextBuffer text(out);
    auto appended = append_address(text, address);
    if (appended.is_error())
        return appended.error();
    return finish(text);
}

Result<size_t> format_path_name(const Address& source, const Address& destination, Span<char> out)
{
    TextBuffer text(out);
    auto appended = append_address(text, source);
    if (appended.is_error())
        return appended.error();
    text.append('@');
    appended = append_address(text, destination);
    if (appended.is_error())
        return appended.error();
    return finish(text);
}

bool same_address(const Address& a, const Address& b)
{
    if (a.family != b.family || a.scope_id != b.scope_id || !(a.scope_name_view() == b.scope_name_view()))
        return false;
    for (size_t i = 0; i < sizeof(a.bytes); ++i)
        if (a.bytes[i] != b.bytes[i])
            return false;
    return true;
}

bool is_ipv4_mapped(AddressFamily family, const u8 (&bytes)[16])
{
    if (family != AddressFamily::kIpv6)
        return false;
    for (size_t i = 0; i < 10; ++i)
        if (bytes[i] != 0)
            return false;
    return bytes[10] == 0xff && bytes[11] == 0xff;
}

}  // namespace rtrs
