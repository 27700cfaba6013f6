// The cxxrt names rtrs-client and rtrs-server both speak, declared once in
// namespace rtrs: rtrs::clt and rtrs::srv nest in it, so both see them
// (the core's headers declare the names they need there as well, e.g.
// common/rtrs-addr.hpp).
#pragma once

#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/unique_ptr.hpp>

namespace rtrs {

using cxxrt::Error;
using cxxrt::Gfp;
using cxxrt::Result;
using namespace cxxrt::integers;
using cxxrt::UniquePtr;

}  // namespace rtrs
