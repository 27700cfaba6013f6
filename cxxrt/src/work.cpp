// Upcalls from cxxrt/kapi/kapi-wq.c: the kernel ran a work item; find the
// C++ object from the storage address and run its callback.
#include <cxxrt/work.hpp>
#include <cxxrt/enforce.hpp>

// KAPI: process context (kworker), may sleep. The callback may free the Work.
extern "C" void cxxrt_cxx_work_run(void* work) noexcept
{
    cxxrt::Work::from_native(work)->run();
}

extern "C" void cxxrt_cxx_delayed_work_run(void* dwork) noexcept
{
    cxxrt::DelayedWork::from_native(dwork)->run();
}
