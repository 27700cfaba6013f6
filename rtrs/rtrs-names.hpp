// The cxxrt names rtrs-client and rtrs-server both speak, declared once in
// namespace rtrs: rtrs::clt and rtrs::srv nest in it, so both see them
// (the core's headers declare the names they need there as well, e.g.
// common/rtrs-addr.hpp).
#pragma once

#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/unique_ptr.hpp>

namespace kernel::ib {}

namespace rtrs {

// The RDMA layer (kernel/ib), by the short name rtrs code uses for it.
namespace ib = ::kernel::ib;

using cxxrt::Error;
using cxxrt::Gfp;
using cxxrt::Result;
using namespace cxxrt::integers;
using cxxrt::UniquePtr;

}  // namespace rtrs
