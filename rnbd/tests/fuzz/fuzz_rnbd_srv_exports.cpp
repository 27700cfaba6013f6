// libFuzzer target for export definitions (rnbd/core/rnbd-srv-exports.hpp):
// any input is refused with -EINVAL and a reason, or gives a definition
// within every documented bound whose canonical text parses back to the
// same text.
#include <string.h>

#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rnbd/core/rnbd-srv-exports.hpp"

namespace exports = rnbd::srv::exports;

FUZZ_TARGET(data, size)
{
    const char* text = reinterpret_cast<const char*>(data);
    static exports::ExportDefinition definition;
    exports::DefinitionError error;
    auto result = exports::parse_definition(cxxrt::StringView(text, size), definition, &error);
    if (result.is_error()) {
        FUZZ_CHECK(result.to_errno() == -22);
        FUZZ_CHECK(error.reason != exports::DefinitionReason::kNone);
        return 0;
    }
    FUZZ_CHECK(definition.name[0] != '\0' && strlen(definition.name) <= exports::kMaxNameLength);
    FUZZ_CHECK(definition.backing[0] == '/' && strlen(definition.backing) <= exports::kMaxBackingLength);
    FUZZ_CHECK(definition.rule_count >= 1 && definition.rule_count <= exports::kMaxAllowRules);
    FUZZ_CHECK(definition.io_modes >= 1 && definition.io_modes <= 3);
    static char canonical[exports::kMaxDefinitionLength];
    auto length = exports::format_definition(definition, cxxrt::Span<char>(canonical, sizeof(canonical)));
    FUZZ_CHECK(length.is_ok());
    static exports::ExportDefinition again;
    FUZZ_CHECK(exports::parse_definition(cxxrt::StringView(canonical, length.value()), again).is_ok());
    static char twice[exports::kMaxDefinitionLength];
    auto length_again = exports::format_definition(again, cxxrt::Span<char>(twice, sizeof(twice)));
    FUZZ_CHECK(length_again.is_ok() && length_again.value() == length.value());
    FUZZ_CHECK(memcmp(canonical, twice, length.value()) == 0);
    return 0;
}
