// restore's mapping of the rnbdtab lines that are not mapped yet. A
// map_device write waits for the server, which may be dead, so each line is
// mapped in a child process of its own and given up after its own timeout:
// the lines of one session one after another in file order (the first may
// create the session the next ones rely on), different sessions at the same
// time, so that one dead server does not hold up the others.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/rnbdctl/rnbdtab.hpp"

namespace rnbdctl {

struct MapOutcome {
    std::string device;  // rnbdN, "" when none
    bool failed = false;
    int error = 0;        // the errno of the failure, 0 when none applies
    std::string message;  // why it failed
};

// One outcome per entry, in the order of `entries`. Each line waits at most
// `timeout_ms`; a line that times out fails with ETIMEDOUT (its child is
// killed; the kernel may still finish the map), and the later lines of its
// session are not tried (they would wait for the same server).
std::vector<MapOutcome> map_entries(const Context& context, const std::vector<const RnbdtabEntry*>& entries,
                                    int64_t timeout_ms);

// One line, in this process (what each child does): the map, then the
// session settings.
MapOutcome map_entry(const Context& context, const RnbdtabEntry& entry);

}  // namespace rnbdctl
