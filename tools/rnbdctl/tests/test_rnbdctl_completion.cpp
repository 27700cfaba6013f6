// The bash completion (tools/rnbdctl/rnbdctl.bash-completion; issue 27,
// item 6), run by bash as a shell would: its completion function is called
// with COMP_WORDS and COMP_CWORD set, and its COMPREPLY compared with the
// commands and options rnbdctl's own usage text lists, so that the two
// cannot drift apart.
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "tools/rnbdctl/cli.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"

namespace rnbdctl::testing {
namespace {

using Strings = std::vector<std::string>;

const char kScript[] = "tools/rnbdctl/rnbdctl.bash-completion";

// COMPREPLY, sorted, for `rnbdctl WORDS... CURRENT` with the cursor at the
// end of CURRENT; names are read under `sysfs_root` when given.
Strings complete(const Strings& words, const std::string& current, const std::string& sysfs_root = "")
{
    char pattern[] = "/tmp/rnbdctl-completion.XXXXXX";
    const int fd = mkstemp(pattern);
    if (fd < 0)
        return {"<mkstemp failed>"};
    close(fd);
    std::string line = "COMP_WORDS=(rnbdctl";
    for (const std::string& word : words)
        line += " '" + word + "'";
    line += " '" + current + "')";
    std::ofstream(pattern) << (sysfs_root.empty() ? "" : "export RNBDCTL_SYSFS_ROOT='" + sysfs_root + "'\n")
                           << "source " << kScript << " || exit 1\n"
                           << line << "\nCOMP_CWORD=" << words.size() + 1 << "\n_rnbdctl\n"
                           << "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    Strings reply;
    FILE* output = popen((std::string("bash ") + pattern).c_str(), "r");
    char buffer[512];
    while (output && fgets(buffer, sizeof(buffer), output)) {
        std::string word = buffer;
        if (!word.empty() && word.back() == '\n')
            word.pop_back();
        if (!word.empty())
            reply.push_back(word);
    }
    if (!output || pclose(output) != 0)
        reply.push_back("<bash failed>");
    unlink(pattern);
    std::sort(reply.begin(), reply.end());
    return reply;
}

// The command words of the usage text: a line "  WORD ..." (two blanks,
// then a lower-case word) names a command.
Strings usage_commands()
{
    std::set<std::string> names = {"help"};
    const std::string usage = kUsage;
    for (size_t start = 0; start < usage.size();) {
        size_t end = usage.find('\n', start);
        if (end == std::string::npos)
            end = usage.size();
        const std::string line = usage.substr(start, end - start);
        start = end + 1;
        if (line.size() > 2 && line.compare(0, 2, "  ") == 0 && islower((unsigned char)line[2]))
            names.insert(line.substr(2, line.find(' ', 2) - 2));
    }
    return Strings(names.begin(), names.end());
}

// The "--name" words of `rnbdctl COMMAND --help`.
Strings usage_options(const std::string& command)
{
    FakeKernel kernel;
    const std::string help = kernel.run({command, "--help"}).out;
    Strings options;
    for (size_t at = help.find("--"); at != std::string::npos; at = help.find("--", at + 2)) {
        size_t end = at + 2;
        while (end < help.size() && (islower((unsigned char)help[end]) || help[end] == '-'))
            ++end;
        if (end > at + 2)
            options.push_back(help.substr(at, end - at));
    }
    return options;
}

TEST(RnbdctlCompletion, TheScriptParses)
{
    EXPECT_EQ(system((std::string("bash -n ") + kScript).c_str()), 0);
}

TEST(RnbdctlCompletion, CompletesTheCommandsOfTheUsage)
{
    EXPECT_EQ(complete({}, ""), usage_commands());
    EXPECT_EQ(complete({}, "re"), (Strings{"remap", "resize", "restore"}));
    EXPECT_EQ(complete({"-o", "json"}, "li"), (Strings{"list"}));
    EXPECT_EQ(complete({}, "--v"), (Strings{"--version"}));
}

TEST(RnbdctlCompletion, CompletesEveryOptionOfEachCommandsUsage)
{
    for (const std::string& command : usage_commands()) {
        if (command == "help")
            continue;
        // Options of `session` are those of `session set`.
        const Strings words = command == "session" ? Strings{"session", "set", "s1"} : Strings{command};
        const Strings offered = complete(words, "--");
        for (const std::string& option : usage_options(command))
            EXPECT_NE(std::find(offered.begin(), offered.end(), option), offered.end())
                << "rnbdctl " << command << " " << option << " is not completed";
    }
}

TEST(RnbdctlCompletion, CompletesSubcommandsValuesAndNamesFromSysfs)
{
    EXPECT_EQ(complete({"session"}, ""), (Strings{"list", "set", "show"}));
    EXPECT_EQ(complete({"path"}, ""), (Strings{"add", "disconnect", "list", "reconnect", "remove"}));
    EXPECT_EQ(complete({"server"}, ""),
              (Strings{"close", "export", "list", "path", "restore", "save", "session"}));
    EXPECT_EQ(complete({"list"}, ""), (Strings{"devices", "sessions"}));
    EXPECT_EQ(complete({"-o"}, ""), (Strings{"json", "prometheus", "table"}));
    EXPECT_EQ(complete({"map", "--access-mode"}, ""), (Strings{"migration", "ro", "rw"}));
    FakeKernel kernel;
    kernel.load_client();
    kernel.load_server();
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");  // rnbd0
    kernel.add_export("ram0", "s1", "/dev/ram0", "ip:192.0.2.5");
    kernel.mkdir("block/sda");  // not an rnbd device
    EXPECT_EQ(complete({"unmap"}, "", kernel.root()), (Strings{"rnbd0"}));
    EXPECT_EQ(complete({"show"}, "rn", kernel.root()), (Strings{"rnbd0"}));
    EXPECT_EQ(complete({"session", "show"}, "", kernel.root()), (Strings{"s1"}));
    EXPECT_EQ(complete({"map", "--session"}, "", kernel.root()), (Strings{"s1"}));
    EXPECT_EQ(complete({"server", "close"}, "", kernel.root()), (Strings{"ram0"}));
    EXPECT_EQ(complete({"server", "close", "ram0"}, "", kernel.root()), (Strings{"s1"}));
}

// The server's exports and sessions: subcommands, each one's options (the
// usage's; CompletesEveryOptionOfEachCommandsUsage checks `server --`, all
// of them), the values of --io-modes and --allow, the exports by the name a
// client maps (the definition's name=, else the directory's with '!' as
// '/'), and --session of the server's own sessions.
TEST(RnbdctlCompletion, CompletesTheServersExportsSessionsAndTheirOptions)
{
    EXPECT_EQ(complete({"server", "export"}, ""), (Strings{"add", "list", "remove", "show"}));
    EXPECT_EQ(complete({"server", "session"}, ""), (Strings{"disconnect"}));
    EXPECT_EQ(complete({"server", "export", "add", "v", "--io-modes"}, ""),
              (Strings{"blockio", "blockio,fileio", "fileio"}));
    EXPECT_EQ(complete({"server", "export", "add", "v", "--allow"}, ""), (Strings{"any", "gid:", "ip:"}));
    const Strings globals = {"--bytes", "--help", "--output", "--sysfs-root"};
    auto with_globals = [&](Strings options) {
        options.insert(options.end(), globals.begin(), globals.end());
        std::sort(options.begin(), options.end());
        return options;
    };
    EXPECT_EQ(complete({"server", "export", "add", "v", "--allow", "any"}, "--"),
              with_globals({"--allow", "--dry-run", "--io-modes", "--path", "--read-only", "--session"}));
    EXPECT_EQ(complete({"server", "export", "remove"}, "--"), with_globals({"--all", "--dry-run"}));
    EXPECT_EQ(complete({"server", "save"}, "--"), with_globals({"--file", "--force"}));
    EXPECT_EQ(complete({"server", "restore", "--file", "f"}, "--"),
              with_globals({"--check", "--dry-run", "--file", "--replace"}));
    EXPECT_EQ(complete({"server", "restore", "--file", "f"}, "--r"), (Strings{"--replace"}));

    FakeKernel kernel;
    kernel.load_client();
    kernel.load_server();
    kernel.map("sessname=c1 path=ip:192.0.2.1 device_path=/dev/ram9");  // a client session
    ASSERT_EQ(kernel.define_export("name=vol0 path=/dev/ram0 allow=any"), 0);
    ASSERT_EQ(kernel.define_export("name=db/ro path=/dev/ram1 allow=any access=ro"), 0);
    kernel.mkdir("class/rnbd-server/ctl/exports/web!img");  // no definition: the directory's name
    kernel.add_export("ram0", "s1", "vol0", "ip:192.0.2.5");  // a server session
    EXPECT_EQ(complete({"server", "export", "show"}, "", kernel.root()), (Strings{"db/ro", "vol0", "web/img"}));
    EXPECT_EQ(complete({"server", "export", "remove"}, "d", kernel.root()), (Strings{"db/ro"}));
    EXPECT_EQ(complete({"server", "session", "disconnect"}, "", kernel.root()), (Strings{"s1"}));
    EXPECT_EQ(complete({"server", "export", "add", "v", "--session"}, "", kernel.root()), (Strings{"s1"}));
    EXPECT_EQ(complete({"map", "--session"}, "", kernel.root()), (Strings{"c1"}));
}

// A name from sysfs is text, not shell: offered quoted, and nothing in it
// runs (compgen -W would expand the $(...)).
TEST(RnbdctlCompletion, AHostileNameIsOfferedQuotedAndNeverRun)
{
    FakeKernel kernel;
    kernel.load_client();
    kernel.mkdir("class/rtrs-client/s1");
    kernel.mkdir("class/rtrs-client/x$(touch pwned-by-completion)");
    EXPECT_EQ(complete({"session", "show"}, "", kernel.root()),
              (Strings{"s1", "x\\$\\(touch\\ pwned-by-completion\\)"}));
    EXPECT_EQ(complete({"path", "list"}, "x", kernel.root()), (Strings{"x\\$\\(touch\\ pwned-by-completion\\)"}));
    EXPECT_NE(access("pwned-by-completion", F_OK), 0);
    unlink("pwned-by-completion");
}

}  // namespace
}  // namespace rnbdctl::testing
