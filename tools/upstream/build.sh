#!/usr/bin/env bash
# Builds Linux 6.1's in-tree RNBD/RTRS (from Debian's linux-source-6.1, unpacked
# by tools/setup.sh under .cache/linux-source/) out-of-tree against the Debian
# kernel headers. The result is our interop peer and performance anchor; the
# upstream code is only ever copied into .cache/, never into the repository.
#
# Usage: tools/upstream/build.sh [KERNEL=6.1|6.12] [KDIR=<kernel build tree>] [V=1]
#   KERNEL which kernel's RNBD/RTRS, built against that kernel (default 6.1):
#          6.1  from .cache/linux-source/      into .cache/upstream/
#          6.12 from .cache/linux-source-6.12/ into .cache/upstream-6.12/
#   KDIR   kernel build tree (default /usr/src/linux-headers-<release>, the
#          release from .cache/kernel.abi or .cache/kernel-6.12.abi);
#          may also be given in the environment.
#   V=1    verbose kbuild output.
# Environment: CACHE (default <repo>/.cache), JOBS (default nproc).
#
# Outputs (copies): .cache/upstream[-6.12]/{rtrs-core,rtrs-client,rtrs-server,rnbd-client,rnbd-server}.ko
# Idempotent: sources are re-copied only when they changed, and kbuild rebuilds
# only what is out of date, so a second run is a quick no-op.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CACHE:-$top/.cache}
say() { echo "upstream-build: $*"; }
die() { echo "upstream-build: error: $*" >&2; exit 1; }

verbose=0 kernel=6.1
for arg in "$@"; do
    case $arg in
        KERNEL=*) kernel=${arg#KERNEL=} ;;
        KDIR=*) KDIR=${arg#KDIR=} ;;
        V=1) verbose=1 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) die "unknown argument '$arg' (see --help)" ;;
    esac
done

case $kernel in
    6.1) suffix='' ;;
    6.12) suffix=-6.12 ;;
    *) die "KERNEL must be 6.1 or 6.12" ;;
esac
if [ -z "${KDIR:-}" ]; then
    [ -f "$cache/kernel$suffix.abi" ] || die "$cache/kernel$suffix.abi missing: run tools/setup.sh first (or pass KDIR=)"
    KDIR=/usr/src/linux-headers-$(cat "$cache/kernel$suffix.abi")
fi
[ -f "$KDIR/Makefile" ] || die "KDIR=$KDIR is not a kernel build tree (no Makefile)"
[ -f "$KDIR/Module.symvers" ] || die "KDIR=$KDIR has no Module.symvers"

upsrc=$cache/linux-source$suffix/drivers
rtrs_in=$upsrc/infiniband/ulp/rtrs
rnbd_in=$upsrc/block/rnbd
[ -f "$rtrs_in/rtrs-pri.h" ] && [ -f "$rnbd_in/rnbd-proto.h" ] \
    || die "upstream sources missing under $upsrc: run tools/setup.sh first"

out=$cache/upstream$suffix
src=$out/src
mkdir -p "$out"

# Fresh copy whenever the upstream sources (or KDIR) differ from the last copy.
stamp_now=$( (echo "KDIR=$KDIR"; cd "$upsrc" && find infiniband/ulp/rtrs block/rnbd -type f -print0 \
    | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)
if [ ! -f "$src/.stamp" ] || [ "$(cat "$src/.stamp")" != "$stamp_now" ]; then
    say "copying upstream rtrs and rnbd into $src"
    rm -rf "$src"
    mkdir -p "$src"
    cp -a "$rtrs_in" "$src/rtrs"
    cp -a "$rnbd_in" "$src/rnbd"
    echo "$stamp_now" > "$src/.stamp"
fi

jobs=${JOBS:-$(nproc)}
kmake() {
    local log=$out/build-$1.log; shift
    if [ $verbose = 1 ]; then
        make -C "$KDIR" -j"$jobs" V=1 "$@" 2>&1 | tee "$log"; return "${PIPESTATUS[0]}"
    fi
    if ! make -C "$KDIR" -j"$jobs" "$@" >"$log" 2>&1; then
        tail -40 "$log" >&2
        die "build failed, full log in $log"
    fi
    grep -E '^\s+(CC|LD|MODPOST)' "$log" | sed 's/^/  /' || true
}

start=$(date +%s.%N)
say "building $kernel's rtrs against $KDIR"
kmake rtrs M="$src/rtrs" \
    CONFIG_INFINIBAND_RTRS=m CONFIG_INFINIBAND_RTRS_CLIENT=m CONFIG_INFINIBAND_RTRS_SERVER=m modules

# rnbd's own Makefile points its include path at the in-tree rtrs folder
# ($(srctree)/drivers/...), which a headers-only tree lacks: add the copy's.
say "building $kernel's rnbd against $KDIR"
kmake rnbd M="$src/rnbd" KCFLAGS="-I$src/rtrs" KBUILD_EXTRA_SYMBOLS="$src/rtrs/Module.symvers" \
    CONFIG_BLK_DEV_RNBD_CLIENT=m CONFIG_BLK_DEV_RNBD_SERVER=m modules
end=$(date +%s.%N)

for m in rtrs/rtrs-core rtrs/rtrs-client rtrs/rtrs-server rnbd/rnbd-client rnbd/rnbd-server; do
    ko=$src/$m.ko
    [ -f "$ko" ] || die "expected $ko was not built"
    dst=$out/$(basename "$ko")
    cmp -s "$ko" "$dst" 2>/dev/null || cp "$ko" "$dst"
done
say "done in $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}') s:" \
    "$(cd "$out" && echo rtrs-core.ko rtrs-client.ko rtrs-server.ko rnbd-client.ko rnbd-server.ko) in $out"
