#!/usr/bin/env bash
# The DKMS build on the host, in a private DKMS tree (dkms --dkmstree,
# --sourcetree, --installtree under a temporary directory: nothing of the
# machine's dkms state changes, except that dkms creates its module-signing
# key /var/lib/dkms/mok.{key,pub} if the machine has none):
#   1. `make dkms` + `dkms build` for KDIR's kernel: the four modules built,
#      and the build log shows the gates' verdict (check-ko: ... clean);
#   2. the same with a static constructor planted in the DKMS copy of the
#      source: `dkms build` fails, on check-ko's diagnosis.
# Two full module builds: minutes (about 7 on this 2-core machine under
# load each), so not part of `make check`; selftests/install/dkms.sh
# runs it in the VM with DKMS_BUILD=1, or uses the tree's own build.
# Usage: packaging/test-dkms-build.sh [KDIR]      TAP; exit 1 on a failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. selftests/lib.sh
command -v dkms >/dev/null || tap_skip_all "no dkms (make setup installs it)"
abi=$(cat .cache/kernel.abi 2>/dev/null)
kdir=${1:-/usr/src/linux-headers-$abi}
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h" 2>/dev/null)
[ -n "$kver" ] || tap_skip_all "no kernel build tree at $kdir"
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' dkms.conf)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 4

# dkms_build CASE: a fresh private tree for CASE, the source placed by make dkms.
dkms_build() {
    local root=$tmp/$1
    mkdir -p "$root/dkms" "$root/install"
    make -s dkms DESTDIR="$root" > /dev/null || return 2
    [ "$1" = planted ] && printf '\nstruct DkmsGateCtor { DkmsGateCtor() { kapi_might_sleep(); } };\nDkmsGateCtor g_dkms_gate_ctor;\n' \
        >> "$root/usr/src/$name-$version/rtrs/client/rtrs-clt.cpp"
    (cd "$tmp" && nice dkms build "$name/$version" -k "$kver" --kernelsourcedir "$kdir" \
        --sourcetree "$root/usr/src" --dkmstree "$root/dkms" --installtree "$root/install") > "$root.out" 2>&1
}
start=$SECONDS
dkms_build clean; rc=$?
diag "dkms build took $((SECONDS - start)) s"
check "dkms build for $kver succeeds" test $rc = 0
[ $rc = 0 ] || tail -30 "$tmp/clean.out" | sed 's/^/#   /'
check "the four modules are in dkms's tree" sh -c "
    for m in rtrs-client rtrs-server rnbd-client rnbd-server; do
        ls '$tmp/clean/dkms/$name/$version/$kver/'*/module/\$m.ko* >/dev/null 2>&1 || exit 1
    done"
start=$SECONDS
dkms_build planted; rc=$?
diag "dkms build with a planted static constructor took $((SECONDS - start)) s"
check "with a static constructor planted in the source, dkms build fails" test $rc != 0
log=$(ls "$tmp"/planted/dkms/"$name"/"$version"/build/make.log 2>/dev/null)
check "... on the gate's diagnosis (check-ko: ... .init_array)" sh -c "grep -qE 'check-ko: .*\\.init_array' '$log' '$tmp/planted.out'"
tap_done
