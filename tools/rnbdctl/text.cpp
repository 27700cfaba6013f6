// See text.hpp.
#include "tools/rnbdctl/text.hpp"

#include <cstdio>

namespace rnbdctl {

namespace {

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

void append_hex_escape(std::string& out, unsigned char byte)
{
    char escaped[8];
    snprintf(escaped, sizeof(escaped), "\\x%02x", byte);
    out += escaped;
}

}  // namespace

Utf8Character next_utf8(const std::string& text, size_t offset)
{
    const unsigned char first = (unsigned char)text[offset];
    if (first < 0x80)
        return {first, 1};
    // The sequence's length and the smallest code point it may carry (a
    // smaller one is an overlong form, which decoders must refuse).
    size_t length = 0;
    char32_t code_point = 0;
    char32_t smallest = 0;
    if ((first & 0xE0) == 0xC0) {
        length = 2;
        code_point = first & 0x1F;
        smallest = 0x80;
    } else if ((first & 0xF0) == 0xE0) {
        length = 3;
        code_point = first & 0x0F;
        smallest = 0x800;
    } else if ((first & 0xF8) == 0xF0) {
        length = 4;
        code_point = first & 0x07;
        smallest = 0x10000;
    } else {
        return {kInvalidByte, 1};
    }
    if (offset + length > text.size())
        return {kInvalidByte, 1};
    for (size_t index = 1; index < length; ++index) {
        const unsigned char byte = (unsigned char)text[offset + index];
        if (!is_continuation(byte))
            return {kInvalidByte, 1};
        code_point = (code_point << 6) | (byte & 0x3F);
    }
    const bool surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
    if (code_point < smallest || surrogate || code_point > 0x10FFFF)
        return {kInvalidByte, 1};
    return {code_point, length};
}

void append_utf8(std::string& out, char32_t code_point)
{
    if (code_point < 0x80) {
        out += char(code_point);
    } else if (code_point < 0x800) {
        out += char(0xC0 | (code_point >> 6));
        out += char(0x80 | (code_point & 0x3F));
    } else if (code_point < 0x10000) {
        out += char(0xE0 | (code_point >> 12));
        out += char(0x80 | ((code_point >> 6) & 0x3F));
        out += char(0x80 | (code_point & 0x3F));
    } else {
        out += char(0xF0 | (code_point >> 18));
        out += char(0x80 | ((code_point >> 12) & 0x3F));
        out += char(0x80 | ((code_point >> 6) & 0x3F));
        out += char(0x80 | (code_point & 0x3F));
    }
}

bool is_control_character(char32_t code_point)
{
    return code_point < 0x20 || (code_point >= 0x7F && code_point <= 0x9F);
}

std::string printable(const std::string& text)
{
    std::string out;
    out.reserve(text.size());
    for (size_t offset = 0; offset < text.size();) {
        const Utf8Character character = next_utf8(text, offset);
        if (character.code_point == '\\') {
            out += "\\\\";
        } else if (character.code_point == kInvalidByte || is_control_character(character.code_point)) {
            for (size_t index = 0; index < character.length; ++index)
                append_hex_escape(out, (unsigned char)text[offset + index]);
        } else {
            out.append(text, offset, character.length);
        }
        offset += character.length;
    }
    return out;
}

size_t display_width(const std::string& printable_text)
{
    size_t width = 0;
    for (unsigned char byte : printable_text)
        width += !is_continuation(byte);
    return width;
}

}  // namespace rnbdctl
