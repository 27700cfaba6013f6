// See parallel-map.hpp. A child answers on a pipe; the parent polls the
// pipes of the children running, one per session at most, and kills a
// child whose line is past its deadline.
#include "tools/rnbdctl/parallel-map.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>

#include "tools/rnbdctl/model.hpp"

namespace rnbdctl {

namespace {

int64_t now_ms()
{
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

// "60 s", "0.5 s": the timeout as the user gave it.
std::string seconds_text(int64_t milliseconds)
{
    char text[32];
    snprintf(text, sizeof(text), "%g s", double(milliseconds) / 1000.0);
    return text;
}

MapOutcome failure(int error, const std::string& message) { return MapOutcome{"", true, error, message}; }

// A child's answer: failed, errno, device and message, separated by NULs
// (none of them holds one).
std::string encode(const MapOutcome& outcome)
{
    std::string text = outcome.failed ? "1" : "0";
    text += '\0' + std::to_string(outcome.error) + '\0' + outcome.device + '\0' + outcome.message;
    return text;
}

bool decode(const std::string& text, MapOutcome& outcome)
{
    std::vector<std::string> fields;
    size_t start = 0;
    for (size_t end; (end = text.find('\0', start)) != std::string::npos; start = end + 1)
        fields.push_back(text.substr(start, end - start));
    fields.push_back(text.substr(start));
    if (fields.size() != 4 || (fields[0] != "0" && fields[0] != "1"))
        return false;
    outcome = MapOutcome{fields[2], fields[0] == "1", atoi(fields[1].c_str()), fields[3]};
    return true;
}

void write_all(int fd, const std::string& text)
{
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += size_t(n);
    }
}

// A line being mapped by a child.
struct Job {
    size_t index;  // into the entries
    pid_t pid;
    int fd;  // the read end of the child's pipe
    int64_t deadline_ms;
    std::string answer;
};

// Forks the child that maps `entry` and writes its answer to a pipe; false
// with `outcome` saying why it could not.
bool start_job(const Context& context, const RnbdtabEntry& entry, size_t index, int64_t timeout_ms, Job& job,
               MapOutcome& outcome)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        outcome = failure(errno, std::string("cannot start the map: pipe: ") + strerror(errno));
        return false;
    }
    const pid_t pid = fork();
    if (pid < 0) {
        const int error = errno;
        close(fds[0]);
        close(fds[1]);
        outcome = failure(error, std::string("cannot start the map: fork: ") + strerror(error));
        return false;
    }
    if (pid == 0) {
        // The child: no output of its own (the parent reports), and
        // _exit, so that nothing the parent buffered is written twice.
        close(fds[0]);
        write_all(fds[1], encode(map_entry(context, entry)));
        _exit(0);
    }
    // Closed at once, so that the next children do not hold it open.
    close(fds[1]);
    job = Job{index, pid, fds[0], now_ms() + timeout_ms, {}};
    return true;
}

// Reads what the child has written; true once it has all (end of file).
bool read_answer(Job& job)
{
    char buffer[4096];
    const ssize_t n = read(job.fd, buffer, sizeof(buffer));
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return false;
    if (n > 0) {
        job.answer.append(buffer, size_t(n));
        return false;
    }
    return true;
}

}  // namespace

MapOutcome map_entry(const Context& context, const RnbdtabEntry& entry)
{
    MapOutcome outcome;
    const MapRequest& request = entry.request;
    if (int write_error = write_map(context, request, entry.line, outcome.device))
        return failure(write_error, context.describe_write_error(Operation::kMap, kMapDevice, write_error));
    if (outcome.device.empty())
        return failure(0, "mapped, but the new device does not show in sysfs");
    std::string setting;
    if (int settings_error = apply_session_settings(context, request, setting)) {
        outcome.failed = true;
        outcome.error = settings_error;
        outcome.message = "mapped as /dev/" + outcome.device + ", but " + setting + ": " +
                          context.describe_write_error(Operation::kSessionSet, setting, settings_error);
    }
    return outcome;
}

std::vector<MapOutcome> map_entries(const Context& context, const std::vector<const RnbdtabEntry*>& entries,
                                    int64_t timeout_ms)
{
    std::vector<MapOutcome> outcomes(entries.size());
    std::map<std::string, std::deque<size_t>> waiting;  // per session, in file order
    for (size_t index = 0; index < entries.size(); ++index)
        waiting[entries[index]->request.session].push_back(index);
    std::vector<Job> running;
    std::vector<pid_t> killed;
    // The session's next line that starts (one that cannot is failed, and
    // the one after it is tried).
    auto start_next = [&](const std::string& session) {
        std::deque<size_t>& queue = waiting[session];
        while (!queue.empty()) {
            const size_t index = queue.front();
            queue.pop_front();
            Job job{};
            if (start_job(context, *entries[index], index, timeout_ms, job, outcomes[index])) {
                running.push_back(job);
                return;
            }
        }
    };
    for (const auto& [session, queue] : waiting)
        start_next(session);
    while (!running.empty()) {
        std::vector<pollfd> fds;
        int64_t next_deadline = running.front().deadline_ms;
        for (const Job& job : running) {
            fds.push_back({job.fd, POLLIN, 0});
            next_deadline = std::min(next_deadline, job.deadline_ms);
        }
        const int64_t wait_ms = std::max<int64_t>(0, next_deadline - now_ms());
        if (poll(fds.data(), fds.size(), int(std::min<int64_t>(wait_ms, 60000))) < 0 && errno != EINTR)
            break;  // cannot happen with valid descriptors; the jobs left are failed below
        std::vector<Job> still_running;
        std::vector<std::string> sessions_to_go_on;
        const int64_t now = now_ms();
        for (size_t k = 0; k < running.size(); ++k) {
            Job& job = running[k];
            const std::string& session = entries[job.index]->request.session;
            if (fds[k].revents != 0 && read_answer(job)) {
                close(job.fd);
                waitpid(job.pid, nullptr, 0);
                if (!decode(job.answer, outcomes[job.index]))
                    outcomes[job.index] = failure(0, "the process mapping it ended without an answer");
                sessions_to_go_on.push_back(session);
            } else if (now >= job.deadline_ms) {
                // The write may be stuck in the kernel; the child goes, and
                // the session's later lines would wait for the same server.
                kill(job.pid, SIGKILL);
                close(job.fd);
                killed.push_back(job.pid);
                outcomes[job.index] = failure(ETIMEDOUT, "no answer within " + seconds_text(timeout_ms) +
                                                             " (--timeout); the kernel may still map it later");
                for (size_t later : waiting[session])
                    outcomes[later] =
                        failure(0, "not tried: line " + std::to_string(entries[job.index]->line_number) +
                                       " of session " + session + " timed out");
                waiting[session].clear();
            } else {
                still_running.push_back(job);
            }
        }
        running = still_running;
        for (const std::string& session : sessions_to_go_on)
            start_next(session);
    }
    for (const Job& job : running) {  // only after a failed poll()
        kill(job.pid, SIGKILL);
        close(job.fd);
        killed.push_back(job.pid);
        outcomes[job.index] = failure(0, "given up: poll() failed");
    }
    for (const auto& [session, queue] : waiting)
        for (size_t later : queue)
            outcomes[later] = failure(0, "not tried: poll() failed");
    // A killed child stuck in the kernel is reaped later, by init once
    // rnbdctl has exited.
    for (pid_t pid : killed)
        waitpid(pid, nullptr, WNOHANG);
    return outcomes;
}

}  // namespace rnbdctl
