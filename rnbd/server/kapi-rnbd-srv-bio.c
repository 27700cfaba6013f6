// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnbd-server's C boundary towards the block layer: the end of its bios.
 * kernel/block/kapi-bio.c submits them with this end_io, which the block
 * layer calls directly; C++ hears of it through one upcall.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include "rnbd-srv-upcalls.h"

/* KAPI: any context the block layer completes bios in. */
void rnbd_srv_bio_end_io(struct bio *bio)
{
	void *context = bio->bi_private;
	int error = blk_status_to_errno(bio->bi_status);

	bio_put(bio);
	rnbd_srv_cxx_bio_done(context, error);
}
