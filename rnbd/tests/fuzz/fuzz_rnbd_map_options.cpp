// libFuzzer target for the map_device option parser: any input either is
// refused with -EINVAL and a reason, or yields options whose strings lie
// inside the input and respect every documented bound.
#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rnbd/core/rnbd-clt-options.hpp"

namespace {

bool inside(cxxrt::StringView part, const char* begin, __SIZE_TYPE__ size)
{
    return part.data() >= begin && part.data() + part.length() <= begin + size;
}

}  // namespace

FUZZ_TARGET(data, size)
{
    const char* text = reinterpret_cast<const char*>(data);
    rnbd::clt::MapOptions options;
    rnbd::clt::MapError error;
    auto result = rnbd::clt::parse_map_options(cxxrt::StringView(text, size), 4, options, &error);
    if (result.is_error()) {
        FUZZ_CHECK(result.to_errno() == -22);
        FUZZ_CHECK(error.reason != rnbd::clt::MapReason::kNone);
        FUZZ_CHECK(rnbd::clt::map_reason_text(error) != nullptr);
        // A missing key is named from the option table, not the input.
        if (error.syntax != cxxrt::parse::Reason::kMissingKey)
            FUZZ_CHECK(error.token.is_empty() || inside(error.token, text, size));
        return 0;
    }
    FUZZ_CHECK(error.reason == rnbd::clt::MapReason::kNone);
    FUZZ_CHECK(options.path_count <= rnbd::clt::kMaxPaths);
    FUZZ_CHECK(!options.session_name.is_empty() && options.session_name.length() <= rnbd::clt::kMaxNameLength);
    FUZZ_CHECK(!options.device_path.is_empty() && options.device_path.length() <= rnbd::clt::kMaxNameLength);
    FUZZ_CHECK(inside(options.session_name, text, size) && inside(options.device_path, text, size));
    FUZZ_CHECK(options.destination_port != 0 && options.poll_queues <= 4);
    FUZZ_CHECK(options.io_hold_timeout_ms <= rnbd::clt::kMaxIoHoldTimeoutMs);
    FUZZ_CHECK(options.io_hold_timeout_given || options.io_hold_timeout_ms == rnbd::clt::kDefaultIoHoldTimeoutMs);
    for (unsigned i = 0; i < options.path_count; ++i)
        FUZZ_CHECK(options.paths[i].port == options.destination_port);
    for (unsigned i = 0; i < options.session_name.length(); ++i)
        FUZZ_CHECK(options.session_name[i] != '/' && static_cast<unsigned char>(options.session_name[i]) > ' ');
    char id[300];
    FUZZ_CHECK(rnbd::clt::format_device_id(options.device_path, cxxrt::Span<char>(id)).is_ok());
    return 0;
}
