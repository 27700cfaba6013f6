#!/usr/bin/env bash
# Guest side of the pair-mode monitor relay: asks tools/vm/run-pair.sh on the
# host to run a QEMU monitor command on VM a or b, waits for it, prints the answer.
# Usage (inside a VM started by run-pair.sh): tools/vm/vmctl.sh a|b 'set_link nic0 off'
# Exit status: 0 if the monitor accepted the command, 1 on an error answer or no answer.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: vmctl.sh a|b MONITOR-COMMAND..." >&2; exit 2; }
vm=$1; shift
d=${VM_RESULTS:-/results}/.vmctl
[ -d "$d" ] || { echo "vmctl.sh: $d missing: not in a VM started by run-pair.sh" >&2; exit 2; }
id=$d/$(hostname)-$$-$RANDOM
echo "$vm $*" > "$id.tmp" && mv "$id.tmp" "$id.req"
for _ in $(seq 300); do
    if [ -e "$id.done" ]; then
        cat "$id.out" 2>/dev/null; rc=$(cat "$id.rc" 2>/dev/null || echo 1)
        rm -f "$id.out" "$id.rc" "$id.done"; exit "$rc"
    fi
    sleep 0.1
done
echo "vmctl.sh: no answer from the host relay after 30 s" >&2
exit 1
