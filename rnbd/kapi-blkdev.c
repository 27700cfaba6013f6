// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnbd-server C boundary: block devices opened by path and their queue
 * properties (see kapi-blkdev.h). One kernel call per function.
 */
#include <linux/blkdev.h>
#include <linux/namei.h>
#include <linux/fs.h>
#include "kapi-blkdev.h"

/* KAPI: process context, sleeps (path walk). */
int kapi_path_is_blockdev(const char *path)
{
	struct path found;
	int is_blk;
	int rc = kern_path(path, LOOKUP_FOLLOW, &found);

	if (rc)
		return rc;
	is_blk = S_ISBLK(d_inode(found.dentry)->i_mode);
	path_put(&found);
	return is_blk;
}

static fmode_t kapi_blkdev_mode(int writable)
{
	return writable ? FMODE_READ | FMODE_WRITE : FMODE_READ;
}

/* KAPI: process context, sleeps. */
int kapi_blkdev_open(const char *path, int writable, void **out)
{
	struct block_device *bdev = blkdev_get_by_path(path, kapi_blkdev_mode(writable), NULL);

	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	*out = bdev;
	return 0;
}

/* KAPI: process context, sleeps. */
void kapi_blkdev_close(void *bdev, int writable)
{
	blkdev_put(bdev, kapi_blkdev_mode(writable));
}

unsigned long long kapi_blkdev_nr_sectors(void *bdev)
{
	return bdev_nr_sectors(bdev);
}

unsigned int kapi_blkdev_logical_block_size(void *bdev)
{
	return bdev_logical_block_size(bdev);
}

unsigned int kapi_blkdev_physical_block_size(void *bdev)
{
	return bdev_physical_block_size(bdev);
}

unsigned int kapi_blkdev_max_segments(void *bdev)
{
	return bdev_max_segments(bdev);
}

unsigned int kapi_blkdev_max_hw_sectors(void *bdev)
{
	return queue_max_hw_sectors(bdev_get_queue(bdev));
}

unsigned int kapi_blkdev_max_discard_sectors(void *bdev)
{
	return bdev_max_discard_sectors(bdev);
}

unsigned int kapi_blkdev_discard_granularity(void *bdev)
{
	return bdev_discard_granularity(bdev);
}

unsigned int kapi_blkdev_discard_alignment(void *bdev)
{
	return bdev_discard_alignment(bdev);
}

unsigned int kapi_blkdev_max_secure_erase_sectors(void *bdev)
{
	return bdev_max_secure_erase_sectors(bdev);
}

int kapi_blkdev_write_cache(void *bdev)
{
	return bdev_write_cache(bdev);
}

int kapi_blkdev_fua(void *bdev)
{
	return bdev_fua(bdev);
}

unsigned int kapi_blkdev_devt(void *bdev)
{
	return ((struct block_device *)bdev)->bd_dev;
}

void kapi_blkdev_name(void *bdev, char *buf, unsigned int size)
{
	snprintf(buf, size, "%pg", (struct block_device *)bdev);
}

void *kapi_blkdev_kobj(void *bdev)
{
	return bdev_kobj((struct block_device *)bdev);
}
