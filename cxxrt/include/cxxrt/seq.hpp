// Read-only debugfs files backed by C++: subclass SeqSource, implement
// show(), hand it to the C boundary. Control plane only (virtual is fine).
#pragma once

#include <cxxrt/kapi.h>

namespace cxxrt {

class SeqFile {
public:
    explicit SeqFile(void* native) : native_(native) {}
    template <typename... Args>
    void print(const char* format, Args... args)
    {
        kapi_seq_printf(native_, format, args...);
    }

private:
    void* native_;
};

class SeqSource {
public:
    virtual int show(SeqFile& file) = 0;

protected:
    constexpr SeqSource() = default;
    ~SeqSource() = default;
};

}  // namespace cxxrt
