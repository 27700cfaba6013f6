// rnbd-client: module lifecycle and the Client singleton — the map_device
// control files (/sys/kernel/rnbd_client/ and the upstream-compatible
// /sys/class/rnbd-client/ctl/), the registries and the block major.
#include <cxxrt/log.hpp>
#include <cxxrt/module-api.h>
#include <cxxrt/new.hpp>
#include <cxxrt/percpu.hpp>
#include <cxxrt/scope_guard.hpp>
#include "rnbd/client/rnbd-clt-upcalls.h"
#include "rnbd/client/rnbd-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::clt {

namespace sysfs = cxxrt::sysfs;

namespace {

constexpr const char* kMajorName = "rnbd";
constexpr u32 kTeardownWaitMs = 30000;

constinit Client* g_client = nullptr;

}  // namespace

Client::Client() = default;

void Client::teardown()
{
    exiting_.store(true);
    // Take every published device off the registry; one whose unmap_device
    // write is already running stays there and finishes on its own.
    cxxrt::IntrusiveList<Device, &Device::registry_node> doomed;
    {
        cxxrt::MutexGuard guard(map_lock_);
        devices_.for_each_safe([&](Device& device) {
            if (!device.begin_unmap())
                return;
            devices_.remove(device);
            doomed.push_back(device);
        });
    }
    while (Device* device = doomed.pop_front()) {
        device->unmap(true);
        device->unref();
    }
    // Kobjects children first; the map_device handlers drain here.
    kernel_devices_.remove();
    top_.remove();
    class_devices_.remove();
    control_.reset();
    class_.reset();
    if (!live_devices_.wait_idle_timeout(kTeardownWaitMs))
        log::err("%u devices still alive at unload", live_devices_.count());
    device_group_.reset();
    kernel_group_.reset();
    control_group_.reset();
    major_.reset();
}

// ---- map_device ------------------------------------------------------------------

Result<void> Client::show_map_device(Output& out)
{
    cxxrt::Span<char> room = out.remaining();
    out.commit(format_map_usage(StringView("map_device"), room));
    return {};
}

Result<void> Client::store_map_device(Input& in)
{
    // sysfs hands over at most a page: a full page may be the cut-off
    // start of a longer line, which is not what the writer asked for.
    if (in.text().length() >= kMaxMapInputLength) {
        log::err_ratelimited("map_device: invalid input: the line is %zu bytes or longer (limit %zu)",
                             in.text().length(), kMaxMapInputLength - 1);
        return Error(err::kInval);
    }
    MapOptions options;
    MapError error;
    auto parsed = parse_map_options(in.text(), cxxrt::nr_cpu_ids(), options, &error);
    if (!parsed) {
        log::err_ratelimited("map_device: invalid input: %s (at '%.*s')", map_reason_text(error),
                             int(cxxrt::min<size_t>(error.token.length(), 64)), error.token.data());
        return parsed.error();
    }
    return map(options);
}

namespace {
// After the handlers' definitions: only a defined member's address is a
// constant the table check can compare with null (-fno-delete-null-pointer-checks).
constexpr sysfs::Attribute<Client> kControlAttributes[] = {
    {"map_device", 0644, &Client::show_map_device, &Client::store_map_device},
};
constexpr sysfs::GroupSpec kControlGroup = sysfs::group(kControlAttributes);

}  // namespace

Result<void> Client::setup()
{
    CXXRT_TRY(major_.register_dynamic(kMajorName));
    control_group_ = CXXRT_TRY(sysfs::Group::create(kControlGroup, sysfs::Flavour::kDevice));
    kernel_group_ = CXXRT_TRY(sysfs::Group::create(kControlGroup, sysfs::Flavour::kKobject));
    device_group_ = CXXRT_TRY(sysfs::Group::create(device_group_spec(), sysfs::Flavour::kKobject));
    class_ = CXXRT_TRY(sysfs::DeviceClass::create("rnbd-client"));
    control_ = CXXRT_TRY(sysfs::Device::create(class_, nullptr, "ctl", this, &control_group_));
    CXXRT_TRY(class_devices_.add(this, control_, "devices"));
    CXXRT_TRY(top_.add(this, sysfs::KobjRef::kernel(), "rnbd_client", &kernel_group_));
    top_.announce();
    CXXRT_TRY(kernel_devices_.add(this, top_, "devices"));
    return {};
}

bool Client::mapped(StringView session, StringView path)
{
    for (Device& device : devices_)
        if (device.same_mapping(session, path))
            return true;
    return false;
}

bool Client::session_claimed(StringView session)
{
    for (MapClaim& claim : claims_)
        if (claim.session == session)
            return true;
    return false;
}

// The plain link name is taken: by a mapped device or by a map in progress.
bool Client::device_id_taken(StringView device_id)
{
    for (Device& device : devices_)
        if (StringView(device.device_id()) == device_id)
            return true;
    for (MapClaim& claim : claims_)
        if (!claim.suffixed && StringView(claim.device_id) == device_id)
            return true;
    return false;
}

Result<void> Client::claim_map(MapClaim& claim)
{
    CXXRT_TRY(format_device_id(claim.path, cxxrt::Span<char>(claim.device_id)));
    for (;;) {
        u32 generation = 0;
        {
            cxxrt::MutexGuard guard(map_lock_);
            if (exiting_.load())
                return Error(err::kNoDev);
            if (mapped(claim.session, claim.path)) {
                log::err_ratelimited("map_device: %.*s is already mapped on session %.*s", int(claim.path.length()),
                                     claim.path.data(), int(claim.session.length()), claim.session.data());
                return Error(err::kExist);
            }
            if (!session_claimed(claim.session)) {
                // The seed's link name is the device path; another session may hold it.
                claim.suffixed = device_id_taken(StringView(claim.device_id));
                claims_.push_back(claim);
                return {};
            }
            generation = claims_generation_.load();
        }
        // Another map of this session is in progress: wait for it (a signal ends the wait).
        CXXRT_TRY(claims_changed_.wait_interruptible([&] { return claims_generation_.load() != generation; }));
    }
}

void Client::release_claim(MapClaim& claim)
{
    {
        cxxrt::MutexGuard guard(map_lock_);
        claims_.remove(claim);
        claims_generation_.fetch_add(1);
    }
    claims_changed_.wake_up_all();
}

Result<void> Client::map(const MapOptions& options)
{
    MapClaim claim(options.session_name, options.device_path);
    CXXRT_TRY(claim_map(claim));
    cxxrt::ScopeGuard release([&] { release_claim(claim); });
    RefPtr<Session> session = find_session(options.session_name);
    if (!session) {
        if (options.path_count == 0) {
            log::err_ratelimited("map_device: no path= given and no session %.*s exists",
                                 int(options.session_name.length()), options.session_name.data());
            return Error(err::kNxio);
        }
        session = CXXRT_TRY(Session::open(*this, options));
    } else if (options.io_hold_timeout_given) {
        // The session's value, as a write to its io_hold_timeout_ms file.
        CXXRT_TRY(cxxrt::to_result(rtrs_client_set_io_hold_timeout(session->rtrs(), options.io_hold_timeout_ms)));
    }
    u32 index = CXXRT_TRY(allocate_index());
    Device* made = cxxrt::allocate<Device>(Gfp::kernel(), *this, cxxrt::move(session), index, options);
    if (!made) {
        release_index(index);
        return Error(err::kNoMem);
    }
    RefPtr<Device> device(cxxrt::Adopt::kAdopt, made);
    CXXRT_TRY(device->set_link_names(claim.suffixed));
    CXXRT_TRY(device->map());
    {
        cxxrt::MutexGuard guard(map_lock_);
        if (!exiting_.load()) {
            devices_.push_back(*device.leak_ref());  // the mapped reference
            return {};
        }
    }
    // rmmod began while this map ran and no longer looks for new devices.
    if (device->begin_unmap())
        device->unmap(true);
    return Error(err::kNoDev);
}

void Client::forget_device(Device& device)
{
    cxxrt::MutexGuard guard(map_lock_);
    devices_.remove(device);
}

Result<u32> Client::allocate_index()
{
    cxxrt::SpinGuard guard(index_lock_);
    for (u32 word = 0; word < kMaxDevices / 64; ++word) {
        if (index_bits_[word] == ~u64(0))
            continue;
        u32 bit = u32(__builtin_ctzll(~index_bits_[word]));
        index_bits_[word] |= u64(1) << bit;
        return word * 64 + bit;
    }
    return Error(err::kNoSpc);
}

void Client::release_index(u32 index)
{
    cxxrt::SpinGuard guard(index_lock_);
    if (index < kMaxDevices)
        index_bits_[index / 64] &= ~(u64(1) << (index % 64));
}

// ---- sessions ------------------------------------------------------------------------

RefPtr<Session> Client::find_session(StringView name)
{
    cxxrt::MutexGuard guard(sessions_lock_);
    for (Session& session : sessions_)
        if (StringView(session.name()) == name && session.try_ref())
            return RefPtr<Session>(cxxrt::Adopt::kAdopt, &session);
    return nullptr;
}

// ---- links under .../devices/ ------------------------------------------------------

Result<void> Client::link_device(const char* kernel_name, const char* class_name, sysfs::KobjRef target,
                                 sysfs::Link& kernel_link, sysfs::Link& class_link)
{
    CXXRT_TRY(kernel_link.create(kernel_devices_, target, kernel_name));
    CXXRT_TRY(class_link.create(class_devices_, target, class_name));
    return {};
}

}  // namespace rnbd::clt

using rnbd::clt::Client;
using rnbd::clt::g_client;

extern "C" int rnbd_clt_cxx_init(void) noexcept
{
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    Client* client = cxxrt::allocate<Client>(cxxrt::Gfp::kernel());
    if (!client) {
        (void)cxxrt_module_exit();
        return -cxxrt::err::kNoMem;
    }
    auto ready = client->setup();
    if (!ready) {
        cxxrt::log::err("rnbd-client: setup failed (%d)", ready.to_errno());
        client->teardown();
        cxxrt::destroy(client);
        (void)cxxrt_module_exit();
        return ready.to_errno();
    }
    g_client = client;
    cxxrt::log::info("rnbd-client: loaded, RNBD protocol %u.%u", rnbd::wire::kVersionMajor,
                     rnbd::wire::kVersionMinor);
    return 0;
}

extern "C" int rnbd_clt_cxx_set_control_timeout(const char* value, unsigned int* storage) noexcept
{
    auto parsed = cxxrt::parse::parse_line_in_range(cxxrt::StringView(value), rnbd::clt::kMinControlTimeoutMs,
                                                    rnbd::clt::kMaxControlTimeoutMs);
    if (parsed.is_error()) {
        cxxrt::log::err("rnbd-client: control_timeout_ms: '%s' is not a number of ms in %u..%u", value,
                        rnbd::clt::kMinControlTimeoutMs, rnbd::clt::kMaxControlTimeoutMs);
        return -cxxrt::err::kInval;
    }
    *storage = unsigned(parsed.value());
    return 0;
}

extern "C" void rnbd_clt_cxx_exit(void) noexcept
{
    if (Client* client = cxxrt::exchange(g_client, nullptr)) {
        client->teardown();
        cxxrt::destroy(client);
    }
    (void)cxxrt_module_exit();
    cxxrt::log::info("rnbd-client: unloaded");
}
