/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C boundary of a block-device user (a server of block IO) towards the
 * block layer and the VFS:
 *   kapi-blkdev.c  paths looked up without opening them, block devices
 *                  opened by device number, their queue properties;
 *   kapi-bio.c     one bio per IO, ended by the user's own end_io;
 *   kapi-file.c    a file (disk image) served through the VFS.
 * Kernel objects are typed handles, incomplete in C++ (struct path,
 * struct block_device, struct bio, struct file); the C++ types over them
 * are in kernel/block/. Each function does one kernel call or macro; none
 * knows the user's protocol: ops and flags arrive as the kernel's own values.
 */
#ifndef KAPI_BLKDEV_H
#define KAPI_BLKDEV_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

struct path;
struct block_device;
struct bio;
struct file;

/* ---- paths ---- */

/*
 * A looked-up path (struct path, KABI_SIZEOF_PATH bytes of caller storage)
 * held while the export policy looks at it, then opened as it is: what is
 * opened is what was checked.
 *
 * KAPI: process context, sleeps (path walk). kern_path(LOOKUP_FOLLOW): 0
 * and *path filled (release with kapi_path_put), or -errno (-ENOENT). Opens
 * nothing: a FIFO or a device node is only looked at.
 */
int kapi_path_lookup(const char *name, struct path *path) KAPI_NOEXCEPT;
/* KAPI: process context. */
void kapi_path_put(struct path *path) KAPI_NOEXCEPT;
/* The inode's i_mode (type and permission bits). KAPI: any context; the path is held. */
unsigned int kapi_path_mode(const struct path *path) KAPI_NOEXCEPT;
/* The inode's i_rdev (device number of a device node). KAPI: any context. */
unsigned int kapi_path_rdev(const struct path *path) KAPI_NOEXCEPT;
/* 1 if device nodes may not be opened on the path's mount (MNT_NODEV, SB_I_NODEV). */
int kapi_path_nodev(const struct path *path) KAPI_NOEXCEPT;
/* 1 if `path` lies under `dir` in the mount tree (path_is_under). KAPI: process context. */
int kapi_path_is_under(const struct path *path, const struct path *dir) KAPI_NOEXCEPT;
/*
 * KAPI: process context. inode_permission() for reading, and writing when
 * `writable`: 0 or -errno (-EACCES, -EPERM for an immutable file, -EROFS).
 */
int kapi_path_permission(const struct path *path, int writable) KAPI_NOEXCEPT;

/* ---- block devices (blockio) ---- */

/*
 * KAPI: process context, sleeps. Opens the device number taken from a
 * checked path (kapi_path_rdev) for reading, and writing when `writable`
 * (not exclusive, like Linux's rnbd-server). 0 and *handle = what to close
 * (the opened file since 6.9, the block_device before), *bdev = the
 * block_device the calls below and the bios take; or -errno.
 */
int kapi_blkdev_open_by_dev(unsigned int dev, int writable, void **handle, struct block_device **bdev) KAPI_NOEXCEPT;
/* 1 if the device is read-only (bdev_read_only). KAPI: any context. */
int kapi_blkdev_read_only(struct block_device *bdev) KAPI_NOEXCEPT;
/* KAPI: process context. The handle of the open; `writable` must be what it got. */
void kapi_blkdev_close(void *handle, int writable) KAPI_NOEXCEPT;
/* Device properties. KAPI: any context; the device is open. */
unsigned long long kapi_blkdev_nr_sectors(struct block_device *bdev) KAPI_NOEXCEPT;
unsigned int kapi_blkdev_logical_block_size(struct block_device *bdev) KAPI_NOEXCEPT;
unsigned int kapi_blkdev_physical_block_size(struct block_device *bdev) KAPI_NOEXCEPT;
unsigned int kapi_blkdev_max_segments(struct block_device *bdev) KAPI_NOEXCEPT;
unsigned int kapi_blkdev_max_hw_sectors(struct block_device *bdev) KAPI_NOEXCEPT;
unsigned int kapi_blkdev_max_discard_sectors(struct block_device *bdev) KAPI_NOEXCEPT;
unsigned int kapi_blkdev_discard_granularity(struct block_device *bdev) KAPI_NOEXCEPT;
unsigned int kapi_blkdev_discard_alignment(struct block_device *bdev) KAPI_NOEXCEPT;
unsigned int kapi_blkdev_max_secure_erase_sectors(struct block_device *bdev) KAPI_NOEXCEPT;
/* Largest WRITE_ZEROES the device does itself (bdev_write_zeroes_sectors), 0 if none. */
unsigned int kapi_blkdev_write_zeroes_sectors(struct block_device *bdev) KAPI_NOEXCEPT;
int kapi_blkdev_write_cache(struct block_device *bdev) KAPI_NOEXCEPT;
int kapi_blkdev_fua(struct block_device *bdev) KAPI_NOEXCEPT;
/* dev_t of the device (identity of the exported object). */
unsigned int kapi_blkdev_devt(struct block_device *bdev) KAPI_NOEXCEPT;
/* The kernel's name of the device ("%pg": ram0, sda1, loop3) into buf. */
void kapi_blkdev_name(struct block_device *bdev, char *buf, unsigned int size) KAPI_NOEXCEPT;
/* The device's sysfs kobject (target of the block_dev symlink). */
void *kapi_blkdev_kobj(struct block_device *bdev) KAPI_NOEXCEPT;

/* ---- bios ---- */

/*
 * KAPI: process context (GFP_NOIO, never fails). A bio on `bdev` with the
 * block-layer op and flags `opf` (a blk_opf_t: KABI_REQ_* of the generated
 * header), carrying `data_len` bytes of physically contiguous kernel memory
 * at `data` (kmalloc'd; none when data_len is 0). NULL if the data cannot
 * be added.
 */
struct bio *kapi_bio_alloc(struct block_device *bdev, unsigned int opf, void *data, unsigned int data_len) KAPI_NOEXCEPT;
/*
 * KAPI: process context. Sets the range and priority and submits; when the
 * bio ends, the block layer calls `end_io` (the caller's C boundary: any
 * context, possibly before this returns), which finds `context` in
 * bi_private and puts the bio.
 */
void kapi_bio_submit(struct bio *bio, unsigned long long sector, unsigned int size, unsigned short prio,
		     void (*end_io)(struct bio *bio), void *context) KAPI_NOEXCEPT;

/* ---- files (fileio) ---- */

/*
 * KAPI: process context. dentry_open() of a checked path (kapi_path_lookup)
 * with O_RDONLY or O_RDWR, O_LARGEFILE: no second lookup by name. 0 and
 * *out, or -errno.
 */
int kapi_file_open_path(const struct path *path, int writable, struct file **out) KAPI_NOEXCEPT;
/* KAPI: process context. */
void kapi_file_close(struct file *file) KAPI_NOEXCEPT;
/* Size in bytes (i_size). KAPI: any context. */
unsigned long long kapi_file_size(struct file *file) KAPI_NOEXCEPT;
/* Identity: device number of the filesystem (or of the node for block devices) and inode number. */
unsigned int kapi_file_dev(struct file *file) KAPI_NOEXCEPT;
unsigned long long kapi_file_ino(struct file *file) KAPI_NOEXCEPT;
/* The file supports O_DIRECT (FMODE_CAN_ODIRECT). KAPI: any context. */
int kapi_file_can_direct(struct file *file) KAPI_NOEXCEPT;
/* The remaining calls: process context, sleep. Bytes done or -errno. */
long kapi_file_read(struct file *file, void *buf, unsigned int len, unsigned long long pos) KAPI_NOEXCEPT;
long kapi_file_write(struct file *file, const void *buf, unsigned int len, unsigned long long pos) KAPI_NOEXCEPT;
/* A write that bypasses the page cache (IOCB_DIRECT), from kmalloc'd memory. */
long kapi_file_write_direct(struct file *file, void *buf, unsigned int len, unsigned long long pos) KAPI_NOEXCEPT;
/* vfs_fsync_range; 0 or -errno. */
int kapi_file_sync(struct file *file, unsigned long long pos, unsigned long long len) KAPI_NOEXCEPT;
/* Deallocates a range (punch hole, size kept); 0 or -errno. */
int kapi_file_punch_hole(struct file *file, unsigned long long pos, unsigned long long len) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_BLKDEV_H */
