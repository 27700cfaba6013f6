// Export definitions and the access decision; see rnbd-srv-exports.hpp.
#include "rnbd/core/rnbd-srv-exports.hpp"

#include <cxxrt/errno.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/text.hpp>

namespace rnbd::srv::exports {

namespace {

using cxxrt::Error;
using cxxrt::TextBuffer;
namespace err = cxxrt::err;
namespace parse = cxxrt::parse;

enum SpecIndex : u16 { kName, kPath, kAllow, kAccess, kIoModes, kSession, kSpecCount };

constexpr parse::OptionSpec kSpecs[kSpecCount] = {
    {StringView("name", 4), 1, true},
    {StringView("path", 4), 1, true},
    {StringView("allow", 5), u8(kMaxAllowRules), true},
    {StringView("access", 6), 1, false},
    {StringView("io_modes", 8), 1, false},
    {StringView("session", 7), 1, false},
};
constexpr size_t kMaxTokens = kSpecCount - 1 + kMaxAllowRules;

Error reject(DefinitionError* error, DefinitionReason reason, StringView token)
{
    if (error) {
        error->reason = reason;
        error->token = token;
    }
    return Error(err::kInval);
}

bool is_dot_or_dot_dot(StringView text) { return text == StringView(".", 1) || text == StringView("..", 2); }

// Copies `text` into `out` (NUL-terminated); false if it does not fit.
template <size_t N>
bool copy_text(StringView text, char (&out)[N])
{
    if (text.length() >= N)
        return false;
    for (size_t i = 0; i < text.length(); ++i)
        out[i] = text[i];
    out[text.length()] = '\0';
    return true;
}

Result<void> check_name(StringView name, DefinitionError* error)
{
    if (name.length() > kMaxNameLength || parse::has_control_character(name) || is_dot_or_dot_dot(name) ||
        name.contains('!'))
        return reject(error, DefinitionReason::kBadName, name);
    return {};
}

// An absolute path with no "." or ".." component: the administrator names
// the object itself, not a way to it.
Result<void> check_backing(StringView path, DefinitionError* error)
{
    if (path.length() > kMaxBackingLength || path.is_empty() || path[0] != '/' || parse::has_control_character(path))
        return reject(error, DefinitionReason::kBadBacking, path);
    size_t start = 1;
    while (start <= path.length()) {
        size_t end = start;
        while (end < path.length() && path[end] != '/')
            ++end;
        if (is_dot_or_dot_dot(path.substring(start, end - start)))
            return reject(error, DefinitionReason::kBadBacking, path);
        start = end + 1;
    }
    return {};
}

Result<void> check_session(StringView name, DefinitionError* error)
{
    // As map_device's sessname: it names a sysfs directory on both sides.
    if (name.length() > kMaxSessionLength || name.contains('/') || is_dot_or_dot_dot(name) ||
        parse::has_control_character(name))
        return reject(error, DefinitionReason::kBadSession, name);
    return {};
}

Result<u8> parse_io_modes(StringView text, DefinitionError* error)
{
    if (text == StringView("blockio", 7))
        return kIoModeBlockIo;
    if (text == StringView("fileio", 6))
        return kIoModeFileIo;
    if (text == StringView("blockio,fileio", 14) || text == StringView("fileio,blockio", 14))
        return u8(kIoModeBlockIo | kIoModeFileIo);
    return reject(error, DefinitionReason::kBadIoModes, text);
}

u8 full_prefix(rtrs::AddressFamily family) { return family == rtrs::AddressFamily::kIpv4 ? 32 : 128; }

// Whether the first `bits` bits of `a` and `b` are equal.
bool same_prefix(const u8* a, const u8* b, u8 bits)
{
    size_t i = 0;
    for (; bits >= 8; bits = u8(bits - 8), ++i)
        if (a[i] != b[i])
            return false;
    if (bits == 0)
        return true;
    const u8 mask = u8(0xff << (8 - bits));
    return (a[i] & mask) == (b[i] & mask);
}

// Whether any bit after the first `bits` of `bytes` (of `length` bytes) is set.
bool has_host_bits(const u8* bytes, size_t length, u8 bits)
{
    for (size_t i = 0; i < length; ++i) {
        const size_t first_bit = i * 8;
        u8 keep = 0;
        if (bits >= first_bit + 8)
            keep = 0xff;
        else if (bits > first_bit)
            keep = u8(0xff << (8 - (bits - first_bit)));
        if (bytes[i] & u8(~keep))
            return true;
    }
    return false;
}

// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as the IPv4 address it stands for.
rtrs::Address unmapped(const rtrs::Address& address)
{
    if (!rtrs::is_ipv4_mapped(address.family, address.bytes))
        return address;
    rtrs::Address v4;
    v4.family = rtrs::AddressFamily::kIpv4;
    for (size_t i = 0; i < 4; ++i)
        v4.bytes[i] = address.bytes[12 + i];
    return v4;
}

[[gnu::noinline]] Result<void> apply(const parse::Option& option, ExportDefinition& out, DefinitionError* error)
{
    const StringView value = option.value;
    switch (option.spec_index) {
    case kName:
        CXXRT_TRY(check_name(value, error));
        (void)copy_text(value, out.name);
        return {};
    case kPath:
        CXXRT_TRY(check_backing(value, error));
        (void)copy_text(value, out.backing);
        return {};
    case kAllow: {
        AllowRule rule = CXXRT_TRY(parse_allow_rule(value, error));
        out.rules[out.rule_count++] = rule;
        return {};
    }
    case kAccess:
        if (value == StringView("rw", 2))
            out.read_only = false;
        else if (value == StringView("ro", 2))
            out.read_only = true;
        else
            return reject(error, DefinitionReason::kBadAccess, value);
        return {};
    case kIoModes:
        out.io_modes = CXXRT_TRY(parse_io_modes(value, error));
        return {};
    case kSession:
        CXXRT_TRY(check_session(value, error));
        (void)copy_text(value, out.session);
        return {};
    default:
        break;
    }
    return reject(error, DefinitionReason::kSyntax, option.key);
}

void reset(ExportDefinition& out)
{
    out.name[0] = out.backing[0] = out.session[0] = '\0';
    out.read_only = false;
    out.io_modes = kIoModeBlockIo | kIoModeFileIo;
    out.rule_count = 0;
    for (AllowRule& rule : out.rules)
        rule = AllowRule{};
}

}  // namespace

const char* definition_reason_text(const DefinitionError& error)
{
    switch (error.reason) {
    case DefinitionReason::kNone: return "no error";
    case DefinitionReason::kSyntax: return error.syntax;
    case DefinitionReason::kBadName:
        return "name must be 1..254 bytes without control characters or '!', and not '.' or '..'";
    case DefinitionReason::kBadBacking:
        return "path must be an absolute path below 1024 bytes without control characters or '.'/'..' components";
    case DefinitionReason::kBadAllow:
        return "allow must be 'any' or ip:<ipv4|ipv6>[/<bits>] or gid:<gid>[/<bits>]";
    case DefinitionReason::kAllowHostBits: return "allow: the address has bits set beyond its prefix length";
    case DefinitionReason::kBadAccess: return "access must be ro or rw";
    case DefinitionReason::kBadIoModes: return "io_modes must be blockio, fileio or blockio,fileio";
    case DefinitionReason::kBadSession:
        return "session must be at most 254 bytes without '/' or control characters, and not '.' or '..'";
    }
    return "unknown error";
}

Result<AllowRule> parse_allow_rule(StringView text, DefinitionError* error)
{
    AllowRule rule;
    if (text == StringView("any", 3)) {
        rule.any = true;
        return rule;
    }
    // A scope (%eth0) names an interface of the client, meaningless here.
    if (text.contains('%'))
        return reject(error, DefinitionReason::kBadAllow, text);
    const size_t slash = text.find('/');
    auto address = rtrs::parse_address(text.substring(0, slash));
    if (address.is_error())
        return reject(error, DefinitionReason::kBadAllow, text);
    rule.family = address.value().family;
    for (size_t i = 0; i < sizeof(rule.bytes); ++i)
        rule.bytes[i] = address.value().bytes[i];
    const u8 full = full_prefix(rule.family);
    rule.prefix_bits = full;
    if (slash != text.length()) {
        auto bits = parse::parse_unsigned(text.substring(slash + 1), full);
        if (bits.is_error())
            return reject(error, DefinitionReason::kBadAllow, text);
        rule.prefix_bits = u8(bits.value());
    }
    if (has_host_bits(rule.bytes, rule.family == rtrs::AddressFamily::kIpv4 ? 4 : 16, rule.prefix_bits))
        return reject(error, DefinitionReason::kAllowHostBits, text);
    return rule;
}

Result<void> parse_definition(StringView line, ExportDefinition& out, DefinitionError* error)
{
    if (error)
        *error = DefinitionError{};
    reset(out);
    parse::Option options[kMaxTokens];
    parse::ParseError syntax;
    auto count = parse::parse_options(line, Span<const parse::OptionSpec>(kSpecs), Span<parse::Option>(options),
                                      &syntax, kMaxDefinitionLength);
    if (count.is_error()) {
        if (error)
            error->syntax = parse::reason_text(syntax.reason);
        return reject(error, DefinitionReason::kSyntax, syntax.token);
    }
    for (size_t i = 0; i < count.value(); ++i)
        CXXRT_TRY(apply(options[i], out, error));
    return {};
}

Result<size_t> format_allow_rule(const AllowRule& rule, Span<char> out)
{
    TextBuffer text(out);
    if (rule.any) {
        text.append(StringView("any", 3));
    } else {
        rtrs::Address address;
        address.family = rule.family;
        for (size_t i = 0; i < sizeof(address.bytes); ++i)
            address.bytes[i] = rule.bytes[i];
        char formatted[rtrs::kMaxAddressTextLength];
        const size_t length = CXXRT_TRY(rtrs::format_address(address, Span<char>(formatted, sizeof(formatted))));
        text.append(StringView(formatted, length));
        if (rule.prefix_bits != full_prefix(rule.family)) {
            text.append('/');
            text.append_unsigned(rule.prefix_bits);
        }
    }
    if (text.truncated())
        return Error(err::kNameTooLong);
    return text.length();
}

const char* io_modes_text(u8 io_modes)
{
    if (io_modes == kIoModeBlockIo)
        return "blockio";
    if (io_modes == kIoModeFileIo)
        return "fileio";
    return "blockio,fileio";
}

Result<size_t> format_definition(const ExportDefinition& definition, Span<char> out)
{
    TextBuffer text(out);
    text.append(StringView("name=", 5));
    text.append(StringView(definition.name));
    text.append(StringView(" path=", 6));
    text.append(StringView(definition.backing));
    for (size_t i = 0; i < definition.rule_count; ++i) {
        char rule[rtrs::kMaxAddressTextLength + 8];
        const size_t length = CXXRT_TRY(format_allow_rule(definition.rules[i], Span<char>(rule, sizeof(rule))));
        text.append(StringView(" allow=", 7));
        text.append(StringView(rule, length));
    }
    text.append(StringView(definition.read_only ? " access=ro" : " access=rw"));
    text.append(StringView(" io_modes=", 10));
    text.append(StringView(io_modes_text(definition.io_modes)));
    if (definition.session[0] != '\0') {
        text.append(StringView(" session=", 9));
        text.append(StringView(definition.session));
    }
    text.append('\n');
    if (text.truncated())
        return Error(err::kNameTooLong);
    return text.length();
}

bool rule_admits(const AllowRule& rule, const rtrs::Address& address)
{
    if (rule.any)
        return true;
    const rtrs::Address client = unmapped(address);
    if (client.family != rule.family)
        return false;
    return same_prefix(rule.bytes, client.bytes, rule.prefix_bits);
}

bool admits_address(const ExportDefinition& definition, const rtrs::Address& address)
{
    for (size_t i = 0; i < definition.rule_count; ++i)
        if (rule_admits(definition.rules[i], address))
            return true;
    return false;
}

bool admits_session(const ExportDefinition& definition, StringView session_name,
                    Span<const rtrs::Address> addresses)
{
    if (definition.session[0] != '\0' && !(session_name == StringView(definition.session)))
        return false;
    if (addresses.is_empty())
        return false;
    for (const rtrs::Address& address : addresses)
        if (!admits_address(definition, address))
            return false;
    return true;
}

int check_open_mode(const ExportDefinition& definition, wire::AccessMode access, wire::IoMode io_mode)
{
    if (definition.read_only && access != wire::AccessMode::kReadOnly)
        return -err::kAccess;
    if (io_mode == wire::IoMode::kBlockIo && !(definition.io_modes & kIoModeBlockIo))
        return -err::kInval;
    if (io_mode == wire::IoMode::kFileIo && !(definition.io_modes & kIoModeFileIo))
        return -err::kInval;
    return 0;
}

Result<size_t> directory_name(StringView name, Span<char> out)
{
    if (name.length() >= out.size())
        return Error(err::kNameTooLong);
    for (size_t i = 0; i < name.length(); ++i)
        out[i] = name[i] == '/' ? '!' : name[i];
    out[name.length()] = '\0';
    return name.length();
}

}  // namespace rnbd::srv::exports
