// A strict little JSON parser for the tests: rnbdctl's output must parse
// (one value, UTF-8 strings: an invalid byte or a lone surrogate is refused),
// and the tests then look fields up by path ("device.name", "paths.0.state").
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rnbdctl::testing {

struct JsonValue {
    enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<JsonValue> array;
    std::vector<std::pair<std::string, JsonValue>> object;  // in document order

    // "a.b.0.c": object keys and array indices; nullptr when absent.
    const JsonValue* at(const std::string& path) const;
    // Convenience for tests: the string, the number as text, "null", "true"...
    std::string text(const std::string& path) const;
    std::vector<std::string> keys() const;
    // The fields of `expected` ({path, text}) whose text() differs, each as
    // "path: 'got' (expected 'want')"; empty when all match. Tests check a
    // table of fields at once and are told every field that differs.
    std::vector<std::string> differences(const std::vector<std::pair<std::string, std::string>>& expected) const;
};

// False (with `error`) unless `text` is exactly one JSON value.
bool parse_json(const std::string& text, JsonValue& out, std::string& error);
// True when `text` is valid UTF-8 (the same check as in JSON strings), for
// tests of outputs that are not JSON (tables, Prometheus text).
bool is_valid_utf8(const std::string& text);

}  // namespace rnbdctl::testing
