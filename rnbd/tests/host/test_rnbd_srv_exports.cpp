// Host unit tests of rnbd-server's export definitions and access decision
// (rnbd/core/rnbd-srv-exports.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rnbd/core/rnbd-srv-exports.hpp"

using namespace rnbd;
using namespace rnbd::srv::exports;
namespace err = cxxrt::err;

namespace {

StringView view(const std::string& text) { return StringView(text.data(), text.size()); }

// The definition's canonical text, or "E<errno> <reason>" for a refusal.
std::string canonical(const std::string& line)
{
    ExportDefinition definition;
    DefinitionError error;
    auto parsed = parse_definition(view(line), definition, &error);
    if (parsed.is_error())
        return "E" + std::to_string(-parsed.to_errno()) + " " + definition_reason_text(error);
    std::string out(kMaxDefinitionLength, '\0');
    auto length = format_definition(definition, Span<char>(out.data(), out.size()));
    if (length.is_error())
        return "format failed";
    out.resize(length.value());
    return out;
}

ExportDefinition parsed(const std::string& line)
{
    ExportDefinition definition;
    EXPECT_TRUE(parse_definition(view(line), definition).is_ok()) << line;
    return definition;
}

rtrs::Address address(const std::string& text)
{
    auto parsed = rtrs::parse_address(view(text));
    EXPECT_TRUE(parsed.is_ok()) << text;
    return parsed.is_ok() ? parsed.value() : rtrs::Address{};
}

bool admits(const ExportDefinition& definition, const std::string& session, const std::vector<std::string>& clients)
{
    std::vector<rtrs::Address> addresses;
    for (const std::string& client : clients)
        addresses.push_back(address(client));
    return admits_session(definition, view(session), Span<const rtrs::Address>(addresses.data(), addresses.size()));
}

TEST(RnbdSrvExports, CanonicalTextNamesEveryKeyInOneOrder)
{
    EXPECT_EQ(canonical("path=/dev/ram0 allow=any name=vol1\n"),
              "name=vol1 path=/dev/ram0 allow=any access=rw io_modes=blockio,fileio\n");
    EXPECT_EQ(canonical("name=db/log path=/srv/img/log.img allow=ip:192.0.2.0/24 allow=ip:2001:db8::/64 "
                        "access=ro io_modes=fileio session=client-a"),
              "name=db/log path=/srv/img/log.img allow=ip:192.0.2.0/24 allow=ip:2001:db8::/64 access=ro "
              "io_modes=fileio session=client-a\n");
    // A whole address needs no prefix length, and is printed without one.
    EXPECT_EQ(canonical("name=a path=/dev/ram0 allow=ip:192.0.2.7/32 allow=gid:fe80::2"),
              "name=a path=/dev/ram0 allow=ip:192.0.2.7 allow=gid:fe80:0000:0000:0000:0000:0000:0000:0002 "
              "access=rw io_modes=blockio,fileio\n");
}

TEST(RnbdSrvExports, CanonicalTextParsesToTheSameText)
{
    const std::string text = canonical("name=x path=/dev/sdb allow=ip:10.0.0.0/8 allow=ip:fd00::/8 access=ro "
                                       "io_modes=blockio session=s1");
    EXPECT_EQ(canonical(text), text);
}

TEST(RnbdSrvExports, RequiredKeysAndTheirBounds)
{
    EXPECT_EQ(canonical("name=a path=/dev/ram0"), "E22 required key missing");
    EXPECT_EQ(canonical("name=a allow=any"), "E22 required key missing");
    EXPECT_EQ(canonical("path=/dev/ram0 allow=any"), "E22 required key missing");
    EXPECT_EQ(canonical("name=a name=b path=/dev/ram0 allow=any").substr(0, 3), "E22");
    EXPECT_EQ(canonical("name=a path=/dev/ram0 allow=any colour=blue").substr(0, 3), "E22");
    const std::string long_name(kMaxNameLength + 1, 'n');
    EXPECT_EQ(canonical("name=" + long_name + " path=/dev/ram0 allow=any").substr(0, 3), "E22");
    EXPECT_EQ(canonical("name=" + long_name.substr(1) + " path=/dev/ram0 allow=any").substr(0, 5), "name=");
}

TEST(RnbdSrvExports, RefusesNamesThatCannotNameADirectory)
{
    for (const char* name : {".", "..", "a!b"}) {
        const std::string line = std::string("name=") + name + " path=/dev/ram0 allow=any";
        EXPECT_EQ(canonical(line).substr(0, 8), "E22 name") << name;
    }
    EXPECT_EQ(canonical(std::string("name=a\x1b[2J path=/dev/ram0 allow=any")).substr(0, 3), "E22");
}

TEST(RnbdSrvExports, BackingIsAnAbsolutePathWithoutDotComponents)
{
    for (const char* path : {"dev/ram0", "/dev/../etc/shadow", "/dev/./ram0", "/dev/ram0/..", "/srv/.."}) {
        const std::string line = std::string("name=a allow=any path=") + path;
        EXPECT_EQ(canonical(line).substr(0, 8), "E22 path") << path;
    }
    // A dot inside a name is no component.
    EXPECT_EQ(canonical("name=a allow=any path=/srv/img/..hidden.img").substr(0, 5), "name=");
    const std::string long_path = "/" + std::string(kMaxBackingLength, 'p');
    EXPECT_EQ(canonical("name=a allow=any path=" + long_path).substr(0, 8), "E22 path");
}

TEST(RnbdSrvExports, AllowRulesAreAddressesWithAPrefix)
{
    for (const char* rule : {"all", "192.0.2.0/24", "ip:192.0.2.0/33", "ip:192.0.2.0/", "ip:192.0.2.0/x",
                             "ip:2001:db8::/129", "ip:fe80::1%eth0", "gid:fe80::2/129", "ip:", "ip:192.0.2.0/-1"}) {
        DefinitionError error;
        auto parsed = parse_allow_rule(StringView(rule), &error);
        EXPECT_TRUE(parsed.is_error()) << rule;
        EXPECT_EQ(error.reason, DefinitionReason::kBadAllow) << rule;
    }
    // Bits beyond the prefix: the administrator meant another network.
    DefinitionError error;
    EXPECT_TRUE(parse_allow_rule(StringView("ip:192.0.2.1/24"), &error).is_error());
    EXPECT_EQ(error.reason, DefinitionReason::kAllowHostBits);
    EXPECT_TRUE(parse_allow_rule(StringView("ip:2001:db8::1/64"), &error).is_error());
    EXPECT_EQ(error.reason, DefinitionReason::kAllowHostBits);
    EXPECT_TRUE(parse_allow_rule(StringView("ip:0.0.0.0/0")).is_ok());
    EXPECT_TRUE(parse_allow_rule(StringView("ip:::/0")).is_ok());
    // At most kMaxAllowRules.
    std::string line = "name=a path=/dev/ram0";
    for (size_t i = 0; i < kMaxAllowRules; ++i)
        line += " allow=ip:10.0." + std::to_string(i) + ".0/24";
    EXPECT_EQ(canonical(line).substr(0, 5), "name=");
    EXPECT_EQ(canonical(line + " allow=any").substr(0, 3), "E22");
}

TEST(RnbdSrvExports, AccessIoModesAndSessionValues)
{
    EXPECT_EQ(canonical("name=a path=/dev/ram0 allow=any access=wo"), "E22 access must be ro or rw");
    EXPECT_EQ(canonical("name=a path=/dev/ram0 allow=any io_modes=mmap").substr(0, 12), "E22 io_modes");
    EXPECT_NE(canonical("name=a path=/dev/ram0 allow=any io_modes=fileio,blockio").find("io_modes=blockio,fileio"),
              std::string::npos);
    EXPECT_EQ(canonical("name=a path=/dev/ram0 allow=any session=a/b").substr(0, 11), "E22 session");
    EXPECT_EQ(canonical("name=a path=/dev/ram0 allow=any session=..").substr(0, 11), "E22 session");
}

TEST(RnbdSrvExports, AnAddressIsAdmittedByItsPrefix)
{
    const ExportDefinition definition =
        parsed("name=a path=/dev/ram0 allow=ip:192.0.2.0/24 allow=ip:2001:db8:1::/48 allow=ip:198.51.100.7");
    EXPECT_TRUE(admits_address(definition, address("ip:192.0.2.1")));
    EXPECT_TRUE(admits_address(definition, address("ip:192.0.2.255")));
    EXPECT_FALSE(admits_address(definition, address("ip:192.0.3.1")));
    EXPECT_TRUE(admits_address(definition, address("ip:198.51.100.7")));
    EXPECT_FALSE(admits_address(definition, address("ip:198.51.100.8")));
    EXPECT_TRUE(admits_address(definition, address("ip:2001:db8:1:ffff::9")));
    EXPECT_FALSE(admits_address(definition, address("ip:2001:db8:2::9")));
    // The dual-stack listener sees an IPv4 client as ::ffff:a.b.c.d.
    EXPECT_TRUE(admits_address(definition, address("ip:::ffff:192.0.2.9")));
    EXPECT_FALSE(admits_address(definition, address("ip:::ffff:192.0.3.9")));
    // Families do not mix: a GID never matches an IP rule.
    EXPECT_FALSE(admits_address(definition, address("gid:2001:db8:1::9")));
}

TEST(RnbdSrvExports, PrefixLengthsThatAreNotWholeBytes)
{
    const ExportDefinition definition = parsed("name=a path=/dev/ram0 allow=ip:10.64.0.0/10");
    EXPECT_TRUE(admits_address(definition, address("ip:10.64.0.1")));
    EXPECT_TRUE(admits_address(definition, address("ip:10.127.255.255")));
    EXPECT_FALSE(admits_address(definition, address("ip:10.128.0.0")));
    EXPECT_FALSE(admits_address(definition, address("ip:10.63.255.255")));
    const ExportDefinition everyone = parsed("name=a path=/dev/ram0 allow=ip:0.0.0.0/0");
    EXPECT_TRUE(admits_address(everyone, address("ip:203.0.113.1")));
    EXPECT_FALSE(admits_address(everyone, address("ip:2001:db8::1")));
}

TEST(RnbdSrvExports, EveryPathOfTheSessionMustBeAdmitted)
{
    const ExportDefinition definition = parsed("name=a path=/dev/ram0 allow=ip:192.0.2.0/24");
    EXPECT_TRUE(admits(definition, "s1", {"ip:192.0.2.1", "ip:192.0.2.2"}));
    // A second path from elsewhere would carry the export's IO from there.
    EXPECT_FALSE(admits(definition, "s1", {"ip:192.0.2.1", "ip:203.0.113.1"}));
    EXPECT_FALSE(admits(definition, "s1", {}));
    const ExportDefinition any = parsed("name=a path=/dev/ram0 allow=any");
    EXPECT_TRUE(admits(any, "s1", {"ip:203.0.113.1", "gid:fe80::2"}));
}

TEST(RnbdSrvExports, TheSessionRuleNamesOneSession)
{
    const ExportDefinition definition = parsed("name=a path=/dev/ram0 allow=any session=client-a");
    EXPECT_TRUE(admits(definition, "client-a", {"ip:192.0.2.1"}));
    EXPECT_FALSE(admits(definition, "client-b", {"ip:192.0.2.1"}));
    EXPECT_FALSE(admits(definition, "client-a2", {"ip:192.0.2.1"}));
    EXPECT_FALSE(admits(definition, "client-", {"ip:192.0.2.1"}));
}

TEST(RnbdSrvExports, OpenModes)
{
    const ExportDefinition read_only = parsed("name=a path=/dev/ram0 allow=any access=ro io_modes=blockio");
    EXPECT_EQ(check_open_mode(read_only, wire::AccessMode::kReadOnly, wire::IoMode::kUnspecified), 0);
    EXPECT_EQ(check_open_mode(read_only, wire::AccessMode::kReadOnly, wire::IoMode::kBlockIo), 0);
    EXPECT_EQ(check_open_mode(read_only, wire::AccessMode::kReadWrite, wire::IoMode::kBlockIo), -err::kAccess);
    EXPECT_EQ(check_open_mode(read_only, wire::AccessMode::kMigration, wire::IoMode::kBlockIo), -err::kAccess);
    EXPECT_EQ(check_open_mode(read_only, wire::AccessMode::kReadOnly, wire::IoMode::kFileIo), -err::kInval);
    const ExportDefinition both = parsed("name=a path=/dev/ram0 allow=any");
    EXPECT_EQ(check_open_mode(both, wire::AccessMode::kReadWrite, wire::IoMode::kFileIo), 0);
    EXPECT_EQ(check_open_mode(both, wire::AccessMode::kMigration, wire::IoMode::kBlockIo), 0);
}

TEST(RnbdSrvExports, DirectoryNames)
{
    char out[16];
    auto length = directory_name(StringView("db/log"), Span<char>(out, sizeof(out)));
    ASSERT_TRUE(length.is_ok());
    EXPECT_STREQ(out, "db!log");
    EXPECT_TRUE(directory_name(StringView("0123456789abcdef"), Span<char>(out, sizeof(out))).is_error());
}

}  // namespace
