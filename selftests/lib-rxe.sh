# shellcheck shell=bash
# Soft-RoCE paths inside one test VM.  Source it after lib.sh (it needs root).
#
# Soft-RoCE between two rxe devices of one network namespace passes no traffic,
# but an rxe device looping back to its own address does; so each "path" i is
# an rxe device on its own netdev, talking to its own address:
#   netdev  RXE_NETDEV[i] = vethA_i (veth, peer vethB_i), or dummy_i with RXE_NETDEV_TYPE=dummy
#   rdma    RXE_DEV[i]    = ${RXE_PREFIX:-rxe}i
#   IPv4    RXE_ADDR[i]   : even i in 192.0.2.0/24, odd i in 198.51.100.0/24, a /28 each:
#                           path 0 192.0.2.1, 1 198.51.100.1, 2 192.0.2.17, 3 198.51.100.17 ...
#   IPv6    RXE_ADDR6[i]  = 2001:db8:<i>::1/64 (only with RXE_IPV6=1)
#
#   rxe_setup K        create K paths (modprobe rdma_rxe; waits for ACTIVE ports); 0 on success
#   rxe_teardown       delete everything rxe_setup created (safe to call twice)
#   rxe_wait_active DEV [SECONDS]

# shellcheck disable=SC2034  # used by the scripts that source this file
RXE_DEV=() RXE_NETDEV=() RXE_ADDR=() RXE_ADDR6=() RXE_COUNT=0

rxe_addr4() { # path index -> address (no prefix length)
    local i=$1
    if [ $((i % 2)) = 0 ]; then echo "192.0.2.$((16 * (i / 2) + 1))"; else echo "198.51.100.$((16 * (i / 2) + 1))"; fi
}

rxe_wait_active() {
    local dev=$1 t=$((${2:-10} * 10))
    while [ "$t" -gt 0 ]; do
        rdma link show "$dev/1" 2>/dev/null | grep -q 'state ACTIVE' && return 0
        sleep 0.1; t=$((t - 1))
    done
    echo "rxe_wait_active: $dev/1 not ACTIVE: $(rdma link show "$dev/1" 2>&1)" >&2
    return 1
}

rxe_setup() {
    local k=${1:?rxe_setup K} i nd dev a type=${RXE_NETDEV_TYPE:-veth}
    modprobe rdma_rxe || { echo "rxe_setup: modprobe rdma_rxe failed" >&2; return 1; }
    [ "$type" = veth ] && { modprobe veth || return 1; }
    [ "$type" = dummy ] && { modprobe dummy numdummies=0 || return 1; }
    ip link set lo up
    for ((i = 0; i < k; i++)); do
        dev=${RXE_PREFIX:-rxe}$i
        if [ "$type" = veth ]; then
            nd=vethA_$i
            ip link add "$nd" type veth peer name "vethB_$i" || return 1
            ip link set "vethB_$i" up || return 1
        else
            nd=dummy_$i
            ip link add "$nd" type dummy || return 1
        fi
        RXE_NETDEV[i]=$nd
        a=$(rxe_addr4 "$i")
        ip addr add "$a/28" dev "$nd" || return 1
        RXE_ADDR[i]=$a
        if [ "${RXE_IPV6:-0}" = 1 ]; then
            ip addr add "2001:db8:$i::1/64" dev "$nd" nodad || return 1
            RXE_ADDR6[i]=2001:db8:$i::1
        fi
        ip link set "$nd" up || return 1
        rdma link add "$dev" type rxe netdev "$nd" || return 1
        RXE_DEV[i]=$dev
        RXE_COUNT=$((i + 1))
    done
    for ((i = 0; i < k; i++)); do rxe_wait_active "${RXE_DEV[i]}" || return 1; done
}

rxe_teardown() {
    local i rc=0
    for ((i = RXE_COUNT - 1; i >= 0; i--)); do
        [ -n "${RXE_DEV[i]:-}" ] && { rdma link delete "${RXE_DEV[i]}" || rc=1; }
        [ -n "${RXE_NETDEV[i]:-}" ] && { ip link del "${RXE_NETDEV[i]}" || rc=1; }
    done
    # shellcheck disable=SC2034
    RXE_DEV=() RXE_NETDEV=() RXE_ADDR=() RXE_ADDR6=() RXE_COUNT=0
    return $rc
}
