#!/usr/bin/env bash
# The four product modules load and unload cleanly, alone (with what they
# need) and together, with correct modinfo; each brings up its C++ runtime
# (debugfs allocations file). rnbd-* need their rtrs-* module.
# Every module parameter is in modinfo with a description and in
# /sys/module/<m>/parameters/ with its default, and each bad value is
# refused at insmod with its errno, the module not loaded.
. "$(dirname "$0")/../lib.sh"
require_root
cd "$(dirname "$0")/../.."
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
modprobe rdma_cm || tap_skip_all "rdma_cm not available"
tmp=$(mktemp -d /tmp/modules-001.XXXXXX)
loaded() { grep -q "^$1 " /proc/modules; }
cleanup() {
    for m in rnbd_server rnbd_client rtrs_server rtrs_client; do loaded $m && rmmod $m; done
    rm -rf "$tmp"
}
trap cleanup EXIT

# module: "name=default" of every parameter, in modinfo's order.
declare -A params=(
    [rtrs/rtrs-client]="read_slots=64"
    [rnbd/rnbd-client]="control_timeout_ms=120000"
    [rtrs/rtrs-server]="max_chunk_size=131072 sess_queue_depth=512 always_invalidate=Y max_sessions=64 info_timeout_ms=10000 max_sessions_per_client=8 max_connections_per_path=512 max_connections_per_client=1024 max_connections=8192"
    [rnbd/rnbd-server]="port_nr=1234 dev_search_path=/ file_export_dir= allow_realtime_ioprio=N allow_fileio_of_block_devices=N exports_only=N idle_session_timeout_ms=60000"
)
params_ok() { # module
    local m=$1 want="" got p
    for p in ${params[$m]}; do want+="${p%%=*} "; done
    got=$(modinfo -F parm "$m.ko" | sed 's/:.*//' | tr '\n' ' ')
    [ "$got" = "$want" ] || { diag "$m: modinfo parameters '$got', want '$want'"; return 1; }
    # A description, and the type or the range in it.
    if modinfo -F parm "$m.ko" | grep -vE '^[a-z_]+:.{20,}'; then diag "$m: a parameter without a description"; return 1; fi
}
defaults_ok() { # module name
    local p name=$2 v
    for p in ${params[$1]}; do
        v=$(cat "/sys/module/$name/parameters/${p%%=*}") || return 1
        [ "$v" = "${p#*=}" ] || { diag "$name: ${p%%=*} reads '$v', default '${p#*=}'"; return 1; }
    done
    [ -n "${params[$1]}" ] || [ ! -d "/sys/module/$name/parameters" ] || {
        diag "$name: parameters $(ls "/sys/module/$name/parameters")"; return 1; }
}

for pair in "rtrs/rtrs-client:" "rtrs/rtrs-server:" "rnbd/rnbd-client:rtrs/rtrs-client" "rnbd/rnbd-server:rtrs/rtrs-server"; do
    m=${pair%%:*}; dep=${pair#*:}
    name=$(basename "$m" | tr - _)
    check "$name: modinfo vermagic matches the running kernel" \
        bash -c "modinfo -F vermagic $m.ko | grep -q \"^$(uname -r) \""
    check "$name: modinfo lists exactly its parameters (${params[$m]:-none}), each described" params_ok "$m"
    [ -n "$dep" ] && insmod "$dep.ko"
    check "$name: insmod" insmod "$m.ko"
    check "$name: /sys/module/$name/parameters holds the defaults" defaults_ok "$m" "$name"
    check "$name: allocation accounting in debugfs" grep -q "^type" "/sys/kernel/debug/$name/allocations"
    check "$name: rmmod" rmmod "$name"
    [ -n "$dep" ] && rmmod "$(basename "$dep" | tr - _)"
    check "$name: gone after rmmod" test ! -e "/sys/module/$name"
done

# --- bad values at load ------------------------------------------------------------------------
# insmod (kmod) prints its own text for some errnos.
insmod_errno() { # module args...
    local msg
    if msg=$(insmod "$@" 2>&1); then echo OK; return; fi
    case $msg in
        *"Unknown symbol in module"*) echo ENOENT ;;
        *"Invalid parameters"*) echo EINVAL ;;
        *) errno_name "$msg" ;;
    esac
}
refused() { # errno module name args...
    local want=$1 m=$2 name=$3; shift 3
    local got; got=$(insmod_errno "$m.ko" "$@")
    if loaded "$name"; then
        not_ok "$name $*: loaded ($got), want $want"
        rmmod "$name"
        return
    fi
    if [ "$got" = "$want" ]; then ok "$name $* refused at load -> $want, not loaded"; else not_ok "$name $*: got $got, want $want"; fi
}
long=/$(printf 'a%.0s' $(seq 4095))
: > "$tmp/file"
refused EINVAL rtrs/rtrs-client rtrs_client read_slots=-1
refused EINVAL rtrs/rtrs-client rtrs_client read_slots=4097
refused EINVAL rtrs/rtrs-client rtrs_client read_slots=abc
check "rtrs_client: loads with read_slots=0 (every READ registers) and with 4096" \
    bash -c "insmod rtrs/rtrs-client.ko read_slots=0 && grep -qx 0 /sys/module/rtrs_client/parameters/read_slots &&
             rmmod rtrs_client && insmod rtrs/rtrs-client.ko read_slots=4096 && rmmod rtrs_client"
refused EINVAL rtrs/rtrs-server rtrs_server max_chunk_size=4096
refused EINVAL rtrs/rtrs-server rtrs_server max_chunk_size=12288
refused EINVAL rtrs/rtrs-server rtrs_server max_chunk_size=-131072
refused EINVAL rtrs/rtrs-server rtrs_server max_chunk_size=abc
refused EINVAL rtrs/rtrs-server rtrs_server max_chunk_size=1073741824 sess_queue_depth=65535
refused EINVAL rtrs/rtrs-server rtrs_server sess_queue_depth=0
refused EINVAL rtrs/rtrs-server rtrs_server sess_queue_depth=65536
refused EINVAL rtrs/rtrs-server rtrs_server always_invalidate=maybe
refused EINVAL rtrs/rtrs-server rtrs_server max_sessions=0
refused EINVAL rtrs/rtrs-server rtrs_server max_sessions=65536
refused EINVAL rtrs/rtrs-server rtrs_server info_timeout_ms=999
refused EINVAL rtrs/rtrs-server rtrs_server info_timeout_ms=300001
refused EINVAL rtrs/rtrs-server rtrs_server max_sessions_per_client=0
refused EINVAL rtrs/rtrs-server rtrs_server max_connections_per_path=0
refused EINVAL rtrs/rtrs-server rtrs_server max_connections_per_path=4097
refused EINVAL rtrs/rtrs-server rtrs_server max_connections_per_client=0
refused EINVAL rtrs/rtrs-server rtrs_server max_connections=0
check "rtrs_server: loads with every parameter at a good non-default value" \
    insmod rtrs/rtrs-server.ko max_chunk_size=65536 sess_queue_depth=128 always_invalidate=N max_sessions=4 info_timeout_ms=5000
refused EINVAL rnbd/rnbd-server rnbd_server port_nr=0
refused ERANGE rnbd/rnbd-server rnbd_server port_nr=65536
refused EINVAL rnbd/rnbd-server rnbd_server port_nr=x
refused EINVAL rnbd/rnbd-server rnbd_server dev_search_path=dev
refused EINVAL rnbd/rnbd-server rnbd_server dev_search_path=
refused EINVAL rnbd/rnbd-server rnbd_server "dev_search_path=$long"
refused EINVAL rnbd/rnbd-server rnbd_server file_export_dir=tmp
refused ENOENT rnbd/rnbd-server rnbd_server file_export_dir=/nonexistent-dir
refused ENOTDIR rnbd/rnbd-server rnbd_server "file_export_dir=$tmp/file"
refused ENAMETOOLONG rnbd/rnbd-server rnbd_server "file_export_dir=$long"
refused EINVAL rnbd/rnbd-server rnbd_server allow_realtime_ioprio=maybe
refused EINVAL rnbd/rnbd-server rnbd_server allow_fileio_of_block_devices=maybe
refused EINVAL rnbd/rnbd-server rnbd_server idle_session_timeout_ms=999
refused EINVAL rnbd/rnbd-server rnbd_server idle_session_timeout_ms=86400001
check "rnbd_server: loads with every parameter at a good non-default value" \
    insmod rnbd/rnbd-server.ko port_nr=1235 dev_search_path=/dev "file_export_dir=$tmp" allow_realtime_ioprio=Y \
        allow_fileio_of_block_devices=Y idle_session_timeout_ms=5000
runtime_ok() { # the writable parameters refuse bad values and keep theirs
    local p=/sys/module/rnbd_server/parameters
    [ "$(wr $p/allow_realtime_ioprio maybe)" = EINVAL ] && [ "$(cat $p/allow_realtime_ioprio)" = Y ] &&
        [ "$(wr $p/allow_fileio_of_block_devices maybe)" = EINVAL ] &&
        [ "$(cat $p/allow_fileio_of_block_devices)" = Y ] &&
        [ "$(wr $p/file_export_dir relative)" = EINVAL ] && [ "$(cat $p/file_export_dir)" = "$tmp" ] &&
        [ "$(wr $p/idle_session_timeout_ms 0)" = EINVAL ] && [ "$(cat $p/idle_session_timeout_ms)" = 5000 ] &&
        [ "$(cat $p/port_nr) $(cat $p/dev_search_path)" = "1235 /dev" ]
}
check "rnbd_server: bad writes to allow_realtime_ioprio, allow_fileio_of_block_devices, file_export_dir and idle_session_timeout_ms refused, values kept" runtime_ok
check "both servers unload" bash -c "rmmod rnbd_server && rmmod rtrs_server"

all_ok=1
for m in rtrs/rtrs-client rtrs/rtrs-server rnbd/rnbd-client rnbd/rnbd-server; do insmod "$m.ko" || all_ok=0; done
[ $all_ok = 1 ] && ok "all four load together" || not_ok "all four load together"
check "rtrs_client is refused while rnbd_client uses it" bash -c '! rmmod rtrs_client 2>/dev/null'
all_ok=1
for m in rnbd_server rnbd_client rtrs_server rtrs_client; do rmmod "$m" || all_ok=0; done
[ $all_ok = 1 ] && ok "all four unload in reverse order" || not_ok "all four unload in reverse order"
tap_done; exit $?
