// rnbd-client: module lifecycle. The transport/driver logic arrives with its issue;
// for now the module brings up the C++ runtime and tears it down cleanly.
#include <cxxrt/log.hpp>
#include <cxxrt/module-api.h>
#include "rnbd-clt-kapi.h"
#include <cxxrt/enforce.hpp>

extern "C" int rnbd_clt_cxx_init(void) noexcept
{
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    cxxrt::log::info("loaded");
    return 0;
}

extern "C" void rnbd_clt_cxx_exit(void) noexcept
{
    (void)cxxrt_module_exit();
    cxxrt::log::info("unloaded");
}
