// rnbdctl's entry point as a function, so host tests run it in-process
// against a fake sysfs tree (main.cpp is only argv and the real streams).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "tools/rnbdctl/sysfs.hpp"

namespace rnbdctl {

struct RunOptions {
    FILE* out = stdout;
    FILE* err = stderr;
    std::string sysfs_root_env;  // RNBDCTL_SYSFS_ROOT, "" when unset
    std::string default_rnbdtab = "/etc/rnbd/rnbdtab";
    std::string default_exports = "/etc/rnbd/exports";
    WriteHook hook;  // tests only
};

// `args` without the program name; returns the exit code.
int run(const std::vector<std::string>& args, const RunOptions& options);

// The CPUs the kernel counts for nr_poll_queues (nr_cpu_ids): from
// <root>/devices/system/cpu/possible ("0-3", "0,2-5"), else the C library's.
unsigned possible_cpus(const Sysfs& sysfs);

extern const char kUsage[];

}  // namespace rnbdctl
