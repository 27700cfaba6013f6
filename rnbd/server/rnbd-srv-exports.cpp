// rnbd-server: the export table an administrator manages under
// /sys/class/rnbd-server/ctl/exports/ (add, remove, one directory per
// export), and the session list an export's removal walks to close the
// mappings it no longer allows. The definitions themselves (syntax,
// canonical text, who is admitted) are rnbd/core/rnbd-srv-exports.*.
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/text.hpp>
#include "rnbd/core/rnbd-srv-policy.hpp"
#include "rnbd/server/rnbd-srv-upcalls.h"
#include "rnbd/server/rnbd-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::srv {

using namespace cxxrt;

namespace {

// Prints a core formatter's text into a sysfs page.
template <typename Format>
Result<void> print_formatted(sysfs::Output& out, Format&& format)
{
    const size_t length = CXXRT_TRY(format(out.remaining()));
    out.commit(length);
    return {};
}

// Names of the files beside the export directories.
bool is_control_file_name(StringView name)
{
    return name == StringView("add", 3) || name == StringView("remove", 6);
}

wire::IoMode trial_io_mode(const exports::ExportDefinition& definition)
{
    return definition.io_modes == exports::kIoModeFileIo ? wire::IoMode::kFileIo : wire::IoMode::kUnspecified;
}

}  // namespace

// ---- Export ----

Result<void> Export::show_definition(sysfs::Output& out)
{
    return print_formatted(out, [this](Span<char> room) { return exports::format_definition(definition_, room); });
}

Result<void> Export::show_path(sysfs::Output& out)
{
    out.print("%s\n", definition_.backing);
    return {};
}

Result<void> Export::show_access_mode(sysfs::Output& out)
{
    out.print("%s\n", definition_.read_only ? "ro" : "rw");
    return {};
}

Result<void> Export::show_io_modes(sysfs::Output& out)
{
    out.print("%s\n", exports::io_modes_text(definition_.io_modes));
    return {};
}

Result<void> Export::show_allow(sysfs::Output& out)
{
    for (size_t i = 0; i < definition_.rule_count; ++i) {
        CXXRT_TRY(print_formatted(
            out, [this, i](Span<char> room) { return exports::format_allow_rule(definition_.rules[i], room); }));
        out.append(StringView("\n", 1));
    }
    return {};
}

Result<void> Export::show_session(sysfs::Output& out)
{
    if (definition_.session[0] != '\0')
        out.print("%s\n", definition_.session);
    return {};
}

// ---- ExportTable ----

void ExportTable::stop()
{
    {
        MutexGuard guard(lock_);
        stopping_ = true;  // an add that waited for the lock adds nothing now
        while (Export* exported = exports_.first()) {
            Export::List::remove(*exported);
            exported->withdrawn_.store(true, MemoryOrder::kRelease);
            exported->kobj_.remove();  // children first: a directory's release waits for theirs
            exported->unref();
        }
    }
    dir_.remove();
    control_group_.reset();
    export_group_.reset();
}

Export* ExportTable::find(StringView name)
{
    for (Export& exported : exports_)
        if (StringView(exported.definition_.name) == name)
            return &exported;
    return nullptr;
}

bool ExportTable::lookup(StringView name, RefPtr<Export>& found)
{
    MutexGuard guard(lock_);
    if (exports_.is_empty() && !rnbd_srv_exports_only())
        return false;
    found = RefPtr<Export>(find(name));
    return true;
}

Result<void> ExportTable::check_backing(const exports::ExportDefinition& definition)
{
    PathBuffer file_export_dir;
    if (!file_export_dir.data())
        return Error(err::kNoMem);
    CXXRT_TRY(copy_file_export_dir(file_export_dir.span()));
    const wire::IoMode mode = trial_io_mode(definition);
    Backing trial;
    auto opened = trial.open(definition.backing, !definition.read_only, mode, file_export_dir.data());
    if (opened.is_ok())
        return {};
    const Refusal refusal = trial.refusal();
    // A read-write export of an object that opens only read-only.
    if (opened.to_errno() == -err::kAccess && !definition.read_only) {
        Backing read_only;
        if (read_only.open(definition.backing, false, mode, file_export_dir.data()).is_ok()) {
            log::err("exports/add: %s: '%s' is read-only: define the export with access=ro", definition.name,
                     definition.backing);
            return Error::from_errno(-policy::kErrRoFs);
        }
    }
    log::err("exports/add: %s: cannot open '%s': %s%s%d", definition.name, definition.backing, refusal.reason,
             refusal.reason[0] ? ": " : "", opened.to_errno());
    return opened.error();
}

Result<void> ExportTable::store_add(sysfs::Input& in)
{
    RefPtr<Export> owner = CXXRT_TRY(make_ref<Export>(Gfp::kernel()));
    Export* created = owner.get();
    exports::ExportDefinition& definition = created->definition();
    exports::DefinitionError error;
    if (exports::parse_definition(in.text(), definition, &error).is_error()) {
        log::err("exports/add: %s: '%.*s'", exports::definition_reason_text(error), int(error.token.length()),
                 error.token.data());
        return Error(err::kInval);
    }
    if (is_control_file_name(StringView(definition.name))) {
        log::err("exports/add: '%s' is the name of a file in exports/: choose another name", definition.name);
        return Error(err::kInval);
    }
    CXXRT_TRY(check_backing(definition));
    char directory[exports::kMaxNameLength + 1];
    CXXRT_TRY(exports::directory_name(StringView(definition.name), Span<char>(directory, sizeof(directory))));

    MutexGuard guard(lock_);
    if (stopping_)
        return Error(err::kNoDev);
    if (find(StringView(definition.name))) {
        log::err("exports/add: an export named '%s' exists (remove it first)", definition.name);
        return Error(err::kExist);
    }
    auto added = created->kobj_.add(created, dir_, directory, &export_group_);
    if (added.is_error()) {
        log::err("exports/add: %s: cannot create its sysfs directory: %d", definition.name, added.to_errno());
        return added.error();
    }
    created->kobj_.announce();
    exports_.push_back(*created);
    (void)owner.leak_ref();  // the table's reference
    log::info("export %s added: %s", definition.name, definition.backing);
    return {};
}

Result<void> ExportTable::store_remove(sysfs::Input& in)
{
    const StringView name = in.line();
    Export* removed = nullptr;
    {
        MutexGuard guard(lock_);
        removed = find(name);
        if (!removed) {
            log::err("exports/remove: no export named '%.*s'", int(name.length()), name.data());
            return Error(err::kNoEnt);
        }
        Export::List::remove(*removed);
        // From here on an OPEN that found it drops its mapping (Session::open_export).
        removed->withdrawn_.store(true, MemoryOrder::kRelease);
    }
    RefPtr<Export> owner(Adopt::kAdopt, removed);  // the table's reference
    removed->kobj_.remove();
    log::info("export %s removed", removed->definition().name);
    server().close_export_mappings(*removed);
    return {};
}

// ---- The files (after their handlers: a member pointer is a constant
// expression the table checks only once the function is defined) ----

namespace {

constexpr sysfs::Attribute<ExportTable> kControlAttributes[] = {
    {"add", 0644, nullptr, &ExportTable::store_add,
     "Usage: echo \"name=<name> path=<block device or file> allow=<any|ip:<addr>[/<bits>]|gid:<gid>[/<bits>]> "
     "[allow=...] [access=rw|ro] [io_modes=blockio|fileio|blockio,fileio] [session=<sessname>]\" > add\n"},
    {"remove", 0644, nullptr, &ExportTable::store_remove, "Usage: echo <name> > remove\n"},
};
constexpr sysfs::GroupSpec kControlGroup = sysfs::group(kControlAttributes);

constexpr sysfs::Attribute<Export> kExportAttributes[] = {
    {"definition", 0444, &Export::show_definition, nullptr},
    {"path", 0444, &Export::show_path, nullptr},
    {"access_mode", 0444, &Export::show_access_mode, nullptr},
    {"io_modes", 0444, &Export::show_io_modes, nullptr},
    {"allow", 0444, &Export::show_allow, nullptr},
    {"session", 0444, &Export::show_session, nullptr},
};
constexpr sysfs::GroupSpec kExportGroup = sysfs::group(kExportAttributes);

}  // namespace

Result<void> ExportTable::start(sysfs::KobjRef ctl)
{
    control_group_ = CXXRT_TRY(sysfs::Group::create(kControlGroup, sysfs::Flavour::kKobject));
    export_group_ = CXXRT_TRY(sysfs::Group::create(kExportGroup, sysfs::Flavour::kKobject));
    return dir_.add(this, ctl, "exports", &control_group_);
}

// ---- Server: the session list ----

void Server::add_session(Session& session)
{
    MutexGuard guard(sessions_lock_);
    sessions_.push_back(session);
}

void Server::remove_session(Session& session)
{
    MutexGuard guard(sessions_lock_);
    IntrusiveList<Session, &Session::server_node>::remove(session);
}

void Server::close_export_mappings(const Export& removed)
{
    MutexGuard guard(sessions_lock_);
    for (Session& session : sessions_)
        session.close_export(removed);
}

}  // namespace rnbd::srv
