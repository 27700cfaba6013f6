// rnbdctl: the administration tool of RNBD/RTRS; see README.md and rnbdctl(8).
#include <stdlib.h>

#include "tools/rnbdctl/cli.hpp"

int main(int argc, char** argv)
{
    rnbdctl::RunOptions options;
    if (const char* root = getenv("RNBDCTL_SYSFS_ROOT"))
        options.sysfs_root_env = root;
    std::vector<std::string> args(argv + 1, argv + argc);
    int code = rnbdctl::run(args, options);
    if (fflush(stdout) != 0 && code == 0)
        code = 1;  // e.g. a full disk under `rnbdctl save > file`
    return code;
}
