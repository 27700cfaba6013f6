// Path addresses as users write them to sysfs: `add_path` on an RTRS client
// session and `path=` in rnbd's map_device. Parsing and printing live here,
// free of kernel types, so the same code runs in the modules, in host unit
// tests and under a fuzzer; the kernel glue turns a PathAddress into
// sockaddr_in / sockaddr_in6 / sockaddr_ib.
//
// Accepted text (everything else is -EINVAL):
//   path    ::= [ address sep ] address         sep ::= "," | "@"
//   address ::= "ip:" ipv4 | "ip:" ipv6 [ "%" scope ] | "gid:" ipv6
// - At most one separator in the whole string; the single address form is
//   the destination, the source is then chosen by the routing code.
// - ipv4: exactly four decimal octets 0..255 without leading zeros
//   ("010" is rejected: other parsers read it as octal, so it is ambiguous).
// - ipv6 (and gid, which has the same text form): the RFC 4291 forms, 1..4
//   hex digits per group in either case, at most one "::", an optional
//   dotted IPv4 tail in place of the last two groups. No brackets.
// - scope: only after an ip: IPv6 link-local (fe80::/10) address, as the
//   kernel's inet_pton_with_scope() honours it only there. Either a decimal
//   interface index or an interface name (1..15 bytes, IFNAMSIZ - 1); a name
//   is handed to the kernel glue to resolve, this code cannot.
// - A trailing newline (from `echo`) is accepted; NUL, an embedded newline
//   or any other control character is not.
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>

namespace rtrs {

using cxxrt::Result;
using cxxrt::Span;
using cxxrt::StringView;
using namespace cxxrt::integers;

// RTRS's default service port (RTRS_PORT in the wire protocol).
inline constexpr u16 kDefaultPort = 1234;

// Longest text form of one address: "ip:" + 45 (IPv6 with IPv4 tail) +
// "%" + 15-byte scope, rounded up. Anything longer cannot be valid.
inline constexpr size_t kMaxAddressTextLength = 64;
// A source, a separator and a destination.
inline constexpr size_t kMaxPathTextLength = 2 * kMaxAddressTextLength + 1;
// Interface names are at most IFNAMSIZ - 1 = 15 bytes in Linux.
inline constexpr size_t kMaxScopeNameLength = 15;
// "gid:" + 39 + "@" + "gid:" + 39 plus a NUL; sysfs directory names must
// stay below NAME_MAX (255), which this is far from.
inline constexpr size_t kMaxPathNameLength = 2 * (4 + 39) + 1;

enum class AddressFamily : u8 {
    kNone = 0,  // no address (a path without an explicit source)
    kIpv4 = 1,
    kIpv6 = 2,
    kGid = 3,   // InfiniBand GID, AF_IB
};

struct Address {
    AddressFamily family = AddressFamily::kNone;
    // Network byte order. IPv4 uses bytes[0..3]; the rest stay zero.
    u8 bytes[16] = {};
    // IPv6 link-local scope: a numeric interface index, or a name the glue
    // resolves with dev_get_by_name(). Both zero/empty when absent.
    u32 scope_id = 0;
    u8 scope_name_length = 0;
    char scope_name[kMaxScopeNameLength + 1] = {};

    constexpr bool has_scope_name() const { return scope_name_length != 0; }
    constexpr StringView scope_name_view() const { return StringView(scope_name, scope_name_length); }
};

struct PathAddress {
    Address source;       // family kNone when !has_source
    Address destination;
    u16 port = kDefaultPort;  // destination port (or IB service id low bits)
    bool has_source = false;
};

// What upstream's src_addr/dst_addr files print for an address of no known
// family (a path whose source was never resolved).
inline constexpr StringView kUnknownAddressText = StringView("<invalid address family>", 24);

// Parses one address ("ip:..." or "gid:..."); no separators, no newline.
[[nodiscard]] Result<Address> parse_address(StringView text);

// Parses "[src,]dst" or "[src@]dst" with the given destination port (the
// caller passes kDefaultPort or the value of dest_port=).
[[nodiscard]] Result<PathAddress> parse_path(StringView text, u16 port = kDefaultPort);

// Writes the address the way upstream's sysfs prints it: "ip:192.0.2.1",
// "ip:2001:db8::1" (compressed, RFC 5952 style as the kernel's %pI6c),
// "gid:fe80:0000:0000:0000:0002:c903:0001:0002" (all eight groups, four
// digits each, as the kernel's %pI6). No scope, no port, no newline.
// Returns the length written (the text is NUL-terminated); -EINVAL for an
// address of family kNone, -ENAMETOOLONG if `out` is too small.
[[nodiscard]] Result<size_t> format_address(const Address& address, Span<char> out);

// The name of a path's sysfs directory: "<src>@<dst>". Both addresses must
// be known (the glue fills a missing source from the resolved route, as
// upstream does before it creates the directory).
[[nodiscard]] Result<size_t> format_path_name(const Address& source, const Address& destination, Span<char> out);

// True when both describe the same endpoint (family, bytes and scope);
// used to refuse a second path with the same addresses.
bool same_address(const Address& a, const Address& b);

// Whether an IPv6 address is IPv4-mapped (::ffff:a.b.c.d): how a dual-stack
// listener sees the IPv4 client a.b.c.d (its address in bytes 12..15).
bool is_ipv4_mapped(AddressFamily family, const u8 (&bytes)[16]);

}  // namespace rtrs
