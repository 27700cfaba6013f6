/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Contract between rnbd-server's C files (rnbd-srv-mod.c, kapi-rnbd-srv-bio.c)
 * and its C++ (rnbd-srv*.cpp).
 */
#ifndef RNBD_SRV_KAPI_H
#define RNBD_SRV_KAPI_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KAPI: module_init, process context. 0 or a negative errno. */
int rnbd_srv_cxx_init(unsigned short port) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rnbd_srv_cxx_exit(void) KAPI_NOEXCEPT;

/* The dev_search_path parameter (fixed after load). KAPI: any context. */
const char *rnbd_srv_dev_search_path(void) KAPI_NOEXCEPT;
/*
 * The file_export_dir parameter (writable at run time): read it only
 * between rnbd_srv_params_lock() and rnbd_srv_params_unlock()
 * (kernel_param_lock of this module). KAPI: process context.
 */
const char *rnbd_srv_file_export_dir(void) KAPI_NOEXCEPT;
void rnbd_srv_params_lock(void) KAPI_NOEXCEPT;
void rnbd_srv_params_unlock(void) KAPI_NOEXCEPT;
/*
 * The setter of the path parameters (C++), `name` the parameter's
 * (kernel_param.name: dev_search_path, file_export_dir): checks `value`
 * and copies it into `storage` of `size` bytes without a trailing newline;
 * `storage` is left alone on an error.
 *   dev_search_path: an absolute path below PATH_MAX bytes. 0 or -EINVAL.
 *   file_export_dir: empty, or an absolute path naming an existing
 *   directory. 0 or -EINVAL, -ENAMETOOLONG, -ENOENT, -ENOTDIR, ...
 * Runs with the parameter lock held (or at load, before rnbd_srv_cxx_init).
 * KAPI: process context, sleeps.
 */
int rnbd_srv_cxx_set_path_param(const char *name, const char *value, char *storage, unsigned int size) KAPI_NOEXCEPT;
/* The allow_realtime_ioprio parameter. KAPI: any context. */
int rnbd_srv_allow_realtime_ioprio(void) KAPI_NOEXCEPT;
/* The allow_fileio_of_block_devices parameter. KAPI: any context. */
int rnbd_srv_allow_fileio_of_block_devices(void) KAPI_NOEXCEPT;
/* The exports_only parameter. KAPI: any context. */
int rnbd_srv_exports_only(void) KAPI_NOEXCEPT;
/* The idle_session_timeout_ms parameter. KAPI: any context. */
unsigned int rnbd_srv_idle_session_timeout_ms(void) KAPI_NOEXCEPT;
/*
 * Its setter (C++): a number of ms in 1000..86400000 into `storage`;
 * -EINVAL (storage left alone) otherwise. KAPI: process context.
 */
int rnbd_srv_cxx_set_idle_session_timeout(const char *value, unsigned int *storage) KAPI_NOEXCEPT;
/*
 * A reference on this module, held per exported mapping so that rmmod is
 * refused while anything is exported. KAPI: any context.
 */
void rnbd_srv_module_get(void) KAPI_NOEXCEPT;
void rnbd_srv_module_put(void) KAPI_NOEXCEPT;

/* ---- bios (kapi-rnbd-srv-bio.c) ---- */
struct bio;
/*
 * The end_io of every bio the server submits (bi_end_io): puts the bio and
 * calls rnbd_srv_cxx_bio_done with its bi_private and the errno of its
 * status. KAPI: any context (irq, softirq, process); no sleeping.
 */
void rnbd_srv_bio_end_io(struct bio *bio) KAPI_NOEXCEPT;
/* Upcall (rnbd-srv-io-bdev.cpp): `context` is the IO's. Any context; no sleeping. */
void rnbd_srv_cxx_bio_done(void *context, int error) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
