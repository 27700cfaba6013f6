// What a driver's queue_rq answers the block layer (blk_status_t, as the C
// boundary turns it into one).
#pragma once

#include "kernel/block/kapi-blk.h"

namespace rnbd::block {

enum class Status : int {
    kOk = RNBD_KAPI_STS_OK,
    kResource = RNBD_KAPI_STS_RESOURCE,              // blk-mq retries later
    kIoError = RNBD_KAPI_STS_IOERR,
    kNotSupported = RNBD_KAPI_STS_NOTSUPP,
    kDeviceResource = RNBD_KAPI_STS_DEV_RESOURCE,    // retried when the driver re-runs the queue
};

}  // namespace rnbd::block
