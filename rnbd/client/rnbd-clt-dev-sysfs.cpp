// rnbd-client: one mapped device's sysfs files,
// /sys/block/rnbd<N>/{rnbd_client,rnbd}/ (table-driven: kDeviceAttributes).
#include <cxxrt/parse.hpp>
#include "rnbd/client/rnbd-clt-upcalls.h"
#include "rnbd/client/rnbd-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::clt {

namespace {

const char* access_mode_name(AccessMode mode)
{
    switch (mode) {
    case AccessMode::kReadOnly: return "ro";
    case AccessMode::kReadWrite: return "rw";
    case AccessMode::kMigration: return "migration";
    }
    return "unknown";
}

const char* state_name(DeviceState state)
{
    switch (state) {
    case DeviceState::kInit: return "init";
    case DeviceState::kOpen: return "open";
    case DeviceState::kClosed: return "closed";
    case DeviceState::kUnmapping: return "unmapped";
    }
    return "unknown";
}

}  // namespace

// ---- sysfs --------------------------------------------------------------------------

Result<void> Device::show_state(Output& out)
{
    out.print("%s\n", state_name(state()));
    return {};
}

Result<void> Device::show_session(Output& out)
{
    out.print("%s\n", session_->name());
    return {};
}

Result<void> Device::show_mapping_path(Output& out)
{
    out.print("%s\n", path_);
    return {};
}

Result<void> Device::show_access_mode(Output& out)
{
    out.print("%s\n", access_mode_name(access_mode_));
    return {};
}

Result<void> Device::show_io_mode(Output& out)
{
    out.print("%s\n", io_mode_ == IoMode::kFileIo ? "fileio" : "blockio");
    return {};
}

Result<void> Device::show_nr_poll_queues(Output& out)
{
    out.print("%u\n", poll_queues_);
    return {};
}

Result<void> Device::store_unmap_device(Input& in)
{
    StringView line = in.line();
    bool force = line == StringView("force");
    if (!force && !(line == StringView("normal"))) {
        log::err_ratelimited("%s: unmap_device takes 'normal' or 'force'", disk_name());
        return Error(err::kInval);
    }
    // Once our file is removed below, nothing else keeps the module loaded
    // while the CLOSE waits for the server (up to control_timeout_ms): hold
    // it ourselves, so `rmmod rnbd-client` meanwhile fails with EBUSY
    // instead of freeing the code this write runs. Refused while unloading:
    // module exit unmaps every device itself.
    if (!rnbd_clt_module_get())
        return Error(err::kNoDev);
    auto result = unmap_from_sysfs(in, force);
    rnbd_clt_module_put();
    return result;
}

Result<void> Device::unmap_from_sysfs(Input& in, bool force)
{
    {
        cxxrt::MutexGuard guard(lock_);
        if (!published_ || state() == DeviceState::kUnmapping)
            return Error(err::kNoDev);
        if (!force && openers_) {
            log::err_ratelimited("%s: unmap_device normal refused: the device is open (%u openers)", disk_name(),
                                 openers_);
            return Error(err::kBusy);
        }
        set_state(DeviceState::kUnmapping);
    }
    // Our own file first, so tearing the directory down does not wait for
    // this very write.
    if (!in.remove_self())
        return Error(err::kNoDev);
    RefPtr<Device> self(this);
    client_.forget_device(*this);  // the registry's (mapped) reference comes back to us
    unmap(force);
    unref();
    return {};
}

Result<void> Device::store_remap_device(Input& in)
{
    auto yes = cxxrt::parse::parse_unsigned(in.line(), 1);
    if (!yes || yes.value() != 1) {
        log::err_ratelimited("%s: remap_device takes '1'", disk_name());
        return Error(err::kInval);
    }
    {
        // The session lock orders us with the reconnect's own re-open, so the
        // state looked at is the one the OPEN below replaces.
        cxxrt::MutexGuard session_guard(session_->lock_);
        {
            cxxrt::MutexGuard guard(lock_);
            if (!published_ || state() == DeviceState::kUnmapping)
                return Error(err::kNoDev);
            // As upstream: an open device has nothing to re-open (its size
            // follows the server through resize); a second OPEN would only
            // change the disk under its users.
            if (state() == DeviceState::kOpen) {
                log::err_ratelimited("%s: remap_device refused: the device is open on the server", disk_name());
                return Error(err::kAlready);
            }
            if (state() != DeviceState::kClosed)
                return Error(err::kBusy);
        }
        auto reopened = reopen(TakeSize::kDisk);
        if (!reopened) {
            log::err_ratelimited("%s: remap_device: the server refused the re-open (%d)", disk_name(),
                                 reopened.to_errno());
            return reopened;
        }
        // IO held (or failing) since the device closed goes out now.
        kick();
    }
    // The server's device may not be the one it was (another device behind
    // the path, other limits): the disk takes what it offers now.
    return apply_offered_limits();
}

Result<void> Device::store_resize(Input& in)
{
    cxxrt::parse::Reason reason = cxxrt::parse::Reason::kNone;
    auto sectors = cxxrt::parse::parse_unsigned(in.line(), ~u64(0) >> wire::kSectorShift, &reason);
    if (!sectors || sectors.value() == 0) {
        log::err_ratelimited("%s: resize takes a size in 512-byte sectors", disk_name());
        return Error(err::kInval);
    }
    {
        cxxrt::MutexGuard guard(lock_);
        if (!published_ || state() != DeviceState::kOpen)
            return Error(err::kNoDev);
    }
    if (sectors.value() > remote_sectors_.load()) {
        // Learn the server's current size (it may have grown).
        cxxrt::MutexGuard guard(session_->lock_);
        CXXRT_TRY(reopen(TakeSize::kOnly));
    }
    // What that OPEN (or a reconnect's since the last update) offered.
    CXXRT_TRY(apply_offered_limits());
    if (sectors.value() > remote_sectors_.load()) {
        log::err_ratelimited("%s: resize to %llu sectors refused: the server's device has %llu", disk_name(),
                             (unsigned long long)sectors.value(), (unsigned long long)remote_sectors_.load());
        return Error(err::kInval);
    }
    disk_.set_capacity_and_notify(sectors.value());
    return {};
}

namespace {
constexpr cxxrt::sysfs::Attribute<Device> kDeviceAttributes[] = {
    {"unmap_device", 0644, nullptr, &Device::store_unmap_device, "Usage: echo <normal|force> > unmap_device\n"},
    {"remap_device", 0644, nullptr, &Device::store_remap_device, "Usage: echo <1> > remap_device\n"},
    {"resize", 0644, nullptr, &Device::store_resize, "Usage: echo <new size in sectors> > resize\n"},
    {"state", 0444, &Device::show_state, nullptr},
    {"session", 0444, &Device::show_session, nullptr},
    {"mapping_path", 0444, &Device::show_mapping_path, nullptr},
    {"access_mode", 0444, &Device::show_access_mode, nullptr},
    {"io_mode", 0444, &Device::show_io_mode, nullptr},
    {"nr_poll_queues", 0444, &Device::show_nr_poll_queues, nullptr},
};
constexpr cxxrt::sysfs::GroupSpec kDeviceGroup = cxxrt::sysfs::group(kDeviceAttributes);

}  // namespace

const cxxrt::sysfs::GroupSpec& device_group_spec() { return kDeviceGroup; }

}  // namespace rnbd::clt
