// A fake sysfs tree in a temporary directory, and a WriteHook that plays
// the kernel on it: map_device creates /sys/block/rnbdN with its attributes,
// the class link and the RTRS session; unmap_device removes them (EBUSY while
// the test marks the device open); add_path/remove_path create and remove
// path directories; rnbd-server's exports/add checks the line with the
// module's parser (EINVAL, EEXIST, a chosen errno per backing path) and
// creates the export's directory and files, exports/remove deletes it and
// closes its mappings; any file can be made to fail with an errno, and a
// session's map can be made slow, made to wait for another's, or to hang
// (a dead server). Every write is logged, so a test can assert that a
// refused command wrote nothing. restore maps in child processes: the log
// and the device numbers live in files of the tree, so that what a child
// did is seen by the test and by the next child.
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

    // As exports/add of that line: 0, or the errno the module answers
    // (EINVAL, EEXIST, or refuse_backing's) with nothing changed.
    int define_export(const std::string& line);
    // exports/add of an export of this backing path fails with `error`
    // (ENOENT, ENOTBLK, EROFS ...; 0 clears it).
    void refuse_backing(const std::string& path, int error) { backing_errors_[path] = error; }

    // The next writes to `relative` fail with `error` (until cleared with 0).
    void fail(const std::string& relative, int error) { failures_[relative] = error; }
    // map_device writes of `session`: each takes `milliseconds` first.
    void delay_map(const std::string& session, int milliseconds) { map_delays_ms_[session] = milliseconds; }
    // ... never return (the server is dead; restore's timeout kills them).
    void hang_map(const std::string& session) { map_delays_ms_[session] = -1; }
    // ... wait, up to 10 s, until a map_device write of `other` has begun:
    // done only when the two sessions are mapped at the same time.
    void map_waits_for(const std::string& session, const std::string& other) { map_waits_[session] = other; }
    void set_open(const std::string& device, bool open);

    // Writes the hook saw, as (relative path, text), in the order made.
    std::vector<std::pair<std::string, std::string>> writes() const;
    void clear_writes();

    // The default rnbdtab and exports file are under the tree (etc-rnbd/)
    // unless given.
    RunResult run(const std::vector<std::string>& args, const std::string& rnbdtab = "");

private:
    int hook(const std::string& full_path, const std::string& text);
    void add_path_dir(const std::string& session, const std::string& path_text);
    void remove_tree(const std::string& relative);
    void log_write(const std::string& relative, const std::string& text);
    // rnbd0, rnbd1, ... in the order of the maps, whichever process makes them.
    int take_device_index();
    // The delays and waits of map_device writes (delay_map, map_waits_for).
    void hold_map(const std::string& session);
    int remove_export(const std::string& name);

    std::string root_;
    std::map<std::string, int> failures_;
    std::map<std::string, int> backing_errors_;
    std::set<std::string> open_devices_;
    std::map<std::string, int> map_delays_ms_;
    std::map<std::string, std::string> map_waits_;
};

// Checks the Prometheus text format line by line (HELP/TYPE comments,
// samples with well-formed names, labels and values; a family's samples
// together, after its TYPE); returns "" or the first problem.
std::string check_prometheus_syntax(const std::string& text);

}  // namespace rnbdctl::testing
