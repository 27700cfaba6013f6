// libFuzzer target: the rnbd-server's choice of what to open and who may
// write it (rnbd-srv-policy.hpp): build_full_path() from dev_search_path,
// the session name and the client's device_path, and admit() of an access
// mode against the writers a device already has. Oracles:
//   - a device_path with ".." anywhere is refused; so is a result of
//     PATH_MAX bytes or more; otherwise the path is exactly the model's
//     (search or its part before %SESSNAME%, '/', session, '/', device,
//     runs of '/' made one), NUL-terminated inside the buffer, nothing
//     written past it;
//   - with a session name the server accepts (rtrs check_path_name), what
//     follows the administrator's prefix never holds a ".." component:
//     a client cannot climb out of dev_search_path;
//   - the export policy (decide_export) admits a block device (not on a
//     nodev mount; with io_mode=fileio only when fileio of block devices
//     is allowed, else -EPERM) or a regular file inside an enabled
//     file_export_dir, and nothing else: directories, FIFOs, sockets,
//     character devices, symlinks and unknown kinds are -ENOTBLK with a
//     reason; a file_export_dir value is empty or absolute, below
//     PATH_MAX, without NUL or text after a newline;
//   - over any sequence of opens and closes, a device has at most one
//     read-write mapping, at most two writers, and a second writer only
//     when it came in migration mode; admit() answers as its model does.
#include <string.h>

#include "cxxrt/tests/fuzz/fuzz-support.hpp"
#include "rnbd/core/rnbd-srv-policy.hpp"
#include "rtrs/core/rtrs-codec.hpp"

namespace {

using namespace rnbd;
using fuzz::size_t;
using fuzz::StringView;
using fuzz::u8;
namespace policy = rnbd::srv::policy;
namespace err = cxxrt::err;

constexpr size_t kPathMax = 4096;

bool has_dot_dot(StringView text)
{
    for (size_t i = 0; i + 1 < text.length(); ++i)
        if (text[i] == '.' && text[i + 1] == '.')
            return true;
    return false;
}

bool has_dot_dot_component(const char* text, size_t length)
{
    size_t start = 0;
    for (size_t i = 0; i <= length; ++i) {
        if (i == length || text[i] == '/') {
            if (i - start == 2 && text[start] == '.' && text[start + 1] == '.')
                return true;
            start = i + 1;
        }
    }
    return false;
}

struct ModelPath {
    char text[2 * kPathMax + 600];
    size_t length = 0;
    void add(StringView piece)
    {
        for (size_t i = 0; i < piece.length(); ++i)
            text[length++] = piece[i];
    }
};

void fuzz_path(fuzz::Input& input)
{
    static fuzz::GuardedBuffer<kPathMax + 64> buffer;
    static ModelPath raw;
    static char collapsed[sizeof(raw.text)];
    const u8 shape = input.take_u8();
    // Sizes around PATH_MAX matter: stretch the search path sometimes.
    static char long_search[kPathMax + 32];
    StringView search = input.take_short_string();
    if ((shape & 7) == 7) {
        const size_t length = kPathMax - 300 + input.take_u16() % 320;
        memset(long_search, 'a', length);
        if (shape & 8)
            memcpy(long_search + length - 10, "%SESSNAME%", 10);
        search = StringView(long_search, length);
    }
    const StringView session = input.take_short_string();
    const StringView device = input.take_short_string();
    const size_t out_size = (shape & 0x10) ? kPathMax + 64 : input.take_u16() % (kPathMax + 65);

    auto built = policy::build_full_path(buffer.view(out_size), search, session, device);
    FUZZ_CHECK(buffer.untouched_past_end());

    // The model.
    raw.length = 0;
    bool refuse = has_dot_dot(device) || search.length() + device.length() >= kPathMax || out_size < 2;
    size_t prefix_length = search.length();
    if (!refuse) {
        const StringView token("%SESSNAME%");
        const void* found = memmem(search.data(), search.length(), token.data(), token.length());
        const size_t at = found ? size_t(static_cast<const char*>(found) - search.data()) : search.length();
        if (at != search.length()) {
            raw.add(search.substring(0, at));
            raw.add("/");
            raw.add(session);
            prefix_length = at;
        } else {
            raw.add(search);
        }
        raw.add("/");
        raw.add(device);
        const size_t capacity = out_size < kPathMax ? out_size : kPathMax;
        refuse = raw.length >= capacity;
    }
    if (refuse) {
        FUZZ_CHECK(built.is_error() && built.to_errno() == -err::kInval);
        return;
    }
    FUZZ_CHECK(built.is_ok());
    size_t length = 0;
    size_t collapsed_prefix = 0;
    for (size_t i = 0; i < raw.length; ++i) {
        if (raw.text[i] == '/' && length > 0 && collapsed[length - 1] == '/')
            continue;
        collapsed[length++] = raw.text[i];
        if (i < prefix_length)
            collapsed_prefix = length;
    }
    const char* out = buffer.data();
    FUZZ_CHECK(length < out_size && length < kPathMax);
    FUZZ_CHECK(memcmp(out, collapsed, length) == 0 && out[length] == '\0');
    for (size_t i = 1; i < length; ++i)
        FUZZ_CHECK(!(out[i] == '/' && out[i - 1] == '/'));

    // No climbing out of the administrator's directory.
    if (rtrs::codec::check_path_name(session).is_ok() && !memchr(device.data(), '\0', device.length()))
        FUZZ_CHECK(!has_dot_dot_component(out + collapsed_prefix, length - collapsed_prefix));
}

// Opens and closes on one device; the writer count admit() sees is the
// number of read-write and migration mappings held.
void fuzz_admit(fuzz::Input& input)
{
    constexpr size_t kMaxMappings = 16;
    wire::AccessMode held[kMaxMappings];
    size_t count = 0;
    for (int step = 0; step < 64 && !input.is_empty(); ++step) {
        const u8 action = input.take_u8();
        if ((action & 0x80) && count > 0) {
            const size_t victim = action % count;
            held[victim] = held[--count];
            continue;
        }
        const wire::AccessMode mode = wire::AccessMode(action % wire::kAccessModeCount);
        int writers = 0, read_write = 0;
        for (size_t i = 0; i < count; ++i) {
            writers += held[i] != wire::AccessMode::kReadOnly;
            read_write += held[i] == wire::AccessMode::kReadWrite;
        }
        auto admitted = policy::admit(mode, writers);
        int expected = writers;
        if (mode == wire::AccessMode::kReadWrite)
            expected = writers == 0 ? 1 : -err::kPerm;
        else if (mode == wire::AccessMode::kMigration)
            expected = writers < 2 ? writers + 1 : -err::kPerm;
        if (expected < 0) {
            FUZZ_CHECK(admitted.is_error() && admitted.to_errno() == expected);
            continue;
        }
        FUZZ_CHECK(admitted.is_ok() && admitted.value() == expected);
        if (count == kMaxMappings)
            continue;
        held[count++] = mode;
        FUZZ_CHECK(expected <= 2);
        FUZZ_CHECK(read_write + (mode == wire::AccessMode::kReadWrite) <= 1);
        // A second writer comes only in migration mode.
        if (mode != wire::AccessMode::kReadOnly && expected == 2)
            FUZZ_CHECK(mode == wire::AccessMode::kMigration);
    }
}

void fuzz_export(fuzz::Input& input)
{
    // The kind from any mode word, as the kernel glue passes i_mode.
    const cxxrt::u32 mode = input.take_bool() ? input.take_u32() : cxxrt::u32(input.take_u8() & 0xf) << 12;
    policy::ExportFacts facts;
    facts.kind = policy::object_kind(mode);
    const unsigned type = mode & 0170000;
    FUZZ_CHECK((facts.kind == policy::ObjectKind::kBlockDevice) == (type == 0060000));
    FUZZ_CHECK((facts.kind == policy::ObjectKind::kRegularFile) == (type == 0100000));
    FUZZ_CHECK(policy::object_kind_name(facts.kind) != nullptr);
    const u8 flags = input.take_u8();
    facts.nodev_mount = flags & 1;
    facts.file_export_enabled = flags & 2;
    facts.inside_file_export_dir = flags & 4;
    facts.fileio_of_block_devices = flags & 8;
    const wire::IoMode io_mode = wire::IoMode(input.take_u8() % 3);
    const policy::ExportDecision decision = policy::decide_export(facts, io_mode);
    const bool block = facts.kind == policy::ObjectKind::kBlockDevice;
    const bool file = facts.kind == policy::ObjectKind::kRegularFile;
    const bool admitted =
        (block && !facts.nodev_mount && (io_mode != wire::IoMode::kFileIo || facts.fileio_of_block_devices)) ||
        (file && facts.file_export_enabled && facts.inside_file_export_dir);
    FUZZ_CHECK((decision.error == 0) == admitted);
    if (!admitted) {
        FUZZ_CHECK(decision.error == -policy::kErrNotBlk || (block && decision.error == -err::kAccess) ||
                   (block && !facts.nodev_mount && decision.error == -err::kPerm));
        FUZZ_CHECK(decision.reason != nullptr && decision.reason[0] != '\0');
        return;
    }
    if (file || io_mode == wire::IoMode::kFileIo)
        FUZZ_CHECK(decision.open_as == policy::OpenAs::kVfs);
    else
        FUZZ_CHECK(decision.open_as == policy::OpenAs::kBlockDevice);

    // A file_export_dir write.
    const StringView value = input.take_rest_as_string();
    auto checked = policy::check_file_export_dir(value);
    size_t length = 0;
    while (length < value.length() && value[length] != '\n')
        ++length;
    const bool trailing_ok = length == value.length() || length + 1 == value.length();
    const bool expected = trailing_ok && (length == 0 || (value[0] == '/' && length < kPathMax &&
                                                          !memchr(value.data(), '\0', length)));
    FUZZ_CHECK(checked.is_ok() == expected);
    if (checked.is_ok())
        FUZZ_CHECK(checked.value() == length);
}

}  // namespace

FUZZ_TARGET(data, size)
{
    fuzz::Input input(data, size);
    switch (input.take_u8() % 3) {
    case 0:
        fuzz_path(input);
        break;
    case 1:
        fuzz_admit(input);
        break;
    default:
        fuzz_export(input);
        break;
    }
    return 0;
}
