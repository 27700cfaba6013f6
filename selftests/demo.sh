#!/usr/bin/env bash
# Guest side of `make demo`: the product's main job, end to end, over
# Soft-RoCE loopback inside the VM, with our four modules on both ends.
set -euo pipefail
cd "$(dirname "$0")/.."
. selftests/lib-rxe.sh
say() { printf '\n\033[1m>>> %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; eval "$@"; }

say "kernel $(uname -r), $(nproc) CPUs; Soft-RoCE on a veth pair"
rxe_setup 1 >/dev/null
rdma link show | sed 's/^/  /'
addr=${RXE_ADDR[0]}

say "a RAM disk (64 MiB) and a disk image file (48 MiB) to export"
run modprobe brd rd_nr=1 rd_size=65536
mkdir -p /tmp/demo && truncate -s 48M /tmp/demo/disk.img
run ls -l /dev/ram0 /tmp/demo/disk.img

say "loading the modules (C++ in the kernel)"
modprobe rdma_cm
run insmod rtrs/rtrs-server.ko
# block devices only by default; image files only inside a directory the administrator names
run insmod rnbd/rnbd-server.ko file_export_dir=/tmp/demo
for m in rtrs/rtrs-client rnbd/rnbd-client; do
    run insmod "$m.ko"
done
lsmod | grep -E '^(rtrs|rnbd)_' | sed 's/^/  /'

say "mapping both over RDMA (rxe loopback to $addr)"
run cat /sys/kernel/rnbd_client/map_device
run "echo 'sessname=demo path=ip:$addr device_path=/dev/ram0' > /sys/kernel/rnbd_client/map_device"
run "echo 'sessname=demo path=ip:$addr device_path=/tmp/demo/disk.img' > /sys/kernel/rnbd_client/map_device"
run lsblk /dev/rnbd0 /dev/rnbd1
for d in rnbd0 rnbd1; do
    echo "  $d: session $(cat /sys/block/$d/rnbd_client/session), $(cat /sys/block/$d/rnbd_client/mapping_path), $(cat /sys/block/$d/rnbd_client/access_mode), $(cat /sys/block/$d/rnbd_client/state)"
done

say "a filesystem on /dev/rnbd0: mkfs, mount, files, remount, checksums"
run mkfs.ext4 -q -F /dev/rnbd0
mkdir -p /mnt/demo && run mount /dev/rnbd0 /mnt/demo
run "dd if=/dev/urandom of=/mnt/demo/data.bin bs=1M count=8 status=none && cp -r /usr/share/doc/fio /mnt/demo/"
before=$(cd /mnt/demo && find . -type f -exec md5sum {} + | sort | md5sum)
run umount /mnt/demo
echo 3 > /proc/sys/vm/drop_caches
run mount /dev/rnbd0 /mnt/demo
after=$(cd /mnt/demo && find . -type f -exec md5sum {} + | sort | md5sum)
df -h /mnt/demo | sed 's/^/  /'
[ "$before" = "$after" ] && echo "  checksums after remount: identical ($(find /mnt/demo -type f | wc -l) files)" \
    || { echo "  checksums differ!"; exit 1; }
run umount /mnt/demo

say "fio on /dev/rnbd1 (the image file): 4k random read/write QD32, 128k sequential read/write QD8, 5 s each"
printf '  %-22s %10s %10s %10s %10s\n' workload IOPS MB/s "p50 us" "p99 us"
for w in "randread 4k 32" "randwrite 4k 32" "read 128k 8" "write 128k 8"; do
    set -- $w
    fio --name="$1-$2" --filename=/dev/rnbd1 --rw="$1" --bs="$2" --iodepth="$3" --ioengine=libaio --direct=1 \
        --time_based --runtime=5 --size=48m --output-format=json > /tmp/demo/fio.json 2>/dev/null
    python3 - "$1-$2-qd$3" <<'PY'
import json, sys
j = json.load(open("/tmp/demo/fio.json"))["jobs"][0]
s = j["read"] if j["read"]["io_bytes"] else j["write"]
p = s["clat_ns"]["percentile"]
print(f"  {sys.argv[1]:<22} {s['iops']:>10.0f} {s['bw_bytes']/1e6:>10.1f} {p['50.000000']/1e3:>10.0f} {p['99.000000']/1e3:>10.0f}")
PY
done

say "unmapping and unloading"
run "echo normal > /sys/block/rnbd1/rnbd_client/unmap_device"
run "echo normal > /sys/block/rnbd0/rnbd_client/unmap_device"
for m in rnbd_client rtrs_client rnbd_server rtrs_server; do run rmmod $m; done
rxe_teardown >/dev/null 2>&1 || true
say "done: a RAM disk and an image file exported by rnbd-server, mapped by rnbd-client over RTRS/RDMA, a filesystem written and verified, fio figures above; everything unloaded cleanly"
