// The server half of the RTRS self-test: an 8 MiB in-memory store that
// clients write to and read from through RTRS (rtrs-test-proto.hpp).
// Every header field is checked before use, as a real user must.
#include <cxxrt/atomic.hpp>
#include <cxxrt/errno.hpp>
#include <cxxrt/log.hpp>
#include <cxxrt/utility.hpp>
#include <cxxrt/module-api.h>
#include <rtrs/rtrs-api.h>
#include "rtrs/tests/kmod/rtrs-test-proto.hpp"
#include <cxxrt/enforce.hpp>

extern "C" int rtrs_srv_selftest_start(unsigned short port) noexcept;
extern "C" void rtrs_srv_selftest_stop(void) noexcept;

namespace {

using namespace cxxrt;
using namespace rtrs::selftest;

constinit u8* g_store = nullptr;
constinit rtrs_server_context* g_server = nullptr;
constinit Atomic<u64> g_ios{0};

int answer(rtrs_server_io* io, int error)
{
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

extern "C" int rtrs_srv_selftest_start(unsigned short port) noexcept
{
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    g_store = static_cast<u8*>(kapi_vzalloc(kStoreSize));
    if (!g_store) {
        (void)cxxrt_module_exit();
        return -err::kNoMem;
    }
    rtrs_server_context* server = rtrs_server_open(&kCallbacks, port);
    long value = reinterpret_cast<long>(server);
    if (value < 0 && value > -4096) {
        kapi_vfree(g_store);
        (void)cxxrt_module_exit();
        return int(value);
    }
    g_server = server;
    log::info("serving an %u MiB store on port %u", kStoreSize >> 20, unsigned(port));
    return 0;
}

extern "C" void rtrs_srv_selftest_stop(void) noexcept
{
    rtrs_server_close(g_server);
    kapi_vfree(g_store);
    log::info("stopped after %llu IOs", (unsigned long long)g_ios.load());
    (void)cxxrt_module_exit();
}
