// libFuzzer target for path address parsing. Beyond "no crash", it checks
// the round trip: whatever parses must print to text that parses back to
// the same address, and printing must stay inside the buffer. A second
// opinion comes from the C library: an address literal (IPv4, or IPv6/GID
// without a scope) parses exactly when inet_pton() reads it, to the same
// bytes, except for the forms rtrs-addr.hpp refuses on purpose.
#include <arpa/inet.h>
#include <string.h>

#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "common/rtrs-addr.hpp"

namespace {

// glibc's inet_pton on one literal; false when it refuses.
bool libc_parse(int family, fuzz::StringView literal, unsigned char* bytes)
{
    char copy[rtrs::kMaxAddressTextLength + 1];
    if (literal.length() >= sizeof(copy) || memchr(literal.data(), '\0', literal.length()))
        return false;
    memcpy(copy, literal.data(), literal.length());
    copy[literal.length()] = '\0';
    return inet_pton(family, copy, bytes) == 1;
}

// One address text ("ip:..." or "gid:...") compared with the C library.
void check_against_libc(fuzz::StringView text)
{
    auto ours = rtrs::parse_address(text);
    fuzz::StringView literal;
    bool gid = false;
    if (text.starts_with("ip:")) {
        literal = text.substring(3);
    } else if (text.starts_with("gid:")) {
        literal = text.substring(4);
        gid = true;
    } else {
        FUZZ_CHECK(ours.is_error());
        return;
    }
    if (literal.contains('%'))
        return;  // scopes are ours to parse; inet_pton knows none
    unsigned char bytes[16] = {};
    const bool v4 = !gid && !literal.contains(':') && libc_parse(AF_INET, literal, bytes);
    const bool v6 = !v4 && literal.contains(':') && libc_parse(AF_INET6, literal, bytes);
    if (!ours.is_ok()) {
        // Refused while libc reads it: only for documented reasons (a text
        // too long or with control characters, which inet_pton also
        // refuses, so nothing is expected here).
        FUZZ_CHECK(!v4 && !v6);
        return;
    }
    FUZZ_CHECK(v4 || v6);
    FUZZ_CHECK(memcmp(ours.value().bytes, bytes, v4 ? 4 : 16) == 0);
    FUZZ_CHECK(ours.value().family == (gid ? rtrs::AddressFamily::kGid
                                           : v4 ? rtrs::AddressFamily::kIpv4 : rtrs::AddressFamily::kIpv6));
}

void check_round_trip(const rtrs::Address& address)
{
    char text[rtrs::kMaxAddressTextLength + 8];
    for (unsigned i = 0; i < sizeof(text); ++i)
        text[i] = 'Z';
    auto length = rtrs::format_address(address, cxxrt::Span<char>(text, rtrs::kMaxAddressTextLength));
    FUZZ_CHECK(length.is_ok());
    FUZZ_CHECK(length.value() < rtrs::kMaxAddressTextLength);
    FUZZ_CHECK(text[length.value()] == '\0');
    for (unsigned i = rtrs::kMaxAddressTextLength; i < sizeof(text); ++i)
        FUZZ_CHECK(text[i] == 'Z');
    auto again = rtrs::parse_address(cxxrt::StringView(text, length.value()));
    FUZZ_CHECK(again.is_ok());
    FUZZ_CHECK(again.value().family == address.family);
    for (unsigned i = 0; i < 16; ++i)
        FUZZ_CHECK(again.value().bytes[i] == address.bytes[i]);
}

}  // namespace

FUZZ_TARGET(data, size)
{
    cxxrt::StringView input(reinterpret_cast<const char*>(data), size);
    if (!input.contains(',') && !input.contains('@') && !input.contains('\n'))
        check_against_libc(input);
    auto path = rtrs::parse_path(input, 1234);
    if (path.is_error()) {
        FUZZ_CHECK(path.to_errno() == -22);
        return 0;
    }
    const rtrs::PathAddress& parsed = path.value();
    FUZZ_CHECK(parsed.destination.family != rtrs::AddressFamily::kNone);
    check_round_trip(parsed.destination);
    if (parsed.has_source) {
        check_round_trip(parsed.source);
        char name[rtrs::kMaxPathNameLength + 1];
        auto length = rtrs::format_path_name(parsed.source, parsed.destination, cxxrt::Span<char>(name));
        FUZZ_CHECK(length.is_ok() && length.value() <= rtrs::kMaxPathNameLength);
    }
    return 0;
}
