#!/usr/bin/env bash
# `make demo`: the product's main job as far as it is built, from nothing:
# install what is needed, build the modules, boot the test VM, and there
# load the four modules and the C++ runtime self-test, showing what happens.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
echo "demo: 1/3 setup (packages, Debian kernel for the VM)"
tools/setup.sh
echo "demo: 2/3 building the modules"
make --no-print-directory modules selftest-modules 2>&1 | grep -vE '^\s+(CC|CXX|LD|MODPOST|UPD|BTF) |^make\[' || true
echo "demo: 3/3 booting the VM (QEMU TCG, Debian $(cat .cache/kernel.abi))"
tools/vm/run.sh --timeout 600 --log build/vm/demo.log -- selftests/demo.sh
echo "demo: done; the whole guest console is in build/vm/demo.log"
