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
            if (c == '\\') {
                if (++i >= text.size())
                    return fail("bad escape");
                char e = text[i];
                if (e == 'n') out += '\n';
                else if (e == 't') out += '\t';
                else if (e == 'r') out += '\r';
                else if (e == '"' || e == '\\' || e == '/') out += e;
                else if (e == 'u') {
                    if (i + 4 >= text.size())
                        return fail("bad \\u");
                    out += char(strtol(text.substr(i + 1, 4).c_str(), nullptr, 16));
                    i += 4;
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
