// rnbd-server exports without a kernel: the definition an administrator
// writes to exports/add, its canonical text (what exports/<name>/definition
// prints and `rnbdctl server save` keeps), and the access decision for a
// session: its name and the client address of every one of its paths.
//
// A definition is one line of key=value words (the map_device tokenizer):
//   name=<export name> path=<backing path> allow=<rule> [allow=<rule>...]
//   [access=ro|rw] [io_modes=blockio|fileio|blockio,fileio] [session=<name>]
// name     what a client writes as device_path (bytes compared as they
//          are); 1..254 bytes, no control character, not "." or "..", no
//          '!' (the sysfs directory name is the name with '/' as '!').
// path     the backing object, an absolute path: a block device, or a
//          regular file under file_export_dir. No '..' component.
// allow    who may open it: "any", or an address with an optional prefix
//          length: ip:192.0.2.0/24, ip:2001:db8::/64, gid:fe80::2/64. Up
//          to kMaxAllowRules. Required: an export nobody may open is a
//          mistake, and "any" says so on purpose.
// access   rw (default) or ro: a read-write OPEN of an ro export is refused.
// io_modes which io_mode a client may ask for (default both; a client that
//          asks none gets the server's choice).
// session  only a session of this name may open it.
//
// Kernel-independent; host-tested (rnbd/tests/host/test_rnbd_srv_exports.cpp)
// and fuzzed (rnbd/tests/fuzz/fuzz_rnbd_srv_exports.cpp).
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>
#include <proto/rnbd-wire.hpp>
#include "common/rtrs-addr.hpp"

namespace rnbd::srv::exports {

using cxxrt::Result;
using cxxrt::Span;
using cxxrt::StringView;
using namespace cxxrt::integers;

inline constexpr size_t kMaxNameLength = 254;       // as a map_device device_path
inline constexpr size_t kMaxBackingLength = 1023;   // the backing path
inline constexpr size_t kMaxSessionLength = 254;    // as a sessname
inline constexpr size_t kMaxAllowRules = 16;
// One definition line: every key at its longest, with room to spare.
inline constexpr size_t kMaxDefinitionLength = 4096;

// A rule of allow=: any client, or the clients whose address (of `family`)
// shares its first `prefix_bits` bits with `bytes`.
struct AllowRule {
    bool any = false;
    rtrs::AddressFamily family = rtrs::AddressFamily::kNone;
    u8 bytes[16] = {};
    u8 prefix_bits = 0;
};

// Bits of ExportDefinition::io_modes.
inline constexpr u8 kIoModeBlockIo = 1;
inline constexpr u8 kIoModeFileIo = 2;

struct ExportDefinition {
    char name[kMaxNameLength + 1] = {};
    char backing[kMaxBackingLength + 1] = {};
    char session[kMaxSessionLength + 1] = {};  // "" = any session
    bool read_only = false;
    u8 io_modes = kIoModeBlockIo | kIoModeFileIo;
    u8 rule_count = 0;
    AllowRule rules[kMaxAllowRules];
};

// Why a definition was refused (for the one log line of the refusal).
enum class DefinitionReason : u8 {
    kNone,
    kSyntax,          // the tokenizer's reason: see `syntax`
    kBadName,
    kBadBacking,
    kBadAllow,
    kAllowHostBits,   // an address with bits set beyond its prefix length
    kBadAccess,
    kBadIoModes,
    kBadSession,
};

struct DefinitionError {
    DefinitionReason reason = DefinitionReason::kNone;
    const char* syntax = "";  // the tokenizer's reason text, for kSyntax
    StringView token;         // the offending value
};

const char* definition_reason_text(const DefinitionError& error);

// Parses a definition line (a trailing newline is accepted). -EINVAL with
// `error` filled; `out` is meaningful only on success.
[[nodiscard]] Result<void> parse_definition(StringView line, ExportDefinition& out, DefinitionError* error = nullptr);

// Parses one allow= rule ("any", "ip:<addr>[/<bits>]", "gid:<gid>[/<bits>]").
[[nodiscard]] Result<AllowRule> parse_allow_rule(StringView text, DefinitionError* error = nullptr);

// The canonical text of a definition: every key, in the order of the
// comment above, one line ending in '\n'; parse_definition() of it gives
// the same definition. -ENAMETOOLONG if `out` is too small.
[[nodiscard]] Result<size_t> format_definition(const ExportDefinition& definition, Span<char> out);
// One rule as allow= takes it ("any", "ip:192.0.2.0/24"; the prefix length
// is left out when it covers the whole address).
[[nodiscard]] Result<size_t> format_allow_rule(const AllowRule& rule, Span<char> out);
// "blockio", "fileio" or "blockio,fileio".
const char* io_modes_text(u8 io_modes);

// Whether `rule` admits a client at `address` (an IPv4-mapped IPv6 address
// is that IPv4 address, as the server's dual-stack listener sees IPv4
// clients).
bool rule_admits(const AllowRule& rule, const rtrs::Address& address);
// Whether some rule of `definition` admits `address`.
bool admits_address(const ExportDefinition& definition, const rtrs::Address& address);
// Whether a session named `session_name` whose paths come from
// `addresses` may open the export: the session rule (if any) names it,
// and every path's client address is admitted (a session with no path
// known is refused).
bool admits_session(const ExportDefinition& definition, StringView session_name,
                    Span<const rtrs::Address> addresses);

// Whether a client may open the export in `access` and `io_mode`:
// 0, -EACCES (read-write of an ro export) or -EINVAL (an io_mode the
// export does not allow; kUnspecified is always allowed).
int check_open_mode(const ExportDefinition& definition, wire::AccessMode access, wire::IoMode io_mode);

// The sysfs directory name of an export: the name with every '/' as '!'.
[[nodiscard]] Result<size_t> directory_name(StringView name, Span<char> out);

}  // namespace rnbd::srv::exports
