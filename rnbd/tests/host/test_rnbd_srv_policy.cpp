// Host unit tests of rnbd-server's kernel-independent policy
// (rnbd/core/rnbd-srv-policy.hpp): device paths, the export policy, access
// rules, IO admission.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rnbd/core/rnbd-srv-policy.hpp"

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

codec::IoFields io(wire::IoOp op, cxxrt::u64 sector, cxxrt::u32 bytes, cxxrt::u16 prio = 0)
{
    codec::IoFields f;
    f.op = op;
    f.sector = sector;
    f.bi_size = bytes;
    f.prio = prio;
    return f;
}

IoTarget target(cxxrt::u64 sectors, bool read_only, cxxrt::u32 logical_block_size = 512)
{
    IoTarget t;
    t.sectors = sectors;
    t.read_only = read_only;
    t.logical_block_size = logical_block_size;
    return t;
}

TEST(RnbdSrvPolicy, IoRangeIsCheckedAgainstTheDevice)
{
    using wire::IoOp;
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 4096), true, target(8, false)), 0);
    EXPECT_EQ(check_io(io(IoOp::kRead, 8, 512), true, target(8, false)), -err::kRange);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 7, 1024), false, target(8, false)), -err::kRange);
    EXPECT_EQ(check_io(io(IoOp::kWrite, ~0ull, 512), false, target(8, false)), -err::kRange);
    EXPECT_EQ(check_io(io(IoOp::kDiscard, 4, 2048), false, target(8, false)), 0);
    // a device of size 0: nothing but a flush
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512), true, target(0, false)), -err::kRange);
    EXPECT_EQ(check_io(io(IoOp::kFlush, 0, 0), false, target(0, false)), 0);
}

TEST(RnbdSrvPolicy, ReadOnlyMappingRefusesEveryWriteKind)
{
    using wire::IoOp;
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512), true, target(8, true)), 0);
    EXPECT_EQ(check_io(io(IoOp::kFlush, 0, 0), false, target(8, true)), 0);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 0, 512), false, target(8, true)), -kErrRoFs);
    EXPECT_EQ(check_io(io(IoOp::kDiscard, 0, 512), false, target(8, true)), -kErrRoFs);
    EXPECT_EQ(check_io(io(IoOp::kSecureErase, 0, 512), false, target(8, true)), -kErrRoFs);
}

// WRITE_ZEROES only where OPEN_RSP offered it, within the offered length.
TEST(RnbdSrvPolicy, WriteZeroesOnlyWhereOffered)
{
    using wire::IoOp;
    IoTarget offered = target(64, false);
    offered.max_write_zeroes_sectors = 16;
    EXPECT_EQ(check_io(io(IoOp::kWriteZeroes, 0, 4096), false, target(64, false)), -err::kOpNotSupp);
    EXPECT_EQ(check_io(io(IoOp::kWriteZeroes, 0, 4096), false, offered), 0);
    EXPECT_EQ(check_io(io(IoOp::kWriteZeroes, 0, 16 * 512), false, offered), 0);
    EXPECT_EQ(check_io(io(IoOp::kWriteZeroes, 0, 17 * 512), false, offered), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kWriteZeroes, 60, 8 * 512), false, offered), -err::kRange);
    offered.read_only = true;
    EXPECT_EQ(check_io(io(IoOp::kWriteZeroes, 0, 512), false, offered), -kErrRoFs);
}

TEST(RnbdSrvPolicy, DirectionMustMatchTheOp)
{
    using wire::IoOp;
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512), false, target(8, false)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 0, 512), true, target(8, false)), -err::kInval);
}

constexpr cxxrt::u16 prio(IoprioClass klass, cxxrt::u16 level) { return ioprio_value(klass, level); }

TEST(RnbdSrvPolicy, IoPriorityClassesAndLevels)
{
    using wire::IoOp;
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512, 0), true, target(8, false)), 0);  // no priority (protocol 1 too)
    for (cxxrt::u16 level = 0; level < 8; ++level) {
        EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512, prio(IoprioClass::kBestEffort, level)), true, target(8, false)), 0);
        EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512, prio(IoprioClass::kRealTime, level)), true, target(8, false)), 0);
        EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512, prio(IoprioClass::kIdle, level)), true, target(8, false)), 0);
    }
    // unknown classes 4..7, whatever the level
    for (cxxrt::u16 klass = 4; klass < 8; ++klass)
        EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512, cxxrt::u16(klass << 13)), true, target(8, false)), -err::kInval);
    // levels no task can have
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512, prio(IoprioClass::kBestEffort, 8)), true, target(8, false)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 0, 512, prio(IoprioClass::kRealTime, 0x1fff)), false, target(8, false)),
              -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512, prio(IoprioClass::kIdle, 100)), true, target(8, false)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 512, prio(IoprioClass::kNone, 1)), true, target(8, false)), -err::kInval);
    // a flush's priority is checked too
    EXPECT_EQ(check_io(io(IoOp::kFlush, 0, 0, 0xffff), false, target(8, false)), -err::kInval);
}

TEST(RnbdSrvPolicy, EveryPriorityValueIsDecidedAsTheKernelWould)
{
    for (unsigned value = 0; value <= 0xffff; ++value) {
        const auto p = cxxrt::u16(value);
        const unsigned klass = value >> 13, data = value & 0x1fff;
        const bool want = (klass == 0 && data == 0) || (klass >= 1 && klass <= 3 && data < 8);
        ASSERT_EQ(valid_ioprio(p), want) << value;
    }
}

TEST(RnbdSrvPolicy, RealTimePriorityIsLoweredUnlessAllowed)
{
    EXPECT_EQ(effective_ioprio(prio(IoprioClass::kRealTime, 3), false), prio(IoprioClass::kBestEffort, 3));
    EXPECT_EQ(effective_ioprio(prio(IoprioClass::kRealTime, 0), false), prio(IoprioClass::kBestEffort, 0));
    EXPECT_EQ(effective_ioprio(prio(IoprioClass::kRealTime, 3), true), prio(IoprioClass::kRealTime, 3));
    EXPECT_EQ(effective_ioprio(prio(IoprioClass::kBestEffort, 5), false), prio(IoprioClass::kBestEffort, 5));
    EXPECT_EQ(effective_ioprio(prio(IoprioClass::kIdle, 0), false), prio(IoprioClass::kIdle, 0));
    EXPECT_EQ(effective_ioprio(0, false), 0);
    for (unsigned value = 0; value <= 0xffff; ++value) {
        if (!valid_ioprio(cxxrt::u16(value)))
            continue;
        const cxxrt::u16 out = effective_ioprio(cxxrt::u16(value), false);
        ASSERT_TRUE(valid_ioprio(out)) << value;
        ASSERT_NE(ioprio_class(out), cxxrt::u16(IoprioClass::kRealTime)) << value;
    }
}

TEST(RnbdSrvPolicy, IoIsAlignedToTheLogicalBlockSize)
{
    using wire::IoOp;
    // 4 KiB logical blocks: 8 sectors
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 4096), true, target(64, false, 4096)), 0);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 8, 8192), false, target(64, false, 4096)), 0);
    EXPECT_EQ(check_io(io(IoOp::kRead, 1, 4096), true, target(64, false, 4096)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 0, 512), false, target(64, false, 4096)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kWrite, 8, 4096 + 512), false, target(64, false, 4096)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kDiscard, 4, 4096), false, target(64, false, 4096)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kSecureErase, 8, 1024), false, target(64, false, 4096)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kFlush, 0, 0), false, target(64, false, 4096)), 0);  // no range
    // 512-byte blocks: any sector
    EXPECT_EQ(check_io(io(IoOp::kWrite, 7, 512), false, target(64, false, 512)), 0);
    // a device that reports nonsense gets no IO at all
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 4096), true, target(64, false, 0)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 4096), true, target(64, false, 3072)), -err::kInval);
    EXPECT_EQ(check_io(io(IoOp::kRead, 0, 4096), true, target(64, false, 256)), -err::kInval);
}

// What decode_io (the codec) and check_io leave for the mapping: the
// server's whole decision on one IO message, as handle_io makes it.
int server_verdict(const codec::IoFields& fields, cxxrt::u32 data_len, bool rtrs_read, const IoTarget& t)
{
    std::vector<cxxrt::u8> msg(sizeof(wire::IoMsg));
    auto built = codec::build_io(cxxrt::ByteSpan(msg.data(), msg.size()), fields);
    if (built.is_error())
        return -1000;
    codec::IoLimits limits;
    limits.data_len = data_len;
    limits.max_io_size = ~0u;
    auto decoded = codec::decode_io(cxxrt::ConstByteSpan(msg.data(), msg.size()), limits);
    if (decoded.is_error())
        return -decoded.error().code();
    return check_io(decoded.value(), rtrs_read, t);
}

TEST(RnbdSrvPolicy, WrappingRangesUnknownOpsAndFlagsAreRefused)
{
    using wire::IoOp;
    // a range that wraps past 2^64 sectors, and one whose byte offset would
    EXPECT_EQ(server_verdict(io(IoOp::kRead, ~0ull - 1, 4096), 4096, true, target(~0ull, false)), -err::kRange);
    EXPECT_EQ(server_verdict(io(IoOp::kRead, ~0ull >> 9, 4096), 4096, true, target(~0ull, false)), -err::kRange);
    EXPECT_EQ(server_verdict(io(IoOp::kDiscard, ~0ull - 7, 8192), 0, false, target(~0ull, false)), -err::kRange);
    // a well-formed IO passes both
    EXPECT_EQ(server_verdict(io(IoOp::kWrite, 8, 4096), 4096, false, target(64, false)), 0);

    // unknown op and flags: patch the rw word of a valid message
    std::vector<cxxrt::u8> msg(sizeof(wire::IoMsg));
    ASSERT_TRUE(codec::build_io(cxxrt::ByteSpan(msg.data(), msg.size()), io(IoOp::kWrite, 8, 4096)).is_ok());
    codec::IoLimits limits;
    limits.data_len = 4096;
    limits.max_io_size = ~0u;
    const size_t rw_at = __builtin_offsetof(wire::IoMsg, rw);
    for (cxxrt::u32 op = wire::kIoOpCount; op < 256; ++op) {
        auto bad = msg;
        bad[rw_at] = cxxrt::u8(op);
        EXPECT_EQ(codec::decode_io(cxxrt::ConstByteSpan(bad.data(), bad.size()), limits).error().code(), err::kProto)
            << op;
    }
    for (unsigned bit = 8; bit < 32; ++bit) {
        const cxxrt::u32 flag = 1u << bit;
        if (flag & wire::kIoFlagsKnown)
            continue;
        auto bad = msg;
        bad[rw_at + bit / 8] |= cxxrt::u8(1u << (bit % 8));
        EXPECT_EQ(codec::decode_io(cxxrt::ConstByteSpan(bad.data(), bad.size()), limits).error().code(), err::kProto)
            << bit;
    }
}

TEST(RnbdSrvPolicy, ObjectKindsFromTheModeBits)
{
    EXPECT_EQ(object_kind(0060660), ObjectKind::kBlockDevice);
    EXPECT_EQ(object_kind(0100644), ObjectKind::kRegularFile);
    EXPECT_EQ(object_kind(0040755), ObjectKind::kDirectory);
    EXPECT_EQ(object_kind(0020666), ObjectKind::kCharDevice);
    EXPECT_EQ(object_kind(0010644), ObjectKind::kFifo);
    EXPECT_EQ(object_kind(0140777), ObjectKind::kSocket);
    EXPECT_EQ(object_kind(0120777), ObjectKind::kSymlink);
    EXPECT_EQ(object_kind(0), ObjectKind::kUnknown);
    EXPECT_EQ(object_kind(0170000), ObjectKind::kUnknown);
}

ExportDecision decide(ObjectKind kind, bool file_export, bool inside, wire::IoMode mode = wire::IoMode::kBlockIo,
                      bool nodev = false, bool fileio_of_block_devices = false)
{
    ExportFacts facts;
    facts.kind = kind;
    facts.file_export_enabled = file_export;
    facts.inside_file_export_dir = inside;
    facts.nodev_mount = nodev;
    facts.fileio_of_block_devices = fileio_of_block_devices;
    return decide_export(facts, mode);
}

TEST(RnbdSrvPolicy, DefaultExportIsBlockDevicesOnly)
{
    using wire::IoMode;
    for (IoMode mode : {IoMode::kUnspecified, IoMode::kBlockIo, IoMode(0xff)}) {
        auto d = decide(ObjectKind::kBlockDevice, false, false, mode);
        EXPECT_EQ(d.error, 0);
        EXPECT_EQ(d.open_as, OpenAs::kBlockDevice);
    }
    for (ObjectKind kind : {ObjectKind::kRegularFile, ObjectKind::kDirectory, ObjectKind::kCharDevice,
                            ObjectKind::kFifo, ObjectKind::kSocket, ObjectKind::kSymlink, ObjectKind::kUnknown}) {
        for (bool inside : {false, true}) {  // inside means nothing while file export is off
            auto d = decide(kind, false, inside);
            EXPECT_EQ(d.error, -kErrNotBlk) << object_kind_name(kind);
            EXPECT_NE(d.reason[0], '\0');
        }
    }
}

TEST(RnbdSrvPolicy, FileExportServesRegularFilesInsideTheDirectoryOnly)
{
    EXPECT_EQ(decide(ObjectKind::kRegularFile, true, true).error, 0);
    EXPECT_EQ(decide(ObjectKind::kRegularFile, true, true).open_as, OpenAs::kVfs);
    EXPECT_EQ(decide(ObjectKind::kRegularFile, true, true, wire::IoMode::kFileIo).open_as, OpenAs::kVfs);
    EXPECT_EQ(decide(ObjectKind::kRegularFile, true, false).error, -kErrNotBlk);
    // file export never widens to other kinds
    for (ObjectKind kind : {ObjectKind::kDirectory, ObjectKind::kCharDevice, ObjectKind::kFifo, ObjectKind::kSocket,
                            ObjectKind::kSymlink, ObjectKind::kUnknown})
        EXPECT_EQ(decide(kind, true, true).error, -kErrNotBlk) << object_kind_name(kind);
}

TEST(RnbdSrvPolicy, FileioOfBlockDevicesOnlyWhereTheAdministratorAllowsIt)
{
    using wire::IoMode;
    // Off (the default): a client asking for fileio of a block device is
    // refused, whatever file export says; blockio of the same device is not.
    for (bool file_export : {false, true}) {
        auto d = decide(ObjectKind::kBlockDevice, file_export, file_export, IoMode::kFileIo);
        EXPECT_EQ(d.error, -err::kPerm);
        EXPECT_NE(d.reason[0], '\0');
        EXPECT_EQ(decide(ObjectKind::kBlockDevice, file_export, file_export, IoMode::kBlockIo).error, 0);
    }
    // On: served through the VFS; other modes stay blockio.
    auto d = decide(ObjectKind::kBlockDevice, false, false, IoMode::kFileIo, false, true);
    EXPECT_EQ(d.error, 0);
    EXPECT_EQ(d.open_as, OpenAs::kVfs);
    for (IoMode mode : {IoMode::kUnspecified, IoMode::kBlockIo, IoMode(0xff)})
        EXPECT_EQ(decide(ObjectKind::kBlockDevice, false, false, mode, false, true).open_as, OpenAs::kBlockDevice);
    // It widens nothing else: files still need file export, other kinds stay refused.
    EXPECT_EQ(decide(ObjectKind::kRegularFile, false, false, IoMode::kFileIo, false, true).error, -kErrNotBlk);
    EXPECT_EQ(decide(ObjectKind::kRegularFile, true, true, IoMode::kFileIo, false, false).error, 0);
    for (ObjectKind kind : {ObjectKind::kDirectory, ObjectKind::kCharDevice, ObjectKind::kFifo, ObjectKind::kSocket,
                            ObjectKind::kSymlink, ObjectKind::kUnknown})
        EXPECT_EQ(decide(kind, true, true, IoMode::kFileIo, false, true).error, -kErrNotBlk) << object_kind_name(kind);
}

TEST(RnbdSrvPolicy, DeviceNodesOnNodevMountsAreRefused)
{
    EXPECT_EQ(decide(ObjectKind::kBlockDevice, false, false, wire::IoMode::kBlockIo, true).error, -err::kAccess);
    EXPECT_EQ(decide(ObjectKind::kBlockDevice, true, true, wire::IoMode::kFileIo, true).error, -err::kAccess);
    EXPECT_EQ(decide(ObjectKind::kBlockDevice, true, true, wire::IoMode::kFileIo, true, true).error, -err::kAccess);
    EXPECT_EQ(decide(ObjectKind::kRegularFile, true, true, wire::IoMode::kFileIo, true).error, 0);  // not a node
}

TEST(RnbdSrvPolicy, EveryRefusalOfWhatThePathLeadsToIsOneErrnoOnTheWire)
{
    // What each kind of object (or a failed lookup) would tell a client,
    // and what it is answered instead: the same errno for all.
    const int local[] = {
        -err::kNoEnt,  // nothing there
        -20,           // ENOTDIR: a path through a regular file
        -40,           // ELOOP
        -err::kAccess, // a lookup refused, or a device node on a nodev mount
        -err::kIo,     // a failing filesystem
        -err::kNameTooLong,
        decide(ObjectKind::kRegularFile, false, false).error,
        decide(ObjectKind::kRegularFile, true, false).error,
        decide(ObjectKind::kDirectory, false, false).error,
        decide(ObjectKind::kCharDevice, false, false).error,
        decide(ObjectKind::kFifo, false, false).error,
        decide(ObjectKind::kSocket, false, false).error,
        decide(ObjectKind::kBlockDevice, false, false, wire::IoMode::kBlockIo, true).error,
        decide(ObjectKind::kBlockDevice, false, false, wire::IoMode::kFileIo).error,  // fileio not allowed
    };
    for (int e : local)
        EXPECT_EQ(not_exported_errno(e), -err::kNoEnt) << e;
    EXPECT_EQ(kErrNotExported, err::kNoEnt);
    // Running out of memory says nothing of the filesystem: kept.
    EXPECT_EQ(not_exported_errno(-err::kNoMem), -err::kNoMem);
}

int export_dir(const std::string& value)
{
    auto r = check_file_export_dir(StringView(value.data(), value.size()));
    return r.is_ok() ? int(r.value()) : -r.error().code();
}

TEST(RnbdSrvPolicy, FileExportDirValue)
{
    EXPECT_EQ(export_dir(""), 0);
    EXPECT_EQ(export_dir("\n"), 0);
    EXPECT_EQ(export_dir("/srv/images"), 11);
    EXPECT_EQ(export_dir("/srv/images\n"), 11);
    EXPECT_EQ(export_dir("srv/images"), -err::kInval);
    EXPECT_EQ(export_dir("./images"), -err::kInval);
    EXPECT_EQ(export_dir("/srv\n/etc"), -err::kInval);
    EXPECT_EQ(export_dir("/" + std::string(kPathMax - 2, 'a')), int(kPathMax - 1));
    EXPECT_EQ(export_dir("/" + std::string(kPathMax - 1, 'a')), -err::kNameTooLong);
}

int search_path(const std::string& value)
{
    auto r = check_dev_search_path(StringView(value.data(), value.size()));
    return r.is_ok() ? int(r.value()) : -r.error().code();
}

TEST(RnbdSrvPolicy, DevSearchPathValue)
{
    EXPECT_EQ(search_path("/"), 1);
    EXPECT_EQ(search_path("/dev\n"), 4);
    EXPECT_EQ(search_path("/srv/%SESSNAME%/"), 16);
    EXPECT_EQ(search_path(""), -err::kInval);
    EXPECT_EQ(search_path("\n"), -err::kInval);
    EXPECT_EQ(search_path("dev"), -err::kInval);
    EXPECT_EQ(search_path("/dev\n/etc"), -err::kInval);
    EXPECT_EQ(search_path(std::string("/de\0v", 5)), -err::kInval);
    EXPECT_EQ(search_path("/" + std::string(kPathMax - 2, 'a')), int(kPathMax - 1));
    EXPECT_EQ(search_path("/" + std::string(kPathMax - 1, 'a')), -err::kInval);
}

}  // namespace
