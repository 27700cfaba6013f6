// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The C boundary of files: a file (disk image, or a device node opened
 * through the VFS) served with fileio (see kapi-blkdev.h). Reads go through
 * the page cache; writes bypass it where the filesystem allows O_DIRECT.
 */
#include <linux/fs.h>
#include <linux/cred.h>
#include <linux/path.h>
#include <linux/falloc.h>
#include <linux/bvec.h>
#include <linux/uio.h>
#include <linux/mm.h>
#include "kapi-blkdev.h"

/* KAPI: process context, sleeps. */
int kapi_file_open_path(const struct path *path, int writable, struct file **out)
{
	struct file *file = dentry_open(path, (writable ? O_RDWR : O_RDONLY) | O_LARGEFILE, current_cred());

	if (IS_ERR(file))
		return PTR_ERR(file);
	*out = file;
	return 0;
}

/* KAPI: process context, sleeps. */
void kapi_file_close(struct file *file)
{
	filp_close(file, NULL);
}

unsigned long long kapi_file_size(struct file *file)
{
	/* The mapping's host: for a block device node that is the device's own inode (its size), not the node's. */
	return i_size_read(file->f_mapping->host);
}

unsigned int kapi_file_dev(struct file *file)
{
	struct inode *inode = file_inode(file);

	return S_ISBLK(inode->i_mode) ? inode->i_rdev : inode->i_sb->s_dev;
}

unsigned long long kapi_file_ino(struct file *file)
{
	struct inode *inode = file_inode(file);

	return S_ISBLK(inode->i_mode) ? 0 : inode->i_ino;
}

int kapi_file_can_direct(struct file *file)
{
	return (file->f_mode & FMODE_CAN_ODIRECT) != 0;
}

/* KAPI: process context, sleeps. */
long kapi_file_read(struct file *file, void *buf, unsigned int len, unsigned long long pos)
{
	loff_t offset = pos;

	return kernel_read(file, buf, len, &offset);
}

/* KAPI: process context, sleeps. */
long kapi_file_write(struct file *file, const void *buf, unsigned int len, unsigned long long pos)
{
	loff_t offset = pos;

	return kernel_write(file, buf, len, &offset);
}

static void kapi_direct_kiocb(struct kiocb *kiocb, struct file *file, unsigned long long pos)
{
	init_sync_kiocb(kiocb, file);
	kiocb->ki_pos = pos;
	kiocb->ki_flags |= IOCB_DIRECT;
}

/* KAPI: process context, sleeps. Synchronous (no ki_complete). */
long kapi_file_write_direct(struct file *file, void *buf, unsigned int len, unsigned long long pos)
{
	struct bio_vec segment = { .bv_page = virt_to_page(buf), .bv_len = len, .bv_offset = offset_in_page(buf) };
	struct iov_iter from;
	struct kiocb kiocb;
	ssize_t done;

	kapi_direct_kiocb(&kiocb, file, pos);
	iov_iter_bvec(&from, WRITE, &segment, 1, len);
	file_start_write(file);
	done = vfs_iocb_iter_write(file, &kiocb, &from);
	file_end_write(file);
	return done;
}

/* KAPI: process context, sleeps. */
int kapi_file_sync(struct file *file, unsigned long long pos, unsigned long long len)
{
	return vfs_fsync_range(file, pos, len ? pos + len - 1 : LLONG_MAX, 1);
}

/* KAPI: process context, sleeps. */
int kapi_file_punch_hole(struct file *file, unsigned long long pos, unsigned long long len)
{
	return vfs_fallocate(file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, pos, len);
}
