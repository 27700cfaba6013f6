#!/usr/bin/env bash
# Installs everything a fresh Debian 12 machine needs to build, test and benchmark
# this product, and is safe to run again (each step is skipped when already done).
#
#  - apt packages: compilers, kernel headers matching the VM kernel, QEMU, busybox,
#    rdma-core, fio, e2fsprogs, clang's libFuzzer runtime;
#  - Debian's 6.1 kernel image, unpacked (never installed) under .cache/kernel/;
#  - Debian's linux-source-6.1 RNBD/RTRS folders under .cache/linux-source/
#    (the interop peer and benchmark anchor; read for wire facts, never copied).
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
  linux-source-6.1 gawk)

# The kernel ABI the VM boots: the one Debian's linux-image-amd64 currently points at.
# Headers and image must be the same package version, so both are taken from it.
stamp=$cache/apt.stamp
if [ ! -f "$stamp" ] || [ -n "${SETUP_FORCE:-}" ]; then
    say "apt-get update"
    apt-get update -qq
fi
abi=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-6/{sub("linux-image-","",$2); print $2; exit}')
[ -n "$abi" ] || { echo "setup: cannot find Debian's linux-image-amd64 ABI (is apt reachable?)" >&2; exit 1; }
packages+=("linux-headers-$abi")

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

# The VM kernel: unpack the image .deb (vmlinuz + modules), never install it on the host.
kdir=$cache/kernel
if [ ! -f "$kdir/boot/vmlinuz-$abi" ]; then
    say "fetching kernel image $abi for the VM"
    tmp=$(mktemp -d); chmod 755 "$tmp"
    (cd "$tmp" && apt-get download -q "linux-image-$abi" >/dev/null)
    rm -rf "$kdir"; mkdir -p "$kdir"
    dpkg-deb -x "$tmp"/linux-image-"$abi"_*.deb "$kdir"
    depmod -b "$kdir" "$abi"
    rm -rf "$tmp"
fi
echo "$abi" > "$cache/kernel.abi"

# Upstream RNBD/RTRS sources (interop peer, benchmark anchor).
src=$cache/linux-source
if [ ! -f "$src/drivers/block/rnbd/rnbd-proto.h" ]; then
    say "unpacking RNBD/RTRS from linux-source-6.1"
    rm -rf "$src"; mkdir -p "$src"
    tar -C "$src" --strip-components=1 -xf /usr/src/linux-source-6.1.tar.xz \
        --wildcards 'linux-source-6.1/drivers/block/rnbd' 'linux-source-6.1/drivers/infiniband/ulp/rtrs' \
        'linux-source-6.1/tools/testing/selftests/kselftest.h'
fi
say "ready: kernel $abi, headers /usr/src/linux-headers-$abi, cache $cache"
