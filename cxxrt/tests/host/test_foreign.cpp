#include <cxxrt/foreign.hpp>
#include <gtest/gtest.h>

namespace {

struct Reply : cxxrt::RefCounted<Reply> {
    explicit Reply(int* destroyed_count) : destroyed(destroyed_count) {}
    ~Reply() { ++*destroyed; }
    int* destroyed;
};

struct Owned {
    int value = 7;
};

}  // namespace

TEST(Foreign, RefPtrRoundTripKeepsTheReference)
{
    int destroyed = 0;
    cxxrt::RefPtr<Reply> reply = cxxrt::make_ref<Reply>(cxxrt::Gfp::kernel(), &destroyed).release_value();
    cxxrt::RefPtr<Reply> ours = reply;
    void* context = cxxrt::into_foreign(cxxrt::move(reply));
    EXPECT_FALSE(reply);
    EXPECT_EQ(context, static_cast<void*>(ours.get()));
    EXPECT_EQ(ours->ref_count(), 2u);  // C holds one
    // Borrowing neither takes nor drops a reference.
    Reply* peek = cxxrt::borrow_foreign<cxxrt::RefPtr<Reply>>(context);
    EXPECT_EQ(peek, ours.get());
    EXPECT_EQ(ours->ref_count(), 2u);
    {
        cxxrt::RefPtr<Reply> back = cxxrt::from_foreign<cxxrt::RefPtr<Reply>>(context);
        EXPECT_EQ(back.get(), ours.get());
        EXPECT_EQ(ours->ref_count(), 2u);  // adopted, not taken again
    }
    EXPECT_EQ(ours->ref_count(), 1u);
    ours.reset();
    EXPECT_EQ(destroyed, 1);
    EXPECT_EQ(cxxrt::alloc_counter<Reply>.live.load(), 0);
}

TEST(Foreign, UniquePtrRoundTripOwnsTheObject)
{
    cxxrt::UniquePtr<Owned> owned = cxxrt::make_unique<Owned>(cxxrt::Gfp::kernel()).release_value();
    void* context = cxxrt::into_foreign(cxxrt::move(owned));
    EXPECT_FALSE(owned);
    EXPECT_EQ(cxxrt::borrow_foreign<cxxrt::UniquePtr<Owned>>(context)->value, 7);
    EXPECT_EQ(cxxrt::alloc_counter<Owned>.live.load(), 1);
    {
        cxxrt::UniquePtr<Owned> back = cxxrt::from_foreign<cxxrt::UniquePtr<Owned>>(context);
        EXPECT_EQ(back->value, 7);
    }
    EXPECT_EQ(cxxrt::alloc_counter<Owned>.live.load(), 0);
}

TEST(Foreign, EmptyCrossesAsNull)
{
    cxxrt::RefPtr<Reply> empty;
    void* context = cxxrt::into_foreign(cxxrt::move(empty));
    EXPECT_EQ(context, nullptr);
    EXPECT_FALSE(cxxrt::from_foreign<cxxrt::RefPtr<Reply>>(nullptr));
    EXPECT_EQ(cxxrt::borrow_foreign<cxxrt::RefPtr<Reply>>(nullptr), nullptr);
}

namespace {

struct ApiSession;  // as a C API declares it: never defined
struct ApiPermit;

struct Session {
    int value = 3;
};
struct Permit {
    int value = 5;
};

}  // namespace

CXXRT_FOREIGN_HANDLE(ApiSession, Session);
CXXRT_FOREIGN_HANDLE(ApiPermit, Permit);

TEST(ForeignHandle, RoundTripIsTheObjectsAddress)
{
    Session session;
    Permit permit;
    ApiSession* session_handle = cxxrt::to_handle(&session);
    ApiPermit* permit_handle = cxxrt::to_handle(&permit);
    EXPECT_EQ(static_cast<void*>(session_handle), static_cast<void*>(&session));
    EXPECT_EQ(cxxrt::from_handle(session_handle), &session);
    EXPECT_EQ(cxxrt::from_handle(permit_handle)->value, 5);
    EXPECT_EQ(cxxrt::from_handle(static_cast<ApiSession*>(nullptr)), nullptr);
    EXPECT_EQ(cxxrt::to_handle(static_cast<Permit*>(nullptr)), nullptr);
}

TEST(ForeignHandle, ErrPtrCarriesTheNegativeErrno)
{
    ApiSession* failed = cxxrt::err_ptr<ApiSession>(cxxrt::Error(cxxrt::err::kInval));
    EXPECT_EQ(reinterpret_cast<long>(failed), -long(cxxrt::err::kInval));
    // IS_ERR: the top page (the last 4095 addresses) holds errors only.
    EXPECT_GE(reinterpret_cast<unsigned long>(failed), static_cast<unsigned long>(-4095L));
}

TEST(ForeignHandle, ResultBecomesHandleOrErrPtr)
{
    Session session;
    cxxrt::Result<Session*> opened(&session);
    EXPECT_EQ(cxxrt::to_handle_or_err_ptr(opened), cxxrt::to_handle(&session));
    cxxrt::Result<Session*> refused(cxxrt::Error(cxxrt::err::kNoMem));
    EXPECT_EQ(reinterpret_cast<long>(cxxrt::to_handle_or_err_ptr(refused)), -long(cxxrt::err::kNoMem));
}
