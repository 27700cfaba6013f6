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
    # (also what a DKMS build on a production machine says: name packages)
    release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h" 2>/dev/null)
    echo "kernel built with gcc $major but $cxx is missing: the modules are C++, compiled with the kernel's compiler." >&2
    echo "Building them needs $cxx (Debian: the g++ package), make and the kernel's headers:" >&2
    echo "  apt-get install g++ $cxx make linux-headers-${release:-\$(uname -r)}" >&2
    exit 1
fi
