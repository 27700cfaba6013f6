// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C boundary: debugfs. A read-only seq file whose show callback is the C++
 * upcall cxxrt_cxx_seq_show(); the single_open adapter below is the glue
 * debugfs needs, no logic.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <cxxrt/kapi.h>

static int kapi_seq_show(struct seq_file *seq, void *unused)
{
	return cxxrt_cxx_seq_show(seq, seq->private);
}

static int kapi_seq_open(struct inode *inode, struct file *file)
{
	return single_open(file, kapi_seq_show, inode->i_private);
}

static const struct file_operations kapi_seq_fops = {
	.owner = THIS_MODULE,
	.open = kapi_seq_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/* KAPI: process context. Returns an opaque dentry (maybe an ERR_PTR, which debugfs accepts back). */
void *kapi_debugfs_create_dir(const char *name, void *parent)
{
	return debugfs_create_dir(name, parent);
}

/*
 * KAPI: process context. `source` is a C++ cxxrt::SeqSource that must outlive
 * the file: remove the file (or its directory) before freeing the source.
 */
void kapi_debugfs_create_seq_file(const char *name, void *parent, void *source)
{
	debugfs_create_file(name, 0444, parent, source, &kapi_seq_fops);
}

void kapi_debugfs_create_u64(const char *name, void *parent, unsigned long long *value)
{
	debugfs_create_u64(name, 0600, parent, (u64 *)value);
}

void kapi_debugfs_remove(void *dentry)
{
	debugfs_remove(dentry);
}

void kapi_seq_printf(void *seq, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	seq_vprintf(seq, fmt, args);
	va_end(args);
}
