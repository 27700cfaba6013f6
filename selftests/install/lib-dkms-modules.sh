# Sourced by selftests/install/dkms.sh and deb.sh (after ../lib.sh): what
# DKMS installed for one kernel is what modprobe uses.
# check_dkms_modules KVER: the four modules under
# /lib/modules/KVER/updates/dkms/, modprobe of the RNBD modules pulls RTRS,
# their sysfs is there, and modprobe -r unloads all four (TAP checks).
check_dkms_modules() {
    local kver=$1
    where() {
        local m
        for m in rtrs_client rtrs_server rnbd_client rnbd_server; do
            case $(modinfo -n $m 2>/dev/null) in
                /lib/modules/$kver/updates/dkms/*) ;;
                *) diag "modinfo -n $m: $(modinfo -n $m 2>&1)"; return 1 ;;
            esac
        done
    }
    check "modinfo -n: the four modules under /lib/modules/$kver/updates/dkms/" where
    loads() {
        modprobe rdma_cm && modprobe rnbd_server && mod_loaded rtrs_server && modprobe rnbd_client &&
            mod_loaded rtrs_client
    }
    check "modprobe rnbd_server and rnbd_client load rtrs_server and rtrs_client" loads
    check "sysfs of the loaded modules: map_device and the server's devices" \
        test -e /sys/kernel/rnbd_client/map_device -a -d /sys/kernel/rnbd_server
    check "modprobe -r rnbd_client rnbd_server unloads all four" sh -c '
        modprobe -r rnbd_client rnbd_server && ! grep -qE "^(rnbd|rtrs)_(client|server) " /proc/modules'
}
