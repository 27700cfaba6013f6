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

    // An array of `entries`, write_entry(*this, entry) writing each one.
    template <typename Entry, typename WriteEntry>
    JsonWriter& array(const char* key, const std::vector<Entry>& entries, WriteEntry write_entry)
    {
        begin_array(key);
        for (const Entry& entry : entries)
            write_entry(*this, entry);
        return end_array();
    }

    // The document with a final newline.
    std::string text() const { return text_ + "\n"; }

private:
    void element(const char* key);
    // Objects and arrays open and close alike but for their brackets.
    JsonWriter& open(const char* key, char bracket);
    JsonWriter& close(char bracket);
    std::string text_;
    std::vector<bool> first_;  // per open container: nothing written yet
};

// A JSON string of untrusted text (text.hpp), always valid UTF-8: newline,
// tab and carriage return as \n, \t, \r, the other control characters (C0,
// DEL, C1) as \u00XX, an invalid byte as U+FFFD (JSON has no escape for a
// byte).
std::string json_quote(const std::string& text);

}  // namespace rnbdctl
