// A small JSON writer: pretty-printed with two-space indents, keys in the
// order written (the documented order; Documentation/rnbdctl.md), integers
// whose value sysfs did not give (kUnknown) as null.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rnbdctl {

class JsonWriter {
public:
    JsonWriter& begin_object(const char* key = nullptr);
    JsonWriter& end_object();
    JsonWriter& begin_array(const char* key = nullptr);
    JsonWriter& end_array();
    JsonWriter& string(const char* key, const std::string& value);
    JsonWriter& string(const std::string& value);  // an array element
    JsonWriter& number(const char* key, int64_t value);
    JsonWriter& boolean(const char* key, bool value);
    JsonWriter& null(const char* key);

    // The document with a final newline.
    std::string text() const { return text_ + "\n"; }

private:
    void element(const char* key);
    std::string text_;
    std::vector<bool> first_;  // per open container: nothing written yet
};

std::string json_quote(const std::string& text);

}  // namespace rnbdctl
