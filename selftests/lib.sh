# shellcheck shell=bash
# Tiny TAP helpers for bash test scripts that run inside the test VM.
# Source it:  . "$(dirname "$0")/lib.sh"   (or selftests/lib.sh from the repo top)
#
#   tap_plan N            print the plan "1..N" (optional; tap_done prints it if absent)
#   ok DESC / not_ok DESC one result; the counter is automatic
#   skip DESC [REASON]    "ok N - DESC # SKIP REASON"
#   check DESC CMD...     run CMD; ok if it exits 0, else not_ok (its output stays visible)
#   must DESC CMD...      as check, and a failure skips the rest of the script
#   diag MSG...           "# MSG" comment line
#   tap_done              "# P passed, F failed, S skipped"; returns 1 if any failed or
#                         the plan was not met, else 0. End scripts with: tap_done; exit $?
#   require_root          skip the whole script ("1..0 # SKIP ...", exit 0) unless root
#   require_rnbdctl       skip it unless rnbdctl is built (make rnbdctl) and jq is there;
#                         sets $ctl to the tool
#   require_module NAME   modprobe NAME or skip the whole script (remaining tests if a
#                         plan was already printed)
#   tap_skip_all REASON   skip the whole script the same way; once results were printed
#                         (a setup that passed checks) the rest not running is a failure:
#                         "not ok - the rest of the script cannot run: REASON" (unless
#                         something failed already), and the script exits 1
#   expect_alloc_failures on|off
#                         tell the VM log judge (tools/vm/check-log.sh) that kernel
#                         allocation-failure reports (warn_alloc's "page allocation
#                         failure" and "vmalloc error" dumps, failslab's
#                         "FAULT_INJECTION") are expected from now on / no longer:
#                         only tests that inject allocation failures; the next
#                         script's "# === " line ends the window too
#   $top, $kodir          the repo top, and where Linux's modules were built
#                         (UPSTREAM_KO_DIR, default .cache/upstream: tools/upstream/build.sh)
# run.sh fails a VM run on any "not ok" line without "# SKIP"/"# TODO".
#
# Sourcing it also puts a `fio` first on PATH that never creates a missing
# file: every test points fio at device nodes, and a fio that starts after its
# device went away (a loaded machine, a force unmap racing its start) would
# otherwise leave a regular file at /dev/rnbd0 that hides the next mapping's
# node from every later test. With it, such a fio fails at once, visibly.

if [ -z "${SELFTEST_FIO_SHIM:-}" ] && command -v fio >/dev/null; then
    SELFTEST_FIO_SHIM=/tmp/selftest-bin
    mkdir -p $SELFTEST_FIO_SHIM
    printf '#!/bin/sh\nexec %s --allow_file_create=0 "$@"\n' "$(command -v fio)" > $SELFTEST_FIO_SHIM/fio
    chmod +x $SELFTEST_FIO_SHIM/fio
    export PATH=$SELFTEST_FIO_SHIM:$PATH SELFTEST_FIO_SHIM
fi

TAP_N=0 TAP_PASS=0 TAP_FAIL=0 TAP_SKIP=0 TAP_PLAN=
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kodir=${UPSTREAM_KO_DIR:-$top/.cache/upstream}

tap_plan() { TAP_PLAN=$1; echo "1..$1"; }
ok()     { TAP_N=$((TAP_N + 1)); TAP_PASS=$((TAP_PASS + 1)); echo "ok $TAP_N - $*"; }
not_ok() { TAP_N=$((TAP_N + 1)); TAP_FAIL=$((TAP_FAIL + 1)); echo "not ok $TAP_N - $*"; }
skip() {
    TAP_N=$((TAP_N + 1)); TAP_SKIP=$((TAP_SKIP + 1))
    echo "ok $TAP_N - $1 # SKIP${2:+ $2}"
}
diag() { echo "# $*"; }
check() {
    local desc=$1; shift
    if "$@"; then ok "$desc"; else not_ok "$desc (exit $?: $*)"; fi
}
must() {
    local desc=$1; shift
    if "$@"; then ok "$desc"; else not_ok "$desc (exit $?: $*)"; tap_skip_all "'$desc' failed"; fi
}
tap_done() {
    [ -n "$TAP_PLAN" ] || echo "1..$TAP_N"
    echo "# $TAP_PASS passed, $TAP_FAIL failed, $TAP_SKIP skipped"
    if [ -n "$TAP_PLAN" ] && [ "$TAP_N" != "$TAP_PLAN" ]; then
        echo "# planned $TAP_PLAN tests but ran $TAP_N"
        return 1
    fi
    [ "$TAP_FAIL" = 0 ]
}
tap_skip_all() {
    if [ -z "$TAP_PLAN" ] && [ "$TAP_N" = 0 ]; then
        echo "1..0 # SKIP $*"
    else
        # A prerequisite that went missing after checks passed is no skip.
        [ "$TAP_N" -gt 0 ] && [ "$TAP_FAIL" = 0 ] && not_ok "the rest of the script cannot run: $*"
        while [ -n "$TAP_PLAN" ] && [ "$TAP_N" -lt "$TAP_PLAN" ]; do skip "remaining test" "$*"; done
        tap_done
        exit $?
    fi
    exit 0
}
require_root() { [ "$(id -u)" = 0 ] || tap_skip_all "must run as root"; }
expect_alloc_failures() {
    case $1 in
        on) echo "selftest: allocation failures expected from here" > /dev/kmsg ;;
        off) echo "selftest: allocation failures no longer expected" > /dev/kmsg ;;
        *) echo "expect_alloc_failures: on or off, not '$1'" >&2; return 2 ;;
    esac
}
require_rnbdctl() {
    ctl=$top/build/rnbdctl/rnbdctl
    [ -x "$ctl" ] || tap_skip_all "rnbdctl not built (make rnbdctl)"
    command -v jq >/dev/null || tap_skip_all "jq not installed"
}
require_module() {
    modprobe "$1" 2>/dev/null || tap_skip_all "module $1 not available"
}

# Prerequisites: each skips the whole script (tap_skip_all) when one is unmet.
#   require_built FILE...          our built modules (FILE relative to the repo top)
#   require_upstream KODIR MOD...  Linux's modules built by tools/upstream/build.sh into KODIR
#   require_upstream_client        root, our servers built, and Linux's client stack in $kodir,
#                                  whose modules it names in $upstream (load order)
#   require_tools TOOL...          commands on PATH
require_built() {
    local f
    for f in "$@"; do [ -f "$f" ] || tap_skip_all "$f not built (make)"; done
}
require_upstream() {
    local kodir=$1 m; shift
    for m in "$@"; do [ -f "$kodir/$m.ko" ] || tap_skip_all "$kodir/$m.ko missing (tools/upstream/build.sh)"; done
}
require_upstream_client() {
    upstream=(rtrs-core rtrs-client rnbd-client)
    require_root
    require_built rtrs/rtrs-server.ko rnbd/rnbd-server.ko
    require_upstream "$kodir" "${upstream[@]}"
}
require_tools() {
    local t
    for t in "$@"; do command -v "$t" >/dev/null || tap_skip_all "missing tool $t"; done
}

# Kernel log checks from a marker (a line count breaks once the ring buffer
# drops its oldest lines):
#   log_mark NAME     writes "selftest-mark NAME" to the kernel log
#   log_since NAME    the kernel log from the last such marker on (all of it if
#                     the marker was pushed out: what is left is newer)
log_mark() { echo "selftest-mark $1" > /dev/kmsg; }
log_since() {
    dmesg | awk -v m="selftest-mark $1" '
        { l = length($0) - length(m) + 1 }
        l > 0 && substr($0, l) == m { buf = ""; next }
        { buf = buf $0 "\n" }
        END { printf "%s", buf }'
}

# Teardown (a test's EXIT trap) and its last checks:
#   loaded MOD                     MOD is loaded (dashes or underscores)
#   unload_loaded MOD...           rmmod each one that is loaded, in order; one that stays
#                                  loaded is a "not ok" naming it (returns 1)
#   unmap_client_links CTL         force-unmap every device listed in CTL/devices (the
#                                  rnbd-client control directory, ours or Linux's)
#   expect_no_leak DESC TEXT [ERE] ok DESC unless TEXT (kernel log lines since the test
#                                  started) matches ERE (default: "cxxrt: leak")
loaded() { grep -qE "^${1//-/_} " /proc/modules; }
unload_loaded() {
    local m rc=0
    for m in "$@"; do
        grep -qE "^${m//-/_} " /proc/modules || continue
        rmmod "$m" || { not_ok "teardown of ${0#*selftests/}: rmmod $m failed"; rc=1; }
    done
    return $rc
}
unmap_client_links() {
    local l
    for l in "$1"/devices/*; do
        [ -L "$l" ] || continue
        echo force > "$(readlink -f "$l")/rnbd/unmap_device" 2>/dev/null
    done
    return 0
}
expect_no_leak() {
    if grep -qE "${3:-cxxrt: leak}" <<<"$2"; then not_ok "$1"; else ok "$1"; fi
}

# sysfs writes and their errno (bash reports a failed write with strerror's text):
#   errno_name TEXT       the errno name for an error message (OTHER(TEXT) if unknown)
#   wr FILE TEXT          write TEXT (no newline) in one write(); prints OK or the errno name
#   expect_errno DESC WANT FILE TEXT   ok if wr prints WANT (OK or an errno name)
#   wait_for TENTHS CMD...             run CMD every 0.1 s until it succeeds, at most TENTHS times
errno_name() {
    case $1 in
        *"Invalid argument"*) echo EINVAL ;;
        *"File exists"*) echo EEXIST ;;
        *"No such file or directory"*) echo ENOENT ;;
        *"Operation not permitted"*) echo EPERM ;;
        *"Device or resource busy"*) echo EBUSY ;;
        *"No such device or address"*) echo ENXIO ;;
        *"No such device"*) echo ENODEV ;;
        *"Block device required"*) echo ENOTBLK ;;
        *"Operation already in progress"*) echo EALREADY ;;
        *"Operation not supported"*) echo EOPNOTSUPP ;;
        *"Transport endpoint is not connected"*) echo ENOTCONN ;;
        *"Numerical result out of range"*) echo ERANGE ;;
        *"Permission denied"*) echo EACCES ;;
        *"Read-only file system"*) echo EROFS ;;
        *"Input/output error"*) echo EIO ;;
        *"File name too long"*) echo ENAMETOOLONG ;;
        *"Not a directory"*) echo ENOTDIR ;;
        *"Connection timed out"*) echo ETIMEDOUT ;;
        *"Connection refused"*) echo ECONNREFUSED ;;
        *"No route to host"*) echo EHOSTUNREACH ;;
        *"Invalid parameters"*) echo EINVAL ;;
        *) echo "OTHER($1)" ;;
    esac
}
wr() {
    local msg
    if msg=$( { printf '%s' "$2" > "$1"; } 2>&1 ); then echo OK; return 0; fi
    errno_name "$msg"
    return 1
}
expect_errno() {
    local got; got=$(wr "$3" "$4")
    if [ "$got" = "$2" ]; then ok "$1 -> $2"; else not_ok "$1: got $got, want $2"; fi
}
wait_for() {
    local n=$1; shift
    while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
    "$@"
}

# The RNBD stack in one VM (run from the repo top; UPSTREAM_KO_DIR holds
# Linux's modules, default .cache/upstream):
#   rnbd_server_load ours|upstream [rnbd-server args...]   load a server side
#   rnbd_server_unload                                       unload whichever is loaded
#   rnbd_client_load / rnbd_client_unload                    our client side
#   rnbd_unmap_all                                           force-unmap every rnbd device
#   rnbd_stack_setup PATHS BRD_KIB [rtrs-server args...]     Soft-RoCE with PATHS loopback
#                         paths (lib-rxe.sh), brd reloaded with one disk of BRD_KIB, and our
#                         four modules: rtrs-server (with the args), rnbd-server, both clients
#   rnbd_map LINE         write LINE to map_device; prints the new device's name (rnbdN)
#   diskstat DEV FIELD    a /proc/diskstats field of DEV, counted as awk's $N (4 reads,
#                         8 writes, 15 discards, 17 sectors discarded, 19 flushes)
mod_loaded() { grep -q "^$1 " /proc/modules; }
rnbd_server_load() {
    local which=$1 kodir=${UPSTREAM_KO_DIR:-.cache/upstream}; shift
    modprobe rdma_cm || return 1
    if [ "$which" = upstream ]; then
        insmod "$kodir/rtrs-core.ko" && insmod "$kodir/rtrs-server.ko" && insmod "$kodir/rnbd-server.ko" "$@"
    else
        insmod rtrs/rtrs-server.ko sess_queue_depth=128 && insmod rnbd/rnbd-server.ko "$@"
    fi
}
rnbd_server_unload() {
    local m rc=0
    for m in rnbd_server rtrs_server rtrs_core; do mod_loaded $m && { rmmod $m || rc=1; }; done
    return $rc
}
rnbd_client_load() { modprobe rdma_cm && insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko; }
rnbd_client_unload() {
    local m rc=0
    for m in rnbd_client rtrs_client; do mod_loaded $m && { rmmod $m || rc=1; }; done
    return $rc
}
rnbd_unmap_all() {
    local d
    for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    return 0
}
rnbd_stack_setup() {
    local paths=$1 brd_kib=$2; shift 2
    if mod_loaded brd; then rmmod brd || return 1; fi
    rxe_setup "$paths" >/dev/null || return 1
    modprobe rdma_cm && modprobe brd rd_nr=1 rd_size="$brd_kib" || return 1
    insmod rtrs/rtrs-server.ko "$@" && insmod rnbd/rnbd-server.ko &&
        insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko
}
# rnbd_stack_teardown: what a test's EXIT trap undoes: every mapping, our
# (or Linux's) client and server modules, the rxe devices (lib-rxe.sh). A
# module that stays loaded is a "not ok" naming it (the next script would
# otherwise fail in its place), and it returns 1.
rnbd_stack_teardown() {
    local m left=
    rnbd_unmap_all
    rnbd_client_unload
    rnbd_server_unload
    rxe_teardown >/dev/null 2>&1
    for m in rnbd_client rtrs_client rnbd_server rtrs_server rtrs_core; do mod_loaded $m && left="$left $m"; done
    [ -z "$left" ] && return 0
    not_ok "teardown of ${0#*selftests/}: still loaded after rmmod:$left"
    return 1
}
rnbd_map() {
    local before after d
    before=$(ls /sys/block | grep '^rnbd' | sort)
    echo "$1" > /sys/kernel/rnbd_client/map_device || return 1
    after=$(ls /sys/block | grep '^rnbd' | sort)
    # (no process substitution: the test VM has no /dev/fd)
    d=$(echo "$after" | grep -vxF -e "${before:-none}" | head -1)
    [ -n "$d" ] || return 1
    wait_for 50 test -b "/dev/$d" || return 1
    echo "$d"
}
diskstat() { awk -v d="$1" -v f="$2" '$3 == d { print $f }' /proc/diskstats; }

# Trace events with as little live patching of kernel text as the test
# allows. Each enable or disable of an event patches the kernel's text
# (static calls, jump labels), and so does the scheduler probe that records
# task names (options/record-cmd) on the first enable and the last disable;
# QEMU 7.2's multi-threaded TCG can leave a vCPU stuck on text another vCPU
# patches (tools/vm/README.md: seen once in a test, in 006's toggles).
# tracing_begin mounts tracefs if needed and turns task names off (the
# tests match event text, never task names). Between it and tracing_end,
# start and stop a window with tracing_on, which patches nothing, rather
# than by enabling and disabling events. tracing_end puts both settings
# back to the kernel's defaults (task names and tracing_on on).
tracing=/sys/kernel/tracing
tracing_begin() {
    [ -e $tracing/trace ] || mount -t tracefs nodev $tracing || return 1
    echo 0 > $tracing/options/record-cmd
}
tracing_end() {
    [ -w $tracing/options/record-cmd ] || return 0
    echo 1 > $tracing/options/record-cmd
    echo 1 > $tracing/tracing_on
}
