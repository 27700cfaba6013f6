// libFuzzer target for path address parsing. Beyond "no crash", it checks
// the round trip: whatever parses must print to text that parses back to
// the same address, and printing must stay inside the buffer.
#include "rtrs/rtrs-addr.hpp"

namespace {

void check(bool condition)
{
    if (!condition)
        __builtin_trap();
}

void check_round_trip(const rtrs::Address& address)
{
    char text[rtrs::kMaxAddressTextLength + 8];
    for (unsigned i = 0; i < sizeof(text); ++i)
        text[i] = 'Z';
    auto length = rtrs::format_address(address, cxxrt::Span<char>(text, rtrs::kMaxAddressTextLength));
    check(length.is_ok());
    check(length.value() < rtrs::kMaxAddressTextLength);
    check(text[length.value()] == '\0');
    for (unsigned i = rtrs::kMaxAddressTextLength; i < sizeof(text); ++i)
        check(text[i] == 'Z');
    auto again = rtrs::parse_address(cxxrt::StringView(text, length.value()));
    check(again.is_ok());
    check(again.value().family == address.family);
    for (unsigned i = 0; i < 16; ++i)
        check(again.value().bytes[i] == address.bytes[i]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, __SIZE_TYPE__ size)
{
    cxxrt::StringView input(reinterpret_cast<const char*>(data), size);
    auto path = rtrs::parse_path(input, 1234);
    if (path.is_error()) {
        check(path.to_errno() == -22);
        return 0;
    }
    const rtrs::PathAddress& parsed = path.value();
    check(parsed.destination.family != rtrs::AddressFamily::kNone);
    check_round_trip(parsed.destination);
    if (parsed.has_source) {
        check_round_trip(parsed.source);
        char name[rtrs::kMaxPathNameLength + 1];
        auto length = rtrs::format_path_name(parsed.source, parsed.destination, cxxrt::Span<char>(name));
        check(length.is_ok() && length.value() <= rtrs::kMaxPathNameLength);
    }
    return 0;
}
