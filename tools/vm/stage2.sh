#!/bin/sh
# Stage 2 of the test VM's init: PID 1 inside the host-root overlay, run by the
# host's static busybox sh (or /bin/sh). Runs the guest command named on the
# kernel command line (vm.cmd= vm.cwd= vm.name= vm.interactive=) with bash,
# with `awk` being the one named by vm.awk= (mawk, gawk or busybox; the
# host's default otherwise), so a whole run can be judged under each awk;
# prints VM-EXIT-STATUS=<n> on the console and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8
cmd=; cwd=/; name=vm; interactive=0; ttysize=; awk=
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        vm.cmd=*) cmd=${arg#vm.cmd=} ;;
        vm.cwd=*) cwd=${arg#vm.cwd=} ;;
        vm.name=*) name=${arg#vm.name=} ;;
        vm.interactive=*) interactive=${arg#vm.interactive=} ;;
        vm.ttysize=*) ttysize=${arg#vm.ttysize=} ;;
        vm.awk=*) awk=${arg#vm.awk=} ;;
    esac
done
finish() {
    sync
    echo "VM-EXIT-STATUS=$1"
    echo o > /proc/sysrq-trigger 2>/dev/null
    sleep 5 2>/dev/null
    poweroff -f 2>/dev/null || busybox poweroff -f 2>/dev/null
    # The power-off may take the root filesystem away first, and then
    # nothing can be executed: PID 1 must not exit (the kernel would panic
    # with "Attempted to kill init" during the power-off), so it waits with
    # shell builtins only.
    while :; do :; done
}
exec </dev/console >/dev/console 2>&1
hostname "$name" 2>/dev/null
ip link set lo up 2>/dev/null
echo /sbin/modprobe > /proc/sys/kernel/modprobe 2>/dev/null
# No udev here: bind drivers to the virtio devices present (e.g. virtio_net).
cat /sys/bus/virtio/devices/*/modalias 2>/dev/null | sort -u | xargs -r modprobe -abq 2>/dev/null
echo 8 > /proc/sys/kernel/printk 2>/dev/null
[ -n "$awk" ] && mkdir -p /usr/local/bin
case "$awk" in
    mawk|gawk) printf '#!/bin/sh\nexec /usr/bin/%s "$@"\n' "$awk" > /usr/local/bin/awk ;;
    busybox) printf '#!/bin/sh\nexec busybox awk "$@"\n' > /usr/local/bin/awk ;;
esac
[ -f /usr/local/bin/awk ] && chmod +x /usr/local/bin/awk
cd "$cwd" 2>/dev/null || { echo "vm-stage2: cannot cd to $cwd"; finish 255; }
echo "vm-stage2: $name up in $(cut -d' ' -f1 /proc/uptime)s, running ${cmd:-<none>} in $cwd"
if [ "$interactive" = 1 ]; then
    echo "vm-stage2: interactive shell; 'exit' powers the VM off (Ctrl-A x kills QEMU)"
    [ -n "$ttysize" ] && stty -F /dev/ttyS0 rows "${ttysize%x*}" cols "${ttysize#*x}" 2>/dev/null
    setsid -c bash -l -i </dev/ttyS0 >/dev/ttyS0 2>&1
    rc=$?
elif [ -n "$cmd" ]; then
    bash "$cmd"
    rc=$?
else
    echo "vm-stage2: no vm.cmd= on the kernel command line"
    rc=255
fi
finish "$rc"
