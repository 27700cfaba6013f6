// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The C boundary of block devices: paths looked up without opening them, block
 * devices opened by device number and their queue properties (see kapi-blkdev.h). One kernel call per function.
 *
 * Kernel versions: the #if blocks name the release where the call changed;
 * 6.1 and 6.12 are the kernels built and tested.
 */
#include <linux/blkdev.h>
#include <linux/namei.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/path.h>
#include <linux/cred.h>
#include <linux/version.h>
#include "kapi-blkdev.h"

/* KAPI: process context, sleeps (path walk). */
int kapi_path_lookup(const char *name, struct path *path)
{
	return kern_path(name, LOOKUP_FOLLOW, path);
}

void kapi_path_put(struct path *path)
{
	path_put(path);
}

unsigned int kapi_path_mode(const struct path *path)
{
	return d_inode(path->dentry)->i_mode;
}

unsigned int kapi_path_rdev(const struct path *path)
{
	return d_inode(path->dentry)->i_rdev;
}

/* The test of the kernel's may_open_dev(), which is not exported. */
int kapi_path_nodev(const struct path *path)
{
	const struct vfsmount *mnt = path->mnt;

	return (mnt->mnt_flags & MNT_NODEV) || (mnt->mnt_sb->s_iflags & SB_I_NODEV);
}

int kapi_path_is_under(const struct path *path, const struct path *dir)
{
	return path_is_under(path, dir);
}

int kapi_path_permission(const struct path *p, int writable)
{

	/* 6.3 replaced the mount's user namespace by its idmap. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	return inode_permission(mnt_idmap(p->mnt), d_inode(p->dentry), writable ? MAY_READ | MAY_WRITE : MAY_READ);
#else
	return inode_permission(mnt_user_ns(p->mnt), d_inode(p->dentry), writable ? MAY_READ | MAY_WRITE : MAY_READ);
#endif
}

/*
 * Since 6.9 a block device is opened as a file (the handle), the
 * block_device is looked up from it and fput() closes it; before, the
 * handle was the block_device itself and blkdev_put() needed the mode.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
/* KAPI: process context, sleeps. */
int kapi_blkdev_open_by_dev(unsigned int dev, int writable, void **handle, struct block_device **bdev)
{
	struct file *file = bdev_file_open_by_dev(dev, writable ? BLK_OPEN_READ | BLK_OPEN_WRITE : BLK_OPEN_READ,
						  NULL, NULL);

	if (IS_ERR(file))
		return PTR_ERR(file);
	*handle = file;
	*bdev = file_bdev(file);
	return 0;
}

/* KAPI: process context, sleeps. */
void kapi_blkdev_close(void *handle, int writable)
{
	fput(handle);
}
#else
static fmode_t kapi_blkdev_mode(int writable)
{
	return writable ? FMODE_READ | FMODE_WRITE : FMODE_READ;
}

/* KAPI: process context, sleeps. */
int kapi_blkdev_open_by_dev(unsigned int dev, int writable, void **handle, struct block_device **bdev)
{
	struct block_device *opened = blkdev_get_by_dev(dev, kapi_blkdev_mode(writable), NULL);

	if (IS_ERR(opened))
		return PTR_ERR(opened);
	*handle = opened;
	*bdev = opened;
	return 0;
}

/* KAPI: process context, sleeps. */
void kapi_blkdev_close(void *handle, int writable)
{
	blkdev_put(handle, kapi_blkdev_mode(writable));
}
#endif

int kapi_blkdev_read_only(struct block_device *bdev)
{
	return bdev_read_only(bdev);
}

unsigned long long kapi_blkdev_nr_sectors(struct block_device *bdev)
{
	return bdev_nr_sectors(bdev);
}

unsigned int kapi_blkdev_logical_block_size(struct block_device *bdev)
{
	return bdev_logical_block_size(bdev);
}

unsigned int kapi_blkdev_physical_block_size(struct block_device *bdev)
{
	return bdev_physical_block_size(bdev);
}

unsigned int kapi_blkdev_max_segments(struct block_device *bdev)
{
	return bdev_max_segments(bdev);
}

unsigned int kapi_blkdev_max_hw_sectors(struct block_device *bdev)
{
	return queue_max_hw_sectors(bdev_get_queue(bdev));
}

unsigned int kapi_blkdev_max_discard_sectors(struct block_device *bdev)
{
	return bdev_max_discard_sectors(bdev);
}

unsigned int kapi_blkdev_discard_granularity(struct block_device *bdev)
{
	return bdev_discard_granularity(bdev);
}

unsigned int kapi_blkdev_discard_alignment(struct block_device *bdev)
{
	return bdev_discard_alignment(bdev);
}

unsigned int kapi_blkdev_write_zeroes_sectors(struct block_device *bdev)
{
	return bdev_write_zeroes_sectors(bdev);
}

unsigned int kapi_blkdev_max_secure_erase_sectors(struct block_device *bdev)
{
	return bdev_max_secure_erase_sectors(bdev);
}

int kapi_blkdev_write_cache(struct block_device *bdev)
{
	return bdev_write_cache(bdev);
}

int kapi_blkdev_fua(struct block_device *bdev)
{
	return bdev_fua(bdev);
}

unsigned int kapi_blkdev_devt(struct block_device *bdev)
{
	return bdev->bd_dev;
}

void kapi_blkdev_name(struct block_device *bdev, char *buf, unsigned int size)
{
	snprintf(buf, size, "%pg", bdev);
}

void *kapi_blkdev_kobj(struct block_device *bdev)
{
	return bdev_kobj(bdev);
}
