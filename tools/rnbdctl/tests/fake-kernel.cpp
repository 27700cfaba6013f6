// See fake-kernel.hpp.
#include "tools/rnbdctl/tests/fake-kernel.hpp"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "rnbd/core/rnbd-srv-exports.hpp"

namespace rnbdctl::testing {

namespace {

std::map<std::string, std::string> tokens_of(const std::string& line, std::vector<std::string>* paths)
{
    std::map<std::string, std::string> tokens;
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
        size_t equals = word.find('=');
        if (equals == std::string::npos)
            continue;
        std::string key = word.substr(0, equals);
        if (key == "path" && paths)
            paths->push_back(word.substr(equals + 1));
        tokens[key] = word.substr(equals + 1);
    }
    return tokens;
}

std::string replace_slashes(std::string text)
{
    for (char& c : text)
        if (c == '/')
            c = '!';
    return text;
}

}  // namespace

FakeKernel::FakeKernel()
{
    char pattern[] = "/tmp/rnbdctl-test.XXXXXX";
    const char* made = mkdtemp(pattern);
    root_ = made ? made : "/tmp/rnbdctl-test-failed";
    mkdir("block");
    mkdir("devices/system/cpu");
    file("devices/system/cpu/possible", "0-3\n");
}

FakeKernel::~FakeKernel() { remove_tree(""); }

void FakeKernel::remove_tree(const std::string& relative)
{
    std::string command = "rm -rf '" + full(relative) + "'";
    if (system(command.c_str()) != 0)
        fprintf(stderr, "fake-kernel: %s failed\n", command.c_str());
}

void FakeKernel::mkdir(const std::string& relative)
{
    std::string path = root_;
    std::istringstream parts(relative);
    std::string part;
    while (std::getline(parts, part, '/')) {
        path += "/" + part;
        ::mkdir(path.c_str(), 0755);
    }
}

void FakeKernel::file(const std::string& relative, const std::string& content)
{
    size_t slash = relative.rfind('/');
    if (slash != std::string::npos)
        mkdir(relative.substr(0, slash));
    std::ofstream(full(relative)) << content;
}

std::string FakeKernel::read(const std::string& relative) const
{
    std::ifstream in(full(relative));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool FakeKernel::exists(const std::string& relative) const
{
    struct stat st;
    return lstat(full(relative).c_str(), &st) == 0;
}

void FakeKernel::symlink(const std::string& relative, const std::string& target)
{
    size_t slash = relative.rfind('/');
    if (slash != std::string::npos)
        mkdir(relative.substr(0, slash));
    if (::symlink(target.c_str(), full(relative).c_str()) != 0)
        fprintf(stderr, "fake-kernel: symlink %s failed\n", relative.c_str());
}

void FakeKernel::load_client()
{
    file("kernel/rnbd_client/map_device", "Usage: ...\n");
    mkdir("kernel/rnbd_client/devices");
    file("class/rnbd-client/ctl/map_device", "Usage: ...\n");
    mkdir("class/rnbd-client/ctl/devices");
    mkdir("class/rtrs-client");
}

void FakeKernel::load_server()
{
    mkdir("class/rnbd-server/ctl/devices");
    file("class/rnbd-server/ctl/exports/add", "Usage: echo \"name=<name> path=... allow=...\" > add\n");
    file("class/rnbd-server/ctl/exports/remove", "Usage: echo <name> > remove\n");
    mkdir("class/rtrs-server");
}

// exports/add. Like the write log and the device numbers, the state is in
// the tree (the export's directory), so that an export added by a child
// process of rnbdctl is seen by the test and by the next process; the
// write itself is logged by hook() before it gets here.
int FakeKernel::define_export(const std::string& line)
{
    namespace core = rnbd::srv::exports;
    core::ExportDefinition definition;
    if (core::parse_definition(cxxrt::StringView(line.data(), line.size()), definition).is_error())
        return EINVAL;
    const std::string name = definition.name;
    if (name == "add" || name == "remove")
        return EINVAL;
    auto refused = backing_errors_.find(definition.backing);
    if (refused != backing_errors_.end() && refused->second != 0)
        return refused->second;
    const std::string dir = "class/rnbd-server/ctl/exports/" + replace_slashes(name);
    if (exists(dir))
        return EEXIST;
    char text[core::kMaxDefinitionLength + 8];
    auto length = core::format_definition(definition, cxxrt::Span<char>(text, sizeof(text)));
    if (length.is_error())
        return EINVAL;
    file(dir + "/definition", std::string(text, length.value()));
    file(dir + "/path", std::string(definition.backing) + "\n");
    file(dir + "/access_mode", definition.read_only ? "ro\n" : "rw\n");
    file(dir + "/io_modes", std::string(core::io_modes_text(definition.io_modes)) + "\n");
    std::string rules;
    for (size_t i = 0; i < definition.rule_count; ++i) {
        char rule[96];
        auto rule_length = core::format_allow_rule(definition.rules[i], cxxrt::Span<char>(rule, sizeof(rule)));
        if (rule_length.is_ok())
            rules += std::string(rule, rule_length.value()) + "\n";
    }
    file(dir + "/allow", rules);
    file(dir + "/session", definition.session[0] ? std::string(definition.session) + "\n" : "");
    return 0;
}

// exports/remove: the directory goes, and every mapping opened through the
// export (a server session whose mapping_path is its name) is closed.
int FakeKernel::remove_export(const std::string& name)
{
    const std::string dir = "class/rnbd-server/ctl/exports/" + replace_slashes(name);
    if (name.empty() || name.find('!') != std::string::npos || !exists(dir + "/definition"))
        return ENOENT;
    remove_tree(dir);
    const std::string devices = "class/rnbd-server/ctl/devices";
    const Sysfs tree(root_);
    for (const std::string& device : tree.list(devices)) {
        const std::string sessions = devices + "/" + device + "/sessions";
        for (const std::string& session : tree.list(sessions))
            if (read(sessions + "/" + session + "/mapping_path") == name + "\n")
                remove_tree(sessions + "/" + session);
        if (tree.list(sessions).empty())
            remove_tree(devices + "/" + device);
    }
    return 0;
}

void FakeKernel::add_path_dir(const std::string& session, const std::string& path_text)
{
    std::string source = "ip:10.0.0.9";
    std::string destination = path_text;
    size_t at = path_text.find_first_of("@,");
    if (at != std::string::npos) {
        source = path_text.substr(0, at);
        destination = path_text.substr(at + 1);
    }
    const std::string dir = "class/rtrs-client/" + session + "/paths/" + source + "@" + destination;
    file(dir + "/state", "connected\n");
    file(dir + "/src_addr", source + "\n");
    file(dir + "/dst_addr", destination + "\n");
    file(dir + "/hca_name", "rxe0\n");
    file(dir + "/hca_port", "1\n");
    file(dir + "/cur_latency", "123456 ns\n");
    for (const char* action : {"disconnect", "reconnect", "remove_path"})
        file(dir + "/" + action, "Usage: echo 1 > x\n");
    file(dir + "/stats/rdma", "10 40960 5 20480 2 1\n");
    file(dir + "/stats/reconnects", "-1 0\n");
    std::string latency;
    for (int row = 0; row < 17; ++row)
        latency += "< " + std::to_string(1 << row) + " ms: " + std::to_string(row == 0 ? 7 : row == 2 ? 3 : 0) + " " +
                   std::to_string(row == 1 ? 5 : 0) + "\n";
    latency += ">= 65536 ms: 1 0\n maximum ms: 70000 1\n";
    file(dir + "/stats/rdma_lat", latency);
}

std::string FakeKernel::map(const std::string& line)
{
    std::vector<std::string> paths;
    const std::map<std::string, std::string> tokens = tokens_of(line, &paths);
    auto value = [&](const char* key, const char* fallback) {
        auto found = tokens.find(key);
        return found == tokens.end() ? std::string(fallback) : found->second;
    };
    const std::string session = value("sessname", "");
    const std::string device_path = value("device_path", "");
    const std::string name = "rnbd" + std::to_string(take_device_index());
    const std::string dir = "block/" + name + "/rnbd_client";
    file("block/" + name + "/size", "131072\n");
    file("block/" + name + "/ro", value("access_mode", "rw") == "ro" ? "1\n" : "0\n");
    file(dir + "/session", session + "\n");
    file(dir + "/mapping_path", device_path + "\n");
    file(dir + "/access_mode", value("access_mode", "rw") + "\n");
    file(dir + "/io_mode", value("io_mode", "blockio") + "\n");
    file(dir + "/nr_poll_queues", value("nr_poll_queues", "0") + "\n");
    file(dir + "/state", "open\n");
    for (const char* action : {"unmap_device", "remap_device", "resize"})
        file(dir + "/" + action, "Usage: ...\n");
    symlink("block/" + name + "/rnbd", "rnbd_client");
    symlink("class/rnbd-client/ctl/devices/" + replace_slashes(device_path) + "@" + session,
            "../../../../block/" + name);
    const std::string session_dir = "class/rtrs-client/" + session;
    if (!exists(session_dir)) {
        file(session_dir + "/mpath_policy", "min-inflight (MI: 1)\n");
        file(session_dir + "/mp_policy", "min-inflight (MI: 1)\n");
        file(session_dir + "/max_reconnect_attempts", "-1\n");
        file(session_dir + "/io_hold_timeout_ms",
             value("io_hold_timeout_ms", "60000") + "\n");
        file(session_dir + "/add_path", "Usage: ...\n");
        mkdir(session_dir + "/paths");
        for (const std::string& path : paths)
            add_path_dir(session, path);
    }
    return name;
}

void FakeKernel::add_export(const std::string& name, const std::string& session, const std::string& mapping_path,
                            const std::string& client_addr, const std::string& access_mode)
{
    const std::string dir = "class/rnbd-server/ctl/devices/" + name;
    mkdir("block/" + name);
    if (!exists(dir + "/block_dev"))
        symlink(dir + "/block_dev", "../../../../../block/" + name);
    const std::string sdir = dir + "/sessions/" + session;
    file(sdir + "/read_only", access_mode == "ro" ? "1\n" : "0\n");
    file(sdir + "/access_mode", access_mode + "\n");
    file(sdir + "/mapping_path", mapping_path + "\n");
    file(sdir + "/force_close", "Usage: echo 1 > force_close\n");
    const std::string pdir = "class/rtrs-server/" + session + "/paths/" + client_addr + "@ip:192.0.2.1";
    file(pdir + "/src_addr", client_addr + "\n");
    file(pdir + "/dst_addr", "ip:192.0.2.1\n");
    file(pdir + "/hca_name", "rxe0\n");
    file(pdir + "/hca_port", "1\n");
    file(pdir + "/disconnect", "Usage: echo 1 > disconnect\n");
    file(pdir + "/stats/rdma", "3 12288 4 16384 0\n");
}

// The log: one record per write, "<relative>\0<text>\0", appended with one
// write() (O_APPEND), so that records of several processes do not mix.
void FakeKernel::log_write(const std::string& relative, const std::string& text)
{
    std::string record = relative;
    record += '\0';
    record += text;
    record += '\0';
    const int fd = open(full(".writes").c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, record.data(), record.size()) != ssize_t(record.size()))
        fprintf(stderr, "fake-kernel: cannot log a write\n");
    if (fd >= 0)
        close(fd);
}

std::vector<std::pair<std::string, std::string>> FakeKernel::writes() const
{
    const std::string log = read(".writes");
    std::vector<std::pair<std::string, std::string>> records;
    size_t start = 0;
    while (start < log.size()) {
        const size_t middle = log.find('\0', start);
        const size_t end = middle == std::string::npos ? std::string::npos : log.find('\0', middle + 1);
        if (end == std::string::npos)
            break;
        records.push_back({log.substr(start, middle - start), log.substr(middle + 1, end - middle - 1)});
        start = end + 1;
    }
    return records;
}

void FakeKernel::clear_writes() { ::unlink(full(".writes").c_str()); }

int FakeKernel::take_device_index()
{
    const int fd = open(full(".next-index").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || flock(fd, LOCK_EX) != 0)
        return -1;
    char text[32] = {};
    const ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
    const int index = n > 0 ? atoi(text) : 0;
    const std::string next = std::to_string(index + 1);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, next.data(), next.size(), 0) != ssize_t(next.size()))
        fprintf(stderr, "fake-kernel: cannot count devices\n");
    close(fd);  // drops the lock
    return index;
}

void FakeKernel::hold_map(const std::string& session)
{
    auto sleep_ms = [](int milliseconds) {
        const timespec pause{milliseconds / 1000, long(milliseconds % 1000) * 1000000};
        nanosleep(&pause, nullptr);
    };
    auto wait = map_waits_.find(session);
    for (int waited = 0; wait != map_waits_.end() && waited < 10000; waited += 10) {
        bool begun = false;
        for (const auto& [relative, text] : writes())
            begun = begun || (relative == "kernel/rnbd_client/map_device" &&
                              tokens_of(text, nullptr)["sessname"] == wait->second);
        if (begun)
            break;
        sleep_ms(10);
    }
    auto delay = map_delays_ms_.find(session);
    if (delay == map_delays_ms_.end())
        return;
    if (delay->second >= 0) {
        sleep_ms(delay->second);
        return;
    }
    for (;;)  // a dead server: until restore's timeout kills this process
        sleep_ms(1000);
}

void FakeKernel::set_open(const std::string& device, bool open)
{
    if (open)
        open_devices_.insert(device);
    else
        open_devices_.erase(device);
}

int FakeKernel::hook(const std::string& full_path, const std::string& text)
{
    const std::string relative = full_path.substr(root_.size() + 1);
    log_write(relative, text);
    auto failure = failures_.find(relative);
    if (failure != failures_.end() && failure->second != 0)
        return failure->second;
    if (!exists(relative))
        return ENOENT;
    if (relative == "class/rnbd-server/ctl/exports/add")
        return define_export(text);
    if (relative == "class/rnbd-server/ctl/exports/remove") {
        std::string name = text;
        while (!name.empty() && (name.back() == '\n' || name.back() == ' '))
            name.pop_back();
        return remove_export(name);
    }
    if (relative == "kernel/rnbd_client/map_device") {
        std::map<std::string, std::string> tokens = tokens_of(text, nullptr);
        hold_map(tokens["sessname"]);
        if (exists("class/rnbd-client/ctl/devices/" + replace_slashes(tokens["device_path"]) + "@" +
                   tokens["sessname"]))
            return EEXIST;
        map(text);
        return 0;
    }
    const std::string suffix = "/rnbd_client/unmap_device";
    if (relative.size() > suffix.size() && relative.compare(relative.size() - suffix.size(), suffix.size(), suffix) == 0) {
        const std::string name = relative.substr(6, relative.size() - suffix.size() - 6);  // after "block/"
        if (text != "normal" && text != "force")
            return EINVAL;
        if (text == "normal" && open_devices_.count(name))
            return EBUSY;
        const std::string session = read("block/" + name + "/rnbd_client/session");
        const std::string device_path = read("block/" + name + "/rnbd_client/mapping_path");
        remove_tree("class/rnbd-client/ctl/devices/" +
                    replace_slashes(device_path.substr(0, device_path.size() - 1)) + "@" +
                    session.substr(0, session.size() - 1));
        remove_tree("block/" + name);
        return 0;
    }
    const std::string resize = "/rnbd_client/resize";
    if (relative.size() > resize.size() && relative.compare(relative.size() - resize.size(), resize.size(), resize) == 0) {
        file(relative.substr(0, relative.size() - resize.size()) + "/size", text + "\n");
        return 0;
    }
    const std::string add_path = "/add_path";
    if (relative.rfind("class/rtrs-client/", 0) == 0 &&
        relative.compare(relative.size() - add_path.size(), add_path.size(), add_path) == 0) {
        const std::string session = relative.substr(18, relative.size() - add_path.size() - 18);
        add_path_dir(session, text);
        return 0;
    }
    const std::string remove_path = "/remove_path";
    if (relative.size() > remove_path.size() &&
        relative.compare(relative.size() - remove_path.size(), remove_path.size(), remove_path) == 0) {
        remove_tree(relative.substr(0, relative.size() - remove_path.size()));
        return 0;
    }
    return -1;  // written to the file
}

RunResult FakeKernel::run(const std::vector<std::string>& args, const std::string& rnbdtab)
{
    RunResult result;
    char* out_buffer = nullptr;
    char* err_buffer = nullptr;
    size_t out_size = 0;
    size_t err_size = 0;
    FILE* out = open_memstream(&out_buffer, &out_size);
    FILE* err = open_memstream(&err_buffer, &err_size);
    RunOptions options;
    options.out = out;
    options.err = err;
    options.sysfs_root_env = root_;
    options.default_rnbdtab = rnbdtab.empty() ? root_ + "/etc-rnbd/rnbdtab" : rnbdtab;
    options.default_exports = root_ + "/etc-rnbd/exports";
    options.hook = [this](const std::string& path, const std::string& text) { return hook(path, text); };
    result.code = rnbdctl::run(args, options);
    fclose(out);
    fclose(err);
    result.out.assign(out_buffer, out_size);
    result.err.assign(err_buffer, err_size);
    free(out_buffer);
    free(err_buffer);
    return result;
}

namespace {

bool is_name_start(char c) { return isalpha((unsigned char)c) || c == '_' || c == ':'; }
bool is_name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == ':'; }

bool valid_value(const std::string& value)
{
    if (value == "+Inf" || value == "-Inf" || value == "NaN")
        return true;
    if (value.empty())
        return false;
    char* end = nullptr;
    strtod(value.c_str(), &end);
    return *end == '\0';
}

}  // namespace

std::string check_prometheus_syntax(const std::string& text)
{
    std::istringstream lines(text);
    std::string line;
    std::string family;
    std::string family_type;
    std::set<std::string> done;
    int number = 0;
    if (text.empty() || text.back() != '\n')
        return "the text does not end with a newline";
    while (std::getline(lines, line)) {
        ++number;
        const std::string where = "line " + std::to_string(number) + " '" + line + "': ";
        if (line.empty())
            continue;
        if (line[0] == '#') {
            std::istringstream words(line);
            std::string hash, kind, name, rest;
            words >> hash >> kind >> name;
            if (kind != "HELP" && kind != "TYPE")
                continue;
            if (name.empty() || !is_name_start(name[0]))
                return where + "bad metric name in a comment";
            if (kind == "TYPE") {
                words >> rest;
                if (rest != "counter" && rest != "gauge" && rest != "histogram" && rest != "summary" &&
                    rest != "untyped")
                    return where + "bad type";
                if (done.count(name))
                    return where + "family declared twice";
                if (!family.empty())
                    done.insert(family);
                family = name;
                family_type = rest;
            }
            continue;
        }
        size_t i = 0;
        if (!is_name_start(line[0]))
            return where + "bad metric name";
        while (i < line.size() && is_name_char(line[i]))
            ++i;
        const std::string name = line.substr(0, i);
        std::string base = name;
        if (family_type == "histogram")
            for (const char* suffix : {"_bucket", "_count", "_sum"}) {
                std::string s = suffix;
                if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0 &&
                    base.substr(0, base.size() - s.size()) == family)
                    base = family;
            }
        if (base != family)
            return where + "sample outside its family (after TYPE of " + family + ")";
        if (i < line.size() && line[i] == '{') {
            ++i;
            while (i < line.size() && line[i] != '}') {
                size_t start = i;
                if (!is_name_start(line[i]) || line[i] == ':')
                    return where + "bad label name";
                while (i < line.size() && (isalnum((unsigned char)line[i]) || line[i] == '_'))
                    ++i;
                if (i == start || i >= line.size() || line[i] != '=')
                    return where + "label without '='";
                ++i;
                if (i >= line.size() || line[i] != '"')
                    return where + "label value not quoted";
                ++i;
                while (i < line.size() && line[i] != '"') {
                    if (line[i] == '\\') {
                        if (i + 1 >= line.size() || (line[i + 1] != '\\' && line[i + 1] != '"' && line[i + 1] != 'n'))
                            return where + "bad escape";
                        ++i;
                    }
                    ++i;
                }
                if (i >= line.size())
                    return where + "unterminated label value";
                ++i;
                if (i < line.size() && line[i] == ',')
                    ++i;
            }
            if (i >= line.size())
                return where + "unterminated labels";
            ++i;
        }
        if (i >= line.size() || line[i] != ' ')
            return where + "no blank before the value";
        std::istringstream rest(line.substr(i + 1));
        std::string value, timestamp, extra;
        rest >> value >> timestamp >> extra;
        if (!valid_value(value))
            return where + "bad value";
        if (!extra.empty())
            return where + "trailing text";
    }
    return {};
}

}  // namespace rnbdctl::testing
