// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The C boundary of bios (see kapi-blkdev.h): one bio per IO over one
 * kmalloc'd, physically contiguous buffer, so it goes into the bio as one
 * multi-page segment. The op and flags arrive as the block layer's own
 * blk_opf_t (the caller maps its protocol's onto them); the bio's end is
 * the caller's own end_io (its C boundary's), called by the block layer.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include "kapi-blkdev.h"

/* KAPI: process context (GFP_NOIO from the bio set: does not fail). */
struct bio *kapi_bio_alloc(struct block_device *bdev, unsigned int opf, void *data, unsigned int data_len)
{
	struct bio *bio = bio_alloc(bdev, data_len ? 1 : 0, (__force blk_opf_t)opf, GFP_NOIO);

	if (data_len && bio_add_page(bio, virt_to_page(data), data_len, offset_in_page(data)) != data_len) {
		bio_put(bio);
		return NULL;
	}
	return bio;
}

/* KAPI: process context. */
void kapi_bio_submit(struct bio *bio, unsigned long long sector, unsigned int size, unsigned short prio,
		     void (*end_io)(struct bio *bio), void *context)
{
	bio->bi_iter.bi_sector = sector;
	bio->bi_iter.bi_size = size;
	bio->bi_end_io = end_io;
	bio->bi_private = context;
	bio->bi_ioprio = prio;
	submit_bio(bio);
}
