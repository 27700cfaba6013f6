// Numbers that a debugfs file shows and a test (or an administrator) may
// write: fault-injection knobs and module-wide counters. debugfs reads and
// writes the word from C, so C++ goes through relaxed atomics only; a
// Number cannot be read or written any other way.
//
//   constinit debugfs::Number g_drops;            // a knob
//   const debugfs::File files[] = {{"drops", &g_drops}};
//   debugfs::create_files(cxxrt_module_debugfs_dir(), files);
//
// The type builds on the host too (unit tests set knobs directly).
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>

namespace cxxrt::debugfs {

class Number {
public:
    constexpr Number() = default;
    constexpr explicit Number(u64 initial) : value_(initial) {}

    u64 get() const { return value_.load(MemoryOrder::kRelaxed); }
    void set(u64 value) { value_.store(value, MemoryOrder::kRelaxed); }
    // Counters move by signed steps (a resource given back counts down).
    void add(long long delta) { value_.fetch_add(u64(delta), MemoryOrder::kRelaxed); }
    // One-shot knobs: clear what was consumed, if nobody wrote meanwhile.
    bool replace(u64& expected, u64 desired) { return value_.compare_exchange(expected, desired, MemoryOrder::kAcqRel); }

    // The word debugfs_create_u64 points at (create_files only).
    unsigned long long* storage() { return reinterpret_cast<unsigned long long*>(&value_); }

private:
    Atomic<u64> value_{0};
};
static_assert(sizeof(Number) == sizeof(u64), "debugfs reads and writes the Number as one u64");

struct File {
    const char* name;
    Number* number;
};

// One read-write u64 file per entry in `dir` (the module's debugfs
// directory); removed with the directory. Process context.
void create_files(void* dir, Span<const File> files);

}  // namespace cxxrt::debugfs
