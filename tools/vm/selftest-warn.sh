#!/usr/bin/env bash
# Deliberate-failure proof for the runner: the guest kernel logs a WARNING and
# a TAP "not ok", yet the command exits 0, so only the log checks can catch it.
# Run: tools/vm/run.sh --expect-fail -- tools/vm/selftest-warn.sh
#   (exits 0 because run.sh saw the failure; without --expect-fail run.sh exits 3)
# With "real" as argument, a genuine WARN_ON is provoked if the kernel offers a
# cheap one (none is wired up for Debian's stock kernel; it falls back to kmsg).
set -uo pipefail
echo "1..2"
echo "ok 1 - this line is fine"
echo "not ok 2 - a skipped one is fine too # SKIP demo"
# A kernel log line, exactly as printk's WARN() prints it, injected through /dev/kmsg.
echo 'WARNING: CPU: 0 PID: 1 at tools/vm/selftest-warn.sh:1 injected_warning+0x0/0x0' > /dev/kmsg
sleep 0.2
exit 0
