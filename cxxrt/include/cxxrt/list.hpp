// Intrusive doubly linked list. The node lives inside the element, so
// insertion never allocates (the IO path must not allocate), and an element
// can unlink itself in O(1). Not thread-safe: the owner's lock protects it.
#pragma once

#include <cxxrt/assert.hpp>
#include <cxxrt/types.hpp>

namespace cxxrt {

class ListNode {
public:
    constexpr ListNode() = default;
    ListNode(const ListNode&) = delete;
    ListNode& operator=(const ListNode&) = delete;
    ~ListNode() { CXXRT_ASSERT(!is_linked()); }

    bool is_linked() const { return next_ != nullptr; }

    // Removes the node from whatever list holds it; a no-op when unlinked.
    void unlink()
    {
        if (!is_linked())
            return;
        prev_->next_ = next_;
        next_->prev_ = prev_;
        next_ = nullptr;
        prev_ = nullptr;
    }

private:
    template <typename T, ListNode T::*> friend class IntrusiveList;
    friend class ListHead;
    ListNode* next_ = nullptr;
    ListNode* prev_ = nullptr;
};

// The sentinel: a circular list through a head node.
class ListHead {
public:
    ListHead() { head_.next_ = head_.prev_ = &head_; }
    ListHead(const ListHead&) = delete;
    ListHead& operator=(const ListHead&) = delete;
    ~ListHead()
    {
        // A list destroyed with elements on it would leave them pointing at
        // freed memory: that is a bug in the owner.
        CXXRT_ASSERT(is_empty());
        head_.next_ = head_.prev_ = nullptr;
    }

    bool is_empty() const { return head_.next_ == &head_; }

    void insert_after(ListNode& position, ListNode& node)
    {
        CXXRT_ASSERT(!node.is_linked());
        node.prev_ = &position;
        node.next_ = position.next_;
        position.next_->prev_ = &node;
        position.next_ = &node;
    }
    void push_front(ListNode& node) { insert_after(head_, node); }
    void push_back(ListNode& node) { insert_after(*head_.prev_, node); }

    ListNode* first() { return is_empty() ? nullptr : head_.next_; }
    ListNode* last() { return is_empty() ? nullptr : head_.prev_; }
    ListNode* next(ListNode& node) { return node.next_ == &head_ ? nullptr : node.next_; }
    ListNode* sentinel() { return &head_; }

    // Walks the links both ways and checks they agree; for tests and debug.
    bool check_invariants(size_t* count_out = nullptr) const
    {
        size_t count = 0;
        const ListNode* node = &head_;
        do {
            if (node->next_ == nullptr || node->prev_ == nullptr)
                return false;
            if (node->next_->prev_ != node || node->prev_->next_ != node)
                return false;
            node = node->next_;
            ++count;
        } while (node != &head_ && count < (size_t(1) << 30));
        if (count_out)
            *count_out = count - 1;
        return node == &head_;
    }

private:
    ListNode head_;
};

// Typed view over a ListHead: elements of type T linked through member Node.
template <typename T, ListNode T::*Node>
class IntrusiveList {
public:
    IntrusiveList() = default;
    IntrusiveList(const IntrusiveList&) = delete;
    IntrusiveList& operator=(const IntrusiveList&) = delete;

    bool is_empty() const { return head_.is_empty(); }
    void push_back(T& element) { head_.push_back(element.*Node); }
    void push_front(T& element) { head_.push_front(element.*Node); }
    static void remove(T& element) { (element.*Node).unlink(); }

    T* first() { return owner(head_.first()); }
    T* last() { return owner(head_.last()); }
    T* next(T& element) { return owner(head_.next(element.*Node)); }

    T* pop_front()
    {
        T* element = first();
        if (element)
            remove(*element);
        return element;
    }

    size_t size() const
    {
        size_t count = 0;
        head_.check_invariants(&count);
        return count;
    }
    bool check_invariants() const { return head_.check_invariants(); }

    class Iterator {
    public:
        Iterator(IntrusiveList* list, T* element) : list_(list), element_(element) {}
        T& operator*() const { return *element_; }
        T* operator->() const { return element_; }
        Iterator& operator++()
        {
            element_ = list_->next(*element_);
            return *this;
        }
        bool operator!=(const Iterator& other) const { return element_ != other.element_; }

    private:
        IntrusiveList* list_;
        T* element_;
    };
    Iterator begin() { return Iterator(this, first()); }
    Iterator end() { return Iterator(this, nullptr); }

    // Visits every element; the callback may unlink the current element.
    template <typename Fn>
    void for_each_safe(Fn&& fn)
    {
        T* element = first();
        while (element) {
            T* following = next(*element);
            fn(*element);
            element = following;
        }
    }

private:
    static T* owner(ListNode* node)
    {
        if (!node)
            return nullptr;
        // The offset of the member node inside T (container_of). Computed on
        // a well-aligned non-null dummy address so UBSAN sees no null access.
        constexpr uintptr_t kProbe = 4096;
        T* probe = reinterpret_cast<T*>(kProbe);
        const uintptr_t offset = reinterpret_cast<uintptr_t>(&(probe->*Node)) - kProbe;
        return reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(node) - offset);
    }

    ListHead head_;
};

}  // namespace cxxrt
