// sysfs: the upcalls from cxxrt/kapi/kapi-sysfs.c and the non-inline parts
// of cxxrt/sysfs.hpp.
#include <cxxrt/parse.hpp>
#include <cxxrt/sysfs.hpp>
#include <cxxrt/enforce.hpp>

namespace cxxrt::sysfs {

static_assert(__is_standard_layout(Kobject), "from_native() needs the storage first");

void Output::print(const char* format, ...)
{
    if (length_ + 1 >= kCapacity)
        return;
    __builtin_va_list args;
    __builtin_va_start(args, format);
    int added = kapi_sysfs_vemit_at(page_, int(length_), format, args);
    __builtin_va_end(args);
    if (added > 0)
        length_ += size_t(added);
}

void Output::append(StringView text)
{
    // One byte stays for the NUL the kernel expects after the text.
    size_t room = kCapacity - 1 - length_;
    size_t n = min(text.length(), room);
    copy_bytes(page_ + length_, text.data(), n);
    length_ += n;
    page_[length_] = '\0';
}

StringView Input::line() const
{
    return parse::trim_line(text_);
}

Result<Group> Group::create(const GroupSpec& spec, Flavour flavour)
{
    void* native = kapi_sysfs_group_alloc(spec.name, spec.count, flavour == Flavour::kKobject);
    if (!native)
        return Error(err::kNoMem);
    for (u32 i = 0; i < spec.count; ++i)
        kapi_sysfs_group_set_attr(native, i, spec.attribute_name(spec.attributes, i),
                                  spec.attribute_mode(spec.attributes, i),
                                  spec.attribute_lock_key(spec.attributes, i), &spec);
    return Group(native);
}

Result<DeviceClass> DeviceClass::create(const char* name)
{
    void* native = nullptr;
    CXXRT_TRY(to_result(kapi_class_create(name, &native)));
    return DeviceClass(native);
}

Result<Device> Device::create(DeviceClass& cls, Device* parent, const char* name, void* drvdata, const Group* group)
{
    void* native = nullptr;
    CXXRT_TRY(to_result(kapi_device_create(cls.native(), parent ? parent->native() : nullptr, drvdata,
                                           group ? group->native() : nullptr, name, &native)));
    return Device(native);
}

Result<void> Kobject::add(void* owner, KobjRef parent, const char* name)
{
    if (state_ != State::kIdle)
        return Error(err::kBusy);
    owner_ = owner;
    state_ = State::kAdded;
    int rc = kapi_kobject_init_and_add(storage_, parent.native(), name);
    if (rc) {
        kapi_kobject_put(storage_);  // frees the name; released() runs
        return Error::from_errno(rc);
    }
    return {};
}

void Kobject::released()
{
    state_ = State::kReleased;
    // The callback may free the object holding this Kobject: last access.
    Callback callback = on_release_;
    callback();
}

}  // namespace cxxrt::sysfs

extern "C" long cxxrt_cxx_sysfs_show(void* object, const void* spec, unsigned int index, char* buf) noexcept
{
    using namespace cxxrt::sysfs;
    const GroupSpec* group = static_cast<const GroupSpec*>(spec);
    if (!object || index >= group->count)
        return -cxxrt::err::kNoDev;
    Output out(buf);
    return group->show(group->attributes, index, object, out);
}

extern "C" long cxxrt_cxx_sysfs_store(void* object, const void* spec, unsigned int index, const char* buf,
                                      unsigned long count, void* self) noexcept
{
    using namespace cxxrt::sysfs;
    const GroupSpec* group = static_cast<const GroupSpec*>(spec);
    if (!object || index >= group->count)
        return -cxxrt::err::kNoDev;
    Input in(buf, count, self);
    return group->store(group->attributes, index, object, in);
}

extern "C" void* cxxrt_cxx_kobject_owner(void* kobj) noexcept
{
    return cxxrt::sysfs::Kobject::from_native(kobj)->owner();
}

extern "C" void cxxrt_cxx_kobject_release(void* kobj) noexcept
{
    cxxrt::sysfs::Kobject::from_native(kobj)->released();
}
