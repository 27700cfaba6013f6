// libFuzzer target for the map_device option parser: any input either is
// refused with -EINVAL and a reason, or yields options whose strings lie
// inside the input and respect every documented bound.
#include "rnbd/rnbd-clt-options.hpp"

namespace {

void check(bool condition)
{
    if (!condition)
        __builtin_trap();
}

bool inside(cxxrt::StringView part, const char* begin, __SIZE_TYPE__ size)
{
    return part.data() >= begin && part.data() + part.length() <= begin + size;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, __SIZE_TYPE__ size)
{
    const char* text = reinterpret_cast<const char*>(data);
    rnbd::clt::MapOptions options;
    rnbd::clt::MapError error;
    auto result = rnbd::clt::parse_map_options(cxxrt::StringView(text, size), 4, options, &error);
    if (result.is_error()) {
        check(result.to_errno() == -22);
        check(error.reason != rnbd::clt::MapReason::kNone);
        check(rnbd::clt::map_reason_text(error) != nullptr);
        // A missing key is named from the option table, not the input.
        if (error.syntax != cxxrt::parse::Reason::kMissingKey)
            check(error.token.is_empty() || inside(error.token, text, size));
        return 0;
    }
    check(error.reason == rnbd::clt::MapReason::kNone);
    check(options.path_count <= rnbd::clt::kMaxPaths);
    check(!options.session_name.is_empty() && options.session_name.length() <= rnbd::clt::kMaxNameLength);
    check(!options.device_path.is_empty() && options.device_path.length() <= rnbd::clt::kMaxNameLength);
    check(inside(options.session_name, text, size) && inside(options.device_path, text, size));
    check(options.destination_port != 0 && options.poll_queues <= 4);
    for (unsigned i = 0; i < options.path_count; ++i)
        check(options.paths[i].port == options.destination_port);
    for (unsigned i = 0; i < options.session_name.length(); ++i)
        check(options.session_name[i] != '/' && static_cast<unsigned char>(options.session_name[i]) > ' ');
    char id[300];
    check(rnbd::clt::format_device_id(options.device_path, cxxrt::Span<char>(id)).is_ok());
    return 0;
}
