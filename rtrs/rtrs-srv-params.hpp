// rtrs-server module parameters: their bounds and what follows from them.
// Kernel-independent, so the rules are host-tested; the C module file only
// declares the parameters and hands their values here at load.
#pragma once

#include <cxxrt/bits.hpp>
#include <cxxrt/result.hpp>
#include "rtrs/rtrs-codec.hpp"

namespace rtrs::srv {

struct Params {
    static constexpr cxxrt::u32 kDefaultChunkSize = 128 * 1024;
    static constexpr cxxrt::u32 kMinChunkSize = 8192;
    static constexpr cxxrt::u32 kDefaultQueueDepth = 512;
    static constexpr cxxrt::u32 kMaxQueueDepth = 65535;
    // Header room the client gets in each chunk (user message + RTRS
    // message); the rest carries data.
    static constexpr cxxrt::u32 kMaxHeaderSize = 4096;

    cxxrt::u32 chunk_size = kDefaultChunkSize;
    cxxrt::u32 queue_depth = kDefaultQueueDepth;
    bool always_invalidate = true;

    cxxrt::u32 max_io_size() const { return chunk_size - kMaxHeaderSize; }
};

enum class ParamError : cxxrt::u8 { kNone, kChunkSize, kQueueDepth, kTooManyBits };

// Validates raw module parameter values (ints, as the kernel stores them).
inline cxxrt::Result<Params> make_params(int chunk_size, int queue_depth, bool always_invalidate,
                                         ParamError* why = nullptr)
{
    auto fail = [why](ParamError e) {
        if (why)
            *why = e;
        return cxxrt::Error(cxxrt::err::kInval);
    };
    if (chunk_size < int(Params::kMinChunkSize) || !cxxrt::is_power_of_two(cxxrt::u64(chunk_size)))
        return fail(ParamError::kChunkSize);
    if (queue_depth < 1 || queue_depth > int(Params::kMaxQueueDepth))
        return fail(ParamError::kQueueDepth);
    // Chunk id and offset share the 28 payload bits of an immediate.
    if (codec::make_chunk_geometry(cxxrt::u32(queue_depth), cxxrt::u32(chunk_size)).is_error())
        return fail(ParamError::kTooManyBits);
    Params params;
    params.chunk_size = cxxrt::u32(chunk_size);
    params.queue_depth = cxxrt::u32(queue_depth);
    params.always_invalidate = always_invalidate;
    return params;
}

}  // namespace rtrs::srv
