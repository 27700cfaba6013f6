// What the client's and the server's sysfs trees share (the ABI of
// Documentation/upstream-facts.md sections 9 and 10):
//   /sys/class/rtrs-<side>/<session>/ with its paths/, and
//   paths/<path>/ with its stats/,
// the module's class and the groups of those directories' files, the input
// of the command files ("echo 1 > disconnect") and the stats/ files kept
// per CPU. Each directory pair
// is made together and removed together, the child first, and a failure
// leaves neither; udev hears of a directory (KOBJ_ADD) once its files
// exist. Which files there are (the tables) and who answers them (the
// owner the handlers are bound to) are each side's (rtrs-clt-sysfs.cpp,
// rtrs-srv-sysfs.cpp). Process context (may sleep).
#pragma once

#include <cxxrt/errno.hpp>
#include <cxxrt/percpu.hpp>
#include <cxxrt/sysfs.hpp>
#include <cxxrt/sysfs_dir.hpp>
#include <cxxrt/unique_ptr.hpp>
#include "common/rtrs-addr.hpp"
#include "rtrs/core/rtrs-stats.hpp"

namespace rtrs {

// The module's class and the groups of its directories' files: made at
// load (init), freed at unload (exit) after every directory is gone. Each
// module (client, server) has its own, which its directories are made in.
class SysfsTree {
public:
    // /sys/class/<class_name> and the groups of the tables (`session` may be null).
    [[nodiscard]] static cxxrt::Result<void> init(const char* class_name, const cxxrt::sysfs::GroupSpec* session,
                                                  const cxxrt::sysfs::GroupSpec& path,
                                                  const cxxrt::sysfs::GroupSpec& stats)
    {
        using cxxrt::sysfs::Flavour;
        using cxxrt::sysfs::Group;
        auto tree = CXXRT_TRY(cxxrt::make_unique<SysfsTree>(cxxrt::Gfp::kernel()));
        if (session)
            tree->session_files = CXXRT_TRY(Group::create(*session, Flavour::kDevice));
        tree->path_files = CXXRT_TRY(Group::create(path, Flavour::kKobject));
        tree->stats_files = CXXRT_TRY(Group::create(stats, Flavour::kKobject));
        tree->device_class = CXXRT_TRY(cxxrt::sysfs::DeviceClass::create(class_name));
        module_ = tree.release();
        return {};
    }
    static void exit() { cxxrt::destroy(cxxrt::exchange(module_, nullptr)); }
    // Between init and exit.
    static SysfsTree& module() { return *module_; }

    cxxrt::sysfs::DeviceClass device_class;
    cxxrt::sysfs::Group session_files;  // device flavour; none on the server
    cxxrt::sysfs::Group path_files;     // kobject flavour, as stats_files
    cxxrt::sysfs::Group stats_files;

private:
    static inline constinit SysfsTree* module_ = nullptr;
};

// Adds `child` under `parent` (made just before it) with `files` bound to
// `owner`, and announces it; if that fails, `undo` removes the parent: a
// directory pair is made together or not at all.
template <typename Undo>
[[nodiscard]] cxxrt::Result<void> add_child(cxxrt::sysfs::Directory& child, void* owner, cxxrt::sysfs::KobjRef parent,
                                            const char* name, const cxxrt::sysfs::Group* files, Undo undo)
{
    if (auto added = child.add(owner, parent, name, files); added.is_error()) {
        undo();
        return added.error();
    }
    child.announce();
    return {};
}

// The session's directory: a device of the class, and its paths/.
class SessionDirectory : cxxrt::Pinned {
public:
    ~SessionDirectory() { remove(); }

    // <class>/<session.name()>/ with the module's session files bound to
    // `session`.
    template <typename Session>
    [[nodiscard]] cxxrt::Result<void> create(Session& session)
    {
        SysfsTree& tree = SysfsTree::module();
        const cxxrt::sysfs::Group* files = tree.session_files ? &tree.session_files : nullptr;
        device_ = CXXRT_TRY(cxxrt::sysfs::Device::create(tree.device_class, nullptr, session.name(), &session, files));
        // paths/ holds only the path directories: no files, no owner.
        return add_child(paths_, nullptr, cxxrt::sysfs::KobjRef(device_), "paths", nullptr, [&] { device_.reset(); });
    }
    void remove()
    {
        paths_.remove();
        device_.reset();
    }
    cxxrt::sysfs::KobjRef paths_dir() { return paths_; }
    bool exists() const { return bool(device_); }

private:
    cxxrt::sysfs::Device device_;
    cxxrt::sysfs::Directory paths_;
};

// One path's directory under the session's paths/, and its stats/.
class PathDirectory : cxxrt::Pinned {
public:
    ~PathDirectory() { remove(); }

    // paths/<name>/ and its stats/ with the module's path and stats files,
    // both bound to `path`.
    template <typename Path>
    [[nodiscard]] cxxrt::Result<void> create(Path& path, SessionDirectory& session, const char* name)
    {
        SysfsTree& tree = SysfsTree::module();
        CXXRT_TRY(directory_.add(&path, session.paths_dir(), name, &tree.path_files));
        directory_.announce();
        return add_child(stats_, &path, directory_, "stats", &tree.stats_files, [&] { directory_.remove(); });
    }
    void remove()
    {
        stats_.remove();
        directory_.remove();
    }
    bool exists() const { return directory_.exists(); }

private:
    cxxrt::sysfs::Directory directory_;
    cxxrt::sysfs::Directory stats_;
};

// A command file (disconnect, reconnect, remove_path) takes "1" and
// nothing else (-EINVAL).
[[nodiscard]] inline cxxrt::Result<void> accept_command(cxxrt::sysfs::Input& in)
{
    if (!(in.line() == "1"))
        return cxxrt::Error(cxxrt::err::kInval);
    return {};
}

// An address file (src_addr, dst_addr): the address and a newline, or
// kUnknownAddressText where it has none that can be printed.
inline void print_address(cxxrt::sysfs::Output& out, const Address& address)
{
    auto written = format_address(address, out.remaining());
    if (written.is_ok())
        out.commit(written.value());
    else
        out.append(kUnknownAddressText);
    out.append("\n");
}

// A stats/ file of per-CPU stats, shown by Format over a snapshot of every
// CPU's copy...
template <auto Format, typename Stats>
cxxrt::Result<void> show_per_cpu(const cxxrt::PerCpu<Stats>& stats, cxxrt::sysfs::Output& out)
{
    return stats.with_snapshot([&](cxxrt::Span<Stats> copy) { out.commit(Format(copy, out.remaining())); });
}

// ... and reset by a write of "1" or "0" (parse_reset_request), which
// clears its group with Reset on every CPU's copy.
template <typename Stats, void (*Reset)(cxxrt::Span<Stats>)>
cxxrt::Result<void> reset_per_cpu(const cxxrt::PerCpu<Stats>& stats, cxxrt::sysfs::Input& in)
{
    CXXRT_TRY(parse_reset_request(in.line()));
    stats.for_each_possible([](unsigned int, Stats& one) { Reset(cxxrt::Span<Stats>(&one, 1)); });
    return {};
}

}  // namespace rtrs
