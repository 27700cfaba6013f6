// The sysfs tree the self-test module keeps while loaded, for the shell test
// selftests/cxxrt/002-sysfs.sh to poke from userspace:
//
//   /sys/class/cxxrt-selftest/demo/counter       0444  accepted writes to value
//   /sys/class/cxxrt-selftest/demo/value         0644  an unsigned (read back; bad input: EINVAL)
//   /sys/class/cxxrt-selftest/demo/remove_me     0644  write-only: usage on read; a write removes it
//   /sys/class/cxxrt-selftest/demo/stats/writes  0444  kobject-flavour attributes
//   /sys/class/cxxrt-selftest/demo/stats/rejected
//   /sys/class/cxxrt-selftest/demo/stats/reset   0644  write-only: usage on read
//   /sys/kernel/cxxrt_selftest/devices/demo -> the device
//
// Everything is removed at module exit.
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/sysfs.hpp>
#include <cxxrt/sysfs_dir.hpp>
#include <cxxrt/wait.hpp>
#include <cxxrt/enforce.hpp>

extern "C" int cxxrt_selftest_sysfs_init(void) noexcept;
extern "C" void cxxrt_selftest_sysfs_exit(void) noexcept;

namespace {

using namespace cxxrt;
using sysfs::Input;
using sysfs::Output;

class Demo : Pinned {
public:
    Result<void> setup();
    void teardown();

    // Device attributes.
    Result<void> show_counter(Output& out)
    {
        MutexGuard guard(lock_);
        out.print("%llu\n", (unsigned long long)writes_);
        return {};
    }
    Result<void> show_value(Output& out)
    {
        MutexGuard guard(lock_);
        out.print("%llu\n", (unsigned long long)value_);
        return {};
    }
    Result<void> store_value(Input& in)
    {
        parse::Reason reason = parse::Reason::kNone;
        auto parsed = parse::parse_unsigned(in.line(), NumericLimits<u32>::max, &reason);
        MutexGuard guard(lock_);
        if (parsed.is_error()) {
            ++rejected_;
            log::err_ratelimited("demo/value: %s", parse::reason_text(reason));
            return parsed.error();
        }
        value_ = parsed.value();
        ++writes_;
        return {};
    }
    Result<void> store_remove_me(Input& in)
    {
        if (!in.remove_self())
            return Error(err::kNoEnt);
        log::info("demo/remove_me removed itself");
        return {};
    }

    // Kobject (stats/) attributes.
    Result<void> show_writes(Output& out) { return show_counter(out); }
    Result<void> show_rejected(Output& out)
    {
        MutexGuard guard(lock_);
        out.print("%llu\n", (unsigned long long)rejected_);
        return {};
    }
    Result<void> store_reset(Input& in)
    {
        auto yes = parse::parse_bool(in.line());
        if (yes.is_error() || !yes.value())
            return Error(err::kInval);
        MutexGuard guard(lock_);
        writes_ = 0;
        rejected_ = 0;
        return {};
    }

private:

    Mutex lock_{lock_class<"cxxrt::selftest::Demo::lock_">};
    u64 value_ CXXRT_GUARDED_BY(lock_) = 0;
    u64 writes_ CXXRT_GUARDED_BY(lock_) = 0;
    u64 rejected_ CXXRT_GUARDED_BY(lock_) = 0;

    sysfs::Group device_group_;
    sysfs::Group stats_group_;
    sysfs::DeviceClass class_;
    sysfs::Device device_;
    sysfs::Directory stats_;
    sysfs::Directory top_;      // /sys/kernel/cxxrt_selftest
    sysfs::Directory devices_;  // .../devices
    sysfs::Link link_;          // .../devices/demo -> the class device
};

constexpr sysfs::Attribute<Demo> kDemoAttributes[] = {
    {"counter", 0444, &Demo::show_counter, nullptr},
    {"value", 0644, &Demo::show_value, &Demo::store_value},
    {"remove_me", 0644, nullptr, &Demo::store_remove_me, "Usage: echo 1 > remove_me (the file removes itself)\n"},
};
constexpr sysfs::GroupSpec kDemoGroup = sysfs::group(kDemoAttributes);

constexpr sysfs::Attribute<Demo> kStatsAttributes[] = {
    {"writes", 0444, &Demo::show_writes, nullptr},
    {"rejected", 0444, &Demo::show_rejected, nullptr},
    {"reset", 0644, nullptr, &Demo::store_reset, "Usage: echo 1 > reset\n"},
};
constexpr sysfs::GroupSpec kStatsGroup = sysfs::group(kStatsAttributes);

Result<void> Demo::setup()
{
    device_group_ = CXXRT_TRY(sysfs::Group::create(kDemoGroup, sysfs::Flavour::kDevice));
    stats_group_ = CXXRT_TRY(sysfs::Group::create(kStatsGroup, sysfs::Flavour::kKobject));
    class_ = CXXRT_TRY(sysfs::DeviceClass::create("cxxrt-selftest"));
    device_ = CXXRT_TRY(sysfs::Device::create(class_, nullptr, "demo", this, &device_group_));
    CXXRT_TRY(stats_.add(this, device_, "stats", &stats_group_));
    stats_.announce();
    CXXRT_TRY(top_.add(this, sysfs::KobjRef::kernel(), "cxxrt_selftest"));
    CXXRT_TRY(devices_.add(this, top_, "devices"));
    CXXRT_TRY(link_.create(devices_, device_, "demo"));
    return {};
}

// Undoes whatever setup() got to, children before parents.
void Demo::teardown()
{
    link_.reset();
    sysfs::Directory* in_order[] = {&devices_, &top_, &stats_};
    for (int i = 0; i < 3; ++i)
        if (!in_order[i]->remove_within(5000))
            log::err("kobject %d not released", i);
    device_.reset();
    class_.reset();
    stats_group_.reset();
    device_group_.reset();
}

constinit Demo* g_demo = nullptr;

}  // namespace

extern "C" int cxxrt_selftest_sysfs_init(void) noexcept
{
    Demo* demo = allocate<Demo>(Gfp::kernel());
    if (!demo)
        return -err::kNoMem;
    auto result = demo->setup();
    if (result.is_error()) {
        log::err("sysfs demo setup failed: %d", result.to_errno());
        demo->teardown();
        destroy(demo);
        return result.to_errno();
    }
    g_demo = demo;
    return 0;
}

extern "C" void cxxrt_selftest_sysfs_exit(void) noexcept
{
    if (Demo* demo = exchange(g_demo, nullptr)) {
        demo->teardown();
        destroy(demo);
    }
}
