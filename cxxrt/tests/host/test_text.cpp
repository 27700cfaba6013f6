// Host tests of cxxrt::TextBuffer, the sysfs text builder.
#include <gtest/gtest.h>

#include <string>

#include <cxxrt/text.hpp>

using cxxrt::Span;
using cxxrt::StringView;
using cxxrt::TextBuffer;

TEST(TextBuffer, Numbers)
{
    char storage[128];
    TextBuffer text{Span<char>(storage)};
    text.append_unsigned(0);
    text.append(' ');
    text.append_unsigned(~cxxrt::u64(0));
    text.append(' ');
    text.append_signed(-9223372036854775807LL - 1);
    text.append(' ');
    text.append_signed(42, 5);
    text.append('|');
    text.append_unsigned(7, 3);
    text.append('|');
    text.append_hex(0xbeef);
    text.append('|');
    text.append_hex(0x2, 4);
    text.append('|');
    text.append_hex(0);
    EXPECT_EQ(std::string(storage, text.length()),
              "0 18446744073709551615 -9223372036854775808    42|  7|beef|0002|0");
    EXPECT_FALSE(text.truncated());
    EXPECT_EQ(storage[text.length()], '\0');
}

TEST(TextBuffer, TruncatesAndTerminates)
{
    char storage[6] = {'Z', 'Z', 'Z', 'Z', 'Z', 'Z'};
    TextBuffer text{Span<char>(storage, 5)};
    text.append(StringView("hello world"));
    EXPECT_TRUE(text.truncated());
    EXPECT_EQ(text.length(), 4u);
    EXPECT_EQ(std::string(storage), "hell");
    EXPECT_EQ(storage[5], 'Z');
    EXPECT_TRUE(text.view() == "hell");
}

TEST(TextBuffer, EmptyStorage)
{
    TextBuffer text{Span<char>()};
    text.append('x');
    text.append_unsigned(123);
    EXPECT_EQ(text.length(), 0u);
    EXPECT_TRUE(text.truncated());
    char one[1] = {'Z'};
    TextBuffer single{Span<char>(one)};
    single.append('x');
    EXPECT_EQ(one[0], '\0');
    EXPECT_EQ(single.length(), 0u);
}
