#!/usr/bin/env bash
# `make demo`: the product's main job, from nothing. Installs what is
# needed, builds the modules, boots the test VM, and there exports a RAM
# disk and an image file with rnbd-server, maps both with rnbd-client over
# Soft-RoCE (rxe on a veth), puts a filesystem on one and checks it survives
# a remount, runs a short fio on the other, then unmaps and unloads.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# AWK_VARIANT=mawk|gawk|busybox: the run's awk, host and guest.
. tools/awk-variant.sh
echo "demo: 1/3 setup (packages, Debian's 6.1 kernel for the VM)"
tools/setup.sh
echo "demo: 2/3 building the modules"
make --no-print-directory modules 2>&1 | grep -vE '^\s+(CC|CXX|LD|MODPOST|UPD|BTF) |^make\[' || true
echo "demo: 3/3 booting the VM (QEMU TCG, Debian $(cat .cache/kernel.abi))"
tools/vm/run.sh --timeout 900 --log build/vm/demo.log -- selftests/demo.sh
echo "demo: done; the whole guest console is in build/vm/demo.log"
