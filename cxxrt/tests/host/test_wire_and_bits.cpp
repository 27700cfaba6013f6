#include <cxxrt/bits.hpp>
#include <cxxrt/endian.hpp>
#include <cxxrt/span.hpp>
#include <gtest/gtest.h>

#include <cstring>

TEST(WireInteger, LittleEndianBytes)
{
    auto v = cxxrt::le32::from(0x11223344u);
    unsigned char bytes[4];
    std::memcpy(bytes, &v, 4);
    EXPECT_EQ(bytes[0], 0x44);
    EXPECT_EQ(bytes[3], 0x11);
    EXPECT_EQ(v.get(), 0x11223344u);
    auto w = cxxrt::le64::from(0x0102030405060708ull);
    unsigned char b8[8];
    std::memcpy(b8, &w, 8);
    EXPECT_EQ(b8[0], 0x08);
    EXPECT_EQ(b8[7], 0x01);
}

TEST(WireInteger, BigEndianBytes)
{
    auto v = cxxrt::be32::from(0x11223344u);
    unsigned char bytes[4];
    std::memcpy(bytes, &v, 4);
    EXPECT_EQ(bytes[0], 0x11);
    EXPECT_EQ(bytes[3], 0x44);
    EXPECT_EQ(v.get(), 0x11223344u);
}

TEST(WireInteger, UnalignedLoadStore)
{
    unsigned char buf[11] = {};
    cxxrt::store_le<cxxrt::u64>(buf + 3, 0xa1b2c3d4e5f60718ull);
    EXPECT_EQ(buf[3], 0x18);
    EXPECT_EQ(cxxrt::load_le<cxxrt::u64>(buf + 3), 0xa1b2c3d4e5f60718ull);
    cxxrt::store_le<cxxrt::u16>(buf, 0xbeef);
    EXPECT_EQ(cxxrt::load_le<cxxrt::u16>(buf), 0xbeef);
}

TEST(Bits, Logs)
{
    EXPECT_EQ(cxxrt::ilog2(1), 0u);
    EXPECT_EQ(cxxrt::ilog2(4096), 12u);
    EXPECT_EQ(cxxrt::ilog2(4097), 12u);
    EXPECT_EQ(cxxrt::bits_for_count(512), 9u);
    EXPECT_EQ(cxxrt::bits_for_count(513), 10u);
    EXPECT_EQ(cxxrt::bits_for_count(1), 0u);
    EXPECT_TRUE(cxxrt::is_power_of_two(128));
    EXPECT_FALSE(cxxrt::is_power_of_two(0));
    EXPECT_FALSE(cxxrt::is_power_of_two(96));
    EXPECT_EQ(cxxrt::round_up(4097, 4096), 8192u);
    EXPECT_EQ(cxxrt::low_mask(19), 0x7ffffu);
}

TEST(Bits, CheckedArithmetic)
{
    cxxrt::u32 out = 5;
    EXPECT_FALSE(cxxrt::checked_add<cxxrt::u32>(0xffffffffu, 1, out));
    EXPECT_EQ(out, 5u);
    EXPECT_TRUE(cxxrt::checked_mul<cxxrt::u32>(1000, 1000, out));
    EXPECT_EQ(out, 1000000u);
}

TEST(Span, SlicesClampInsteadOfOverrunning)
{
    cxxrt::u8 data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    cxxrt::ByteSpan span(data);
    EXPECT_EQ(span.size(), 8u);
    EXPECT_EQ(span.slice(6).size(), 2u);
    EXPECT_TRUE(span.slice(9).is_empty());
    EXPECT_TRUE(span.slice(4, 5).is_empty());
    EXPECT_EQ(span.slice(4, 4)[0], 4);
    EXPECT_TRUE(span.contains_range(8, 0));
    EXPECT_FALSE(span.contains_range(1, ~size_t(0)));
}

TEST(StringView, Basics)
{
    cxxrt::StringView s("path=ip:192.0.2.1");
    EXPECT_EQ(s.find('='), 4u);
    EXPECT_TRUE(s.starts_with("path"));
    EXPECT_TRUE(s.ends_with(".1"));
    EXPECT_FALSE(s.ends_with("2.1."));
    EXPECT_FALSE(cxxrt::StringView("1").ends_with("2.1"));
    EXPECT_TRUE(s.substring(5) == "ip:192.0.2.1");
    EXPECT_TRUE(s.substring(100).is_empty());
    EXPECT_FALSE(s.contains('@'));
}
