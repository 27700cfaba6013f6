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
not ok 3 - lower case # skip no RDMA NIC
not ok 3 # TODO no description
[    3.000000] ok 4 - unmap
[    3.100000] cxxrt: no leaks
[    3.200000] SLUB: HWalign=64, Order=0-3, MinObjects=0, CPUs=2, Nodes=1
[    3.300000] rnbd_server: session s1: '/dev/./ram0' is ram0, which this session maps already as device id 0 ('/dev/ram0'); refused
[    3.400000] rnbd_server: session s1: cannot open '/tmp/x/file' (ro): not a block device: -15
# failslab step 3: an allocation failure injected, the map refused with ENOMEM
#   [<0>] rtrs_clt_close+0x10/0x20 [rtrs_client]
ok 5 - BUG fix 12 (kmalloc-64 redzone) stays fixed
[    3.500000] selftest: allocation failures no longer expected
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
    'not ok 7 - skip list of devices is honoured'
    'not ok 7 - comment #skipped lines are ignored'
    'not ok 7 - issue #12 # TODO the first # starts the directive'
    'not ok 7 - an escaped \# SKIP is text'
    'not ok 7 - a word that begins with it # SKIPPED'
    '[    4.000000] not ok 7 - kernel: skip # of devices # SKIP'
    "[    4.000000] sysfs: cannot create duplicate filename '/devices/virtual/rnbd-server/ctl/devices/ram0/sessions/s1'"
    "[    4.000000] kobject_add_internal failed for s1 with -EEXIST, don't try to register things with the same name in the same directory."
    '[    4.000000] kobject_add_internal failed for ram0 (error: -12 parent: devices)'
    '[    4.000000] BUG kmalloc-64 (Not tainted): Redzone overwritten'
    '[    4.000000] BUG rnbd_srv_io (Tainted: G    B      O      ): Poison overwritten'
    '[    4.000000] kworker/0:1: page allocation failure: order:5, mode:0x40cc0(GFP_KERNEL|__GFP_COMP), nodemask=(null),cpuset=/,mems_allowed=0'
    '[    4.000000] insmod: vmalloc error: size 8192, vm_struct allocation failed, mode:0xdc0(GFP_KERNEL|__GFP_ZERO), nodemask=(null)'
    '[    4.000000] FAULT_INJECTION: forcing a failure.'
    '[    4.000000] Call Trace:'
)

# Logs with an expected-allocation-failure window (selftests/lib.sh
# expect_alloc_failures): NAME ^ the appended lines the judge must report
# ("+N" the Nth, comma-separated; empty for none) ^ the appended lines, each
# after a "^".
on='[    5.000000] selftest: allocation failures expected from here'
off='[    6.000000] selftest: allocation failures no longer expected'
report='[    5.100000] bash: page allocation failure: order:4, mode:0x40cc0(GFP_KERNEL|__GFP_COMP), nodemask=(null),cpuset=/,mems_allowed=0'
dump=$(printf '^%s' \
    '[    5.100000] CPU: 1 PID: 321 Comm: bash Not tainted 6.1.0-28-amd64 #1  Debian 6.1.119-1' \
    '[    5.100000] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014' \
    '[    5.100000] Call Trace:' \
    '[    5.100000]  <TASK>' \
    '[    5.100000]  dump_stack_lvl+0x44/0x5c' \
    '[    5.100000]  warn_alloc+0x137/0x160' \
    '[    5.100000]  </TASK>' \
    '[    5.100000] Mem-Info:')
windows=(
    "expected report and its dump inside the window^^$on^$report$dump^$off"
    "failslab's report, a vmalloc error and a kobject -ENOMEM inside the window^^$on^[    5.1] FAULT_INJECTION: forcing a failure.^[    5.1] name failslab, interval 1, probability 0, space 0, times 1^[    5.1] CPU: 0 PID: 1 Comm: bash^[    5.1] Call Trace:^[    5.2] insmod: vmalloc error: size 8192, vm_struct allocation failed^[    5.3] kobject_add_internal failed for ram0 (error: -12 parent: devices)^$off"
    "a WARNING inside the window still fails^+3^$on^$report^[    5.2] WARNING: CPU: 0 PID: 1 at mm/slub.c:1 x+0x0/0x0^$off"
    "a duplicate sysfs name inside the window still fails^+2,+3^$on^[    5.2] sysfs: cannot create duplicate filename '/x/y'^[    5.2] Call Trace:^$off"
    "a kobject -EEXIST inside the window still fails^+2^$on^[    5.2] kobject_add_internal failed for s1 with -EEXIST, don't try^$off"
    "a Call Trace far from the report fails^+16^$on^$report$dump^[    5.3] a^[    5.3] b^[    5.3] c^[    5.3] d^[    5.3] e^[    5.3] Call Trace:^$off"
    "a report after the window is closed fails^+3^$on^$off^$report"
    "the next script's header closes the window^+3^$on^# === selftests/rnbd/031-next.sh^$report"
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
    { cat "$tmp/clean.log"; printf '%s\n' "${dirty[@]}" | grep 'not ok'; } > "$tmp/tap.log"
    out=$(AWK=$a "$judge" --no-tap "$tmp/tap.log" 2>&1); rc=$?
    if [ $rc = 0 ]; then say ok "$a: --no-tap ignores TAP failures"
    else say "not ok" "$a: --no-tap still judged TAP (exit $rc)"; failed=1; fi
    base=$(wc -l < "$tmp/clean.log")
    for w in "${windows[@]}"; do
        IFS='^' read -r -a part <<< "$w"
        name=${part[0]} want=${part[1]}
        { cat "$tmp/clean.log"; for line in "${part[@]:2}"; do [ -n "$line" ] && printf '%s\n' "$line"; done; } \
            > "$tmp/window.log"
        # "+N" is the Nth appended line.
        expected=
        for k in ${want//,/ }; do expected="$expected $((base + ${k#+}))"; done
        out=$(AWK=$a "$judge" "$tmp/window.log" 2>&1); rc=$?
        got=$(printf '%s\n' "$out" | sed -n 's/^\([0-9][0-9]*\): .*/\1/p' | tr '\n' ' ')
        if [ -z "$expected" ] && [ $rc = 0 ] && [ -z "$out" ] || { [ -n "$expected" ] && [ $rc = 1 ] && [ "$got" = "${expected# } " ]; }; then
            say ok "$a: window: $name"
        else
            say "not ok" "$a: window: $name (exit $rc, lines '$got', expected '${expected# }')"; failed=1
            printf '#   %s\n' "$out" | head -5
        fi
    done
done
# No allow-list: a check-log.allow beside the judge makes it refuse to run,
# whatever the log (a copy of the judge, so the tree's tools/vm stays as is).
mkdir -p "$tmp/vm"
cp "$judge" "$tmp/vm/check-log.sh"
echo '.*' > "$tmp/vm/check-log.allow"
out=$("$tmp/vm/check-log.sh" "$tmp/clean.log" 2>/dev/null); rc=$?
if [ $rc = 2 ] && [[ $out == *"refusing to judge"*check-log.allow* ]]; then say ok "a local check-log.allow: the judge refuses to run (exit 2)"
else say "not ok" "a local check-log.allow was accepted (exit $rc): $out"; failed=1; fi
{ cat "$tmp/clean.log"; echo '[    4.000000] WARNING: CPU: 1 PID: 42 at x.c:1 f+0x0/0x0'; } > "$tmp/dirty.log"
out=$("$tmp/vm/check-log.sh" "$tmp/dirty.log" 2>/dev/null); rc=$?
if [ $rc = 2 ]; then say ok "a local check-log.allow hides nothing: a dirty log is refused too (exit 2)"
else say "not ok" "dirty log with a local check-log.allow: exit $rc"; failed=1; fi
rm "$tmp/vm/check-log.allow"
out=$("$tmp/vm/check-log.sh" "$tmp/dirty.log" 2>/dev/null); rc=$?
if [ $rc = 1 ]; then say ok "the same judge without it judges again"
else say "not ok" "the copied judge without an allow-list: exit $rc"; failed=1; fi
echo "1..$n"
exit $failed
