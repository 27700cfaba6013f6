// rnbd-server internals.
//
// Objects and who owns whom:
//   Server   (one, module lifetime): the RTRS server context, the sysfs roots
//            /sys/class/rnbd-server/ctl/devices (real directories) and
//            /sys/kernel/rnbd_server/devices (a symlink to the former), the
//            registry of exported Devices, and the workqueues.
//   Session  (one per RTRS session, created on CONNECTED, destroyed on
//            DISCONNECTED): the client's mappings (Mapping), by device id.
//   Export   (one per exports/add, while exports are in use): a definition
//            (rnbd/core/rnbd-srv-exports.hpp), its sysfs directory
//            ctl/exports/<name>/, counted references from the table and
//            from each mapping opened through it.
//   Device   (one per exported object, shared by every session mapping it):
//            the writer count that enforces the access rules and the sysfs
//            directory devices/<name>/{block_dev, sessions/}.
//   Mapping  (one per mapping): its own open of the backing object (a block
//            device or a file) with the mode its access mode asks for, and
//            sessions/<sessname>/{read_only, access_mode, mapping_path,
//            force_close}. Each holds a module reference.
//
// Contexts: RTRS IO callbacks run in softirq. SESS_INFO is answered there;
// OPEN and CLOSE are deferred to a workqueue (they sleep), and so is every
// IO (submit_bio may sleep for a request tag; fileio always sleeps).
#pragma once

#include <cxxrt/array.hpp>
#include <cxxrt/atomic.hpp>
#include <cxxrt/list.hpp>
#include <cxxrt/percpu.hpp>
#include <cxxrt/ref_counted.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/sysfs.hpp>
#include <cxxrt/sysfs_dir.hpp>
#include <cxxrt/wait.hpp>
#include <cxxrt/work.hpp>
#include <proto/rnbd-wire.hpp>
#include <rtrs/rtrs-api.h>
#include "rnbd/core/rnbd-codec.hpp"
#include "rnbd/core/rnbd-srv-exports.hpp"
#include "rnbd/server/rnbd-srv-backend.hpp"

namespace rnbd::srv {

using cxxrt::Atomic;
using cxxrt::Completion;
using cxxrt::IntrusiveList;
using cxxrt::ListNode;
using cxxrt::Mutex;
using cxxrt::Pinned;
using cxxrt::SpinLock;
namespace sysfs = cxxrt::sysfs;

inline constexpr cxxrt::size_t kNameSize = 256;  // session names, device names, mapping paths

const char* access_mode_name(wire::AccessMode mode);

// A PATH_MAX buffer for a path (kmalloc'd: too big for a kernel stack).
class PathBuffer : Pinned {
public:
    PathBuffer();
    char* data() { return data_.data(); }  // null when the allocation failed
    cxxrt::Span<char> span();

private:
    cxxrt::Array<char> data_;
};

// Why an OPEN was refused: a static text for the log line ("" for none),
// and whether the refusal depends on what the path leads to on the server
// (a failed lookup or the export policy), so that the client is answered
// policy::not_exported_errno() rather than the detail.
struct Refusal {
    const char* reason = "";
    bool not_exported = false;
};

// One open of the exported object: the export policy applied to a path,
// then the Backend (rnbd-srv-backend.hpp) that serves the mapping's IO.
class Backing : Pinned {
public:
    Backing() = default;
    ~Backing() { close(); }

    // Looks `path` up without opening it, applies the export policy
    // (policy::decide_export; `file_export_dir` empty = file export off) and
    // opens exactly the object it checked: a block device by its device
    // number, a file or (fileio) a device node through the looked-up path.
    // On a refusal, refusal() says why. Process context.
    Result<void> open(const char* path, bool writable, wire::IoMode mode, const char* file_export_dir);
    void close();

    // The backend of an open object.
    Backend& backend() const { return *backend_; }
    bool writable() const { return writable_; }
    u64 sectors() const { return backend_ ? backend_->sectors() : 0; }
    u32 logical_block_size() const { return backend_->logical_block_size(); }
    u32 max_write_zeroes_sectors() const { return backend_->max_write_zeroes_sectors(); }
    u32 key_dev() const { return backend_->key_dev(); }
    u64 key_ino() const { return backend_->key_ino(); }
    void fill_open_rsp(codec::OpenRspFields& rsp) const { backend_->fill_open_rsp(rsp); }
    const char* io_mode_name() const { return backend_->io_mode_name(); }
    // Why the last open() was refused (reason "" when it was not).
    const Refusal& refusal() const { return refusal_; }

private:
    Backend* backend_ = nullptr;
    bool writable_ = false;
    Refusal refusal_;
};

class Session;
class Device;
class Server;

// An export an administrator defined (exports/add). The definition never
// changes; a change is a removal and a new export. The table holds one
// reference until the export is removed, each mapping opened through it one.
class Export : public cxxrt::RefCounted<Export>, Pinned {
public:
    Export() = default;
    ~Export() = default;

    exports::ExportDefinition& definition() { return definition_; }
    const exports::ExportDefinition& definition() const { return definition_; }
    // Set under ExportTable::lock_ when the export leaves the table: an OPEN
    // that found it before must not keep a mapping.
    bool withdrawn() const { return withdrawn_.load(cxxrt::MemoryOrder::kAcquire); }

    // sysfs handlers of exports/<name>/ (the definition is immutable: no lock).
    Result<void> show_definition(sysfs::Output& out);
    Result<void> show_path(sysfs::Output& out);
    Result<void> show_access_mode(sysfs::Output& out);
    Result<void> show_io_modes(sysfs::Output& out);
    Result<void> show_allow(sysfs::Output& out);
    Result<void> show_session(sysfs::Output& out);

private:
    friend class ExportTable;
    ListNode table_node_;
    Atomic<bool> withdrawn_{false};
    sysfs::Directory kobj_;
    exports::ExportDefinition definition_;

public:
    using List = IntrusiveList<Export, &Export::table_node_>;
};

// The exports (rnbd-srv-exports.cpp): /sys/class/rnbd-server/ctl/exports/
// with the files add and remove and a directory per export. While the table
// is empty the server opens what dev_search_path leads to (Linux's
// behaviour); once an export is defined, only exports can be opened.
class ExportTable : Pinned {
public:
    ExportTable() = default;
    ~ExportTable() = default;

    Result<void> start(sysfs::KobjRef ctl);
    // Withdraws every export (module unload: no mapping is left by then).
    void stop();

    // An OPEN of `name`: false while no export is defined and exports_only
    // is off (the caller goes by dev_search_path); else true, with `found`
    // the export or null.
    bool lookup(StringView name, cxxrt::RefPtr<Export>& found);

    Result<void> store_add(sysfs::Input& in);
    Result<void> store_remove(sysfs::Input& in);

private:
    Export* find(StringView name) CXXRT_REQUIRES(lock_);
    // Checks that the backing object can be opened as the definition says.
    Result<void> check_backing(const exports::ExportDefinition& definition);

    Mutex lock_{cxxrt::lock_class<"rnbd::srv::ExportTable::lock_">};
    Export::List exports_ CXXRT_GUARDED_BY(lock_);
    bool stopping_ CXXRT_GUARDED_BY(lock_) = false;  // the module is unloading
    sysfs::Group control_group_;  // add, remove
    sysfs::Group export_group_;   // an export's files
    sysfs::Directory dir_;        // ctl/exports
};

// A reference on this module (held per exported mapping, so rmmod is
// refused while anything is exported): drop() or the destructor gives it
// back.
class ModuleReference : Pinned {
public:
    ModuleReference() = default;
    ~ModuleReference() { drop(); }
    void take();
    void drop();

private:
    bool held_ = false;
};

// One session's mapping of one device.
class Mapping : Pinned {
public:
    enum class State : u8 { kOpen, kClosing, kClosed };

    Mapping(Session& session, u32 id, wire::AccessMode mode, StringView mapping_path);

    u32 id() const { return id_; }
    Session& session() { return session_; }
    Device* device() { return device_; }
    Backing& backing() { return backing_; }
    wire::AccessMode access_mode() const { return access_mode_; }
    bool read_only() const { return !backing_.writable(); }
    const char* mapping_path() const { return mapping_path_; }
    u64 sectors() const { return sectors_; }

    // IO references: get() under the session's spinlock while kOpen.
    void get() { refs_.fetch_add(1, cxxrt::MemoryOrder::kRelaxed); }
    void put();

    // sysfs handlers
    Result<void> show_read_only(sysfs::Output& out);
    Result<void> show_access_mode(sysfs::Output& out);
    Result<void> show_mapping_path(sysfs::Output& out);
    Result<void> store_force_close(sysfs::Input& in);

private:
    friend class Session;
    friend class Server;
    // Waits until no IO holds a reference (the owner's is dropped here).
    void drain();

    ModuleReference module_;  // first: given back after the rest is gone (close_dev drops it earlier)
    ListNode session_node_;
    ListNode device_node_;
    Session& session_;
    Device* device_ = nullptr;
    u32 id_;
    wire::AccessMode access_mode_;
    State state_ = State::kOpen;  // under session_.lock_
    u64 sectors_ = 0;
    Backing backing_;
    cxxrt::RefPtr<Export> export_;  // the export it was opened through (none under dev_search_path)
    Atomic<u32> refs_{1};
    Completion* drained_ = nullptr;
    sysfs::Directory kobj_;
    char mapping_path_[kNameSize] = {};

public:
    using SessionList = IntrusiveList<Mapping, &Mapping::session_node_>;
    using DeviceList = IntrusiveList<Mapping, &Mapping::device_node_>;
};

// An exported object, shared by all its mappings.
class Device : Pinned {
public:
    Device(u32 key_dev, u64 key_ino);
    ~Device() = default;

    const char* name() { return name_; }
    // The sysfs name: the kernel's name of a block device, else the mapping
    // path with every '/' replaced by '!'.
    void set_name(const Backing& backing, const char* mapping_path);
    // Creates devices/<name>/{block_dev, sessions/}. Process context.
    Result<void> add_sysfs(sysfs::KobjRef parent, const Backing& backing);
    void remove_sysfs();
    sysfs::Directory& sessions_dir() { return sessions_; }

private:
    friend class Server;
    ListNode server_node_;
    u32 key_dev_;
    u64 key_ino_;
    int writers_ = 0;             // under Server::devices_lock_
    Mapping::DeviceList mappings_;  // under Server::devices_lock_
    sysfs::Directory kobj_;
    sysfs::Directory sessions_;
    sysfs::Link block_dev_link_;  // in kobj_: removed before it
    char name_[kNameSize] = {};

public:
    using List = IntrusiveList<Device, &Device::server_node_>;
};

// The per-RTRS-session state.
class Session : Pinned {
public:
    // A session with one IoWork per RTRS chunk, or -ENOMEM. Process context.
    static Result<Session*> create(rtrs_server_session* rtrs);
    explicit Session(rtrs_server_session* rtrs);
    ~Session();

    const char* name() const { return name_; }
    u8 version() const { return version_.load(cxxrt::MemoryOrder::kRelaxed); }
    void set_version(u8 v) { version_.store(v, cxxrt::MemoryOrder::kRelaxed); }
    // The most data one IO of this session moves: the RTRS chunk's size.
    u32 io_room() const { return io_room_; }

    // Softirq: the open mapping with this id, with an IO reference, or null.
    Mapping* get_dev(u32 id);
    // The IoWork of RTRS chunk `chunk` (null past the queue depth, which
    // RTRS never hands out). Any context.
    IoWork* io_work(u32 chunk) { return chunk < io_works_.size() ? &io_works_[chunk] : nullptr; }

    // Process context (control work).
    Result<void> open(const codec::OpenView& msg, codec::OpenRspFields& rsp);
    void close(u32 id);
    // sysfs force_close: false if the session is busy (try again).
    Result<void> force_close(Mapping& dev, sysfs::Input& in);
    // DISCONNECTED: stops the idle timer, then closes everything.
    void close_all();
    // The export was removed: closes the mappings opened through it (their
    // ids stay until the client closes them, as after force_close).
    void close_export(const Export& removed);
    // RTRS asks whether a new path from `client` may join: every export
    // this session maps (or is opening) must admit the address. 0 or
    // -EACCES. Process context, under RTRS's session list lock.
    int admit_path(const rtrs_address& client);

    ListNode server_node;  // Server::sessions_

    // A session that maps no device for idle_session_timeout_ms is closed
    // (a client must not hold a session, its chunks and its connections
    // without using them). Armed when the session connects and whenever its
    // last mapping goes; checked, not trusted, when it fires.
    void arm_idle_timer();

private:
    friend class Mapping;
    Mapping* find_open_by_path(StringView path) CXXRT_REQUIRES(mutex_);
    u32 free_id() CXXRT_REQUIRES(mutex_);
    // Tears a mapping down; keep_id leaves the id reserved (force_close: the
    // client still uses it and will send CLOSE for it).
    void close_dev(Mapping& dev, bool keep_id) CXXRT_REQUIRES(mutex_);
    void on_idle_timer();
    // Opens the object at `path` under the export policy; on an error,
    // `refusal` says why.
    Result<Mapping*> create_dev(const codec::OpenView& msg, const char* path, const char* file_export_dir,
                                Refusal& refusal) CXXRT_REQUIRES(mutex_);
    // OPEN under dev_search_path (no export defined) or of an export.
    Result<Mapping*> open_by_search_path(const codec::OpenView& msg) CXXRT_REQUIRES(mutex_);
    Result<Mapping*> open_export(const codec::OpenView& msg, cxxrt::RefPtr<Export> exported) CXXRT_REQUIRES(mutex_);
    // Whether the export admits this session: its name and the client
    // address of each of its paths.
    bool admitted_by(const Export& exported);

    rtrs_server_session* rtrs_;
    u32 io_room_;
    // One per chunk; every IO has been answered (the paths drained) before
    // the session goes.
    cxxrt::Array<IoWork> io_works_;
    Atomic<u8> version_{wire::kVersionMajor};
    Mutex mutex_{cxxrt::lock_class<"rnbd::srv::Session::mutex_">};   // OPEN/CLOSE/force_close/teardown, one at a time
    SpinLock lock_{cxxrt::lock_class<"rnbd::srv::Session::lock_">};  // the mapping list and states, for the IO path
    Mapping::SessionList devs_;  // changed under mutex_ and lock_ both: read under either (clang cannot say "either")
    const Export* opening_ = nullptr;  // the export an OPEN is checking; set under mutex_ and lock_, read under lock_
    cxxrt::DelayedWork idle_timer_{cxxrt::lock_class<"rnbd::srv::Session::idle_timer_">,
                                   cxxrt::Callback::to<&Session::on_idle_timer>(this)};
    char name_[kNameSize] = {};
};

class Server : Pinned {
public:
    Server() = default;
    ~Server() = default;

    Result<void> start(u16 port);
    void stop();

    // Registers a mapping with the device of its backing object (found or
    // created, by device number and inode: the object, not the client's
    // spelling of its path), enforcing the access rules: -EEXIST when the
    // mapping's session already maps that object, -EPERM from
    // policy::admit. Process context.
    Result<void> attach(Mapping& dev);
    void detach(Mapping& dev);

    ExportTable& exports() { return exports_; }
    // Sessions the server knows (CONNECTED .. DISCONNECTED): an export's
    // removal closes its mappings in each.
    void add_session(Session& session);
    void remove_session(Session& session);
    void close_export_mappings(const Export& removed);

    // A block device's IO, to this CPU's kworker. Any context.
    void queue_block_io(IoWork& work)
    {
        cxxrt::CpuGuard cpu;
        block_io_queues_[cpu.cpu()].add(work, cpu.cpu(), io_wq_);
    }
    cxxrt::Workqueue& file_io_wq() { return file_io_wq_; }
    cxxrt::Workqueue& control_wq() { return control_wq_; }
    const sysfs::Group& mapping_group() const { return mapping_group_; }

private:

    rtrs_server_context* rtrs_ = nullptr;
    cxxrt::Workqueue io_wq_;       // bios (block devices): per CPU, high priority
    cxxrt::Array<BlockIoQueue> block_io_queues_;  // one per possible CPU, run on io_wq_
    cxxrt::Workqueue file_io_wq_;  // the VFS (fileio mappings): unbound
    cxxrt::Workqueue control_wq_;
    sysfs::Group mapping_group_;
    sysfs::DeviceClass class_;
    sysfs::Device ctl_;
    sysfs::Directory devices_dir_;  // /sys/class/rnbd-server/ctl/devices
    sysfs::Directory kernel_dir_;   // /sys/kernel/rnbd_server
    sysfs::Link devices_link_;      // kernel_dir_/devices -> devices_dir_
    Mutex devices_lock_{cxxrt::lock_class<"rnbd::srv::Server::devices_lock_">};
    Device::List devices_ CXXRT_GUARDED_BY(devices_lock_);
    ExportTable exports_;
    // Before any Session::mutex_ (an export's removal walks the sessions).
    Mutex sessions_lock_{cxxrt::lock_class<"rnbd::srv::Server::sessions_lock_">};
    IntrusiveList<Session, &Session::server_node> sessions_ CXXRT_GUARDED_BY(sessions_lock_);
};

Server& server();
// The file_export_dir parameter's current value ("" = file export off),
// read under the parameter lock. -ENAMETOOLONG if `out` is too small.
Result<void> copy_file_export_dir(cxxrt::Span<char> out);
// The files of sessions/<sessname>/ (rnbd-srv-device.cpp).
const sysfs::GroupSpec& mapping_group_spec();

// rnbd-srv-io.cpp: the RTRS IO callback (softirq).
int on_rtrs_io(void* session_context, rtrs_server_io* io, rtrs_direction direction, void* data,
               unsigned int data_length, const void* header, unsigned int header_length);

}  // namespace rnbd::srv
