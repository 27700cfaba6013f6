// Per-module runtime state: the debugfs view of allocation accounting, the
// failure-injection knob, and the leak check at module exit.
#include <cxxrt/module-api.h>
#include <cxxrt/debugfs.hpp>
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/seq.hpp>

namespace cxxrt {
namespace {

class AllocationsFile final : public SeqSource {
public:
    constexpr AllocationsFile() = default;
    int show(SeqFile& file) override
    {
        file.print("%-48s %10s %12s %8s\n", "type", "live", "allocated", "failed");
        for_each_alloc_counter([&file](const AllocCounter& counter) {
            char name[48];
            format_type_name(counter, name, sizeof(name));
            file.print("%-48s %10lld %12llu %8llu\n", name, (long long)counter.live.load(MemoryOrder::kRelaxed),
                       (unsigned long long)counter.total.load(MemoryOrder::kRelaxed),
                       (unsigned long long)counter.failed.load(MemoryOrder::kRelaxed));
        });
        return 0;
    }
};

constinit AllocationsFile g_allocations_file;
constinit void* g_debugfs_dir = nullptr;

}  // namespace

void debugfs::create_files(void* dir, Span<const File> files)
{
    for (const File& file : files)
        kapi_debugfs_create_u64(file.name, dir, file.number->storage());
}

}  // namespace cxxrt

extern "C" int cxxrt_cxx_seq_show(void* seq, void* source) noexcept
{
    cxxrt::SeqFile file(seq);
    return static_cast<cxxrt::SeqSource*>(source)->show(file);
}

extern "C" int cxxrt_module_init(void) noexcept
{
    using namespace cxxrt;
    g_debugfs_dir = kapi_debugfs_create_dir(kapi_module_name(), nullptr);
    kapi_debugfs_create_seq_file("allocations", g_debugfs_dir, &g_allocations_file);
    const debugfs::File files[] = {{"fail_nth", &g_alloc_registry.fail_nth}};
    debugfs::create_files(g_debugfs_dir, files);
    return 0;
}

extern "C" void* cxxrt_module_debugfs_dir(void) noexcept
{
    return cxxrt::g_debugfs_dir;
}

extern "C" long cxxrt_module_exit(void) noexcept
{
    using namespace cxxrt;
    kapi_debugfs_remove(g_debugfs_dir);
    g_debugfs_dir = nullptr;
    long leaked = 0;
    for_each_alloc_counter([&leaked](const AllocCounter& counter) {
        s64 live = counter.live.load(MemoryOrder::kRelaxed);
        if (live == 0)
            return;
        char name[96];
        format_type_name(counter, name, sizeof(name));
        log::err("cxxrt: leak: %lld live %s at module exit", (long long)live, name);
        leaked += long(live);
    });
    if (leaked)
        kapi_warn("cxxrt: objects leaked at module exit (see the leak lines above)");
    return leaked;
}
