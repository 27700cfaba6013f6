// See json-parse.hpp.
#include "tools/rnbdctl/tests/json-parse.hpp"

#include <cstdlib>

namespace rnbdctl::testing {

namespace {

struct Parser {
    const std::string& text;
    size_t i = 0;
    std::string error;

    void blanks()
    {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
            ++i;
    }
    bool fail(const std::string& message)
    {
        if (error.empty())
            error = message + " at offset " + std::to_string(i);
        return false;
    }
    bool literal(const char* word)
    {
        std::string w = word;
        if (text.compare(i, w.size(), w) != 0)
            return fail("expected " + w);
        i += w.size();
        return true;
    }
    // Four hex digits after "\u" (at i, which is on the 'u').
    bool hex4(unsigned& value)
    {
        if (i + 4 >= text.size())
            return fail("bad \\u");
        value = 0;
        for (size_t k = 1; k <= 4; ++k) {
            const char c = text[i + k];
            const int digit = c >= '0' && c <= '9'   ? c - '0'
                              : c >= 'a' && c <= 'f' ? c - 'a' + 10
                              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                     : -1;
            if (digit < 0)
                return fail("bad \\u");
            value = value * 16 + unsigned(digit);
        }
        i += 4;
        return true;
    }
    static void append_utf8(std::string& out, unsigned code_point)
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
    // "\uXXXX", with a surrogate pair as one character; a lone surrogate
    // is refused (it has no UTF-8 form).
    bool unicode_escape(std::string& out)
    {
        unsigned code_point = 0;
        if (!hex4(code_point))
            return false;
        if (code_point >= 0xDC00 && code_point <= 0xDFFF)
            return fail("lone low surrogate");
        if (code_point >= 0xD800 && code_point <= 0xDBFF) {
            unsigned low = 0;
            if (text.compare(i + 1, 2, "\\u") != 0)
                return fail("high surrogate without its low half");
            i += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF)
                return fail("high surrogate without its low half");
            code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, code_point);
        return true;
    }
    // A raw (unescaped) character of 2 to 4 bytes at i: JSON text is UTF-8
    // (RFC 8259), so an invalid sequence, an overlong form, a surrogate or
    // a code point above U+10FFFF is refused. Written apart from rnbdctl's
    // own decoder (text.cpp), so that the two do not share a mistake.
    bool multibyte(std::string& out)
    {
        const unsigned char first = (unsigned char)text[i];
        size_t length = first >= 0xF0 && first <= 0xF4 ? 4 : first >= 0xE0 && first <= 0xEF ? 3
                        : first >= 0xC2 && first <= 0xDF                                   ? 2
                                                                                           : 0;
        if (length == 0 || i + length > text.size())
            return fail("invalid UTF-8");
        unsigned code_point = first & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
        for (size_t k = 1; k < length; ++k) {
            const unsigned char byte = (unsigned char)text[i + k];
            if ((byte & 0xC0) != 0x80)
                return fail("invalid UTF-8");
            code_point = (code_point << 6) | (byte & 0x3F);
        }
        const unsigned smallest = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
        if (code_point < smallest || (code_point >= 0xD800 && code_point <= 0xDFFF) || code_point > 0x10FFFF)
            return fail("invalid UTF-8");
        out.append(text, i, length);
        i += length;
        return true;
    }
    bool string(std::string& out)
    {
        if (i >= text.size() || text[i] != '"')
            return fail("expected a string");
        ++i;
        out.clear();
        while (i < text.size() && text[i] != '"') {
            unsigned char c = (unsigned char)text[i];
            if (c < 0x20)
                return fail("control character in a string");
            if (c >= 0x80) {
                if (!multibyte(out))
                    return false;
                continue;
            }
            if (c == '\\') {
                if (++i >= text.size())
                    return fail("bad escape");
                char e = text[i];
                if (e == 'n') out += '\n';
                else if (e == 't') out += '\t';
                else if (e == 'r') out += '\r';
                else if (e == 'b') out += '\b';
                else if (e == 'f') out += '\f';
                else if (e == '"' || e == '\\' || e == '/') out += e;
                else if (e == 'u') {
                    if (!unicode_escape(out))
                        return false;
                } else
                    return fail("bad escape");
                ++i;
                continue;
            }
            out += char(c);
            ++i;
        }
        if (i >= text.size())
            return fail("unterminated string");
        ++i;
        return true;
    }
    // An object's or an array's inside, from its opening bracket (at i) to
    // `close`: members separated by ',', each parsed by parse_member. The
    // two containers differ only in what a member is.
    template <typename ParseMember>
    bool members(char close, ParseMember parse_member)
    {
        ++i;
        blanks();
        if (i < text.size() && text[i] == close) {
            ++i;
            return true;
        }
        for (;;) {
            if (!parse_member())
                return false;
            blanks();
            if (i < text.size() && text[i] == ',') {
                ++i;
                continue;
            }
            if (i < text.size() && text[i] == close) {
                ++i;
                return true;
            }
            return fail(std::string("expected ',' or '") + close + "'");
        }
    }
    bool value(JsonValue& out)
    {
        blanks();
        if (i >= text.size())
            return fail("unexpected end");
        char c = text[i];
        if (c == '{') {
            out.kind = JsonValue::Kind::kObject;
            return members('}', [&] {
                blanks();
                std::string key;
                if (!string(key))
                    return false;
                blanks();
                if (i >= text.size() || text[i] != ':')
                    return fail("expected ':'");
                ++i;
                JsonValue member;
                if (!value(member))
                    return false;
                out.object.push_back({key, member});
                return true;
            });
        }
        if (c == '[') {
            out.kind = JsonValue::Kind::kArray;
            return members(']', [&] {
                JsonValue element;
                if (!value(element))
                    return false;
                out.array.push_back(element);
                return true;
            });
        }
        if (c == '"') {
            out.kind = JsonValue::Kind::kString;
            return string(out.string);
        }
        if (c == 't') {
            out.kind = JsonValue::Kind::kBool;
            out.boolean = true;
            return literal("true");
        }
        if (c == 'f') {
            out.kind = JsonValue::Kind::kBool;
            return literal("false");
        }
        if (c == 'n') {
            out.kind = JsonValue::Kind::kNull;
            return literal("null");
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            char* end = nullptr;
            out.kind = JsonValue::Kind::kNumber;
            out.number = strtod(text.c_str() + i, &end);
            i = size_t(end - text.c_str());
            return true;
        }
        return fail("unexpected character");
    }
};

}  // namespace

const JsonValue* JsonValue::at(const std::string& path) const
{
    const JsonValue* node = this;
    size_t start = 0;
    while (node && start <= path.size() && !path.empty()) {
        size_t dot = path.find('.', start);
        std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        const JsonValue* next = nullptr;
        if (node->kind == Kind::kObject) {
            for (const auto& [key, member] : node->object)
                if (key == part)
                    next = &member;
        } else if (node->kind == Kind::kArray && !part.empty() && isdigit((unsigned char)part[0])) {
            size_t index = strtoul(part.c_str(), nullptr, 10);
            if (index < node->array.size())
                next = &node->array[index];
        }
        node = next;
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return node;
}

std::string JsonValue::text(const std::string& path) const
{
    const JsonValue* node = at(path);
    if (!node)
        return "<absent>";
    switch (node->kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return node->boolean ? "true" : "false";
    case Kind::kNumber: {
        char buffer[64];
        snprintf(buffer, sizeof(buffer), "%.17g", node->number);
        return buffer;
    }
    case Kind::kString: return node->string;
    case Kind::kArray: return "<array of " + std::to_string(node->array.size()) + ">";
    case Kind::kObject: return "<object>";
    }
    return "";
}

std::vector<std::string> JsonValue::keys() const
{
    std::vector<std::string> names;
    for (const auto& member : object)
        names.push_back(member.first);
    return names;
}

bool parse_json(const std::string& text, JsonValue& out, std::string& error)
{
    Parser parser{text, 0, {}};
    out = JsonValue{};
    if (!parser.value(out)) {
        error = parser.error;
        return false;
    }
    parser.blanks();
    if (parser.i != text.size()) {
        error = "trailing text at offset " + std::to_string(parser.i);
        return false;
    }
    return true;
}

bool is_valid_utf8(const std::string& text)
{
    Parser parser{text, 0, {}};
    std::string decoded;
    while (parser.i < text.size()) {
        if ((unsigned char)text[parser.i] < 0x80)
            ++parser.i;
        else if (!parser.multibyte(decoded))
            return false;
    }
    return true;
}

std::vector<std::string> JsonValue::differences(
    const std::vector<std::pair<std::string, std::string>>& expected) const
{
    std::vector<std::string> found;
    for (const auto& [path, want] : expected) {
        const std::string got = text(path);
        if (got != want)
            found.push_back(path + ": '" + got + "' (expected '" + want + "')");
    }
    return found;
}

}  // namespace rnbdctl::testing
