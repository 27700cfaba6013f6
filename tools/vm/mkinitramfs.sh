#!/usr/bin/env bash
# Builds (and caches under .cache/vm/) the test VM's initramfs: busybox-static,
# the .ko files needed to mount the host root over 9p with an overlay on top
# (virtio_pci, 9pnet_virtio, 9p, overlay and their modules.dep dependencies),
# /init (initramfs-init.sh) and /stage2.sh (stage2.sh). Prints the image's path.
# Rebuilt when any input changes (the cache key hashes all of them).
#
# Usage: mkinitramfs.sh [--kdir DIR] [--abi ABI] [--out-dir DIR]
#   --kdir DIR   root of the unpacked kernel, holding lib/modules/ABI (default .cache/kernel)
#   --abi ABI    kernel release (default: contents of .cache/kernel.abi)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
kdir=$top/.cache/kernel
abi=
outdir=$top/.cache/vm
die() { echo "mkinitramfs: error: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --kdir) kdir=${2:?}; shift 2 ;;
        --abi) abi=${2:?}; shift 2 ;;
        --out-dir) outdir=${2:?}; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) die "unknown option $1" ;;
    esac
done
if [ -z "$abi" ]; then
    [ -f "$top/.cache/kernel.abi" ] || die "no .cache/kernel.abi: run tools/setup.sh first"
    abi=$(cat "$top/.cache/kernel.abi")
fi
mdir=$kdir/lib/modules/$abi
[ -f "$mdir/modules.dep" ] || die "no $mdir/modules.dep (run tools/setup.sh, or depmod -b $kdir $abi)"
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || die "busybox not found (apt-get install busybox-static)"
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' || ldd "$busybox" 2>&1 | grep -q 'not a dynamic' \
    || die "$busybox is not static (apt-get install busybox-static)"

# Wanted modules; each may be modular, built in, or (virtio_pci) absent on custom kernels.
wanted=(virtio_pci virtio_pci_legacy_dev virtio_pci_modern_dev 9pnet 9pnet_virtio netfs fscache 9p overlay)
declare -A seen=()
order=()
dep_of() { # prints the modules.dep entry's deps for the module path $1
    awk -v m="$1:" '$1 == m { for (i = 2; i <= NF; i++) print $i; exit }' "$mdir/modules.dep"
}
path_of() { # module name -> path relative to $mdir, or nothing (built in or absent)
    local n=$1 alt=${1//_/-}
    # No match is an answer, not an error: under pipefail a bare grep would
    # end the script for every built-in module.
    { grep -E "(^|/)($n|$alt)\.ko(\.xz|\.zst|\.gz)?:" "$mdir/modules.dep" || true; } | head -1 | cut -d: -f1
}
add() { # depth-first: deps before the module
    local p=$1 d
    [ -n "${seen[$p]:-}" ] && return 0
    seen[$p]=1
    for d in $(dep_of "$p"); do add "$d"; done
    order+=("$p")
}
for m in "${wanted[@]}"; do
    p=$(path_of "$m")
    if [ -n "$p" ]; then add "$p"
    elif ! grep -qE "/($m|${m//_/-})\.ko$" "$mdir/modules.builtin" 2>/dev/null; then
        case "$m" in virtio_pci_*|fscache|netfs) ;; # helpers that may not exist
        *) echo "mkinitramfs: warning: module $m neither modular nor built in for $abi" >&2 ;; esac
    fi
done

key=$( { echo "$abi $kdir"; printf '%s\n' "${order[@]}";
         for p in "${order[@]}"; do sha1sum "$mdir/$p"; done
         sha1sum "$here/initramfs-init.sh" "$here/stage2.sh" "$here/mkinitramfs.sh" "$busybox"; } | sha1sum | cut -c1-12)
out=$outdir/initramfs-$abi-$key.cpio.gz
if [ -f "$out" ]; then echo "$out"; exit 0; fi

mkdir -p "$outdir"
tmp=$(mktemp -d "$outdir/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
r=$tmp/root
mkdir -p "$r"/{bin,sbin,dev,proc,sys,modules,lower,ovl,newroot}
cp "$busybox" "$r/bin/busybox"
install -m 755 "$here/initramfs-init.sh" "$r/init"
install -m 755 "$here/stage2.sh" "$r/stage2.sh"
: > "$r/modules.list"
for p in "${order[@]}"; do
    b=$(basename "$p")
    case "$b" in
        *.ko.xz) xz -dc "$mdir/$p" > "$r/modules/${b%.xz}"; b=${b%.xz} ;;
        *.ko.zst) zstd -qdc "$mdir/$p" > "$r/modules/${b%.zst}"; b=${b%.zst} ;;
        *.ko.gz) gzip -dc "$mdir/$p" > "$r/modules/${b%.gz}"; b=${b%.gz} ;;
        *) cp "$mdir/$p" "$r/modules/$b" ;;
    esac
    echo "$b" >> "$r/modules.list"
done
(cd "$r" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0) | gzip -1 > "$tmp/img"
rm -f "$outdir"/initramfs-"$abi"-*.cpio.gz
mv "$tmp/img" "$out"
echo "$out"
