// What a driver's queue_rq answers the block layer: blk_status_t, the
// kernel's own values from the generated header (the boundary passes them
// through unchanged).
#pragma once

#include "cxxrt-kabi.h"

namespace kernel::block {

enum class Status : int {
    kOk = KABI_BLK_STS_OK,
    kResource = KABI_BLK_STS_RESOURCE,              // blk-mq retries later
    kIoError = KABI_BLK_STS_IOERR,
    kNotSupported = KABI_BLK_STS_NOTSUPP,
    kDeviceResource = KABI_BLK_STS_DEV_RESOURCE,    // retried when the driver re-runs the queue
};

}  // namespace kernel::block
