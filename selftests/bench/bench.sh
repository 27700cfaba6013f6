#!/usr/bin/env bash
# Guest side of `make bench` (tools/bench.sh runs it in one VM and reports).
#
# Three stacks over the same Soft-RoCE loopback and the same backing device:
#   ours      our rtrs/rnbd modules
#   upstream  Linux's RNBD/RTRS built from Debian's linux-source-6.1
#   nvmeof    NVMe over Fabrics on RDMA (nvmet-rdma + nvme-rdma, Debian's own)
#   baseline  our modules built from another commit (BENCH_BASELINE_DIR), so
#             that a change is measured before/after in the same run
#   device    the backing device itself, without a network: a ceiling
# For each of BENCH_ROUNDS rounds the stack order is rotated by one, so no
# stack always runs first (or last, on a warmer or more fragmented guest).
# Each stack is loaded, the backing device mapped, every workload run, then
# everything is unmapped and unloaded before the next stack.
#
# One JSON object per (round, stack, workload) goes to $BENCH_OUT.jsonl: fio's
# own JSON plus the guest's busy and total jiffies over the run (from the
# `cpu` line of /proc/stat), from which the report derives CPU time per IO.
# A stack or workload that fails is recorded with "error", never skipped.
#
# Environment:
#   BENCH_RUNTIME   seconds per workload (default 10; 2 s of ramp before)
#   BENCH_ROUNDS    rounds (default 3)
#   BENCH_STACKS    stacks in round-0 order (default "ours upstream nvmeof")
#   BENCH_BACKING   brd (1 GiB RAM disk, filled with random data before any
#                   read) or null (null_blk, no data: isolates the transport)
#   BENCH_WORKLOADS names to run (default all, see the table below)
#   BENCH_POLL_QUEUES  poll queues of every stack's map (default 0: the default
#                   map, what users run; the polled workload then gets a
#                   fresh map of its own with one poll queue)
#   BENCH_RNBD_OPTS extra map_device options for both RNBD stacks
#   BENCH_PROFILE   1: after the measured rounds, one more run per stack of
#                   each BENCH_PROFILE_WORKLOADS workload (default
#                   randread-4k-qd32) under `perf record -a -g -e cpu-clock`;
#                   its top symbols go to $BENCH_OUT.profile-<stack>-<workload>.txt.
#                   That run is not part of any figure (nothing in the .jsonl).
#   BENCH_PROFILE_GRAPH 1: that run's shares per task and call graphs (every
#                   symbol of at least 1.5 % with its callees) as well, in
#                   $BENCH_OUT.graph-<stack>-<workload>.txt
#   BENCH_COUNTS    1 (default): after the rounds, one more run per stack of
#                   each BENCH_COUNTS_WORKLOADS workload (default the six
#                   4k and 128k ones) counting, per IO: ib_post_send and
#                   ib_post_recv calls, completions, CQ events, CQ polls and
#                   CQ arms (kprobes on rdma_rxe's verbs, read from
#                   kprobe_profile: the same for every stack), context
#                   switches, softirqs (TASKLET, IRQ_POLL, NET_RX), rxe's
#                   packets sent and received, and inter-processor
#                   interrupts (rescheduling, function call). One JSON object per run to
#                   $BENCH_OUT.counts.jsonl; those runs are not part of any
#                   figure (the probes cost instructions).
#   BENCH_SCALE     1: last, the scale workload (below): per RNBD stack,
#                   BENCH_SCALE_DEVICES (64, or a list: each) memory-less
#                   null_blk devices through one session, then a session
#                   each (servers at sess_queue_depth BENCH_SCALE_QUEUE_DEPTH,
#                   16); fio only up to BENCH_SCALE_IO_DEVICES (64)
#                   devices; one JSON object per stack, variant and count to
#                   $BENCH_OUT.scale.jsonl
#   BENCH_CEILINGS  1 (default when workloads run): after the rounds, the
#                   link's ceilings: perftest's ib_read_lat, ib_send_lat,
#                   ib_read_bw and ib_send_bw over the same rxe device and
#                   address (RDMA-CM), at 4 KiB and 128 KiB; one JSON object
#                   per test to $BENCH_OUT.ceilings.jsonl. The backing
#                   device's own ceiling is the `device` stack.
#   BENCH_WORKLOADS=none: no measured rounds (a scale-only run)
set -uo pipefail
cd "$(dirname "$0")/../.."
. selftests/lib.sh
. selftests/lib-rxe.sh
runtime=${BENCH_RUNTIME:-10}
rounds=${BENCH_ROUNDS:-3}
read -r -a stacks <<< "${BENCH_STACKS:-ours upstream nvmeof}"
backing=${BENCH_BACKING:-brd}
poll_queues=${BENCH_POLL_QUEUES:-0}
# Both RNBD servers (ours, the baseline's and Linux's) run with this
# always_invalidate (Y: each chunk's key is invalidated on arrival and
# registered anew with the answer, both servers' default).
always_invalidate=${BENCH_ALWAYS_INVALIDATE:-Y}
out=${BENCH_OUT:-/results/bench}.jsonl
up=.cache/upstream
cpus=$(nproc)

# name, then fio arguments. The polled run is QD1 with io_uring's IOPOLL.
all_workloads=(
  "randread-4k-qd1 --rw=randread --bs=4k --iodepth=1"
  "randwrite-4k-qd1 --rw=randwrite --bs=4k --iodepth=1"
  "randread-4k-qd32 --rw=randread --bs=4k --iodepth=32"
  "randwrite-4k-qd32 --rw=randwrite --bs=4k --iodepth=32"
  "read-128k-qd8 --rw=read --bs=128k --iodepth=8"
  "write-128k-qd8 --rw=write --bs=128k --iodepth=8"
  "randread-4k-qd32-jobs --rw=randread --bs=4k --iodepth=32 --numjobs=$cpus --group_reporting"
  "mixed70-4k-qd16 --rw=randrw --rwmixread=70 --bs=4k --iodepth=16"
  "randread-4k-qd1-polled --rw=randread --bs=4k --iodepth=1 --ioengine=io_uring --hipri=1"
)
# fio's arguments of a workload name (any of all_workloads), or nothing.
workload_args() {
    local w
    for w in "${all_workloads[@]}"; do
        [ "${w%% *}" = "$1" ] && { printf '%s\n' "${w#* }"; return 0; }
    done
    return 1
}
workloads=()
for w in "${all_workloads[@]}"; do
    if [ -z "${BENCH_WORKLOADS:-}" ] || [[ " $BENCH_WORKLOADS " == *" ${w%% *} "* ]]; then
        workloads+=("$w")
    fi
done

rxe_setup 1 || exit 1
modprobe rdma_cm || exit 1
addr=${RXE_ADDR[0]}
case $backing in
brd)
    modprobe brd rd_nr=1 rd_size=$((1024 * 1024)) || exit 1
    backing_dev=/dev/ram0
    # Every page written before any read: a read of a never-written brd page
    # costs nothing and would favour whichever stack reads it first.
    echo "# bench: filling $backing_dev with random data"
    dd if=/dev/urandom of=$backing_dev bs=1M count=1024 oflag=direct status=none || exit 1
    ;;
null)
    modprobe null_blk nr_devices=1 gb=1 queue_mode=2 irqmode=0 || exit 1
    backing_dev=/dev/nullb0
    ;;
*) echo "bench: BENCH_BACKING must be brd or null" >&2; exit 2 ;;
esac

unload() { local m; for m in "$@"; do grep -q "^$m " /proc/modules && rmmod "$m"; done; return 0; }

rnbd_load() { # ours|upstream|baseline [rtrs-server args...]; by default every
    # server with its default queue depth
    local dir=. stack=$1
    shift
    case $stack in
    upstream)
        insmod $up/rtrs-core.ko && insmod $up/rtrs-server.ko always_invalidate=$always_invalidate "$@" &&
            insmod $up/rnbd-server.ko &&
            insmod $up/rtrs-client.ko && insmod $up/rnbd-client.ko
        return ;;
    baseline) dir=${BENCH_BASELINE_DIR:?baseline stack without BENCH_BASELINE_DIR} ;;
    esac
    insmod $dir/rtrs/rtrs-server.ko always_invalidate=$always_invalidate "$@" && insmod $dir/rnbd/rnbd-server.ko &&
        insmod $dir/rtrs/rtrs-client.ko && insmod $dir/rnbd/rnbd-client.ko
}
rnbd_map_bench() { # stack -> prints the device
    local opts="sessname=bench-$1 path=ip:$addr device_path=$backing_dev"
    [ "$poll_queues" != 0 ] && opts+=" nr_poll_queues=$poll_queues"
    opts+=" ${BENCH_RNBD_OPTS:-}"
    # The class path is the one both clients have (ours also has
    # /sys/kernel/rnbd_client); each run maps exactly one device: rnbd0.
    echo "$opts" > /sys/class/rnbd-client/ctl/map_device || return 1
    wait_for 50 test -b /dev/rnbd0 || return 1
    echo /dev/rnbd0
}
rnbd_unmap_bench() {
    local f
    for f in /sys/block/rnbd*/rnbd_client/unmap_device /sys/block/rnbd*/rnbd/unmap_device; do
        [ -e "$f" ] && echo normal > "$f"
    done
    rnbd_client_unload
    rnbd_server_unload
}

nvmet=/sys/kernel/config/nvmet
nvme_load() { modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma; }
nvme_map() {
    local subsys=$nvmet/subsystems/bench port=$nvmet/ports/1 opts dev
    mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
    mkdir $subsys && echo 1 > $subsys/attr_allow_any_host &&
        mkdir $subsys/namespaces/1 && echo -n $backing_dev > $subsys/namespaces/1/device_path &&
        echo 1 > $subsys/namespaces/1/enable || return 1
    mkdir $port && echo rdma > $port/addr_trtype && echo ipv4 > $port/addr_adrfam &&
        echo $addr > $port/addr_traddr && echo 4420 > $port/addr_trsvcid &&
        ln -s $subsys $port/subsystems/bench || return 1
    opts="transport=rdma,traddr=$addr,trsvcid=4420,nqn=bench"
    [ "$poll_queues" != 0 ] && opts+=",nr_poll_queues=$(( poll_queues < 0 ? cpus : poll_queues ))"
    echo "$opts" > /dev/nvme-fabrics || return 1
    wait_for 10 test -b /dev/nvme0n1 || return 1
    echo /dev/nvme0n1
}
nvme_unmap() {
    local c
    for c in /sys/class/nvme/nvme*; do [ -e "$c/delete_controller" ] && echo 1 > "$c/delete_controller"; done
    rm -f $nvmet/ports/1/subsystems/bench
    rmdir $nvmet/ports/1 $nvmet/subsystems/bench/namespaces/1 $nvmet/subsystems/bench 2>/dev/null
    unload nvme_rdma nvme_fabrics nvmet_rdma nvmet
}

stack_up() { # stack -> prints the device
    case $1 in
    ours | upstream | baseline) rnbd_load "$1" >&2 && rnbd_map_bench "$1" ;;
    nvmeof) nvme_load >&2 && nvme_map ;;
    device) echo "$backing_dev" ;;
    *) echo "# bench: no stack named $1" >&2; return 1 ;;
    esac
}
stack_down() {
    case $1 in
    ours | upstream | baseline) rnbd_unmap_bench ;;
    nvmeof) nvme_unmap ;;
    esac
}

run_fio() { # device name args... -> fio's JSON on stdout, its errors in /tmp/fio.err
    local dev=$1 name=$2 ioengine=--ioengine=libaio
    shift 2
    [[ $* == *--ioengine=* ]] && ioengine=
    # shellcheck disable=SC2086
    fio --name="$name" --filename="$dev" $ioengine --direct=1 --time_based \
        --ramp_time=2 --runtime="$runtime" --size=1g --output-format=json "$@" 2>/tmp/fio.err
}

# The profiled run (BENCH_PROFILE=1): the same fio run as a measured one,
# while the host's perf (the guest sees the host's root: Debian's
# linux-perf for this kernel) samples every CPU with the cpu-clock software
# event (TCG has no hardware PMU) and call chains, at 999 Hz so that the
# sampling stays a small share of an emulated CPU. The report is taken
# while the stack is still loaded, so /proc/kallsyms names its modules'
# functions.
profile_top=30 profile_prefix=${BENCH_OUT:-/results/bench}.profile profile_graph_prefix=${BENCH_OUT:-/results/bench}.graph
export -f run_fio
profile_run() { # stack device workload-name -> $BENCH_OUT.profile-<stack>-<workload>.txt
    local stack=$1 dev=$2 name=$3 args file data=/tmp/bench-perf.data json rc
    file=$profile_prefix-$stack-$name.txt
    if ! args=$(workload_args "$name"); then
        echo "# bench: profile: no workload named $name" | tee "$file"
        return
    fi
    echo "# bench: profile $stack $name"
    # perf starts fio itself once its events are on (a perf started beside
    # fio was still loading its 9p-backed binary when the first, short fio
    # ended) and stops when fio exits: run_fio in a child bash.
    # shellcheck disable=SC2086
    json=$(runtime=$runtime perf record -q -a -g -e cpu-clock -F 999 -o $data -- \
        bash -c 'run_fio "$@"' run_fio "$dev" "$name" $args 2>/tmp/perf-record.err)
    rc=$?
    {
        echo "# $stack, $name: perf record -a -g -e cpu-clock -F 999 -- fio (one run, ramp included);"
        echo "# an extra run after the measured rounds, not part of the figures"
        echo "# perf/fio exit $rc, IOPS $(printf '%s' "$json" | grep -o '"iops" : [0-9.]*' |
            awk '{ sum += $3 } END { printf "%d", sum }')"
        if [ -s $data ]; then
            # The flat list (no call graphs), without the IPC columns this
            # perf adds (always "-": no PMU). This perf leaves module symbols
            # mangled even with --demangle-kernel, so c++filt names ours.
            perf report -i $data --no-children --sort symbol --demangle-kernel --stdio -g none 2>/dev/null |
                awk -v top=$profile_top '
                    /^# (Total Lost Samples|Samples|Event count)/ { print; next }
                    $1 ~ /^[0-9.]+%$/ && n < top {
                        sub(/[ \t]+-[ \t]+-[ \t]*$/, ""); sub(/[ \t]+$/, ""); print; n++
                    }' | demangle
        else
            echo "# no samples: perf record said:"
            sed 's/^/#   /' /tmp/perf-record.err
        fi
    } > "$file"
    # BENCH_PROFILE_GRAPH=1: where the time went, which the flat list cannot
    # say when a sample lands late (cpu-clock samples an irq-off section at
    # its irqrestore, and the softirqs run on that interrupt's exit are then
    # booked under whatever re-enabled interrupts): the shares per task,
    # then every symbol of at least 1.5 % with its callees.
    if [ -s $data ] && [ "${BENCH_PROFILE_GRAPH:-0}" = 1 ]; then
        {
            echo "# $stack, $name: shares per task"
            perf report -i $data --no-children --sort comm --stdio -g none 2>/dev/null | grep -E '^ +[0-9.]+%'
            echo "# $stack, $name: children, with callees (branches of at least 0.4 %)"
            perf report -i $data --children --sort symbol --stdio --percent-limit 1.5 \
                -g graph,0.4,caller,function,percent 2>/dev/null | grep -v -e '^$' -e '^ *| *$' | demangle
        } > "$profile_graph_prefix-$stack-$name.txt"
    fi
    rm -f $data
}

demangle() { # C++ names in a text stream, or the text as it is without c++filt
    if command -v c++filt >/dev/null; then c++filt; else cat; fi
}

cpu_jiffies() { # "busy total" from the aggregate cpu line
    awk '$1 == "cpu" { busy = $2 + $3 + $4 + $7 + $8 + $9; print busy, busy + $5 + $6; exit }' /proc/stat
}

record_error() { # round stack workload message
    printf '{"round": %d, "stack": "%s", "workload": "%s", "error": "%s"}\n' "$1" "$2" "$3" "$4" >> "$out"
}

# map_queues WORKLOAD: the poll queues of the map it runs on: BENCH_POLL_QUEUES
# (0 by default: the default map, what users run), except that the polled
# workload gets a map of its own with one poll queue when that is 0.
polled_map_queues=1
map_queues() {
    case $1 in *-polled) [ "$poll_queues" = 0 ] && { echo $polled_map_queues; return; } ;; esac
    echo "$poll_queues"
}
# measure_on_map ROUND STACK QUEUES WORKLOAD...: loads the stack, maps its
# device with QUEUES poll queues, runs the workloads, unloads.
measure_on_map() {
    local round=$1 stack=$2 poll_queues=$3 dev io_poll w name args json rc busy0 busy1 total0 total1 list
    shift 3
    list=("$@")  # (the loop's `set --` takes the positional parameters)
    if ! dev=$(stack_up "$stack"); then
        echo "# bench: $stack: could not load or map"
        for w in "${list[@]}"; do record_error $round "$stack" "${w%% *}" "could not load or map"; done
        stack_down "$stack" 2>/dev/null
        return
    fi
    io_poll=$(cat "/sys/block/${dev#/dev/}/queue/io_poll" 2>/dev/null || echo 0)
    for w in "${list[@]}"; do
        name=${w%% *} args=${w#* }
        echo "# bench: round $((round + 1)) $stack $name"
        # (no process substitution: the test VM has no /dev/fd)
        set -- $(cpu_jiffies); busy0=$1 total0=$2
        # shellcheck disable=SC2086
        json=$(run_fio "$dev" "$name" $args)
        rc=$?
        set -- $(cpu_jiffies); busy1=$1 total1=$2
        if [ $rc != 0 ] || [ -z "$json" ]; then
            record_error $round "$stack" "$name" "fio exit $rc: $(head -c 200 /tmp/fio.err | tr '"\n\\' "' /")"
            continue
        fi
        # The jiffies span ramp + runtime while fio counts the IOs of the
        # runtime only: the report scales the jiffies by
        # runtime / (ramp + runtime) (Documentation/bench.md).
        printf '{"round": %d, "stack": "%s", "workload": "%s", "poll_queues": %d, "always_invalidate": "%s", "io_poll": %d, "hz": %d, "cpus": %d, "busy_jiffies": %d, "total_jiffies": %d, "ramp_s": 2, "runtime_s": %d, "fio": %s}\n' \
            $round "$stack" "$name" "$poll_queues" "$always_invalidate" "$io_poll" "$hz" "$cpus" $((busy1 - busy0)) $((total1 - total0)) "$runtime" \
            "$(printf '%s' "$json" | tr -d '\n')" >> "$out"
    done
    stack_down "$stack"
    sleep 1
}

: > "$out"
hz=$(getconf CLK_TCK)
# No workload selected (BENCH_WORKLOADS=none, a scale-only run): loading and
# mapping each stack for nothing would only cost time.
[ ${#workloads[@]} -gt 0 ] || rounds=0
for ((round = 0; round < rounds; round++)); do
    order=()
    for ((i = 0; i < ${#stacks[@]}; i++)); do order+=("${stacks[(i + round) % ${#stacks[@]}]}"); done
    echo "# bench: round $((round + 1))/$rounds, order ${order[*]}"
    for stack in "${order[@]}"; do
        # One fresh load and map per kind of map, the default one first.
        on_default=() on_polled=()
        for w in "${workloads[@]}"; do
            if [ "$(map_queues "${w%% *}")" = "$poll_queues" ]; then on_default+=("$w"); else on_polled+=("$w"); fi
        done
        [ ${#on_default[@]} = 0 ] || measure_on_map $round "$stack" "$poll_queues" "${on_default[@]}"
        [ ${#on_polled[@]} = 0 ] || measure_on_map $round "$stack" $polled_map_queues "${on_polled[@]}"
    done
done
# --- per-IO counts (BENCH_COUNTS) ---------------------------------------------
# rxe's entry points: every stack's verbs end there. Work requests are not
# counted: rxe's per-WR step (post_one_send) is inlined, so only the post
# calls are seen. Completions are rxe_cq_post calls; a CQ event is the
# tasklet that calls the consumer's completion handler (rxe_send_complete).
count_probes=(rxe_post_send rxe_post_recv rxe_cq_post rxe_send_complete rxe_poll_cq rxe_req_notify_cq)
count_names=(post_send post_recv completions cq_events cq_polls cq_arms)
tracefs=/sys/kernel/tracing
counts_up() { # kprobes armed, the ring buffer off: only their hit counters move
    [ -e $tracefs/kprobe_events ] || mount -t tracefs nodev $tracefs 2>/dev/null
    [ -e $tracefs/kprobe_events ] || { echo "# bench: counts: no tracefs"; return 1; }
    echo 0 > $tracefs/tracing_on
    local p
    for p in "${count_probes[@]}"; do
        echo "p:benchcount/$p rdma_rxe:$p" >> $tracefs/kprobe_events ||
            { echo "# bench: counts: no kprobe on rdma_rxe:$p"; return 1; }
    done
    echo 1 > $tracefs/events/benchcount/enable
}
counts_down() {
    [ -d $tracefs/events/benchcount ] || return 0
    echo 0 > $tracefs/events/benchcount/enable
    local p
    for p in "${count_probes[@]}"; do echo "-:benchcount/$p" >> $tracefs/kprobe_events; done
    echo 1 > $tracefs/tracing_on
}
counters() { # one line: the probes' hits, ctxt, the three softirqs, rxe0's packets
    local hw=/sys/class/infiniband/rxe0/ports/1/hw_counters p line=
    for p in "${count_probes[@]}"; do
        line+="$(awk -v n="$p" '$1 == n || $1 == "benchcount/" n { print $2; f = 1 } END { if (!f) print 0 }' $tracefs/kprobe_profile) "
    done
    line+="$(awk '$1 == "ctxt" { print $2 }' /proc/stat) "
    line+="$(awk '$1 == "TASKLET:" || $1 == "IRQ_POLL:" || $1 == "NET_RX:" { s = 0; for (i = 2; i <= NF; i++) s += $i; printf "%d ", s }' /proc/softirqs)"
    line+="$(cat $hw/sent_pkts 2>/dev/null || echo 0) $(cat $hw/rcvd_pkts 2>/dev/null || echo 0) "
    # Inter-processor interrupts (x86: rescheduling, function call): what a
    # cross-CPU wake-up or remote completion costs, with two vCPUs or more.
    line+="$(awk '$1 == "RES:" || $1 == "CAL:" { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; v[$1] = s }
        END { printf "%d %d", v["RES:"], v["CAL:"] }' /proc/interrupts)"
    echo "$line"
}
count_fields=("${count_names[@]}" context_switches softirq_tasklet softirq_irq_poll softirq_net_rx rxe_packets_sent rxe_packets_received
    ipi_reschedule ipi_function_call)
counted_run() { # stack device workload-name -> one line of $BENCH_OUT.counts.jsonl
    local stack=$1 dev=$2 name=$3 args json rc before after ios i fields=
    args=$(workload_args "$name") || { echo "# bench: counts: no workload named $name"; return; }
    echo "# bench: counts $stack $name"
    before=($(counters))
    # shellcheck disable=SC2086
    json=$(run_fio "$dev" "$name" $args)
    rc=$?
    after=($(counters))
    ios=$(printf '%s' "$json" | awk -F: '/"total_ios"/ { gsub(/[ ,]/, "", $2); s += $2 } END { printf "%d", s }')
    if [ $rc != 0 ] || [ "${ios:-0}" = 0 ]; then
        printf '{"stack": "%s", "workload": "%s", "error": "fio exit %d"}\n' "$stack" "$name" $rc >> "$counts_out"
        return
    fi
    # The counters span ramp + runtime, fio's total_ios the runtime only:
    # scaled by runtime / (ramp + runtime) as the CPU time is (bench-report.py).
    for i in "${!count_fields[@]}"; do
        fields+=", \"${count_fields[$i]}\": $((after[i] - before[i]))"
    done
    printf '{"stack": "%s", "workload": "%s", "ios": %d, "ramp_s": 2, "runtime_s": %d%s}\n' \
        "$stack" "$name" "$ios" "$runtime" "$fields" >> "$counts_out"
}
# after_rounds RUN FAILED WORKLOAD...: one more pass per stack, after the
# measured rounds: RUN stack device workload for each workload, or, when the
# stack cannot be loaded or mapped, FAILED stack workload for each.
after_rounds() {
    local run=$1 failed=$2 stack dev name
    shift 2
    for stack in "${stacks[@]}"; do
        if dev=$(stack_up "$stack"); then
            for name in "$@"; do "$run" "$stack" "$dev" "$name"; done
        else
            for name in "$@"; do "$failed" "$stack" "$name"; done
        fi
        stack_down "$stack" 2>/dev/null
        sleep 1
    done
}
counts_out=${BENCH_OUT:-/results/bench}.counts.jsonl
counts_unmapped() { # stack workload
    printf '{"stack": "%s", "workload": "%s", "error": "could not load or map"}\n' "$1" "$2" >> "$counts_out"
}
profile_unmapped() { # stack workload
    echo "# bench: $1: could not load or map" | tee "$profile_prefix-$1-$2.txt"
}
if [ "${BENCH_COUNTS:-1}" = 1 ]; then
    : > "$counts_out"
    read -r -a counted <<< "${BENCH_COUNTS_WORKLOADS:-randread-4k-qd1 randwrite-4k-qd1 randread-4k-qd32 randwrite-4k-qd32 read-128k-qd8 write-128k-qd8}"
    counts_up && after_rounds counted_run counts_unmapped "${counted[@]}"
    counts_down
fi
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
    read -r -a profiled <<< "${BENCH_PROFILE_WORKLOADS:-randread-4k-qd32}"
    if ! command -v perf >/dev/null; then
        echo "# bench: profile: no perf on this system (Debian's linux-perf on the host)"
    else
        after_rounds profile_run profile_unmapped "${profiled[@]}"
    fi
fi
# --- ceilings (BENCH_CEILINGS) ------------------------------------------------
# What no stack can beat on this link: perftest moves messages of a size
# with one RDMA operation each, server and client in this guest over the
# same rxe device and address as the stacks (RDMA-CM). Reads are RDMA
# READs; the write direction is SEND/RECV (perftest's RDMA WRITE tests can
# only spin on the CQ or the buffer, which on one vCPU measures the
# scheduler's tick, not the link). Every test sleeps on completion events
# (-e), as the stacks do. The latency tests time one message at a time; the
# bandwidth tests keep perftest's default number in flight for a fixed
# count (events do not work with a duration). Under -icount the figures are
# guest time like the stacks'.
ceilings_out=${BENCH_OUT:-/results/bench}.ceilings.jsonl
ceiling_error() { # test bytes message
    printf '{"test": "%s", "bytes": %d, "error": "%s"}\n' "$1" "$2" "$3" >> "$ceilings_out"
}
ceiling_run() { # test (read_lat, send_lat, read_bw, send_bw) bytes -> one line of $ceilings_out
    local test=$1 bytes=$2 server rc line args=(-R -d rxe0 -s "$2" -F -e) limit=$((runtime * 10 + 120))
    # 4 KiB: about the runtime's worth in cost mode; 128 KiB: 32 times fewer.
    args+=(-n $(( bytes > 4096 ? 200 : 4000 )))
    command -v "ib_$test" >/dev/null || { ceiling_error "$test" "$bytes" "no ib_$test (perftest)"; return; }
    echo "# bench: ceiling ib_$test $bytes bytes"
    timeout "$limit" "ib_$test" "${args[@]}" > /tmp/ceiling-server.txt 2>&1 &
    server=$!
    sleep 2  # the server listens
    timeout "$limit" "ib_$test" "${args[@]}" "$addr" > /tmp/ceiling-client.txt 2>&1
    rc=$?
    wait $server
    # The result line starts with the message size: bandwidth tests print
    # bytes, iterations, peak and average MB/s and Mpps; latency tests
    # bytes, iterations, t_min, t_max, t_typical, t_avg, t_stdev, 99 % and
    # 99.9 % percentiles in microseconds.
    line=$(awk -v b="$bytes" '$1 == b && $2 ~ /^[0-9]+$/ && NF >= 5 { print; exit }' /tmp/ceiling-client.txt)
    if [ $rc != 0 ] || [ -z "$line" ]; then
        ceiling_error "$test" "$bytes" "ib_$test exit $rc: $(tail -c 200 /tmp/ceiling-client.txt | tr '"\n\\' "' /")"
        return
    fi
    set -- $line
    case $test in
    *_bw) printf '{"test": "%s", "bytes": %d, "messages": %s, "mb_per_s": %s, "mpps": %s}\n' \
              "$test" "$bytes" "$2" "$4" "$5" >> "$ceilings_out" ;;
    *_lat) printf '{"test": "%s", "bytes": %d, "messages": %s, "t_typical_us": %s, "t_avg_us": %s, "t_p99_us": %s}\n' \
              "$test" "$bytes" "$2" "$5" "$6" "$8" >> "$ceilings_out" ;;
    esac
}
if [ "${BENCH_CEILINGS:-$([ ${#workloads[@]} -gt 0 ] && echo 1 || echo 0)}" = 1 ]; then
    : > "$ceilings_out"
    for test in read_lat send_lat read_bw send_bw; do
        for bytes in 4096 131072; do ceiling_run $test $bytes; done
    done
fi
# --- scale (BENCH_SCALE) ------------------------------------------------------
# What a device and a session cost as their number grows: per RNBD stack, N
# memory-less null_blk devices mapped through one session, then N sessions of
# one device each; for each, the guest time of the maps and the unmaps, the
# memory (MemAvailable, Slab) the mapped devices hold, and 4k random reads at
# QD1 on all N at once (fio, one job per device). The last phase of the run:
# it replaces the backing device with the N null_blk devices.
scale_out=${BENCH_OUT:-/results/bench}.scale.jsonl
scale_depth=${BENCH_SCALE_QUEUE_DEPTH:-16}
# fio with a job per device takes minutes of guest time to start hundreds of
# jobs (25 guest minutes for 256): above this count only memory and times.
scale_io_devices=${BENCH_SCALE_IO_DEVICES:-64}
read -r -a scale_counts <<< "${BENCH_SCALE_DEVICES:-64}"
rnbd_ctl=/sys/class/rnbd-client/ctl/map_device

now_us() { # the guest's clock in µs, without a fork (under -icount: instructions)
    REPLY=${EPOCHREALTIME//[!0-9]/}
}
# The /proc/meminfo fields recorded at each reading (KiB); the report uses
# MemAvailable and Slab, the others say where a difference went.
scale_fields=(MemFree MemAvailable Slab SUnreclaim Percpu VmallocUsed KernelStack PageTables)
scale_meminfo() { # appends the fields' values, and the pages on per-CPU free lists, to scale_readings
    local key value rest field readings=" " count=0
    # Builtins only: a forked reader would allocate between the readings.
    while read -r key value rest; do readings+="${key%:}=$value "; done < /proc/meminfo
    # Freed pages parked on the per-CPU lists are not counted free.
    while read -r key value rest; do [ "$key" = count: ] && count=$((count + value)); done < /proc/zoneinfo
    for field in "${scale_fields[@]}"; do
        value=${readings#* "$field="}
        scale_readings[$field]+=${scale_readings[$field]:+, }${value%% *}
    done
    scale_readings[pcp_free_pages]+=${scale_readings[pcp_free_pages]:+, }$count
}
scale_settle() {
    # The page and dentry caches emptied, deferred frees done (RCU callbacks,
    # a session's close work; Linux 6.1's kfree_rcu() frees its batches
    # every 5 s), then every slab cache's free slabs returned, so that only
    # what the devices hold is counted.
    sync
    echo 3 > /proc/sys/vm/drop_caches
    sleep 6
    local cache
    for cache in /sys/kernel/slab/*/shrink; do echo 1 > "$cache"; done 2>/dev/null
}
scale_devices() { # the mapped rnbd devices, one a line
    local d
    for d in /sys/block/rnbd*; do [ -e "$d" ] && echo "/dev/${d##*/}"; done
}
scale_unmap_file() { # rnbd device -> its unmap_device file (ours has both names)
    local name=${1#/dev/}
    if [ -e /sys/block/$name/rnbd_client/unmap_device ]; then
        echo /sys/block/$name/rnbd_client/unmap_device
    else
        echo /sys/block/$name/rnbd/unmap_device
    fi
}
scale_unmap_all() { # the error path: every rnbd device forced off
    local dev
    for dev in $(scale_devices); do echo force > "$(scale_unmap_file "$dev")" 2>/dev/null; done
    return 0
}
scale_error() { # stack variant devices message
    printf '{"stack": "%s", "variant": "%s", "devices": %d, "error": "%s"}\n' "$1" "$2" "$3" "$4" >> "$scale_out"
}
# scale_variant STACK VARIANT N: the stack is loaded; maps N devices (variant
# one-session: one session; sessions: a session each), measures, unmaps.
scale_variant() {
    local stack=$1 variant=$2 n=$3 i line session start map_us=0 unmap_us=0 map_each= unmap_each=
    local -A scale_readings=()
    local devices dev file meminfo= field fio_args=() json rc busy0 busy1 total0 total1 queue_depth
    queue_depth=$(cat /sys/module/rtrs_server/parameters/sess_queue_depth 2>/dev/null || echo 0)
    # One device mapped and unmapped first: what a stack allocates once, on
    # its first session (work queues, caches), is not a device's cost.
    echo "sessname=scale-warmup path=ip:$addr device_path=/dev/nullb0 ${BENCH_RNBD_OPTS:-}" > $rnbd_ctl &&
        wait_for 50 test -b /dev/rnbd0 && echo normal > "$(scale_unmap_file /dev/rnbd0)" ||
        { scale_error "$stack" "$variant" "$n" "could not map and unmap a first device"; scale_unmap_all; return 1; }
    scale_settle
    scale_meminfo
    echo "# bench: scale $stack $variant: mapping $n devices"
    for ((i = 0; i < n; i++)); do
        session=scale-$stack
        [ "$variant" = sessions ] && session+=-$i
        line="sessname=$session path=ip:$addr device_path=/dev/nullb$i ${BENCH_RNBD_OPTS:-}"
        now_us; start=$REPLY
        if ! echo "$line" > $rnbd_ctl; then
            scale_error "$stack" "$variant" "$n" "map of device $((i + 1)) of $n failed"
            scale_unmap_all
            return 1
        fi
        now_us; map_us=$((map_us + REPLY - start)) map_each+=${map_each:+, }$((REPLY - start))
    done
    devices=$(scale_devices)
    if [ "$(echo "$devices" | grep -c .)" != "$n" ]; then
        scale_error "$stack" "$variant" "$n" "$(echo "$devices" | grep -c .) devices after $n maps"
        scale_unmap_all
        return 1
    fi
    scale_settle
    scale_meminfo
    set -- $(cpu_jiffies); busy0=$1 total0=$2
    if [ "$n" -le "$scale_io_devices" ]; then
        echo "# bench: scale $stack $variant: fio on $n devices"
        for dev in $devices; do fio_args+=(--name="${dev#/dev/}" --filename="$dev"); done
        # Options before the first --name are every job's; one job per device.
        json=$(fio --thread --group_reporting --ioengine=libaio --direct=1 --time_based --ramp_time=2 \
            --runtime="$runtime" --size=1g --rw=randread --bs=4k --iodepth=1 --output-format=json \
            "${fio_args[@]}" 2>/tmp/fio.err)
        rc=$?
        [ $rc = 0 ] && [ -n "$json" ] ||
            json="{\"error\": \"fio exit $rc: $(head -c 200 /tmp/fio.err | tr '"\n\\' "' /")\"}"
    else
        json="{\"skipped\": \"more than BENCH_SCALE_IO_DEVICES=$scale_io_devices devices\"}"
    fi
    set -- $(cpu_jiffies); busy1=$1 total1=$2
    echo "# bench: scale $stack $variant: unmapping $n devices"
    for dev in $devices; do
        file=$(scale_unmap_file "$dev")
        now_us; start=$REPLY
        echo normal > "$file" || { scale_error "$stack" "$variant" "$n" "unmap of $dev failed"; scale_unmap_all; return 1; }
        now_us; unmap_us=$((unmap_us + REPLY - start)) unmap_each+=${unmap_each:+, }$((REPLY - start))
    done
    scale_settle
    scale_meminfo
    # Each field's readings: before the maps, mapped, after the unmaps.
    for field in "${scale_fields[@]}" pcp_free_pages; do
        meminfo+="${meminfo:+, }\"$field\": [${scale_readings[$field]}]"
    done
    printf '{"stack": "%s", "variant": "%s", "devices": %d, "sessions": %d, "server_queue_depth": %d, "map_us": %d, "unmap_us": %d, "map_us_each": [%s], "unmap_us_each": [%s], "meminfo_kib": {%s}, "page_kib": %d, "hz": %d, "busy_jiffies": %d, "total_jiffies": %d, "ramp_s": 2, "runtime_s": %d, "fio": %s}\n' \
        "$stack" "$variant" "$n" "$([ "$variant" = sessions ] && echo "$n" || echo 1)" "$queue_depth" \
        $map_us $unmap_us "$map_each" "$unmap_each" "$meminfo" $(( $(getconf PAGESIZE) / 1024 )) \
        "$hz" $((busy1 - busy0)) $((total1 - total0)) "$runtime" "$(printf '%s' "$json" | tr -d '\n')" >> "$scale_out"
}
if [ "${BENCH_SCALE:-0}" = 1 ]; then
    : > "$scale_out"
    scale_max=0
    for n in "${scale_counts[@]}"; do [ "$n" -gt $scale_max ] && scale_max=$n; done
    # N memory-less null_blk devices in place of the backing device: only
    # the transport's and the block layer's costs per device remain.
    unload brd null_blk
    if ! modprobe null_blk nr_devices=$scale_max gb=1 queue_mode=2 irqmode=0 memory_backed=0; then
        echo "# bench: scale: no $scale_max null_blk devices"
        for stack in "${stacks[@]}"; do scale_error "$stack" one-session "$scale_max" "no null_blk devices"; done
    else
        for n in "${scale_counts[@]}"; do
            for stack in "${stacks[@]}"; do
                case $stack in
                ours | upstream | baseline) ;;
                *) scale_error "$stack" one-session "$n" "not measured: the scale workload is RNBD's only"
                   continue ;;
                esac
                # One session: the servers' default queue depth, what a user
                # gets (it also sizes the clients' request pools).
                if rnbd_load "$stack"; then
                    scale_variant "$stack" one-session "$n"
                else
                    scale_error "$stack" one-session "$n" "could not load"
                fi
                rnbd_client_unload; rnbd_server_unload
                # N sessions: each pins sess_queue_depth chunks of 128 KiB on
                # the server (64 MiB at the default 512), more than the VM
                # has for 64 sessions: BENCH_SCALE_QUEUE_DEPTH. Our server
                # refuses sessions beyond max_sessions (64) and
                # max_sessions_per_client (8) by default.
                server_args=(sess_queue_depth=$scale_depth)
                [ "$stack" = upstream ] || server_args+=(max_sessions=$((n + 8)) max_sessions_per_client=$((n + 8)))
                if rnbd_load "$stack" "${server_args[@]}"; then
                    scale_variant "$stack" sessions "$n"
                else
                    scale_error "$stack" sessions "$n" "could not load"
                fi
                rnbd_client_unload; rnbd_server_unload
            done
        done
    fi
fi
echo "# bench: results in $out"
