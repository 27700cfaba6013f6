// rnbd-server: how a mapping reaches its data, chosen once when the mapping
// opens the exported object (as nvmet splits io-cmd-bdev.c and
// io-cmd-file.c):
//   BlockBackend (rnbd-srv-io-bdev.cpp)  a block device, one bio per IO;
//   FileBackend  (rnbd-srv-io-file.cpp)  a file (or a device node) through
//                                        the VFS, served synchronously.
// Both sit on the typed kernel objects of kernel/block/ and answer an IoWork
// exactly once (IoWork::finish). The control plane (what OPEN_RSP announces,
// teardown) is virtual; the IO path (submit, sectors) is not
// (Documentation/cxx-subset.md: no virtual call per IO): Backend dispatches
// on the kind fixed at open to the final classes, direct calls.
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/work.hpp>
#include <proto/rnbd-wire.hpp>
#include <rtrs/rtrs-api.h>
#include "kernel/block/blkdev.hpp"
#include "kernel/block/file.hpp"
#include "kernel/block/path.hpp"
#include "rnbd/core/rnbd-codec.hpp"

namespace rnbd::srv {

using cxxrt::Pinned;

class Mapping;

// One validated IO on its way to the backing object (rnbd-srv-io.cpp).
// A session keeps one per RTRS chunk (Session::io_work), which the chunk's
// IOs reuse: RTRS hands the session at most one IO per chunk at a time
// (rtrs_server_io_chunk), so serving an IO allocates nothing and cannot
// fail for want of memory.
class IoWork : Pinned {
public:
    IoWork();

    // Takes the IO and the mapping's IO reference (Session::get_dev), and
    // hands it to a kworker (process context): a block device's to this
    // CPU's BlockIoQueue, a VFS object's to the unbound file IO workqueue
    // on this object's own work item. Any context.
    void start(Mapping& dev, rtrs_server_io* io, void* data, u32 data_room, const codec::IoFields& fields);
    const codec::IoFields& fields() const { return fields_; }
    // The RTRS chunk: the data to write, or where read data goes.
    void* data() const { return data_; }
    // The bytes of the chunk behind data(): no READ or WRITE may move more
    // (checked when the IO was decoded, and again by each backend).
    u32 data_room() const { return data_room_; }
    // What a READ or WRITE moves (0 for the other ops), if it fits data_room().
    Result<u32> payload() const
    {
        const bool moves_data = fields_.op == wire::IoOp::kRead || fields_.op == wire::IoOp::kWrite;
        if (!moves_data)
            return 0u;
        if (fields_.bi_size > data_room_)
            return Error(cxxrt::err::kInval);
        return fields_.bi_size;
    }
    // Answers the request (0 or -errno) and lets the mapping go. From the
    // answer on the chunk's next IO may take this object: nothing of it is
    // read after. Any context.
    void finish(int error);

private:
    friend class BlockIoQueue;
    void run();

    cxxrt::Work work_;             // the VFS's IO only (see BlockIoQueue)
    IoWork* next_queued_ = nullptr;  // in a BlockIoQueue
    Mapping* dev_ = nullptr;
    rtrs_server_io* io_ = nullptr;
    void* data_ = nullptr;
    u32 data_room_ = 0;
    codec::IoFields fields_;
};

// The block devices' IO taken on one CPU, served by a kworker of that CPU
// (the per-CPU IO workqueue): one work item per CPU and a lock-free list of
// the IoWorks waiting for it. The work item is queued only when its list
// was empty, so at depth one queue_work serves a batch. Why not the
// IoWork's own work item: a work item queued while it still runs on
// another CPU is run there, after it, and a chunk's next IO often arrives
// while the kworker that answered the last one is still unwinding; block
// IO would follow a chunk from CPU to CPU and queue behind itself.
class BlockIoQueue : Pinned {
public:
    BlockIoQueue();
    // Lists `work` and makes sure this queue's work item will run on `cpu`,
    // the CPU this queue belongs to. Any context.
    void add(IoWork& work, unsigned int cpu, cxxrt::Workqueue& wq);

private:
    void run();

    cxxrt::Work work_;
    cxxrt::Atomic<IoWork*> waiting_{nullptr};  // newest first
};

class Backend : Pinned {
public:
    enum class Kind : u8 { kBlockDevice, kFile };

    Kind kind() const { return kind_; }

    // IO path: serves `work` and finishes it (possibly before returning).
    // Process context (the IO workqueue).
    void submit(IoWork& work);
    // The current size in sectors (a device or file may be resized). Any context.
    u64 sectors() const;
    // The logical block size announced in OPEN_RSP, which IO must be aligned to.
    u32 logical_block_size() const { return logical_block_size_; }
    // The WRITE_ZEROES limit announced in OPEN_RSP (0: not offered).
    u32 max_write_zeroes_sectors() const { return max_write_zeroes_sectors_; }
    // Identity of the object, equal for every open of it (blockio or fileio).
    u32 key_dev() const { return key_dev_; }
    u64 key_ino() const { return key_ino_; }

    // Control plane (process context).
    // Closes the object and frees this backend.
    virtual void release() = 0;
    // What OPEN_RSP says of this object: its size and limits.
    void fill_open_rsp(codec::OpenRspFields& rsp) const
    {
        rsp.nsectors = sectors();
        rsp.max_write_zeroes_sectors = max_write_zeroes_sectors_;
        rsp.logical_block_size = u16(logical_block_size_);
        fill_limits(rsp);
    }
    // How IO is served, for the log ("blockio", "fileio (direct writes)", ...).
    virtual const char* io_mode_name() const = 0;
    // The block device opened as such (devices/<name>/block_dev links to
    // it and its kernel name names the export); null for VFS objects.
    virtual const kernel::block::BlockDevice* block_device() const { return nullptr; }

protected:
    explicit Backend(Kind kind) : kind_(kind) {}
    ~Backend() = default;

    // The rest of OPEN_RSP's limits, which depend on the kind of object.
    virtual void fill_limits(codec::OpenRspFields& rsp) const = 0;

    u32 logical_block_size_ = wire::kSectorSize;
    u32 max_write_zeroes_sectors_ = 0;
    u32 key_dev_ = 0;
    u64 key_ino_ = 0;

private:
    Kind kind_;
};

class BlockBackend final : public Backend {
    struct Private {};

public:
    // Opens block device `device_number` (read-write when `writable`, not
    // exclusive, as Linux's server). A read-write open of a read-only
    // device is refused with -EACCES and a reason saying why.
    static cxxrt::ResultWithReason<BlockBackend*> open(u32 device_number, bool writable);

    explicit BlockBackend(Private) : Backend(Kind::kBlockDevice) {}
    ~BlockBackend() = default;

    void release() override { cxxrt::destroy(this); }
    const char* io_mode_name() const override { return "blockio"; }
    const kernel::block::BlockDevice* block_device() const override { return &device_; }

    void submit(IoWork& work);
    u64 sectors() const { return device_.sectors(); }

private:
    void fill_limits(codec::OpenRspFields& rsp) const override;

    kernel::block::BlockDevice device_;
};

class FileBackend final : public Backend {
    struct Private {};

public:
    // Opens what `path` found, after checking permission for reading (and
    // writing when `writable`). `block_node`: the path is a device node
    // (served through the VFS: no hole punching).
    static Result<FileBackend*> open(const kernel::block::FilesystemPath& path, bool writable, bool block_node);

    explicit FileBackend(Private) : Backend(Kind::kFile) {}
    ~FileBackend() = default;

    void release() override { cxxrt::destroy(this); }
    const char* io_mode_name() const override
    {
        return can_direct_ ? "fileio (direct writes)" : "fileio (buffered writes)";
    }

    void submit(IoWork& work)
    {
        auto payload = work.payload();
        work.finish(payload.is_error() ? payload.to_errno() : serve(work.fields(), work.data()));
    }
    u64 sectors() const { return file_.size() >> wire::kSectorShift; }

private:
    void fill_limits(codec::OpenRspFields& rsp) const override;
    // The IO, synchronously: 0 or -errno.
    int serve(const codec::IoFields& fields, void* data);

    kernel::block::File file_;
    bool block_node_ = false;
    bool can_direct_ = false;
};

inline void Backend::submit(IoWork& work)
{
    if (kind_ == Kind::kBlockDevice)
        static_cast<BlockBackend*>(this)->submit(work);
    else
        static_cast<FileBackend*>(this)->submit(work);
}

inline u64 Backend::sectors() const
{
    if (kind_ == Kind::kBlockDevice)
        return static_cast<const BlockBackend*>(this)->sectors();
    return static_cast<const FileBackend*>(this)->sectors();
}

}  // namespace rnbd::srv
