#!/usr/bin/env bash
# Host test of the guest-log judge (tools/vm/check-log.sh): the same verdict
# with every awk (mawk, gawk, busybox awk, and the system's default), on a
# clean log that holds a debug kernel's normal boot lines, and on that log
# with each kind of trouble added. An awk that is not installed is a SKIP.
# TAP output; exit 1 if any case fails.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
judge=$top/tools/vm/check-log.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/clean.log" <<'LOG'
[    0.000000] Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)
[    0.000000] Command line: console=ttyS0 panic=-1
[    0.010000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
[    0.010000] ... MAX_LOCKDEP_SUBCLASSES:  8
[    0.010000] ... MAX_LOCK_DEPTH:          48
[    0.020000] RCU lockdep checking is enabled.
[    0.030000] rcu: Preemptible hierarchical RCU implementation.
[    0.040000] kasan: KernelAddressSanitizer initialized (generic)
[    0.500000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15620)
[    0.510000] kmemleak: Automatic memory scanning thread started
[    1.000000] virtio_blk virtio1: [vda] 2097152 512-byte logical blocks (1.07 GB/1.00 GiB)
[    1.100000] 9pnet: Installing 9P2000 support
[    2.000000] rdma_rxe: loaded
[    2.100000] rnbd_server: loaded, dev_search_path=/
TAP version 13
1..4
ok 1 - map a device [read-write]
not ok 2 - needs hardware # SKIP no RDMA NIC
  not ok 3 - known issue # TODO fix later
[    3.000000] ok 4 - unmap
[    3.100000] cxxrt: no leaks
LOG

# Each line makes the log dirty.
dirty=(
    '[    4.000000] ------------[ cut here ]------------'
    '[    4.000000] WARNING: CPU: 1 PID: 42 at rnbd/server/rnbd-srv.cpp:10 handler+0x10/0x20 [rnbd_server]'
    '[    4.000000] BUG: unable to handle page fault for address: ffff888000000000'
    '[    4.000000] BUG: KASAN: slab-out-of-bounds in rtrs_srv_rdma_done+0x1/0x2'
    '[    4.000000] UBSAN: shift-out-of-bounds in rtrs/core/rtrs-codec.cpp:12:3'
    '[    4.000000] WARNING: possible circular locking dependency detected'
    '[    4.000000] WARNING: possible recursive locking detected'
    '[    4.000000] INFO: lockdep is turned off.'
    '[    4.000000] INFO: task kworker/0:1:12 blocked for more than 120 seconds.'
    '[    4.000000] Kernel panic - not syncing: Fatal exception'
    '[    4.000000] general protection fault, probably for non-canonical address 0xdead000000000100'
    '[    4.000000] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'
    '[    4.000000] refcount_t: underflow; use-after-free.'
    '[    4.000000] cxxrt: leak: 1 live rnbd::srv::Device'
    '[    4.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
    '[    4.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [kworker/0:1:12]'
    '[    4.000000] Oops: 0000 [#1] PREEMPT SMP NOPTI'
    '[    4.000000] ODEBUG: free active (active state 0) object: 000000001234abcd object type: work_struct hint: 0x0'
    '[    4.000000] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580'
    'unreferenced object 0xffff888003c1e000 (size 64):'
    'not ok 5 - fio --verify'
    '[    4.000000]   not ok 6 - unmap after error'
)

awks=("awk" "mawk" "gawk" "busybox awk")
n=0 failed=0
say() { n=$((n + 1)); echo "$1 $n - $2"; }
for a in "${awks[@]}"; do
    if ! command -v "${a%% *}" > /dev/null || { [ "$a" = "busybox awk" ] && ! busybox awk 'BEGIN{}' 2>/dev/null; }; then
        say ok "# SKIP $a is not installed"; continue
    fi
    out=$(AWK=$a "$judge" "$tmp/clean.log" 2>&1); rc=$?
    if [ $rc = 0 ] && [ -z "$out" ]; then say ok "$a: a clean debug-kernel log is clean"
    else say "not ok" "$a: clean log judged dirty (exit $rc)"; failed=1; printf '#   %s\n' "$out" | head -5; fi
    for line in "${dirty[@]}"; do
        { cat "$tmp/clean.log"; echo "$line"; } > "$tmp/dirty.log"
        lines=$(wc -l < "$tmp/dirty.log")
        out=$(AWK=$a "$judge" "$tmp/dirty.log" 2>&1); rc=$?
        # Exactly the added line, by number.
        if [ $rc = 1 ] && [ "$out" = "$lines: $line" ]; then say ok "$a: dirty: ${line:0:60}"
        else say "not ok" "$a: not caught (exit $rc): $line"; failed=1; printf '#   %s\n' "$out" | head -5; fi
    done
    out=$(AWK=$a "$judge" --no-tap "$tmp/dirty.log" 2>&1); rc=$?
    if [ $rc = 0 ]; then say ok "$a: --no-tap ignores TAP failures"
    else say "not ok" "$a: --no-tap still judged TAP (exit $rc)"; failed=1; fi
done
echo "1..$n"
exit $failed
