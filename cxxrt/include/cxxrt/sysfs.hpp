// sysfs from C++: device classes, devices, kobject directories, attribute
// tables, symlinks and self-removing files. Everything here is process
// context and may sleep. The C boundary is cxxrt/kapi/kapi-sysfs.c.
//
// Attributes are declared as a constexpr table of members of the object
// they act on, and turned into a GroupSpec at compile time:
//
//   class Path {
//   public:
//       Result<void> show_state(sysfs::Output& out);
//       Result<void> store_reconnect(sysfs::Input& in);
//   };
//   constexpr sysfs::Attribute<Path> kPathAttrs[] = {
//       {"state", 0444, &Path::show_state, nullptr},
//       {"reconnect", 0644, nullptr, &Path::store_reconnect, "Usage: echo 1 > reconnect\n"},
//   };
//   constexpr sysfs::GroupSpec kPathGroup = sysfs::group(kPathAttrs);  // or group(kPathAttrs, "subdir")
//
// The table is checked at compile time: every writable attribute has a
// store handler, is readable (product rule: a writable file prints its usage
// when read), and has something to show: its value (show) or, for a
// write-only file, its usage text (show == nullptr). A show handler appends
// to `out` (one page, NUL-terminated by the kernel); a store handler gets
// exactly the bytes written (`in.text()`, or `in.line()` without the trailing
// newline) and returns ok (the write consumed everything) or an error (the
// errno the writer sees; the handler must then have changed nothing).
//
// Objects: a kernel attribute group (Group) is built once from a GroupSpec
// and may serve many objects of one flavour: devices (Device, drvdata is the
// object) or C++ kobjects (Kobject, the owner is the object). Destroy a Group
// only after removing it from every directory that uses it.
#pragma once

#include <cxxrt/callback.hpp>
#include <cxxrt/kapi-sysfs.h>
#include <cxxrt/lock_class.hpp>
#include <cxxrt/native_owner.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>
#include "cxxrt-kabi.h"

namespace cxxrt::sysfs {

// The page a show handler writes to (sysfs_emit_at-style appends).
class Output : Pinned {
public:
    static constexpr size_t kCapacity = KABI_PAGE_SIZE;

    explicit Output(char* page) : page_(page) {}

    // printf-style; the kernel's vscnprintf (so %pI4, %pISpc ... work).
    void print(const char* format, ...) KAPI_PRINTF(2, 3);
    void append(StringView text);
    // For freestanding formatters (TextBuffer): write into remaining(), then commit().
    Span<char> remaining() { return Span<char>(page_ + length_, kCapacity - length_); }
    void commit(size_t bytes) { length_ = min(length_ + bytes, kCapacity - 1); }
    size_t length() const { return length_; }
    StringView view() const { return StringView(page_, length_); }

private:
    char* page_;
    size_t length_ = 0;
};

// What a store handler receives.
class Input : Pinned {
public:
    Input(const char* data, size_t count, void* self) : text_(data, count), self_(self) {}
    // Exactly the bytes written (bounded by count; not NUL-terminated here).
    StringView text() const { return text_; }
    // Without surrounding blanks and one trailing newline (what echo adds).
    StringView line() const;
    // Removes this very file (device_remove_file_self/sysfs_remove_file_self)
    // so the handler may then tear down the object that owns it. True if
    // this call removed it (a concurrent writer may have won). Only for
    // attributes of unnamed groups (files directly in the directory).
    bool remove_self() { return kapi_sysfs_remove_self(self_) != 0; }

private:
    StringView text_;
    void* self_;
};

template <typename T>
struct Attribute {
    const char* name;
    u16 mode;
    Result<void> (T::*show)(Output& out);
    Result<void> (T::*store)(Input& in);
    const char* usage = nullptr;  // shown when show is null (write-only files)
    // The lockdep class of the file's active reference (kernfs): one per
    // attribute, in the static table (never written by lockdep).
    LockKeyStorage lock_key = {};
};

// A type-erased attribute table, referenced by the kernel group (static storage).
struct GroupSpec {
    const char* name;  // null: files directly in the directory
    const void* attributes;
    u32 count;
    const char* (*attribute_name)(const void* attributes, u32 index);
    u16 (*attribute_mode)(const void* attributes, u32 index);
    const void* (*attribute_lock_key)(const void* attributes, u32 index);
    long (*show)(const void* attributes, u32 index, void* object, Output& out);
    long (*store)(const void* attributes, u32 index, void* object, Input& in);
};

namespace detail {

// Compile-time table errors: calling these from consteval group() fails the
// build with the function name as the message.
void sysfs_table_error_attribute_without_name();
void sysfs_table_error_writable_attribute_without_store_handler();
void sysfs_table_error_readable_attribute_without_show_handler_or_usage();
void sysfs_table_error_store_handler_on_read_only_attribute();
void sysfs_table_error_mode_bits_beyond_0777();
void sysfs_table_error_writable_attribute_must_be_readable_to_print_usage();

inline long store_done(Result<void> result, size_t count)
{
    return result.is_ok() ? long(count) : long(result.to_errno());
}

template <typename T>
struct Ops {
    static const Attribute<T>& at(const void* attributes, u32 index)
    {
        return static_cast<const Attribute<T>*>(attributes)[index];
    }
    static const char* name(const void* attributes, u32 index) { return at(attributes, index).name; }
    static u16 mode(const void* attributes, u32 index) { return at(attributes, index).mode; }
    static const void* lock_key(const void* attributes, u32 index) { return at(attributes, index).lock_key.bytes; }
    static long show(const void* attributes, u32 index, void* object, Output& out)
    {
        const Attribute<T>& a = at(attributes, index);
        if (a.show) {
            Result<void> result = (static_cast<T*>(object)->*a.show)(out);
            if (result.is_error())
                return result.to_errno();
        } else if (a.usage) {
            out.append(a.usage);
        } else {
            return -err::kIo;
        }
        return long(out.length());
    }
    static long store(const void* attributes, u32 index, void* object, Input& in)
    {
        const Attribute<T>& a = at(attributes, index);
        if (!a.store)
            return -err::kIo;
        return store_done((static_cast<T*>(object)->*a.store)(in), in.text().length());
    }
};

}  // namespace detail

template <typename T, size_t N>
consteval GroupSpec group(const Attribute<T> (&attributes)[N], const char* name = nullptr)
{
    for (size_t i = 0; i < N; ++i) {
        const Attribute<T>& a = attributes[i];
        if (!a.name || !a.name[0])
            detail::sysfs_table_error_attribute_without_name();
        if (a.mode & ~0777)
            detail::sysfs_table_error_mode_bits_beyond_0777();
        if ((a.mode & 0222) && !a.store)
            detail::sysfs_table_error_writable_attribute_without_store_handler();
        if ((a.mode & 0222) && !(a.mode & 0444))
            detail::sysfs_table_error_writable_attribute_must_be_readable_to_print_usage();
        if (!(a.mode & 0222) && a.store)
            detail::sysfs_table_error_store_handler_on_read_only_attribute();
        if ((a.mode & 0444) && !a.show && !a.usage)
            detail::sysfs_table_error_readable_attribute_without_show_handler_or_usage();
    }
    return GroupSpec{name,
                     attributes,
                     u32(N),
                     &detail::Ops<T>::name,
                     &detail::Ops<T>::mode,
                     &detail::Ops<T>::lock_key,
                     &detail::Ops<T>::show,
                     &detail::Ops<T>::store};
}

enum class Flavour { kDevice, kKobject };

// The kernel attribute group built from a GroupSpec (which must be static).
// Move-only; constexpr-constructible so a module can keep it in a constinit
// global and build it in init. reset() (or the destructor) only after the
// group was removed from every directory.
class Group : public NativeOwner<kapi_sysfs_group_free> {
public:
    constexpr Group() = default;
    static Result<Group> create(const GroupSpec& spec, Flavour flavour);

private:
    explicit Group(void* native) : NativeOwner(native) {}
};

class Kobject;
class Device;

// A borrowed kobject: a parent directory or a symlink target.
class KobjRef {
public:
    constexpr explicit KobjRef(void* native) : native_(native) {}
    inline KobjRef(Kobject& kobject);
    inline KobjRef(Device& device);
    // /sys/kernel
    static KobjRef kernel() { return KobjRef(kapi_kernel_kobj()); }
    // The kobject of a struct device a C boundary handed over (e.g. a
    // gendisk's device, for /sys/block/<disk>/<dir>).
    static KobjRef of_device(void* native_device) { return KobjRef(kapi_device_kobj(native_device)); }
    void* native() const { return native_; }

private:
    void* native_;
};

// /sys/class/<name>. Move-only owner; destroy after its devices.
class DeviceClass : public NativeOwner<kapi_class_destroy> {
public:
    constexpr DeviceClass() = default;
    static Result<DeviceClass> create(const char* name);

private:
    explicit DeviceClass(void* native) : NativeOwner(native) {}
};

// A device in a class (device_create). The kernel owns the struct device;
// this move-only handle unregisters it. `drvdata` is the object the
// device-flavour group's handlers run on; it must outlive reset(). reset()
// (or the destructor) removes the device and its files and waits for
// running show/store calls, so never call it from this device's own store
// handler unless that handler first called Input::remove_self().
class Device : public NativeOwner<kapi_device_unregister> {
public:
    constexpr Device() = default;
    static Result<Device> create(DeviceClass& cls, Device* parent, const char* name, void* drvdata,
                                 const Group* group = nullptr);

    // More device-flavour groups after creation.
    Result<void> add_group(const Group& group) { return to_result(kapi_sysfs_create_group(kobj(), group.native())); }
    void remove_group(const Group& group) { kapi_sysfs_remove_group(kobj(), group.native()); }

    void* kobj() const { return kapi_device_kobj(native()); }

private:
    explicit Device(void* native) : NativeOwner(native) {}
};

// A directory backed by a kobject embedded in a C++ object (pinned). Its
// kobject-flavour groups act on `owner`. The kernel refcounts it: after
// del() (or instead of it) put() drops our reference, and on_release runs
// when the last one is gone (children hold their parent). The holder must
// stay alive until then: typically on_release frees the holder or
// completes a Completion its teardown waits for.
class Kobject : Pinned {
public:
    explicit Kobject(Callback on_release = {}) : on_release_(on_release) { fill_bytes(storage_, 0, sizeof(storage_)); }
    ~Kobject()
    {
        if (state_ == State::kAdded)
            kapi_warn("cxxrt: Kobject destroyed before its release");
    }

    // kobject_init_and_add(name, parent). On failure the kobject is already
    // put and on_release has run before this returns.
    Result<void> add(void* owner, KobjRef parent, const char* name);
    // Announces the directory to udev (KOBJ_ADD), once its files exist.
    void uevent_add() { (void)kapi_kobject_uevent_add(storage_); }
    Result<void> add_group(const Group& group) { return to_result(kapi_sysfs_create_group(storage_, group.native())); }
    void remove_group(const Group& group) { kapi_sysfs_remove_group(storage_, group.native()); }
    // Removes the directory; no show/store of its files runs after return.
    void del() { kapi_kobject_del(storage_); }
    // Drops the reference add() took; on_release may run inside.
    void put() { kapi_kobject_put(storage_); }
    void get() { kapi_kobject_get(storage_); }

    bool is_added() const { return state_ == State::kAdded; }
    bool is_released() const { return state_ == State::kReleased; }
    const char* name() { return kapi_kobject_name(storage_); }
    void* native() { return storage_; }
    void* owner() const { return owner_; }

    static Kobject* from_native(void* storage) { return reinterpret_cast<Kobject*>(storage); }
    void released();  // the upcall

private:
    enum class State : u8 { kIdle, kAdded, kReleased };

    // First member: from_native() relies on it.
    alignas(KABI_ALIGNOF_KOBJECT) unsigned char storage_[KABI_SIZEOF_KOBJECT];
    void* owner_ = nullptr;
    Callback on_release_;
    State state_ = State::kIdle;
};

inline KobjRef::KobjRef(Kobject& kobject) : native_(kobject.native()) {}
inline KobjRef::KobjRef(Device& device) : native_(device.kobj()) {}

// Symlink <dir>/<name> -> target. Remove it before the target goes away.
inline Result<void> create_link(KobjRef dir, KobjRef target, const char* name)
{
    return to_result(kapi_sysfs_create_link(dir.native(), target.native(), name));
}
inline void remove_link(KobjRef dir, const char* name) { kapi_sysfs_remove_link(dir.native(), name); }

// An owned symlink <dir>/<name> -> target: reset() or the destructor removes
// it, so an owner declares it after the directory it lives in (members go
// in reverse order) and needs no flag saying whether it was made. `name`
// is kept, not copied: it must live as long as the link.
class Link : Pinned {
public:
    Link() = default;
    ~Link() { reset(); }

    [[nodiscard]] Result<void> create(KobjRef dir, KobjRef target, const char* name)
    {
        reset();
        CXXRT_TRY(create_link(dir, target, name));
        dir_ = dir.native();
        name_ = name;
        return {};
    }
    // Removes the link now; nothing if it was not made.
    void reset()
    {
        if (void* dir = exchange(dir_, nullptr))
            remove_link(KobjRef(dir), name_);
        name_ = nullptr;
    }
    explicit operator bool() const { return dir_ != nullptr; }

private:
    void* dir_ = nullptr;
    const char* name_ = nullptr;
};

}  // namespace cxxrt::sysfs
