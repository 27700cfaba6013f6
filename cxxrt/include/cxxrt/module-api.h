/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-module runtime lifecycle, called from each module's C init/exit.
 * Includable from C and C++; implemented in C++ (cxxrt/src/module.cpp).
 */
#ifndef CXXRT_MODULE_API_H
#define CXXRT_MODULE_API_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KAPI: process context (module_init). Creates debugfs <module>/. */
int cxxrt_module_init(void) KAPI_NOEXCEPT;
/*
 * KAPI: process context (module_exit), after all of the module's objects are
 * gone. Reports any allocation still live ("cxxrt: leak: ...") with a WARN.
 * Returns the number of live objects found.
 */
long cxxrt_module_exit(void) KAPI_NOEXCEPT;
/* The module's debugfs directory (for the module's own files), or NULL. */
void *cxxrt_module_debugfs_dir(void) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* CXXRT_MODULE_API_H */
