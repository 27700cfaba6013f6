#include <cxxrt/list.hpp>
#include <gtest/gtest.h>

namespace {

struct Item {
    explicit Item(int v) : value(v) {}
    int value;
    cxxrt::ListNode node;
};
using ItemList = cxxrt::IntrusiveList<Item, &Item::node>;

std::vector<int> values(ItemList& list)
{
    std::vector<int> out;
    for (Item& item : list)
        out.push_back(item.value);
    return out;
}

}  // namespace

TEST(IntrusiveList, PushPopOrder)
{
    Item a(1), b(2), c(3);
    ItemList list;
    EXPECT_TRUE(list.is_empty());
    list.push_back(a);
    list.push_back(b);
    list.push_front(c);
    EXPECT_TRUE(list.check_invariants());
    EXPECT_EQ(list.size(), 3u);
    EXPECT_EQ(values(list), (std::vector<int>{3, 1, 2}));
    EXPECT_EQ(list.pop_front(), &c);
    EXPECT_FALSE(c.node.is_linked());
    EXPECT_EQ(list.first(), &a);
    EXPECT_EQ(list.last(), &b);
    ItemList::remove(a);
    ItemList::remove(b);
    EXPECT_TRUE(list.is_empty());
    EXPECT_EQ(list.pop_front(), nullptr);
}

TEST(IntrusiveList, RemoveFromMiddleKeepsLinksConsistent)
{
    Item items[5] = {Item(0), Item(1), Item(2), Item(3), Item(4)};
    ItemList list;
    for (Item& item : items)
        list.push_back(item);
    ItemList::remove(items[2]);
    EXPECT_TRUE(list.check_invariants());
    EXPECT_EQ(values(list), (std::vector<int>{0, 1, 3, 4}));
    ItemList::remove(items[2]);  // unlinking twice is harmless
    EXPECT_TRUE(list.check_invariants());
    list.for_each_safe([](Item& item) { ItemList::remove(item); });
    EXPECT_TRUE(list.is_empty());
    EXPECT_TRUE(list.check_invariants());
}

TEST(IntrusiveList, MoveBetweenLists)
{
    Item a(1);
    ItemList first, second;
    first.push_back(a);
    ItemList::remove(a);
    second.push_back(a);
    EXPECT_TRUE(first.is_empty());
    EXPECT_EQ(second.first(), &a);
    ItemList::remove(a);
}

TEST(IntrusiveList, OwnerFromNodeWithMemberNotFirst)
{
    struct Wide {
        char pad[40];
        cxxrt::ListNode link;
        int tag;
    };
    Wide w{};
    w.tag = 99;
    cxxrt::IntrusiveList<Wide, &Wide::link> list;
    list.push_back(w);
    ASSERT_EQ(list.first(), &w);
    EXPECT_EQ(list.first()->tag, 99);
    list.pop_front();
}
