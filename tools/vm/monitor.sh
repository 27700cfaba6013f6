#!/usr/bin/env bash
# Sends one command to a QEMU human monitor on a unix socket and prints its answer.
# Usage: tools/vm/monitor.sh SOCKET 'set_link nic0 off'     (also: info network, ...)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: monitor.sh SOCKET COMMAND..." >&2; exit 2; }
sock=$1; shift
[ -S "$sock" ] || { echo "monitor.sh: no monitor socket $sock (is the VM running?)" >&2; exit 1; }
command -v socat >/dev/null || { echo "monitor.sh: socat missing (tools/setup.sh)" >&2; exit 2; }
# Keep the connection open briefly after the command so its answer arrives.
{ echo "$*"; sleep 0.5; } | socat -t 1 - "UNIX-CONNECT:$sock" | tr -d '\r' \
    | grep -avE '^QEMU [0-9.]+ monitor|^\(qemu\) *$' | sed -E 's/\x1b\[[0-9;]*[A-Za-z]//g; s/^\(qemu\) //' || true
