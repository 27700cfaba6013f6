#!/usr/bin/env bash
# Sends one command to a QEMU human monitor on a unix socket and prints its answer.
# Usage: tools/vm/monitor.sh SOCKET 'set_link nic0 off'     (also: info network, ...)
# Exit 1 if the monitor answered with an error.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: monitor.sh SOCKET COMMAND..." >&2; exit 2; }
sock=$1; shift
[ -S "$sock" ] || { echo "monitor.sh: no monitor socket $sock (is the VM running?)" >&2; exit 1; }
command -v socat >/dev/null || { echo "monitor.sh: socat missing (tools/setup.sh)" >&2; exit 2; }
# Keep the connection open briefly after the command so its answer arrives.
out=$({ echo "$*"; sleep 0.5; } | socat -t 1 - "UNIX-CONNECT:$sock" | tr -d '\r' \
    | awk '/^QEMU [0-9.]+ monitor/ { next }            # banner
           !echoed && /^\(qemu\)/ { echoed = 1; next }   # readline echo of the command
           /^\(qemu\) *$/ { next }                     # final prompt
           { print }' | sed -E 's/\x1b\[[0-9;]*[A-Za-z]//g' || true)
[ -z "$out" ] || printf '%s\n' "$out"
# The human monitor has no status: treat its error texts as failure.
! printf '%s\n' "$out" | grep -qE '^(Error|unknown command|Device .* not found)'
