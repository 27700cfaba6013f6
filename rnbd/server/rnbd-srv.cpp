// rnbd-server: module lifecycle, the Server object (sysfs roots, device
// registry, workqueues) and the RTRS session events.
#include <cxxrt/log.hpp>
#include <cxxrt/module-api.h>
#include <cxxrt/new.hpp>
#include <cxxrt/parse.hpp>
#include "rnbd/trace/rnbd-events.hpp"
#include "rnbd/server/rnbd-srv-upcalls.h"
#include "rnbd/core/rnbd-srv-policy.hpp"
#include "rnbd/server/rnbd-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::srv {

using namespace cxxrt;

namespace {

constinit Server* g_server = nullptr;

void on_link_event(rtrs_server_session* rtrs, rtrs_server_link_event event, void* context)
{
    if (event == RTRS_SERVER_LINK_CONNECTED) {
        auto created = Session::create(rtrs);
        if (created.is_error()) {
            log::err("no memory for a new session; its requests will fail");
            return;
        }
        Session* session = created.value();
        rtrs_server_set_session_context(rtrs, session);
        server().add_session(*session);
        session->arm_idle_timer();
        log::info("session %s connected", session->name());
        ktrace::rnbd_srv::create_sess(session->name(), int(rtrs_server_queue_depth(rtrs)));
        return;
    }
    Session* session = static_cast<Session*>(context);
    if (!session)
        return;
    // (Linux's server skips this event for a session that never opened a device.)
    ktrace::rnbd_srv::destroy_sess(session->name(), int(rtrs_server_queue_depth(rtrs)));
    server().remove_session(*session);
    session->close_all();
    log::info("session %s disconnected", session->name());
    destroy(session);
}

// A new path of a session the user knows: the exports it maps decide.
int on_admit_path(void* context, const rtrs_address* client)
{
    Session* session = static_cast<Session*>(context);
    return session ? session->admit_path(*client) : 0;
}

constexpr rtrs_server_callbacks kCallbacks = {on_rtrs_io, on_link_event, on_admit_path};

}  // namespace

Server& server() { return *g_server; }

Result<void> Server::start(u16 port)
{
    io_wq_ = CXXRT_TRY(Workqueue::create("rnbd_srv_io", wq::kMemReclaim | wq::kHighPri));
    block_io_queues_ = CXXRT_TRY(Array<BlockIoQueue>::create(Gfp::kernel(), nr_cpu_ids()));
    // The VFS serves an IO synchronously in its work item (a read of cold
    // pages, an fsync of the whole file): on its own unbound queue, so a
    // client that keeps fileio FLUSHes in flight does not take the per-CPU
    // slots every block-device mapping's IO is queued on.
    file_io_wq_ = CXXRT_TRY(Workqueue::create("rnbd_srv_fileio", wq::kMemReclaim | wq::kUnbound));
    control_wq_ = CXXRT_TRY(Workqueue::create("rnbd_srv_ctl", wq::kMemReclaim | wq::kUnbound));
    mapping_group_ = CXXRT_TRY(sysfs::Group::create(mapping_group_spec(), sysfs::Flavour::kKobject));
    class_ = CXXRT_TRY(sysfs::DeviceClass::create("rnbd-server"));
    ctl_ = CXXRT_TRY(sysfs::Device::create(class_, nullptr, "ctl", this));
    CXXRT_TRY(devices_dir_.add(this, ctl_, "devices"));
    CXXRT_TRY(kernel_dir_.add(this, sysfs::KobjRef::kernel(), "rnbd_server"));
    CXXRT_TRY(devices_link_.create(kernel_dir_, devices_dir_, "devices"));
    CXXRT_TRY(exports_.start(ctl_));

    rtrs_server_context* rtrs = rtrs_server_open(&kCallbacks, port);
    const long value = reinterpret_cast<long>(rtrs);
    if (!rtrs)
        return Error(err::kNoMem);
    if (value < 0 && value > -4096)
        return Error::from_errno(int(value));
    rtrs_ = rtrs;
    return {};
}

// Undoes whatever start() got to. Process context.
void Server::stop()
{
    if (rtrs_) {
        // Disconnects every session; our DISCONNECTED handler closes their
        // mappings (none is left: each holds a module reference).
        rtrs_server_close(rtrs_);
        rtrs_ = nullptr;
    }
    exports_.stop();
    control_wq_.reset();
    file_io_wq_.reset();
    io_wq_.reset();  // runs what is queued; nothing is, no session being left
    block_io_queues_.reset();
    devices_link_.reset();
    kernel_dir_.remove();
    devices_dir_.remove();
    ctl_.reset();
    class_.reset();
    mapping_group_.reset();
}

Result<void> Server::attach(Mapping& dev)
{
    const Backing& backing = dev.backing();
    MutexGuard guard(devices_lock_);
    Device* device = nullptr;
    for (Device& candidate : devices_) {
        if (candidate.key_dev_ == backing.key_dev() && candidate.key_ino_ == backing.key_ino()) {
            device = &candidate;
            break;
        }
    }
    const bool created = device == nullptr;
    if (!created) {
        // The same object under another spelling ("//dev/ram0",
        // "/dev/./ram0", a symlink): this session already has a directory
        // sessions/<name> under the device, so a second mapping is refused
        // before sysfs is touched (Session::open answers a re-OPEN of the
        // same string with the mapping it has).
        for (Mapping& mapping : device->mappings_) {
            if (&mapping.session() != &dev.session())
                continue;
            log::err_ratelimited("session %s: '%s' is %s, which this session maps already as device id %u "
                                 "('%s'); refused",
                                 dev.session().name(), dev.mapping_path(), device->name(), mapping.id(),
                                 mapping.mapping_path());
            return Error(err::kExist);
        }
    }
    if (created) {
        device = allocate<Device>(Gfp::kernel(), backing.key_dev(), backing.key_ino());
        if (!device)
            return Error(err::kNoMem);
        device->set_name(backing, dev.mapping_path());
    }
    auto admitted = policy::admit(dev.access_mode(), device->writers_);
    if (admitted.is_error()) {
        log::err_ratelimited("session %s: %s already has %d writer(s); %s mapping refused", dev.session().name(),
                             device->name(), device->writers_, access_mode_name(dev.access_mode()));
        if (created)
            destroy(device);
        return admitted.error();
    }
    const int writers = admitted.value();
    if (created) {
        auto added = device->add_sysfs(sysfs::KobjRef(devices_dir_), backing);
        if (added.is_error()) {
            log::err("cannot create the sysfs directory of %s: %d", device->name(), added.to_errno());
            device->remove_sysfs();
            destroy(device);
            return added.error();
        }
        devices_.push_back(*device);
    }
    device->writers_ = writers;
    device->mappings_.push_back(dev);
    dev.device_ = device;
    return {};
}

void Server::detach(Mapping& dev)
{
    Device* device = dev.device_;
    if (!device)
        return;
    MutexGuard guard(devices_lock_);
    Mapping::DeviceList::remove(dev);
    if (dev.access_mode() != wire::AccessMode::kReadOnly)
        --device->writers_;
    dev.device_ = nullptr;
    if (device->mappings_.is_empty()) {
        // Under the lock: a new mapping of the same object must not find the
        // old directory still in place.
        Device::List::remove(*device);
        device->remove_sysfs();
        destroy(device);
    }
}

const char* access_mode_name(wire::AccessMode mode)
{
    switch (mode) {
    case wire::AccessMode::kReadOnly:
        return "ro";
    case wire::AccessMode::kReadWrite:
        return "rw";
    case wire::AccessMode::kMigration:
        return "migration";
    }
    return "unknown";
}

}  // namespace rnbd::srv

extern "C" int rnbd_srv_cxx_init(unsigned short port) noexcept
{
    using namespace cxxrt;
    // Port 0 would listen on a port the kernel picks and no client knows.
    if (port == 0) {
        log::err("port_nr 0 refused: 1..65535");
        return -err::kInval;
    }
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    auto* server = allocate<rnbd::srv::Server>(Gfp::kernel());
    if (!server) {
        (void)cxxrt_module_exit();
        return -err::kNoMem;
    }
    rnbd::srv::g_server = server;
    auto started = server->start(port);
    if (started.is_error()) {
        log::err("cannot start on port %u: %d", unsigned(port), started.to_errno());
        server->stop();
        rnbd::srv::g_server = nullptr;
        destroy(server);
        (void)cxxrt_module_exit();
        return started.to_errno();
    }
    log::info("loaded, port %u, dev_search_path '%s'", unsigned(port), rnbd_srv_dev_search_path());
    return 0;
}

extern "C" int rnbd_srv_cxx_set_idle_session_timeout(const char* value, unsigned int* storage) noexcept
{
    constexpr cxxrt::u64 kMinMs = 1000, kMaxMs = 86400000;
    auto parsed = cxxrt::parse::parse_line_in_range(cxxrt::StringView(value), kMinMs, kMaxMs);
    if (parsed.is_error()) {
        cxxrt::log::err("idle_session_timeout_ms: '%s' is not a number of ms in %llu..%llu", value,
                        (unsigned long long)kMinMs, (unsigned long long)kMaxMs);
        return -cxxrt::err::kInval;
    }
    *storage = unsigned(parsed.value());
    return 0;
}

extern "C" void rnbd_srv_cxx_exit(void) noexcept
{
    using namespace cxxrt;
    if (auto* server = exchange(rnbd::srv::g_server, nullptr)) {
        rnbd::srv::g_server = server;  // the teardown's callbacks still use it
        server->stop();
        rnbd::srv::g_server = nullptr;
        destroy(server);
    }
    (void)cxxrt_module_exit();
    log::info("unloaded");
}
