// The queue limits of a disk as plain numbers: what the driver asks of the
// block layer (sizes, discard, write cache). The C boundary copies them into
// the kernel's own limits, at allocation (Disk::create) or as one update of
// a live disk (Disk::update_limits); how differs between kernels, this
// description does not.
#pragma once

#include "kernel/block/kapi-blk.h"

namespace kernel::block {

using Limits = kapi_queue_limits;

}  // namespace kernel::block
