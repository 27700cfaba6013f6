#!/usr/bin/env bash
# Boots two test VMs ("a" and "b") joined by one virtual wire: each has a
# virtio-net NIC (device id nic0, netdev id net0; eth0 in the guest) on one
# QEMU "-netdev stream" unix socket, a listening (server=on), b connecting.
# Each runs its own command; both consoles are logged and both runs checked
# exactly like tools/vm/run.sh (same markers, log checks and exit codes).
#
# Usage: tools/vm/run-pair.sh [options] --cmd-a 'CMD' --cmd-b 'CMD'
#   --cmd-a CMD / --cmd-b CMD   shell command lines (bash -c) for VM a / VM b
#   --dir DIR        logs and sockets (default build/vm/pair): a.log, b.log,
#                    net.sock (the wire), mon-a.sock, mon-b.sock (QEMU monitors)
#   --results DIR    host dir shared read-write at /results in BOTH guests
#                    (default DIR/results)
#   --timeout S      per VM (default 600)    --smp N (default 1)   --mem MB (default 1024)
#   --kernel PATH / --kdir DIR / --abi ABI   as in run.sh (both VMs)
#   --kernel-b PATH / --kdir-b DIR / --abi-b ABI   VM b only (another kernel
#                    than a's: cross-version tests, selftests/pair/rnbd-cross-version.sh)
#   --expect-fail    exit 0 only if at least one VM run failed
# Cable pull: from the host, while the VMs run:
#   tools/vm/monitor.sh build/vm/pair/mon-b.sock set_link nic0 off   (and ... on)
# or from inside a guest: tools/vm/vmctl.sh b set_link nic0 off  (relayed by this
# script through /results/.vmctl/; see README.md).
# Exit: 0 if both VMs passed, else the first non-zero run.sh code (a before b).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
die() { echo "run-pair.sh: error: $*" >&2; exit 2; }

dir=$top/build/vm/pair results='' cmd_a='' cmd_b='' expect_fail=0
common=(--timeout 600 --smp 1 --mem 1024)
extra=() extra_b=()
while [ $# -gt 0 ]; do
    case "$1" in
        --cmd-a) cmd_a=${2:?}; shift 2 ;;
        --cmd-b) cmd_b=${2:?}; shift 2 ;;
        --dir) dir=${2:?}; shift 2 ;;
        --results) results=${2:?}; shift 2 ;;
        --timeout|--smp|--mem|--kernel|--kdir|--abi) extra+=("$1" "${2:?}"); shift 2 ;;
        --kernel-b|--kdir-b|--abi-b) extra_b+=("${1%-b}" "${2:?}"); shift 2 ;;
        --expect-fail) expect_fail=1; shift ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) die "unknown option '$1'" ;;
    esac
done
[ -n "$cmd_a" ] && [ -n "$cmd_b" ] || die "need --cmd-a and --cmd-b"
command -v socat >/dev/null || die "socat missing (run tools/setup.sh)"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ -n "$results" ] || results=$dir/results
mkdir -p "$results"
results=$(cd "$results" && pwd)
[ ${#dir} -lt 90 ] || die "--dir path too long for unix sockets: $dir"
net=$dir/net.sock
rm -f "$net" "$dir/mon-a.sock" "$dir/mon-b.sock"
rm -rf "$results/.vmctl"; mkdir -p "$results/.vmctl"
"$here/mkinitramfs.sh" >/dev/null   # build once, before two VMs race for it
if [ ${#extra_b[@]} -gt 0 ]; then   # b's kernel: its own initramfs
    kb=() ; i=0
    while [ $i -lt ${#extra_b[@]} ]; do
        case ${extra_b[$i]} in --kdir|--abi) kb+=("${extra_b[$i]}" "${extra_b[$((i + 1))]}") ;; esac
        i=$((i + 2))
    done
    [ ${#kb[@]} -gt 0 ] && "$here/mkinitramfs.sh" "${kb[@]}" >/dev/null
fi

pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -f "$net"
}
trap cleanup EXIT INT TERM

"$here/run.sh" "${common[@]}" "${extra[@]}" --name vm-a --prefix '[a] ' --log "$dir/a.log" \
    --results "$results" --monitor "$dir/mon-a.sock" --nic-server "$net" --mac 52:54:00:00:00:0a \
    -- bash -c "$cmd_a" &
pa=$!; pids+=("$pa")
for _ in $(seq 100); do [ -S "$net" ] && break; kill -0 "$pa" 2>/dev/null || break; sleep 0.1; done
[ -S "$net" ] || die "VM a did not create the wire socket $net"
"$here/run.sh" "${common[@]}" "${extra[@]}" "${extra_b[@]}" --name vm-b --prefix '[b] ' --log "$dir/b.log" \
    --results "$results" --monitor "$dir/mon-b.sock" --nic-client "$net" --mac 52:54:00:00:00:0b \
    -- bash -c "$cmd_b" &
pb=$!; pids+=("$pb")

# Relay monitor requests from the guests: a guest writes /results/.vmctl/<id>.req
# holding "<vm> <monitor command>"; the answer goes to <id>.out, monitor.sh's
# status to <id>.rc, then <id>.done appears.
relay() {
    local f id vm cmd
    for f in "$results"/.vmctl/*.req; do
        [ -e "$f" ] || continue
        id=${f%.req}
        read -r vm cmd < "$f" || true
        rm -f "$f"
        case "$vm" in a|b) ;; *) echo "bad vm '$vm'" > "$id.out"; touch "$id.done"; continue ;; esac
        echo "run-pair.sh: guest request: vm $vm: $cmd" >&2
        if "$here/monitor.sh" "$dir/mon-$vm.sock" "$cmd" > "$id.out" 2>&1; then echo 0; else echo 1; fi > "$id.rc"
        touch "$id.done"
    done
}
while kill -0 "$pa" 2>/dev/null || kill -0 "$pb" 2>/dev/null; do relay; sleep 0.2; done
set +e
wait "$pa"; ra=$?
wait "$pb"; rb=$?
set -e
pids=()
echo "run-pair.sh: vm-a exit $ra (log $dir/a.log), vm-b exit $rb (log $dir/b.log)" >&2
code=$ra; [ "$code" != 0 ] || code=$rb
if [ "$expect_fail" = 1 ]; then
    [ "$code" != 0 ] && { echo "run-pair.sh: --expect-fail: failure observed as expected" >&2; exit 0; }
    echo "run-pair.sh: --expect-fail: both runs PASSED" >&2; exit 1
fi
[ "$code" = 0 ] && echo "run-pair.sh: PASS" >&2 || echo "run-pair.sh: FAIL" >&2
exit "$code"
