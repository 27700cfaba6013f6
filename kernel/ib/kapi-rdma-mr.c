// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C boundary: DMA mapping for RDMA devices, scatterlists and fast
 * registration memory regions, for the C++ wrappers in kernel/ib/. One kernel
 * call or macro per function. See kapi-rdma.h.
 */
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include "cxxrt-kabi.h"
#include "kapi-rdma.h"

static_assert(KABI_SIZEOF_SCATTERLIST == sizeof(struct scatterlist));

/* KAPI: any context. */
int kapi_ib_dma_map_single(struct ib_device *device, void *cpu_addr, unsigned long size, int dir,
			   unsigned long long *dma_addr)
{
	*dma_addr = ib_dma_map_single(device, cpu_addr, size, dir);
	return ib_dma_mapping_error(device, *dma_addr) ? -ENOMEM : 0;
}

void kapi_ib_dma_unmap_single(struct ib_device *device, unsigned long long dma_addr, unsigned long size, int dir)
{
	ib_dma_unmap_single(device, dma_addr, size, dir);
}

void kapi_ib_dma_sync_for_cpu(struct ib_device *device, unsigned long long dma_addr, unsigned long size, int dir)
{
	ib_dma_sync_single_for_cpu(device, dma_addr, size, dir);
}

void kapi_ib_dma_sync_for_device(struct ib_device *device, unsigned long long dma_addr, unsigned long size,
				 int dir)
{
	ib_dma_sync_single_for_device(device, dma_addr, size, dir);
}

void kapi_sg_init_table(struct scatterlist *sgl, unsigned int nents)
{
	sg_init_table(sgl, nents);
}

struct scatterlist *kapi_sg_entry(struct scatterlist *sgl, unsigned int index)
{
	return sgl + index;
}

struct scatterlist *kapi_sg_next(struct scatterlist *sg)
{
	return sg_next(sg);
}

void *kapi_sg_virt(struct scatterlist *sg)
{
	return sg_virt(sg);
}

unsigned int kapi_sg_length(const struct scatterlist *sg)
{
	return sg->length;
}

void kapi_sg_set_buf(struct scatterlist *sg, const void *buf, unsigned int len)
{
	sg_set_buf(sg, buf, len);
}

/* One entry for memory mapped by ib_dma_map_single: what ib_map_mr_sg reads. */
void kapi_sg_init_one_mapped(struct scatterlist *sg, const void *buf, unsigned int len, unsigned long long dma_addr)
{
	sg_init_one(sg, buf, len);
	sg_dma_address(sg) = dma_addr;
	sg_dma_len(sg) = len;
}

int kapi_ib_dma_map_sg(struct ib_device *device, struct scatterlist *sgl, int nents, int dir)
{
	return ib_dma_map_sg(device, sgl, nents, dir);
}

void kapi_ib_dma_unmap_sg(struct ib_device *device, struct scatterlist *sgl, int nents, int dir)
{
	ib_dma_unmap_sg(device, sgl, nents, dir);
}

unsigned long long kapi_sg_dma_address(struct scatterlist *sg)
{
	return sg_dma_address(sg);
}

unsigned int kapi_sg_dma_len(struct scatterlist *sg)
{
	return sg_dma_len(sg);
}

/* KAPI: process context. */
struct ib_mr *kapi_ib_alloc_mr(struct ib_pd *pd, unsigned int max_pages, int *err)
{
	struct ib_mr *mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, max_pages);

	*err = PTR_ERR_OR_ZERO(mr);
	return IS_ERR(mr) ? NULL : mr;
}

int kapi_ib_dereg_mr(struct ib_mr *mr)
{
	return ib_dereg_mr(mr);
}

int kapi_ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sgl, int nents, unsigned int sg_offset,
		      unsigned int page_size)
{
	return ib_map_mr_sg(mr, sgl, nents, &sg_offset, page_size);
}

void kapi_ib_update_fast_reg_key(struct ib_mr *mr, unsigned char key)
{
	ib_update_fast_reg_key(mr, key);
}

unsigned int kapi_ib_inc_rkey(unsigned int rkey)
{
	return ib_inc_rkey(rkey);
}

unsigned int kapi_ib_mr_lkey(struct ib_mr *mr)
{
	return mr->lkey;
}

unsigned int kapi_ib_mr_rkey(struct ib_mr *mr)
{
	return mr->rkey;
}

unsigned long long kapi_ib_mr_iova(struct ib_mr *mr)
{
	return mr->iova;
}

unsigned long long kapi_ib_mr_length(struct ib_mr *mr)
{
	return mr->length;
}
