/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C boundary: sysfs, kobjects, device classes and devices
 * (cxxrt/kapi/kapi-sysfs.c), used by cxxrt/sysfs.hpp. All process context,
 * may sleep. Kernel objects are opaque pointers; a struct kobject that C++
 * embeds is storage of KABI_SIZEOF_KOBJECT bytes, zeroed before init.
 *
 * Attributes: C++ describes a table; C builds the kernel attribute group
 * from it (kapi_sysfs_group_*), with one generic show/store pair per flavour
 * (device_attribute for devices, kobj_attribute for C++ kobjects) that
 * forwards (object, spec, index, buffer, length) to the C++ upcalls below.
 */
#ifndef CXXRT_KAPI_SYSFS_H
#define CXXRT_KAPI_SYSFS_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device classes (/sys/class/<name>). 0 or -errno; *out set on success. */
int kapi_class_create(const char *name, void **out) KAPI_NOEXCEPT;
void kapi_class_destroy(void *cls) KAPI_NOEXCEPT;

/*
 * A device in a class (/sys/class/<cls>/<name>, under /sys/devices/virtual
 * when parent is NULL), with drvdata = the C++ object its device-flavour
 * attributes act on, and `group` (a device-flavour kapi group, or NULL)
 * created before the uevent. 0 or -errno; *out set on success.
 */
int kapi_device_create(void *cls, void *parent, void *drvdata, void *group, const char *name,
		       void **out) KAPI_NOEXCEPT;
/* Removes the device and its files; no show/store runs after it returns. */
void kapi_device_unregister(void *dev) KAPI_NOEXCEPT;
/* The device's kobject (a parent for kobjects, a symlink target). */
void *kapi_device_kobj(void *dev) KAPI_NOEXCEPT;

/* /sys/kernel: the parent for /sys/kernel/<name> kobjects. */
void *kapi_kernel_kobj(void) KAPI_NOEXCEPT;

/*
 * C++-embedded kobjects, with a ktype whose release calls
 * cxxrt_cxx_kobject_release and whose files are kobj-flavour attributes.
 * init_and_add: on failure the caller must still kapi_kobject_put().
 */
int kapi_kobject_init_and_add(void *kobj, void *parent, const char *name) KAPI_NOEXCEPT;
int kapi_kobject_uevent_add(void *kobj) KAPI_NOEXCEPT;
void kapi_kobject_del(void *kobj) KAPI_NOEXCEPT;
void kapi_kobject_get(void *kobj) KAPI_NOEXCEPT;
void kapi_kobject_put(void *kobj) KAPI_NOEXCEPT;
const char *kapi_kobject_name(void *kobj) KAPI_NOEXCEPT;

/*
 * Attribute groups built from a C++ table. name NULL: files go directly in
 * the kobject's directory. kobj_flavour: 0 for devices, 1 for C++ kobjects.
 * `spec` is handed back to the upcalls untouched; it and every name must
 * outlive the group. Free only after removing it from every kobject.
 * `lock_key`: the attribute's own lockdep class for the file's active
 * reference (a static, zeroed struct lock_class_key in the C++ table).
 */
void *kapi_sysfs_group_alloc(const char *name, unsigned int count, int kobj_flavour) KAPI_NOEXCEPT;
void kapi_sysfs_group_set_attr(void *group, unsigned int index, const char *name, unsigned short mode,
			       const void *lock_key, const void *spec) KAPI_NOEXCEPT;
void kapi_sysfs_group_free(void *group) KAPI_NOEXCEPT;
int kapi_sysfs_create_group(void *kobj, void *group) KAPI_NOEXCEPT;
void kapi_sysfs_remove_group(void *kobj, void *group) KAPI_NOEXCEPT;

/* Symlinks: <kobj>/<name> -> target. */
int kapi_sysfs_create_link(void *kobj, void *target, const char *name) KAPI_NOEXCEPT;
void kapi_sysfs_remove_link(void *kobj, const char *name) KAPI_NOEXCEPT;

/*
 * From inside a store upcall only: removes the file being written
 * (device_remove_file_self / sysfs_remove_file_self) so the handler may then
 * tear down its object without deadlocking on its own active reference.
 * `self` is the cookie the store upcall received. True if this call removed it.
 */
int kapi_sysfs_remove_self(void *self) KAPI_NOEXCEPT;

/* Show-buffer formatting (the page sysfs hands to show): appends at `at`, returns bytes added. */
int kapi_sysfs_vemit_at(char *buf, int at, const char *fmt, __builtin_va_list args) KAPI_NOEXCEPT;

/*
 * Upcalls, implemented in C++ (cxxrt/src/sysfs.cpp).
 * KAPI: process context (a read or write on the file), may sleep; the kernel
 * holds an active reference on the file, so the object (drvdata or the
 * kobject's owner) stays alive until the group is removed. show returns the
 * length or -errno; store returns count or -errno.
 */
long cxxrt_cxx_sysfs_show(void *object, const void *spec, unsigned int index, char *buf) KAPI_NOEXCEPT;
long cxxrt_cxx_sysfs_store(void *object, const void *spec, unsigned int index, const char *buf,
			   unsigned long count, void *self) KAPI_NOEXCEPT;
/* The C++ object a C++-embedded kobject belongs to. Any context. */
void *cxxrt_cxx_kobject_owner(void *kobj) KAPI_NOEXCEPT;
/* The last reference to a C++-embedded kobject is gone; runs in the context of the last put. */
void cxxrt_cxx_kobject_release(void *kobj) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* CXXRT_KAPI_SYSFS_H */
