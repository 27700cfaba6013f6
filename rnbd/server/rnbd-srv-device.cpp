// rnbd-server: the backing object of a mapping and the export policy
// applied to it (the backends themselves: rnbd-srv-io-bdev.cpp and
// rnbd-srv-io-file.cpp), the file_export_dir parameter, the exported Device
// with its sysfs directory, and a mapping's sysfs files.
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/parse.hpp>
#include "kernel/block/path.hpp"
#include "rnbd/server/rnbd-srv-upcalls.h"
#include "rnbd/core/rnbd-srv-policy.hpp"
#include "rnbd/server/rnbd-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::srv {

using namespace cxxrt;

// ---- PathBuffer ----

PathBuffer::PathBuffer()
{
    if (auto made = Array<char>::create_zeroed(Gfp::kernel(), policy::kPathMax))
        data_ = made.release_value();
}
Span<char> PathBuffer::span() { return Span<char>(data_.data(), policy::kPathMax); }

namespace {

policy::ObjectKind kind_of(const kernel::block::FilesystemPath& path) { return policy::object_kind(path.mode()); }

// Whether the object at `object` lies inside the directory named by
// `file_export_dir` (looked up now: the parameter may have changed, or the
// directory may be gone, since it was set).
bool inside_file_export_dir(const kernel::block::FilesystemPath& object, const char* file_export_dir)
{
    kernel::block::FilesystemPath dir;
    if (dir.lookup(file_export_dir).is_error() || kind_of(dir) != policy::ObjectKind::kDirectory)
        return false;
    return object.is_under(dir);
}

}  // namespace

// ---- Backing ----

Result<void> Backing::open(const char* path, bool writable, wire::IoMode mode, const char* file_export_dir)
{
    refusal_ = Refusal{};
    kernel::block::FilesystemPath object;
    auto found = object.lookup(path);
    if (found.is_error()) {
        refusal_ = Refusal{"lookup failed", true};
        return found.error();
    }
    policy::ExportFacts facts;
    facts.kind = kind_of(object);
    facts.nodev_mount = object.nodev();
    facts.file_export_enabled = file_export_dir[0] != '\0';
    facts.fileio_of_block_devices = rnbd_srv_allow_fileio_of_block_devices() != 0;
    if (facts.kind == policy::ObjectKind::kRegularFile && facts.file_export_enabled)
        facts.inside_file_export_dir = inside_file_export_dir(object, file_export_dir);
    const policy::ExportDecision decision = policy::decide_export(facts, mode);
    if (decision.error) {
        refusal_ = Refusal{decision.reason, true};
        return Error::from_errno(decision.error);
    }
    if (decision.open_as == policy::OpenAs::kBlockDevice) {
        auto opened = BlockBackend::open(object.rdev(), writable);
        if (!opened) {
            refusal_.reason = opened.reason();
            return opened.error();
        }
        backend_ = opened.release_value();
    } else {
        const bool block_node = facts.kind == policy::ObjectKind::kBlockDevice;
        backend_ = CXXRT_TRY(FileBackend::open(object, writable, block_node));
    }
    writable_ = writable;
    return {};
}

void Backing::close()
{
    if (Backend* backend = exchange(backend_, nullptr))
        backend->release();
}

// ---- Device ----

Device::Device(u32 key_dev, u64 key_ino)
    : key_dev_(key_dev), key_ino_(key_ino)
{
}

Result<void> Device::add_sysfs(sysfs::KobjRef parent, const Backing& backing)
{
    CXXRT_TRY(kobj_.add(this, parent, name_));
    CXXRT_TRY(sessions_.add(this, kobj_, "sessions"));
    if (const kernel::block::BlockDevice* bdev = backing.backend().block_device())
        CXXRT_TRY(block_dev_link_.create(kobj_, bdev->kobject(), "block_dev"));
    return {};
}

void Device::remove_sysfs()
{
    block_dev_link_.reset();
    sessions_.remove();
    kobj_.remove();
}

void Device::set_name(const Backing& backing, const char* mapping_path)
{
    if (const kernel::block::BlockDevice* bdev = backing.backend().block_device()) {
        bdev->name(Span<char>(name_, sizeof(name_)));
        return;
    }
    size_t n = 0;
    for (; mapping_path[n] != '\0' && n + 1 < sizeof(name_); ++n)
        name_[n] = mapping_path[n] == '/' ? '!' : mapping_path[n];
    name_[n] = '\0';
}

// ---- ModuleReference ----

void ModuleReference::take()
{
    CXXRT_ASSERT(!held_);
    rnbd_srv_module_get();
    held_ = true;
}

void ModuleReference::drop()
{
    if (exchange(held_, false))
        rnbd_srv_module_put();
}

// ---- Mapping ----

Mapping::Mapping(Session& session, u32 id, wire::AccessMode mode, StringView mapping_path)
    : session_(session), id_(id), access_mode_(mode)
{
    const size_t n = min(mapping_path.length(), sizeof(mapping_path_) - 1);
    copy_bytes(mapping_path_, mapping_path.data(), n);
    mapping_path_[n] = '\0';
}

void Mapping::put()
{
    if (refs_.fetch_sub(1, MemoryOrder::kAcqRel) == 1)
        drained_->complete();
}

void Mapping::drain()
{
    Completion drained{lock_class<"rnbd::srv::Mapping::drain::drained">};
    drained_ = &drained;
    put();
    drained.wait();
    drained_ = nullptr;
}

Result<void> Mapping::show_read_only(sysfs::Output& out)
{
    out.print("%d\n", read_only() ? 1 : 0);
    return {};
}

Result<void> Mapping::show_access_mode(sysfs::Output& out)
{
    out.print("%s\n", access_mode_name(access_mode_));
    return {};
}

Result<void> Mapping::show_mapping_path(sysfs::Output& out)
{
    out.print("%s\n", mapping_path_);
    return {};
}

Result<void> Mapping::store_force_close(sysfs::Input& in)
{
    if (!(in.line() == StringView("1"))) {
        log::err_ratelimited("%s@%s: force_close: only '1' is accepted", mapping_path_, session_.name());
        return Error(err::kInval);
    }
    return session_.force_close(*this, in);
}

namespace {

constexpr sysfs::Attribute<Mapping> kMappingAttributes[] = {
    {"read_only", 0444, &Mapping::show_read_only, nullptr},
    {"access_mode", 0444, &Mapping::show_access_mode, nullptr},
    {"mapping_path", 0444, &Mapping::show_mapping_path, nullptr},
    {"force_close", 0644, nullptr, &Mapping::store_force_close, "Usage: echo 1 > force_close\n"},
};
constexpr sysfs::GroupSpec kMappingGroup = sysfs::group(kMappingAttributes);

}  // namespace

const sysfs::GroupSpec& mapping_group_spec() { return kMappingGroup; }

Result<void> copy_file_export_dir(Span<char> out)
{
    rnbd_srv_params_lock();
    TextBuffer text(out);
    text.append(StringView(rnbd_srv_file_export_dir()));
    rnbd_srv_params_unlock();
    return text.truncated() ? Result<void>(Error(err::kNameTooLong)) : Result<void>();
}

namespace {

int set_file_export_dir(const char* value, char* storage, unsigned int size)
{
    auto checked = policy::check_file_export_dir(StringView(value));
    if (checked.is_error())
        return checked.to_errno();
    const size_t length = checked.value();
    if (length + 1 > size)
        return -err::kNameTooLong;
    if (length == 0) {
        storage[0] = '\0';
        return 0;
    }
    PathBuffer candidate;
    if (!candidate.data())
        return -err::kNoMem;
    copy_bytes(candidate.data(), value, length);
    candidate.data()[length] = '\0';
    kernel::block::FilesystemPath dir;
    auto found = dir.lookup(candidate.data());
    if (found.is_error())
        return found.to_errno();
    if (kind_of(dir) != policy::ObjectKind::kDirectory)
        return -policy::kErrNotDir;
    copy_bytes(storage, candidate.data(), length + 1);
    return 0;
}

int set_dev_search_path(const char* value, char* storage, unsigned int size)
{
    auto checked = policy::check_dev_search_path(StringView(value));
    if (checked.is_error()) {
        log::err("dev_search_path refused: not an absolute path below PATH_MAX bytes");
        return checked.to_errno();
    }
    const size_t length = checked.value();
    if (length + 1 > size)
        return -err::kInval;
    copy_bytes(storage, value, length);
    storage[length] = '\0';
    return 0;
}

}  // namespace

}  // namespace rnbd::srv

extern "C" int rnbd_srv_cxx_set_path_param(const char* name, const char* value, char* storage,
                                           unsigned int size) noexcept
{
    using namespace rnbd::srv;
    // A built-in module's names carry its prefix ("rnbd_server.").
    const StringView parameter(name);
    if (parameter.ends_with("file_export_dir"))
        return set_file_export_dir(value, storage, size);
    if (parameter.ends_with("dev_search_path"))
        return set_dev_search_path(value, storage, size);
    return -err::kInval;
}
