// See json.hpp.
#include "tools/rnbdctl/json.hpp"

#include <cstdio>

#include "tools/rnbdctl/model.hpp"

namespace rnbdctl {

std::string json_quote(const std::string& text)
{
    std::string out = "\"";
    for (unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char escaped[8];
                snprintf(escaped, sizeof(escaped), "\\u%04x", c);
                out += escaped;
            } else {
                out += char(c);
            }
        }
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
