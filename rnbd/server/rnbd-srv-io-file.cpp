// rnbd-server: the VFS backend (fileio) for disk images and device nodes
// opened as files. IO is served synchronously in the IO work item: reads
// through the page cache, writes bypassing it where the file allows
// O_DIRECT; flush and FUA become fsync of all or of the range, discard a
// punched hole (files only).
#include <cxxrt/new.hpp>
#include <cxxrt/unique_ptr.hpp>
#include "rnbd/server/rnbd-srv-backend.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::srv {

using namespace cxxrt;

namespace {

// Limits we announce for objects served through the VFS.
constexpr u32 kFileMaxHwSectors = 1024;  // 512 KiB; the client caps to the RTRS chunk anyway
constexpr u16 kFileMaxSegments = 128;
constexpr u32 kFileDiscardGranularity = 4096;
constexpr u32 kFileMaxDiscardSectors = 1u << 16;  // 32 MiB per discard

using wire::IoOp;

}  // namespace

Result<FileBackend*> FileBackend::open(const kernel::block::FilesystemPath& path, bool writable, bool block_node)
{
    CXXRT_TRY(path.check_permission(writable));
    // Destroyed (the file closed) if the open fails.
    auto backend = CXXRT_TRY(make_unique<FileBackend>(Gfp::kernel(), Private{}));
    kernel::block::File& file = backend->file_;
    CXXRT_TRY(file.open(path, writable));
    backend->block_node_ = block_node;
    backend->can_direct_ = file.can_direct();
    backend->logical_block_size_ = wire::kSectorSize;
    backend->key_dev_ = file.device_number();
    backend->key_ino_ = file.inode_number();
    return backend.release();
}

// No WRITE_ZEROES (fallocate ranges are not served as write-zeroes). Writes
// that do not bypass the page cache are made durable by flush (fsync) and
// FUA (fsync of the range).
void FileBackend::fill_limits(codec::OpenRspFields& rsp) const
{
    rsp.physical_block_size = u16(logical_block_size_);
    rsp.max_segments = kFileMaxSegments;
    rsp.max_hw_sectors = kFileMaxHwSectors;
    const bool can_punch = !block_node_;
    rsp.max_discard_sectors = can_punch ? kFileMaxDiscardSectors : 0;
    rsp.discard_granularity = can_punch ? kFileDiscardGranularity : 0;
    rsp.discard_alignment = 0;
    rsp.secure_discard = 0;
    rsp.cache_policy = u8(wire::kCacheWriteback | wire::kCacheFua);
}

int FileBackend::serve(const codec::IoFields& fields, void* data)
{
    const u64 pos = fields.sector << wire::kSectorShift;
    const u32 length = fields.bi_size;
    switch (fields.op) {
    case IoOp::kRead: {
        const long done = file_.read(data, length, pos);
        return done < 0 ? int(done) : done == long(length) ? 0 : -err::kIo;
    }
    case IoOp::kWrite: {
        long done = -err::kInval;
        if (can_direct_)
            done = file_.write_direct(data, length, pos);
        if (done == -err::kInval)  // no O_DIRECT here, or a misaligned range
            done = file_.write(data, length, pos);
        if (done < 0)
            return int(done);
        if (done != long(length))
            return -err::kIo;
        if (fields.flags & wire::kIoFlagFua)
            return file_.sync(pos, length).to_errno();
        return 0;
    }
    case IoOp::kFlush:
        return file_.sync(0, 0).to_errno();
    case IoOp::kDiscard:
        if (block_node_)
            return -err::kOpNotSupp;
        return file_.punch_hole(pos, length).to_errno();
    default:
        return -err::kOpNotSupp;  // secure erase has no file equivalent
    }
}

}  // namespace rnbd::srv
