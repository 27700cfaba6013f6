#!/usr/bin/env bash
# The most paths a session may have: 128 in one session of our RTRS client
# (the session starts with one, add_path adds 127 more, each
# from another source address of the same Soft-RoCE device to its address),
# verified IO spread over all of them with round-robin, then every added
# path removed again while IO runs; one more add_path is refused (EINVAL).
# The server runs with sess_queue_depth=32 (the test module keeps 32 IOs in
# flight) and 16 KiB chunks, so 128 paths' chunks take 64 MiB.
# TAP output; root, in the VM.
# shellcheck source=selftests/rtrs/004-multipath-policies.sh
RTRS_CLT_LIB_ONLY=1 . "$(dirname "$0")/004-multipath-policies.sh"
npaths=128
CLT_SERVER_ARGS=max_chunk_size=16384 clt_setup 1 1 N 32
a0=${RXE_ADDR[0]}
sources=()
for ((i = 1; i < npaths; i++)); do sources+=("192.0.2.$((100 + i))"); done
add_sources() { printf "addr add %s/32 dev ${RXE_NETDEV[0]}\n" "${sources[@]}" | ip -batch -; }
check "$((npaths - 1)) more source addresses on ${RXE_NETDEV[0]}" add_sources
add_all() {
    local s
    for s in "${sources[@]}"; do
        echo "ip:$s@ip:$a0" > $clt_sess_dir/add_path || { echo "add_path ip:$s@ip:$a0 failed"; return 1; }
    done
}
start=$SECONDS
check "add_path $((npaths - 1)) paths" add_all
diag "adding took $((SECONDS - start)) s"
check "$npaths path directories, all connected" bash -c "[ \$(ls $clt_sess_dir/paths | wc -l) = $npaths ] && [ \$(grep -l '^connected\$' $clt_sess_dir/paths/*/state | wc -l) = $npaths ]"
echo rr > $clt_sess_dir/mpath_policy
for d in $clt_sess_dir/paths/*/; do echo 1 > "$d/stats/reset_all"; done
cat $clt_checkfile > /tmp/mp-check1
check "verified IO over $npaths paths" clt_io_clean /tmp/mp-check1
used_by_all() {
    local d n=0 idle=0
    for d in $clt_sess_dir/paths/*/; do
        n=$((n + 1)); [ "$(clt_ios "$d")" -gt 0 ] || { idle=$((idle + 1)); echo "idle: $d"; }
    done
    echo "$n paths, $idle without IO"; [ $idle = 0 ]
}
check "round-robin gave every one of the $npaths paths IO" used_by_all
ip addr add 192.0.2.250/32 dev "${RXE_NETDEV[0]}"
expect_errno "add_path number $((npaths + 1)) is refused" EINVAL $clt_sess_dir/add_path "ip:192.0.2.250@ip:$a0"
remove_added() {
    local s
    for s in "${sources[@]}"; do echo 1 > "$clt_sess_dir/paths/ip:$s@ip:$a0/remove_path" || return 1; done
}
cat $clt_checkfile > /tmp/mp-check2 &
reader=$!
sleep 1
check "remove the $((npaths - 1)) added paths while IO runs" remove_added
wait $reader
check "no IO lost, failed or corrupted" clt_io_clean /tmp/mp-check2
check "one path left" bash -c "[ \$(ls $clt_sess_dir/paths | wc -l) = 1 ]"

clt_finish; exit $?
