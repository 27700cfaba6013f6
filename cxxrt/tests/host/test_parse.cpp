// Host tests of the sysfs input parsers in cxxrt/parse.
#include <gtest/gtest.h>

#include <deque>
#include <string>

#include <cxxrt/errno.hpp>
#include <cxxrt/parse.hpp>

using namespace cxxrt;
using namespace cxxrt::parse;

namespace {

StringView view(const std::string& s) { return StringView(s.data(), s.size()); }

constexpr OptionSpec kSpecs[] = {
    {StringView("name"), 1, true},
    {StringView("path"), 3, false},
    {StringView("mode"), 1, false},
};

struct Parsed {
    int rc = 0;
    size_t count = 0;
    ParseError error;
    Option options[8];
};

// Options point into the input, so inputs outlive the test that made them.
std::deque<std::string>& kept_inputs()
{
    static std::deque<std::string> inputs;
    return inputs;
}

Parsed run(const std::string& text, size_t max_length = 4096, size_t out_capacity = 8)
{
    const std::string& input = kept_inputs().emplace_back(text);
    Parsed p;
    auto r = parse_options(view(input), Span<const OptionSpec>(kSpecs), Span<Option>(p.options, out_capacity),
                           &p.error, max_length);
    p.rc = r.to_errno();
    if (r.is_ok())
        p.count = r.value();
    return p;
}

std::string str(StringView v) { return std::string(v.data(), v.length()); }

}  // namespace

TEST(ParseUnsigned, DecimalAndHex)
{
    EXPECT_EQ(parse_unsigned("0", 10).value(), 0u);
    EXPECT_EQ(parse_unsigned("1234", 65535).value(), 1234u);
    EXPECT_EQ(parse_unsigned("0x10", 65535).value(), 16u);
    EXPECT_EQ(parse_unsigned("0XfF", 65535).value(), 255u);
    EXPECT_EQ(parse_unsigned("18446744073709551615", ~u64(0)).value(), ~u64(0));
}

TEST(ParseUnsigned, RejectsGarbage)
{
    Reason reason = Reason::kNone;
    EXPECT_EQ(parse_unsigned("", 10, &reason).to_errno(), -err::kInval);
    EXPECT_EQ(reason, Reason::kEmpty);
    for (const char* bad : {"+1", "-1", " 1", "1 ", "1a", "0x", "0xg", "1.0", "١"}) {
        reason = Reason::kNone;
        EXPECT_EQ(parse_unsigned(bad, ~u64(0), &reason).to_errno(), -err::kInval) << bad;
        EXPECT_EQ(reason, Reason::kNotANumber) << bad;
    }
}

TEST(ParseUnsigned, OverflowIsRange)
{
    Reason reason = Reason::kNone;
    EXPECT_EQ(parse_unsigned("18446744073709551616", ~u64(0), &reason).to_errno(), -err::kRange);
    EXPECT_EQ(reason, Reason::kOutOfRange);
    EXPECT_EQ(parse_unsigned("0x10000000000000000", ~u64(0)).to_errno(), -err::kRange);
    EXPECT_EQ(parse_unsigned("99999999999999999999999999", ~u64(0)).to_errno(), -err::kRange);
    EXPECT_EQ(parse_unsigned("65536", 65535, &reason).to_errno(), -err::kRange);
    EXPECT_EQ(parse_unsigned("65535", 65535).value(), 65535u);
}

TEST(ParseLineInRange, BoundsInclusiveEverythingElseEinval)
{
    EXPECT_EQ(parse_line_in_range("1000\n", 1000, 86400000).value(), 1000u);
    EXPECT_EQ(parse_line_in_range(" 86400000 ", 1000, 86400000).value(), 86400000u);
    EXPECT_EQ(parse_line_in_range("999", 1000, 86400000).to_errno(), -err::kInval);
    EXPECT_EQ(parse_line_in_range("86400001", 1000, 86400000).to_errno(), -err::kInval);
    EXPECT_EQ(parse_line_in_range("", 1000, 86400000).to_errno(), -err::kInval);
    EXPECT_EQ(parse_line_in_range("12ms", 1000, 86400000).to_errno(), -err::kInval);
    EXPECT_EQ(parse_line_in_range("99999999999999999999999", 1000, 86400000).to_errno(), -err::kInval);
}

TEST(ParseSigned, Bounds)
{
    EXPECT_EQ(parse_signed("-1", -1, 8).value(), -1);
    EXPECT_EQ(parse_signed("8", -1, 8).value(), 8);
    EXPECT_EQ(parse_signed("-0", -1, 8).value(), 0);
    EXPECT_EQ(parse_signed("-2", -1, 8).to_errno(), -err::kRange);
    EXPECT_EQ(parse_signed("9", -1, 8).to_errno(), -err::kRange);
    EXPECT_EQ(parse_signed("-9223372036854775808", NumericLimits<s64>::min, 0).value(), NumericLimits<s64>::min);
    EXPECT_EQ(parse_signed("9223372036854775807", 0, NumericLimits<s64>::max).value(), NumericLimits<s64>::max);
    EXPECT_EQ(parse_signed("9223372036854775808", 0, NumericLimits<s64>::max).to_errno(), -err::kRange);
    EXPECT_EQ(parse_signed("-9223372036854775809", NumericLimits<s64>::min, 0).to_errno(), -err::kRange);
    for (const char* bad : {"", "-", "--1", "-+1", "+1", "1-", " -1"})
        EXPECT_EQ(parse_signed(bad, -100, 100).to_errno(), -err::kInval) << bad;
}

TEST(ParseBool, Words)
{
    EXPECT_TRUE(parse_bool("1").value());
    EXPECT_TRUE(parse_bool("y").value());
    EXPECT_TRUE(parse_bool("on").value());
    EXPECT_FALSE(parse_bool("0").value());
    EXPECT_FALSE(parse_bool("N").value());
    EXPECT_FALSE(parse_bool("off").value());
    EXPECT_EQ(parse_bool("yes").to_errno(), -err::kInval);
    EXPECT_EQ(parse_bool("").to_errno(), -err::kInval);
}

TEST(TrimLine, OneNewlineAndBlanks)
{
    EXPECT_EQ(str(trim_line("  a=b \t\n")), "a=b");
    EXPECT_EQ(str(trim_line("a=b\n\n")), "a=b\n");  // only one newline goes
    EXPECT_EQ(str(trim_line("\n")), "");
}

TEST(HasControlCharacter, C0AndDel)
{
    EXPECT_FALSE(has_control_character("session-1 ~ \x80\xff"));
    EXPECT_FALSE(has_control_character(""));
    EXPECT_TRUE(has_control_character(StringView("a\0b", 3)));
    EXPECT_TRUE(has_control_character("a\tb"));
    EXPECT_TRUE(has_control_character("ab\n"));
    EXPECT_TRUE(has_control_character("\x1f"));
    EXPECT_TRUE(has_control_character("a\x7f"));
}

TEST(ParseOptions, AcceptsTableKeysInOrder)
{
    Parsed p = run("name=x path=a path=b mode=ro\n");
    ASSERT_EQ(p.rc, 0);
    ASSERT_EQ(p.count, 4u);
    EXPECT_EQ(str(p.options[0].key), "name");
    EXPECT_EQ(str(p.options[0].value), "x");
    EXPECT_EQ(p.options[1].spec_index, 1);
    EXPECT_EQ(str(p.options[2].value), "b");
    EXPECT_EQ(str(p.options[3].value), "ro");
}

TEST(ParseOptions, BlanksAndTabsSeparate)
{
    Parsed p = run("\t name=x \t  path=a   ");
    ASSERT_EQ(p.rc, 0);
    EXPECT_EQ(p.count, 2u);
}

TEST(ParseOptions, ValueMayContainEquals)
{
    Parsed p = run("name=a=b");
    ASSERT_EQ(p.rc, 0);
    EXPECT_EQ(str(p.options[0].value), "a=b");
}

TEST(ParseOptions, MissingEquals)
{
    Parsed p = run("name=x path");
    EXPECT_EQ(p.rc, -err::kInval);
    EXPECT_EQ(p.error.reason, Reason::kMissingEquals);
    EXPECT_EQ(str(p.error.token), "path");
}

TEST(ParseOptions, EmptyKeyAndValue)
{
    Parsed p = run("name=x =y");
    EXPECT_EQ(p.error.reason, Reason::kEmptyKey);
    EXPECT_EQ(p.rc, -err::kInval);
    p = run("name=");
    EXPECT_EQ(p.error.reason, Reason::kEmptyValue);
    EXPECT_EQ(str(p.error.token), "name");
}

TEST(ParseOptions, UnknownKey)
{
    Parsed p = run("name=x colour=red");
    EXPECT_EQ(p.rc, -err::kInval);
    EXPECT_EQ(p.error.reason, Reason::kUnknownKey);
    EXPECT_EQ(str(p.error.token), "colour");
    // Keys are exact: no prefix or case folding.
    EXPECT_EQ(run("name=x Mode=ro").error.reason, Reason::kUnknownKey);
    EXPECT_EQ(run("name=x mod=ro").error.reason, Reason::kUnknownKey);
    EXPECT_EQ(run("name=x modes=ro").error.reason, Reason::kUnknownKey);
}

TEST(ParseOptions, Duplicates)
{
    Parsed p = run("name=x name=y");
    EXPECT_EQ(p.rc, -err::kInval);
    EXPECT_EQ(p.error.reason, Reason::kDuplicateKey);
    EXPECT_EQ(str(p.error.token), "name");
    EXPECT_EQ(run("name=x path=1 path=2 path=3").rc, 0);
    EXPECT_EQ(run("name=x path=1 path=2 path=3 path=4").error.reason, Reason::kDuplicateKey);
}

TEST(ParseOptions, MissingRequired)
{
    Parsed p = run("path=a");
    EXPECT_EQ(p.rc, -err::kInval);
    EXPECT_EQ(p.error.reason, Reason::kMissingKey);
    EXPECT_EQ(str(p.error.token), "name");
}

TEST(ParseOptions, Empty)
{
    EXPECT_EQ(run("").error.reason, Reason::kEmpty);
    EXPECT_EQ(run("\n").error.reason, Reason::kEmpty);
    EXPECT_EQ(run("   \t ").error.reason, Reason::kEmpty);
    EXPECT_EQ(run("").rc, -err::kInval);
}

TEST(ParseOptions, ControlCharacters)
{
    EXPECT_EQ(run(std::string("name=a\0b", 8)).error.reason, Reason::kControlCharacter);
    EXPECT_EQ(run(std::string("name=ab\0", 8)).error.reason, Reason::kControlCharacter);
    EXPECT_EQ(run("name=a\nmode=ro").error.reason, Reason::kControlCharacter);
    EXPECT_EQ(run("name=a\n\n").error.reason, Reason::kControlCharacter);
    EXPECT_EQ(run("name=a\r\n").error.reason, Reason::kControlCharacter);
    EXPECT_EQ(run("name=a\nmode=ro").rc, -err::kInval);
    // Exactly one trailing newline is what echo adds: accepted.
    EXPECT_EQ(run("name=a\n").rc, 0);
    EXPECT_EQ(run("name=a  \n").rc, 0);
}

TEST(ParseOptions, Overlong)
{
    std::string input = "name=" + std::string(100, 'x');
    EXPECT_EQ(run(input, input.size()).rc, 0);
    Parsed p = run(input, input.size() - 1);
    EXPECT_EQ(p.rc, -err::kInval);
    EXPECT_EQ(p.error.reason, Reason::kTooLong);
    std::string page = "name=" + std::string(5000, 'x');
    EXPECT_EQ(run(page).error.reason, Reason::kTooLong);
}

TEST(ParseOptions, TooManyTokensForOutput)
{
    Parsed p = run("name=x path=1 path=2", 4096, 2);
    EXPECT_EQ(p.rc, -err::kInval);
    EXPECT_EQ(p.error.reason, Reason::kTooManyTokens);
}

TEST(ParseOptions, NullErrorPointerIsAllowed)
{
    Option options[2];
    auto r = parse_options("bogus", Span<const OptionSpec>(kSpecs), Span<Option>(options), nullptr);
    EXPECT_EQ(r.to_errno(), -err::kInval);
}

TEST(ParseOptions, ReasonTextsAreDistinct)
{
    for (int a = 0; a <= int(Reason::kTooLong); ++a)
        for (int b = a + 1; b <= int(Reason::kTooLong); ++b)
            EXPECT_STRNE(reason_text(Reason(a)), reason_text(Reason(b)));
}
