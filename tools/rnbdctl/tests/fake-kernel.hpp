// A fake sysfs tree in a temporary directory, and a WriteHook that plays
// the kernel on it: map_device creates /sys/block/rnbdN with its attributes,
// the class link and the RTRS session; unmap_device removes them (EBUSY while
// the test marks the device open); add_path/remove_path create and remove
// path directories; any file can be made to fail with an errno. Every write
// is logged, so a test can assert that a refused command wrote nothing.
#pragma once

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tools/rnbdctl/cli.hpp"

namespace rnbdctl::testing {

struct RunResult {
    int code = -1;
    std::string out;
    std::string err;
};

class FakeKernel {
public:
    FakeKernel();
    ~FakeKernel();
    FakeKernel(const FakeKernel&) = delete;
    FakeKernel& operator=(const FakeKernel&) = delete;

    const std::string& root() const { return root_; }
    std::string full(const std::string& relative) const { return root_ + "/" + relative; }

    void file(const std::string& relative, const std::string& content);
    std::string read(const std::string& relative) const;
    bool exists(const std::string& relative) const;
    void mkdir(const std::string& relative);
    void symlink(const std::string& relative, const std::string& target);

    void load_client();
    void load_server();
    // As a successful map_device of that line would leave the tree.
    std::string map(const std::string& line);
    // An export on the server, opened by `session` from client `client_addr`.
    void add_export(const std::string& name, const std::string& session, const std::string& mapping_path,
                    const std::string& client_addr, const std::string& access_mode = "rw");

    // The next writes to `relative` fail with `error` (until cleared with 0).
    void fail(const std::string& relative, int error) { failures_[relative] = error; }
    void set_open(const std::string& device, bool open);

    // Writes the hook saw, as (relative path, text).
    const std::vector<std::pair<std::string, std::string>>& writes() const { return writes_; }
    void clear_writes() { writes_.clear(); }

    RunResult run(const std::vector<std::string>& args, const std::string& rnbdtab = "");

private:
    int hook(const std::string& full_path, const std::string& text);
    void add_path_dir(const std::string& session, const std::string& path_text);
    void remove_tree(const std::string& relative);

    std::string root_;
    int next_index_ = 0;
    std::map<std::string, int> failures_;
    std::set<std::string> open_devices_;
    std::vector<std::pair<std::string, std::string>> writes_;
};

// Checks the Prometheus text format line by line (HELP/TYPE comments,
// samples with well-formed names, labels and values; a family's samples
// together, after its TYPE); returns "" or the first problem.
std::string check_prometheus_syntax(const std::string& text);

}  // namespace rnbdctl::testing
