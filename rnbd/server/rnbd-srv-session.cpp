// rnbd-server: one RTRS session's mappings. OPEN, CLOSE, force_close and
// the session's end run in process context, one at a time (mutex_); the IO
// path looks mappings up under a spinlock (lock_) and holds a reference on
// the mapping for the duration of the IO.
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/scope_guard.hpp>
#include <cxxrt/text.hpp>
#include <cxxrt/unique_ptr.hpp>
#include "rnbd/server/rnbd-srv-upcalls.h"
#include "rnbd/core/rnbd-srv-policy.hpp"
#include "rnbd/server/rnbd-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::srv {

using namespace cxxrt;

Result<Session*> Session::create(rtrs_server_session* rtrs)
{
    auto session = CXXRT_TRY(make_unique<Session>(Gfp::kernel(), rtrs));
    session->io_works_ = CXXRT_TRY(cxxrt::Array<IoWork>::create(Gfp::kernel(), rtrs_server_queue_depth(rtrs)));
    return session.release();
}

Session::Session(rtrs_server_session* rtrs) : rtrs_(rtrs), io_room_(rtrs_server_chunk_size(rtrs))
{
    if (rtrs_server_session_name(rtrs, name_, sizeof(name_)) < 0)
        name_[0] = '\0';
    name_[sizeof(name_) - 1] = '\0';
}

Session::~Session()
{
    CXXRT_ASSERT(devs_.is_empty());
}

Mapping* Session::get_dev(u32 id)
{
    BhSpinGuard guard(lock_);
    for (Mapping& dev : devs_) {
        if (dev.id_ != id)
            continue;
        if (dev.state_ != Mapping::State::kOpen)
            return nullptr;
        dev.get();
        return &dev;
    }
    return nullptr;
}

Mapping* Session::find_open_by_path(StringView path)
{
    for (Mapping& dev : devs_)
        if (dev.state_ == Mapping::State::kOpen && StringView(dev.mapping_path_) == path)
            return &dev;
    return nullptr;
}

u32 Session::free_id()
{
    for (u32 id = 0;; ++id) {
        bool used = false;
        for (Mapping& dev : devs_)
            used = used || dev.id_ == id;
        if (!used)
            return id;
    }
}

Result<void> Session::open(const codec::OpenView& msg, codec::OpenRspFields& rsp)
{
    MutexGuard guard(mutex_);
    Mapping* dev = find_open_by_path(msg.dev_name);
    if (!dev) {
        RefPtr<Export> exported;
        if (server().exports().lookup(msg.dev_name, exported))
            dev = CXXRT_TRY(open_export(msg, move(exported)));
        else
            dev = CXXRT_TRY(open_by_search_path(msg));
        log::info("session %s: opened '%s' as %s, %s, %s, device id %u, %llu sectors", name_,
                  dev->export_ ? dev->export_->definition().backing : dev->mapping_path_, dev->device()->name(),
                  access_mode_name(dev->access_mode()), dev->backing().io_mode_name(), dev->id(),
                  (unsigned long long)dev->sectors());
    }
    rsp = codec::OpenRspFields{};
    dev->backing().fill_open_rsp(rsp);
    rsp.device_id = dev->id();
    return {};
}

Result<Mapping*> Session::open_by_search_path(const codec::OpenView& msg)
{
    PathBuffer path;
    if (!path.data())
        return Error(err::kNoMem);
    auto built = policy::build_full_path(path.span(), rnbd_srv_dev_search_path(), name_, msg.dev_name);
    if (built.is_error()) {
        log::err_ratelimited("session %s: device path refused (contains '..' or too long)", name_);
        return built.error();
    }
    PathBuffer file_export_dir;
    if (!file_export_dir.data())
        return Error(err::kNoMem);
    CXXRT_TRY(copy_file_export_dir(file_export_dir.span()));
    Refusal refusal;
    auto created = create_dev(msg, path.data(), file_export_dir.data(), refusal);
    if (created.is_error()) {
        log::err_ratelimited("session %s: cannot open '%s' (%s): %s%s%d", name_, path.data(),
                             access_mode_name(msg.access_mode), refusal.reason, refusal.reason[0] ? ": " : "",
                             created.to_errno());
        // The detail stays in the log: the client is not told what the
        // path leads to on the server.
        if (refusal.not_exported)
            return Error::from_errno(policy::not_exported_errno(created.to_errno()));
        return created.error();
    }
    return created.value();
}

bool Session::admitted_by(const Export& exported)
{
    constexpr u32 kMaxPaths = RTRS_MAX_PATHS;  // a session has at most as many paths as a client may add
    auto found = Array<rtrs_address>::create_zeroed(Gfp::kernel(), kMaxPaths);
    if (!found)
        return false;
    const int count = rtrs_server_session_client_addresses(rtrs_, found.value().data(), kMaxPaths);
    if (count <= 0 || u32(count) > kMaxPaths)
        return false;
    auto made = Array<rtrs::Address>::create(Gfp::kernel(), u32(count));
    if (!made)
        return false;
    Array<rtrs::Address>& addresses = made.value();
    for (int i = 0; i < count; ++i) {
        addresses[i].family = rtrs::AddressFamily(found.value()[i].family);
        copy_bytes(addresses[i].bytes, found.value()[i].bytes, sizeof(addresses[i].bytes));
    }
    return exports::admits_session(exported.definition(), StringView(name_),
                                   Span<const rtrs::Address>(addresses.data(), size_t(count)));
}

Result<Mapping*> Session::open_export(const codec::OpenView& msg, RefPtr<Export> exported)
{
    // A name that is not an export and an export that does not admit this
    // session get one answer: the client learns nothing of the exports.
    if (!exported) {
        log::err_ratelimited("session %s: '%.*s' is not an export", name_, int(msg.dev_name.length()),
                             msg.dev_name.data());
        return Error::from_errno(-policy::kErrNotExported);
    }
    const exports::ExportDefinition& definition = exported->definition();
    {
        // From here on a new path of this session is checked against the
        // export too (admit_path): none joins between the check and the mapping.
        BhSpinGuard spin(lock_);
        opening_ = exported.get();
    }
    ScopeGuard done([this] {
        BhSpinGuard spin(lock_);
        opening_ = nullptr;
    });
    if (!admitted_by(*exported)) {
        log::err_ratelimited("session %s: export '%s' does not admit this session (its name or a path's address)",
                             name_, definition.name);
        return Error::from_errno(-policy::kErrNotExported);
    }
    if (const int refused = exports::check_open_mode(definition, msg.access_mode, msg.io_mode); refused < 0) {
        log::err_ratelimited("session %s: export '%s' (access %s, io_modes %s) refuses %s%s: %d", name_,
                             definition.name, definition.read_only ? "ro" : "rw",
                             exports::io_modes_text(definition.io_modes), access_mode_name(msg.access_mode),
                             msg.io_mode == wire::IoMode::kFileIo   ? " io_mode=fileio"
                             : msg.io_mode == wire::IoMode::kBlockIo ? " io_mode=blockio"
                                                                     : "",
                             refused);
        return Error::from_errno(refused);
    }
    PathBuffer file_export_dir;
    if (!file_export_dir.data())
        return Error(err::kNoMem);
    CXXRT_TRY(copy_file_export_dir(file_export_dir.span()));
    Refusal refusal;
    auto created = create_dev(msg, definition.backing, file_export_dir.data(), refusal);
    if (created.is_error()) {
        log::err_ratelimited("session %s: cannot open export '%s' ('%s', %s): %s%s%d", name_, definition.name,
                             definition.backing, access_mode_name(msg.access_mode), refusal.reason,
                             refusal.reason[0] ? ": " : "", created.to_errno());
        if (refusal.not_exported)
            return Error::from_errno(policy::not_exported_errno(created.to_errno()));
        return created.error();
    }
    Mapping* dev = created.value();
    dev->export_ = move(exported);
    // Removed while we opened it: its removal may have walked this session
    // before the mapping existed.
    if (dev->export_->withdrawn()) {
        log::err_ratelimited("session %s: export '%s' was removed while it opened", name_, definition.name);
        close_dev(*dev, false);
        return Error::from_errno(-policy::kErrNotExported);
    }
    return dev;
}

Result<Mapping*> Session::create_dev(const codec::OpenView& msg, const char* path, const char* file_export_dir,
                                     Refusal& refusal)
{
    Mapping* dev = allocate<Mapping>(Gfp::kernel(), *this, free_id(), msg.access_mode, msg.dev_name);
    if (!dev)
        return Error(err::kNoMem);
    const bool writable = msg.access_mode != wire::AccessMode::kReadOnly;
    auto opened = dev->backing_.open(path, writable, msg.io_mode, file_export_dir);
    if (opened.is_error()) {
        refusal = dev->backing_.refusal();
        destroy(dev);
        return opened.error();
    }
    dev->sectors_ = dev->backing_.sectors();
    auto attached = server().attach(*dev);
    if (attached.is_error()) {
        destroy(dev);
        return attached.error();
    }
    auto added = dev->kobj_.add(dev, dev->device_->sessions_dir(), name_, &server().mapping_group());
    if (added.is_error()) {
        server().detach(*dev);
        destroy(dev);
        return added.error();
    }
    dev->module_.take();
    BhSpinGuard guard(lock_);
    devs_.push_back(*dev);
    return dev;
}

void Session::close_dev(Mapping& dev, bool keep_id)
{
    {
        BhSpinGuard guard(lock_);
        if (dev.state_ != Mapping::State::kOpen)
            return;
        dev.state_ = Mapping::State::kClosing;
    }
    dev.drain();  // no IO of this mapping is left in flight
    dev.kobj_.remove();
    server().detach(dev);
    dev.backing_.close();
    log::info("session %s: closed device id %u (%s)%s", name_, dev.id_, dev.mapping_path_,
              keep_id ? ", id kept until the client closes it" : "");
    dev.module_.drop();
    if (keep_id) {
        BhSpinGuard guard(lock_);
        dev.state_ = Mapping::State::kClosed;
        return;
    }
    {
        BhSpinGuard guard(lock_);
        Mapping::SessionList::remove(dev);
    }
    destroy(&dev);
}

void Session::close(u32 id)
{
    MutexGuard guard(mutex_);
    for (Mapping& dev : devs_) {
        if (dev.id_ != id)
            continue;
        if (dev.state_ == Mapping::State::kOpen) {
            close_dev(dev, false);
        } else {
            {
                BhSpinGuard spin(lock_);
                Mapping::SessionList::remove(dev);
            }
            destroy(&dev);
        }
        if (devs_.is_empty())
            arm_idle_timer();
        return;
    }
}

void Session::arm_idle_timer()
{
    idle_timer_.mod_on(server().control_wq(), rnbd_srv_idle_session_timeout_ms());
}

void Session::on_idle_timer()
{
    MutexGuard guard(mutex_);
    if (!devs_.is_empty())
        return;
    log::warn_ratelimited("session %s: no device mapped for %u ms (idle_session_timeout_ms): closing it", name_,
                          rnbd_srv_idle_session_timeout_ms());
    rtrs_server_close_session(rtrs_);
}

Result<void> Session::force_close(Mapping& dev, sysfs::Input& in)
{
    // A CLOSE or the session's end may be tearing this very directory down
    // while holding the mutex (and waiting for this file): never block here.
    if (!mutex_.try_lock())
        return Error(err::kBusy);
    Result<void> result;
    if (dev.state_ != Mapping::State::kOpen || !in.remove_self()) {
        result = Error(err::kNoEnt);
    } else {
        log::info("session %s: force_close of device id %u (%s)", name_, dev.id_, dev.mapping_path_);
        close_dev(dev, true);
    }
    mutex_.unlock();
    return result;
}

void Session::close_export(const Export& removed)
{
    MutexGuard guard(mutex_);
    for (Mapping& dev : devs_) {
        if (dev.export_.get() != &removed || dev.state_ != Mapping::State::kOpen)
            continue;
        log::info("session %s: export '%s' removed: closing device id %u", name_, removed.definition().name,
                  dev.id_);
        close_dev(dev, true);
    }
}

int Session::admit_path(const rtrs_address& client)
{
    rtrs::Address address;
    address.family = rtrs::AddressFamily(client.family);
    copy_bytes(address.bytes, client.bytes, sizeof(address.bytes));
    BhSpinGuard spin(lock_);
    if (opening_ && !exports::admits_address(opening_->definition(), address))
        return -err::kAccess;
    for (Mapping& dev : devs_) {
        if (dev.state_ == Mapping::State::kOpen && dev.export_ &&
            !exports::admits_address(dev.export_->definition(), address)) {
            log::err_ratelimited("session %s: a new path's address is not admitted by export '%s'", name_,
                                 dev.export_->definition().name);
            return -err::kAccess;
        }
    }
    return 0;
}

void Session::close_all()
{
    // Nothing arms it again: no OPEN or CLOSE runs once the session is gone.
    idle_timer_.cancel_sync();
    MutexGuard guard(mutex_);
    while (Mapping* dev = devs_.first()) {
        if (dev->state_ == Mapping::State::kOpen) {
            close_dev(*dev, false);
            continue;
        }
        {
            BhSpinGuard spin(lock_);
            Mapping::SessionList::remove(*dev);
        }
        destroy(dev);
    }
}

}  // namespace rnbd::srv
