#!/usr/bin/env bash
# The hostile peer (rtrs/tests/kmod/rtrs-hostile.ko) against our server
# (rtrs-server + rnbd-server over Soft-RoCE loopback): every case sends one
# class of bad input and must see the server refuse it (connect rejected,
# path closed, or an error answer); one TAP line per case. Then the server
# still serves a well-behaved client (our rnbd-client, fio --verify=crc32c),
# unloads cleanly, and reports no leak.
#
# Cases the product does not pass yet carry "# TODO <reason>" (see TODO
# below); cases that would hang or crash the VM are not run (SKIP below).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
. selftests/hostile/lib-hostile.sh
hostile_init srv
objects=$tmp/objects

# Known failures of the product (case -> what it does), reported as TAP
# TODO, and cases not run because they would hang or crash the VM. Both are
# empty: every case passes. Keep them for a case written before its fix.
declare -A TODO=()
declare -A SKIP=()

cleanup() { hostile_cleanup rtrs_hostile rnbd_client rtrs_client rnbd_server rtrs_server; }
trap cleanup EXIT

setup() {
    rxe_setup 2 >/dev/null || return 1
    modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=65536 || return 1
    mkdir -p "$objects/dir" && truncate -s 4M "$objects/file" && mkfifo "$objects/fifo" || return 1
    python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$objects/sock" || return 1
    insmod rtrs/rtrs-server.ko sess_queue_depth=100 && insmod rnbd/rnbd-server.ko
}
check "setup: rxe, brd, the objects to OPEN, rtrs-server + rnbd-server" setup || tap_skip_all "setup failed"
# The second address: con_req_reconnect_other_address connects to it, so
# that its CON_REQ comes from another client address than the path's.
addr=${RXE_ADDR[0]} addr2=${RXE_ADDR[1]}

# cases_of FILE: one line per case verdict in the kernel log FILE,
# "name verdict observed dump" (separated by \037), where dump is the first line
# between the case's start and its verdict that says the kernel dumped a
# stack for a duplicate sysfs name (or a failed kobject_add), if any. One
# awk pass: a fork per case line made this loop take minutes under TCG.
sysfs_dup_re='cannot create duplicate filename|kobject_add_internal failed'
cases_of() {
    awk -v re="$sysfs_dup_re" '
        /rtrs_hostile: # case [a-z0-9_]+: start$/ {
            current = $0; sub(/^.*rtrs_hostile: # case /, "", current); sub(/: start$/, "", current)
            dump[current] = ""; next
        }
        current != "" && $0 ~ re && dump[current] == "" { line = $0; sub(/^\[[^]]*\] /, "", line); dump[current] = line }
        /rtrs_hostile: case [a-z0-9_]+: / {
            rest = $0; sub(/^.*rtrs_hostile: case /, "", rest)
            name = rest; sub(/: .*$/, "", name)
            verdict = rest; sub(/^[a-z0-9_]+: /, "", verdict)
            observed = ""
            if (index(verdict, " (") > 0) {
                observed = substr(verdict, index(verdict, " (") + 2); sub(/\)$/, "", observed)
                verdict = substr(verdict, 1, index(verdict, " (") - 1)
            }
            printf "%s\037%s\037%s\037%s\n", name, verdict, observed, dump[name]
            if (name == current) current = ""
        }' "$1"
}
# run_hostile NAME ARGS...: loads the hostile module with ARGS, turns its
# "case <name>: pass|fail|skip (<observed>)" log lines into TAP lines.
run_hostile() {
    local what=$1 marker="run-$RANDOM-$SECONDS" name verdict observed dump ran=0 mod_run=0 mod_failed=0; shift
    mark "$marker"
    local t0=$SECONDS
    insmod $ko addr="$addr" "$@" || not_ok "$what: the hostile module loads and runs its cases"
    diag "$what: the hostile cases took $((SECONDS - t0)) s"
    since_mark "$marker" > "$tmp/full"
    grep 'rtrs_hostile: # ' "$tmp/full" | grep -v ': start$' | sed 's/^\[[^]]*\] //; s/^rtrs_hostile: # /# /'
    cases_of "$tmp/full" > "$tmp/cases"
    while IFS=$'\037' read -r name verdict observed dump; do
        ran=$((ran + 1))
        # What the module itself counts (before this script judges a dump).
        case $verdict in pass) mod_run=$((mod_run + 1)) ;; fail) mod_run=$((mod_run + 1)) mod_failed=$((mod_failed + 1)) ;; esac
        # A case whose input made the kernel dump a stack for a duplicate
        # sysfs name (or a failed kobject_add) fails whatever it observed.
        if [ "$verdict" = pass ] && [ -n "$dump" ]; then
            verdict=fail observed="$observed; the kernel logged: $dump"
        fi
        case $verdict in
            pass)
                if [ -n "${TODO[$name]:-}" ]; then ok "$name: $observed (no longer a TODO: ${TODO[$name]})"
                else ok "$name: $observed"; fi ;;
            skip) skip "$name" "TODO ${SKIP[$name]:-not run}" ;;
            *)
                if [ "$name" = rnbd_io_realtime_prio ] && [ "$observed" = "accepted: answered with success" ]; then
                    # Served, as the server's policy says: with
                    # allow_realtime_ioprio off it lowers the class to
                    # best-effort (invisible on the wire).
                    ok "$name: served at best-effort (allow_realtime_ioprio=$(cat /sys/module/rnbd_server/parameters/allow_realtime_ioprio 2>/dev/null))"
                elif [ -n "${TODO[$name]:-}" ]; then
                    TAP_N=$((TAP_N + 1)); echo "not ok $TAP_N - $name: $observed # TODO ${TODO[$name]}"
                else
                    not_ok "$name: $observed"
                fi ;;
        esac
    done < "$tmp/cases"
    [ "$ran" -gt 0 ] || not_ok "$what: the hostile module reported its cases"
    # The module's own count ("# hostile: N cases run, M failed, ..."): a
    # verdict line lost from the kernel log (the ring buffer overran the
    # marker) would otherwise go unnoticed.
    local summary got= want="$mod_run cases run, $mod_failed failed"
    summary=$(grep -E 'rtrs_hostile: # hostile: [0-9]+ cases run, [0-9]+ failed' "$tmp/full" | tail -1)
    [[ $summary =~ \#\ hostile:\ ([0-9]+\ cases\ run,\ [0-9]+\ failed) ]] && got=${BASH_REMATCH[1]}
    if [ -z "$summary" ]; then not_ok "$what: the hostile module's summary line is in the log (read: $want)"
    elif [ "$got" = "$want" ]; then ok "$what: the module's summary agrees with the verdicts read ($want)"
    else not_ok "$what: the module says '$got', the log holds the verdicts of $want"; fi
    check "$what: the hostile module unloads" rmmod rtrs_hostile
}
skip_list=$(IFS=,; echo "${!SKIP[*]}")
mark start-001
run_hostile "bad input" dir="$objects" blockdev=/dev/ram0 addr2="$addr2" skip="$skip_list"

# The server still serves a well-behaved client, and everything unloads.
serves_good_client() { # label
    local label=$1
    check "$label: our client loads" bash -c "insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko"
    check "$label: the server still maps /dev/ram0 for a good client" \
        bash -c "echo 'sessname=good-$RANDOM path=ip:$addr device_path=/dev/ram0' > /sys/kernel/rnbd_client/map_device"
    check "$label: fio randwrite 4k-128k QD16 on it with crc32c verify" fio_verify
    check "$label: unmap" bash -c "echo normal > /sys/block/rnbd0/rnbd_client/unmap_device"
    check "$label: all modules unload" \
        bash -c "rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server"
}
fio_verify() { hostile_fio_verify /dev/rnbd0 "${HOSTILE_FIO_SIZE:-16M}" 128k 16; }
serves_good_client "after the bad input"

# Floods from one client, each path with its connections up and INFO done
# (so its chunk memory is allocated and registered): many sessions, then
# many paths of one session. Refused beyond the server's limits, memory
# bounded (MemAvailable sampled throughout: the floods take at most
# flood_mem_kib while they last and give back all but settle_mem_kib; seen:
# at most 40 MiB and 5 MiB), the server healthy after.
flood=24 flood_paths=136 limit=8
flood_mem_kib=$((128 * 1024)) settle_mem_kib=$((32 * 1024))
free_kib() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }
srv_args="sess_queue_depth=16"
srv_args="$srv_args max_sessions=$limit"
check "flood: rtrs-server ($srv_args) + rnbd-server load" \
    bash -c "insmod rtrs/rtrs-server.ko $srv_args && insmod rnbd/rnbd-server.ko"
mem_before=$(free_kib)
( low=$mem_before; while [ ! -e "$tmp/flood.done" ]; do m=$(free_kib); [ "$m" -lt "$low" ] && low=$m; echo "$low" > "$tmp/flood.low"; sleep 0.2; done ) &
sampler=$!
# One load per flood: the second one logs enough to push the first one's
# lines out of the kernel's ring buffer.
run_hostile "flood of sessions" only=flood_sessions flood=$flood
run_hostile "flood of paths" only=flood_paths flood_paths=$flood_paths
touch "$tmp/flood.done"; wait $sampler
sleep 2
mem_after=$(free_kib)
mem_low=$(cat "$tmp/flood.low")
diag "flood of $flood sessions, then $flood_paths paths of one session ($srv_args, 128 KiB chunks): MemAvailable before $mem_before KiB, lowest during $mem_low KiB, after $mem_after KiB"
check "flood: memory bounded while it lasts (took $((mem_before - mem_low)) KiB of MemAvailable, at most $flood_mem_kib)" \
    test $((mem_before - mem_low)) -le $flood_mem_kib
check "flood: memory given back after it (short by $((mem_before - mem_after)) KiB, at most $settle_mem_kib)" \
    test $((mem_before - mem_after)) -le $settle_mem_kib
serves_good_client "after the flood"

if since_mark start-001 | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
