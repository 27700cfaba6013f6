// The server half of the RTRS self-test: an 8 MiB in-memory store that
// clients write to and read from through RTRS (rtrs-test-proto.hpp).
// Every header field is checked before use, as a real user must.
#include <cxxrt/atomic.hpp>
#include <cxxrt/errno.hpp>
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/percpu.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/utility.hpp>
#include <cxxrt/work.hpp>
#include <cxxrt/module-api.h>
#include <rtrs/rtrs-api.h>
#include "rtrs/tests/kmod/rtrs-test-proto.hpp"
#include <cxxrt/enforce.hpp>

extern "C" int rtrs_srv_selftest_start(unsigned short port, int respond_cpu) noexcept;
extern "C" void rtrs_srv_selftest_stop(void) noexcept;

namespace {

using namespace cxxrt;
using namespace rtrs::selftest;

constinit u8* g_store = nullptr;
constinit rtrs_server_context* g_server = nullptr;
constinit Atomic<u64> g_ios{0};

// respond_cpu=N: answers leave from a work item on CPU N instead of from
// the completion that brought the request. Over rxe loopback the client's
// completion runs where the server posts its answer, so a client that
// submits on another CPU sees every completion arrive on CPU N (the test
// of its stats/cpu_migration knows exactly how many migrated).
class Deferred : Pinned {
public:
    explicit Deferred(unsigned int cpu) : cpu_(cpu) {}

    // Softirq (the server's completion handler). False when full: the
    // caller answers at once.
    bool push(rtrs_server_io* io, int error)
    {
        {
            BhSpinGuard guard(lock_);
            if (count_ == kSlots)
                return false;
            slots_[(head_ + count_) % kSlots] = Answer{io, error};
            ++count_;
        }
        (void)work_.queue_on_cpu(cpu_);
        return true;
    }
    // Process context, after the server closed: the server waited for every
    // answer, so nothing is queued any more.
    void stop() { (void)work_.flush(); }

private:
    struct Answer {
        rtrs_server_io* io = nullptr;
        int error = 0;
    };
    // More than a session's IO in flight over its paths (queue depth 128 here).
    static constexpr u32 kSlots = 1024;

    void drain()
    {
        for (;;) {
            Answer next;
            {
                BhSpinGuard guard(lock_);
                if (count_ == 0)
                    return;
                next = slots_[head_];
                head_ = (head_ + 1) % kSlots;
                --count_;
            }
            rtrs_server_respond(next.io, next.error);
        }
    }

    const unsigned int cpu_;
    SpinLock lock_{lock_class<"rtrs::srv_selftest::Deferred::lock_">};
    Answer slots_[kSlots] CXXRT_GUARDED_BY(lock_);
    u32 head_ CXXRT_GUARDED_BY(lock_) = 0;
    u32 count_ CXXRT_GUARDED_BY(lock_) = 0;
    Work work_{lock_class<"rtrs::srv_selftest::Deferred::work_">, Callback::to<&Deferred::drain>(this)};
};
constinit Deferred* g_deferred = nullptr;

int answer(rtrs_server_io* io, int error)
{
    if (!g_deferred || !g_deferred->push(io, error))
        rtrs_server_respond(io, error);
    return 0;
}

int on_io(void*, rtrs_server_io* io, rtrs_direction direction, void* data, unsigned int data_length,
          const void* header_bytes, unsigned int header_length)
{
    g_ios.fetch_add(1, MemoryOrder::kRelaxed);
    if (header_length < sizeof(Header))
        return answer(io, -err::kInval);
    Header header;
    copy_bytes(&header, header_bytes, sizeof(header));
    if (header.magic.get() != kMagic)
        return answer(io, -err::kInval);
    const u64 offset = header.offset.get();
    const u32 length = header.length.get();
    if (offset > kStoreSize || length > kStoreSize - offset)
        return answer(io, -err::kRange);
    switch (Op(header.op.get())) {
    case Op::kWrite:
        if (direction != RTRS_WRITE || length != data_length)
            return answer(io, -err::kInval);
        copy_bytes(g_store + offset, data, length);
        return answer(io, 0);
    case Op::kRead:
        if (direction != RTRS_READ || length > data_length)
            return answer(io, -err::kInval);
        copy_bytes(data, g_store + offset, length);
        return answer(io, 0);
    case Op::kFail: {
        u32 error = header.error.get();
        return answer(io, error > 0 && error < 512 ? -int(error) : -err::kIo);
    }
    }
    return answer(io, -err::kOpNotSupp);
}

void on_link_event(rtrs_server_session* session, rtrs_server_link_event event, void*)
{
    char name[256];
    rtrs_server_session_name(session, name, sizeof(name));
    log::info("session %s %s", name, event == RTRS_SERVER_LINK_CONNECTED ? "connected" : "disconnected");
}

constexpr rtrs_server_callbacks kCallbacks = {on_io, on_link_event};

}  // namespace

extern "C" int rtrs_srv_selftest_start(unsigned short port, int respond_cpu) noexcept
{
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    if (respond_cpu >= 0) {
        if (unsigned(respond_cpu) >= nr_cpu_ids() || !cpu_online(unsigned(respond_cpu))) {
            log::err("respond_cpu=%d: no such online CPU", respond_cpu);
            (void)cxxrt_module_exit();
            return -err::kInval;
        }
        g_deferred = allocate<Deferred>(Gfp::kernel(), unsigned(respond_cpu));
        if (!g_deferred) {
            (void)cxxrt_module_exit();
            return -err::kNoMem;
        }
    }
    g_store = static_cast<u8*>(kapi_vzalloc(kStoreSize));
    if (!g_store) {
        destroy(exchange(g_deferred, nullptr));
        (void)cxxrt_module_exit();
        return -err::kNoMem;
    }
    rtrs_server_context* server = rtrs_server_open(&kCallbacks, port);
    long value = reinterpret_cast<long>(server);
    if (value < 0 && value > -4096) {
        kapi_vfree(g_store);
        destroy(exchange(g_deferred, nullptr));
        (void)cxxrt_module_exit();
        return int(value);
    }
    g_server = server;
    log::info("serving an %u MiB store on port %u%s", kStoreSize >> 20, unsigned(port),
              g_deferred ? ", answering from a CPU of its own" : "");
    return 0;
}

extern "C" void rtrs_srv_selftest_stop(void) noexcept
{
    rtrs_server_close(g_server);
    if (g_deferred) {
        g_deferred->stop();
        destroy(exchange(g_deferred, nullptr));
    }
    kapi_vfree(g_store);
    log::info("stopped after %llu IOs", (unsigned long long)g_ios.load());
    (void)cxxrt_module_exit();
}
