// See json.hpp.
#include "tools/rnbdctl/json.hpp"

#include <cstdio>

#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/text.hpp"

namespace rnbdctl {

std::string json_quote(const std::string& text)
{
    std::string out = "\"";
    for (size_t offset = 0; offset < text.size();) {
        const Utf8Character character = next_utf8(text, offset);
        const char32_t code_point = character.code_point;
        if (code_point == '"') {
            out += "\\\"";
        } else if (code_point == '\\') {
            out += "\\\\";
        } else if (code_point == '\n') {
            out += "\\n";
        } else if (code_point == '\t') {
            out += "\\t";
        } else if (code_point == '\r') {
            out += "\\r";
        } else if (code_point == kInvalidByte) {
            // JSON text is UTF-8 and has no escape for a byte: the
            // character that stands for an unknown one.
            append_utf8(out, kReplacementCharacter);
        } else if (is_control_character(code_point)) {
            char escaped[16];
            snprintf(escaped, sizeof(escaped), "\\u%04x", unsigned(code_point));
            out += escaped;
        } else {
            out.append(text, offset, character.length);
        }
        offset += character.length;
    }
    return out + "\"";
}

void JsonWriter::element(const char* key)
{
    if (!first_.empty()) {
        if (!first_.back())
            text_ += ",";
        first_.back() = false;
        text_ += "\n" + std::string(2 * first_.size(), ' ');
    }
    if (key)
        text_ += json_quote(key) + ": ";
}

JsonWriter& JsonWriter::open(const char* key, char bracket)
{
    element(key);
    text_ += bracket;
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::close(char bracket)
{
    bool empty = first_.back();
    first_.pop_back();
    // An empty container stays on one line: {} or [].
    if (!empty)
        text_ += "\n" + std::string(2 * first_.size(), ' ');
    text_ += bracket;
    return *this;
}

JsonWriter& JsonWriter::begin_object(const char* key) { return open(key, '{'); }

JsonWriter& JsonWriter::end_object() { return close('}'); }

JsonWriter& JsonWriter::begin_array(const char* key) { return open(key, '['); }

JsonWriter& JsonWriter::end_array() { return close(']'); }

JsonWriter& JsonWriter::string(const char* key, const std::string& value)
{
    element(key);
    text_ += json_quote(value);
    return *this;
}

JsonWriter& JsonWriter::string(const std::string& value) { return string(nullptr, value); }

JsonWriter& JsonWriter::number(const char* key, int64_t value)
{
    element(key);
    text_ += value == kUnknown ? std::string("null") : std::to_string(value);
    return *this;
}

JsonWriter& JsonWriter::boolean(const char* key, bool value)
{
    element(key);
    text_ += value ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null(const char* key)
{
    element(key);
    text_ += "null";
    return *this;
}

}  // namespace rnbdctl
