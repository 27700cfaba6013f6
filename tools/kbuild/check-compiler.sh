#!/usr/bin/env bash
# The C++ compiler must be the one the kernel was built with (pitfall P13):
# same major version as CONFIG_CC_VERSION_TEXT, or flags and ABI drift.
set -euo pipefail
kdir=$1
config=$kdir/include/config/auto.conf
[ -f "$config" ] || exit 0
want=$(sed -n 's/^CONFIG_GCC_VERSION=//p' "$config")
[ -n "$want" ] || exit 0
major=$((want / 10000))
cxx=g++-$major
if ! command -v "$cxx" >/dev/null; then
    echo "kernel built with gcc $major but $cxx is missing: run 'make setup'" >&2
    exit 1
fi
