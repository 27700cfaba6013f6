// What the host C boundary recorded, for tests to assert on.
#pragma once
#include <string>

namespace host {
extern std::string g_log;
extern int g_warnings;
}  // namespace host
