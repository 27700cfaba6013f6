// Host unit tests of rnbd-server's kernel-independent policy
// (rnbd/rnbd-srv-policy.hpp): device paths, access rules, IO admission.
#include <gtest/gtest.h>

#include <string>

#include "rnbd/rnbd-srv-policy.hpp"

using namespace rnbd;
using namespace rnbd::srv::policy;
namespace err = cxxrt::err;

namespace {

// The path the server would open, or "E<errno>".
std::string full_path(const std::string& search, const std::string& session, const std::string& device)
{
    std::string out(kPathMax, '\xff');
    auto r = build_full_path(Span<char>(out.data(), out.size()), StringView(search.data(), search.size()),
                             StringView(session.data(), session.size()), StringView(device.data(), device.size()));
    if (r.is_error())
        return "E" + std::to_string(r.error().code());
    return std::string(out.c_str());
}

TEST(RnbdSrvPolicy, PathIsSearchPathPlusDevicePath)
{
    EXPECT_EQ(full_path("/", "s1", "/dev/ram0"), "/dev/ram0");
    EXPECT_EQ(full_path("/", "s1", "dev/ram0"), "/dev/ram0");
    EXPECT_EQ(full_path("/srv/images", "s1", "disk.img"), "/srv/images/disk.img");
    EXPECT_EQ(full_path("/srv/images/", "s1", "/a//b///c"), "/srv/images/a/b/c");
}

TEST(RnbdSrvPolicy, SessNameTokenTakesTheTextBeforeIt)
{
    EXPECT_EQ(full_path("/srv/%SESSNAME%", "host-a", "disk"), "/srv/host-a/disk");
    EXPECT_EQ(full_path("/srv/%SESSNAME%/ignored", "host-a", "/disk"), "/srv/host-a/disk");
    EXPECT_EQ(full_path("%SESSNAME%", "h", "d"), "/h/d");
}

TEST(RnbdSrvPolicy, DotDotAnywhereIsRefused)
{
    EXPECT_EQ(full_path("/", "s", "../etc/passwd"), "E" + std::to_string(err::kInval));
    EXPECT_EQ(full_path("/", "s", "/dev/../dev/ram0"), "E" + std::to_string(err::kInval));
    EXPECT_EQ(full_path("/", "s", "a..b"), "E" + std::to_string(err::kInval));  // as Linux: any ".."
    EXPECT_EQ(full_path("/", "s", "a.b"), "/a.b");
}

TEST(RnbdSrvPolicy, PathMaxIsEnforced)
{
    const std::string device(200, 'd');
    EXPECT_EQ(full_path(std::string(kPathMax - device.size(), 'a'), "s", device), "E" + std::to_string(err::kInval));
    // search + device below PATH_MAX, but the joined path (with '/') reaches it
    EXPECT_EQ(full_path("/" + std::string(kPathMax - 1 - device.size() - 1, 'a'), "s", device),
              "E" + std::to_string(err::kInval));
    const std::string fits = full_path("/" + std::string(kPathMax - 3 - device.size(), 'a'), "s", device);
    EXPECT_EQ(fits.size(), kPathMax - 1);
    // %SESSNAME% can make the result longer than search + device
    EXPECT_EQ(full_path("/" + std::string(kPathMax - 220, 'a') + "%SESSNAME%", std::string(250, 's'), "d"),
              "E" + std::to_string(err::kInval));
}

int admitted(wire::AccessMode mode, int writers)
{
    auto r = admit(mode, writers);
    return r.is_ok() ? r.value() : -r.error().code();
}

TEST(RnbdSrvPolicy, AccessRules)
{
    using wire::AccessMode;
    EXPECT_EQ(admitted(AccessMode::kReadOnly, 0), 0);
    EXPECT_EQ(admitted(AccessMode::kReadOnly, 2), 2);  // readers whatever the writers
    EXPECT_EQ(admitted(AccessMode::kReadWrite, 0), 1);
    EXPECT_EQ(admitted(AccessMode::kReadWrite, 1), -err::kPerm);
    EXPECT_EQ(admitted(AccessMode::kMigration, 0), 1);
    EXPECT_EQ(admitted(AccessMode::kMigration, 1), 2);
    EXPECT_EQ(admitted(AccessMode::kMigration, 2), -err::kPerm);
    EXPECT_EQ(admitted(AccessMode::kReadWrite, 2), -err::kPerm);
    EXPECT_EQ(admitted(AccessMode(7), 0), -err::kInval);
}

codec::IoFields io(wire::IoOp op, cxxrt::u64 sector, cxxrt::u32 bytes)
{
    codec::IoFields f;
    f.op = op;
    f.sector = sector;
    f.bi_size = bytes;
    return f;
}

TEST(RnbdSrvPolicy, IoRangeIsCheckedAgainstTheDevice)
{
    using wire::IoOp;
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 4096), true, 8, false), 0);
    EXPECT_EQ(check_io(io(IoOp::kRead, 8, 512), true, 8, false), -err::kRange);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 7, 1024), false, 8, false), -err::kRange);
    EXPECT_EQ(check_io(io(IoOp::kWrite, ~0ull, 512), false, 8, false), -err::kRange);
    EXPECT_EQ(check_io(io(IoOp::kDiscard, 4, 2048), false, 8, false), 0);
    // a device of size 0: nothing but a flush
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512), true, 0, false), -err::kRange);
    EXPECT_EQ(check_io(io(IoOp::kFlush, 0, 0), false, 0, false), 0);
}

TEST(RnbdSrvPolicy, ReadOnlyMappingRefusesEveryWriteKind)
{
    using wire::IoOp;
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512), true, 8, true), 0);
    EXPECT_EQ(check_io(io(IoOp::kFlush, 0, 0), false, 8, true), 0);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 0, 512), false, 8, true), -kErrRoFs);
    EXPECT_EQ(check_io(io(IoOp::kDiscard, 0, 512), false, 8, true), -kErrRoFs);
    EXPECT_EQ(check_io(io(IoOp::kSecureErase, 0, 512), false, 8, true), -kErrRoFs);
}

TEST(RnbdSrvPolicy, DirectionMustMatchTheOp)
{
    using wire::IoOp;
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512), false, 8, false), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 0, 512), true, 8, false), -err::kInval);
}

}  // namespace
