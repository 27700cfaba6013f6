#!/usr/bin/env bash
# Installs everything a fresh Debian 12 machine needs to build, test and benchmark
# this product, and is safe to run again (each step is skipped when already done).
#
#  - apt packages: compilers, kernel headers matching the VM kernel, QEMU, busybox,
#    rdma-core, fio, e2fsprogs, clang's libFuzzer runtime, dkms (the VM, whose
#    root is this machine's, runs `dkms install` in selftests/install/), fdisk
#    (sfdisk partitions a mapped device there), python3-prometheus-client
#    (rnbdctl's host tests parse its Prometheus text with the reference parser),
#    debhelper and dh-dkms (`make
#    deb`), linux-headers-amd64 (the DKMS package's dependency, for
#    selftests/install/deb.sh's apt-get install in the VM);
#  - Debian's 6.1 kernel image, unpacked (never installed) under .cache/kernel/;
#  - Debian's linux-source-6.1 RNBD/RTRS folders under .cache/linux-source/
#    (the interop peer and benchmark anchor; read for wire facts, never copied);
#  - the second kernel, Debian 12's 6.12 LTS (linux-image-6.12-amd64): its
#    headers, its image unpacked under .cache/kernel-6.12/ (release in
#    .cache/kernel-6.12.abi) and its linux-source-6.12 RNBD/RTRS folders
#    under .cache/linux-source-6.12/.
#
# Environment: CACHE (default <repo>/.cache), SETUP_QUIET=1 for less output.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${CACHE:-$top/.cache}
mkdir -p "$cache"
say() { echo "setup: $*"; }
export DEBIAN_FRONTEND=noninteractive

packages=(build-essential g++-12 gcc-12 make bc bison flex libelf-dev libssl-dev dwarves
  kmod cpio xz-utils zstd busybox-static qemu-system-x86 qemu-utils rdma-core ibverbs-utils
  rdmacm-utils perftest socat iputils-ping iproute2 fio e2fsprogs util-linux libgtest-dev googletest clang libclang-rt-14-dev
  linux-source-6.1 linux-source-6.12 gawk universal-ctags dkms fdisk jq python3 udev
  python3-prometheus-client dpkg-dev debhelper dh-dkms fakeroot)

# The kernel ABI the VM boots: the one Debian's linux-image-amd64 currently points at.
# Headers and image must be the same package version, so both are taken from it.
stamp=$cache/apt.stamp
if [ ! -f "$stamp" ] || [ -n "${SETUP_FORCE:-}" ]; then
    say "apt-get update"
    apt-get update -qq
fi
abi=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-6/{sub("linux-image-","",$2); print $2; exit}')
[ -n "$abi" ] || { echo "setup: cannot find Debian's linux-image-amd64 ABI (is apt reachable?)" >&2; exit 1; }
packages+=("linux-headers-$abi" linux-headers-amd64)
# The 6.12 kernel: the release Debian 12's linux-image-6.12-amd64 points at.
abi612=$(apt-cache depends linux-image-6.12-amd64 2>/dev/null | awk '/Depends: linux-image-6\.12/{sub("linux-image-","",$2); print $2; exit}')
[ -n "$abi612" ] || { echo "setup: cannot find Debian's linux-image-6.12-amd64 release (is apt reachable?)" >&2; exit 1; }
packages+=("linux-headers-$abi612")

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    awk_before=$(readlink -f /usr/bin/awk 2>/dev/null || true)
    apt-get install -y -q --no-install-recommends "${missing[@]}" >"$cache/apt-install.log" 2>&1 \
        || { tail -20 "$cache/apt-install.log" >&2; exit 1; }
    # gawk is installed only so tools/tests/check-log-awk.sh can run the
    # scripts under every awk; its higher alternatives priority would make it
    # the machine's default awk, so the previous default is put back.
    awk_after=$(readlink -f /usr/bin/awk 2>/dev/null || true)
    if [ -n "$awk_before" ] && [ "$awk_before" != "$awk_after" ] && [ -x "$awk_before" ]; then
        update-alternatives --set awk "$awk_before" >/dev/null
    fi
fi
touch "$stamp"

# The VM kernels: unpack the image .deb (vmlinuz + modules), never install it on the host.
unpack_kernel() { # release, cache dir, package
    local release=$1 kdir=$2 package=$3 tmp
    [ -f "$kdir/boot/vmlinuz-$release" ] && return 0
    say "fetching kernel image $release for the VM"
    tmp=$(mktemp -d); chmod 755 "$tmp"
    (cd "$tmp" && apt-get download -q "$package" >/dev/null)
    rm -rf "$kdir"; mkdir -p "$kdir"
    dpkg-deb -x "$tmp"/"$package"_*.deb "$kdir"
    depmod -b "$kdir" "$release"
    rm -rf "$tmp"
}
unpack_kernel "$abi" "$cache/kernel" "linux-image-$abi"
echo "$abi" > "$cache/kernel.abi"
# The unsigned image: the same kernel and modules without the signed-image
# packaging (a VM boots it directly).
unpack_kernel "$abi612" "$cache/kernel-6.12" "linux-image-$abi612-unsigned"
echo "$abi612" > "$cache/kernel-6.12.abi"

# Upstream RNBD/RTRS sources (interop peer, benchmark anchor), per kernel.
unpack_source() { # version, cache dir
    local v=$1 src=$2
    [ -f "$src/drivers/block/rnbd/rnbd-proto.h" ] && return 0
    say "unpacking RNBD/RTRS from linux-source-$v"
    rm -rf "$src"; mkdir -p "$src"
    tar -C "$src" --strip-components=1 -xf "/usr/src/linux-source-$v.tar.xz" \
        --wildcards "linux-source-$v/drivers/block/rnbd" "linux-source-$v/drivers/infiniband/ulp/rtrs" \
        "linux-source-$v/tools/testing/selftests/kselftest.h"
}
unpack_source 6.1 "$cache/linux-source"
unpack_source 6.12 "$cache/linux-source-6.12"
say "ready: kernels $abi and $abi612, headers /usr/src/linux-headers-{$abi,$abi612}, cache $cache"
