#!/bin/busybox sh
# shellcheck shell=dash
# /init of the test VM's initramfs (packed by tools/vm/mkinitramfs.sh).
# Loads virtio/9p/overlay, mounts the host root read-only over 9p with a tmpfs
# overlay on top, binds the unpacked Debian kernel's modules, then switch_root's
# into it and runs /run/vm/stage2.sh (tools/vm/stage2.sh) as PID 1.
# Kernel command line: vm.abi= vm.kdir= vm.results=1 (plus stage2's vm.*).
/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

die() {
    echo "vm-init: FATAL: $*"
    echo "VM-EXIT-STATUS=255"
    echo o > /proc/sysrq-trigger 2>/dev/null
    poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null || mount -t tmpfs dev /dev

# Kernel command line parameters of ours: vm.abi= vm.kdir= vm.results=1
# (vm.cwd=/vm.cmd= belong to stage 2; read here only to place /tmp)
abi=; kdir=; cwd=; cmd=
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        vm.abi=*) abi=${arg#vm.abi=} ;;
        vm.kdir=*) kdir=${arg#vm.kdir=} ;;
        vm.results=*) results=${arg#vm.results=} ;;
        vm.cwd=*) cwd=${arg#vm.cwd=} ;;
        vm.cmd=*) cmd=${arg#vm.cmd=} ;;
    esac
done

for m in $(cat /modules.list); do
    insmod "/modules/$m" || die "insmod $m failed"
done

mkdir -p /lower /ovl /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /lower \
    || die "cannot mount the host root over 9p (mount_tag hostroot)"
mount -t tmpfs -o mode=0755,size=75% ovl /ovl || die "tmpfs for the overlay"
mkdir -p /ovl/upper /ovl/work
mount -t overlay -o lowerdir=/lower,upperdir=/ovl/upper,workdir=/ovl/work,xino=off,index=off,redirect_dir=off,metacopy=off overlay /newroot \
    || die "overlay mount failed"

n=/newroot
mount -t proc proc $n/proc
mount -t sysfs sysfs $n/sys
mount -t devtmpfs devtmpfs $n/dev
mkdir -p $n/dev/pts $n/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts $n/dev/pts
mount -t tmpfs tmpfs $n/dev/shm
mount -t tmpfs -o mode=0755 tmpfs $n/run
# A private /tmp, unless the kernel tree, the working directory or the
# command (and so the repo, e.g. a CI clone) lives under the host's /tmp:
# then keep the overlay's view, which is writable anyway, or the guest could
# not see them (a debug kernel cached in ~/.cache with a clone in /tmp).
case "$kdir $cwd $cmd" in
    /tmp/*|*" /tmp/"*) ;;
    *) mount -t tmpfs -o mode=1777 tmpfs $n/tmp ;;
esac
mount -t debugfs debugfs $n/sys/kernel/debug 2>/dev/null
mount -t configfs configfs $n/sys/kernel/config 2>/dev/null
mount -t tracefs tracefs $n/sys/kernel/tracing 2>/dev/null

# The unpacked Debian kernel's modules (or another kernel's, see run.sh --kernel).
if [ -n "$kdir" ] && [ -n "$abi" ] && [ -d "$n$kdir/lib/modules/$abi" ]; then
    mkdir -p "$n/lib/modules/$abi"
    mount --bind "$n$kdir/lib/modules/$abi" "$n/lib/modules/$abi" || die "bind modules"
else
    echo "vm-init: warning: no modules for '$abi' under '$kdir' (modprobe will not work)"
fi

if [ "${results:-0}" = 1 ]; then
    mkdir -p $n/results
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=none results $n/results \
        || die "cannot mount the results share"
fi

mkdir -p $n/run/vm
cp /stage2.sh $n/run/vm/stage2.sh
chmod 755 $n/run/vm/stage2.sh
umount /proc /sys 2>/dev/null
# switch_root (not a chroot in a child) so that PID 1, and with it the kernel's
# usermode helpers (request_module -> /sbin/modprobe), see the new root.
# Stage 2 runs under the host's static busybox when present: a first dynamic
# exec over 9p (ld.so, libc) costs ~2 s under TCG, which the command pays anyway.
sh=/usr/bin/busybox
[ -x $n$sh ] && [ ! -L $n$sh ] || sh=/bin/sh
[ "$sh" = /bin/sh ] || sh="$sh sh"
exec switch_root /newroot $sh /run/vm/stage2.sh
