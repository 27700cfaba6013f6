#!/usr/bin/env bash
# Builds the debug kernel of the sanitizer lane (KASAN, UBSAN, lockdep,
# kmemleak, DEBUG_OBJECTS, failslab) from Debian's linux-source-6.1:
# x86_64 defconfig + kvm_guest.config + tools/debug-kernel/debug.config.
#
# The build is cached outside the clone, keyed by everything that decides its
# result (the fragment, this script, the source package version and the
# compiler, the recipe version), so a second run is a no-op that prints the same directory.
#
# Usage: tools/debug-kernel/build.sh            build if needed; print the dir
# Environment: RNBD_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/rnbd-cxx),
#              JOBS (default nproc).
# Output directory (printed last on stdout):
#   build/      the kernel build tree: pass it as KDIR= to build modules
#   root/       boot/vmlinuz-<release> and lib/modules/<release> for the VM
#   release     the kernel release string
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${RNBD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rnbd-cxx}
tarball=/usr/src/linux-source-6.1.tar.xz
say() { echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: error: $*" >&2; exit 1; }

[ -f "$tarball" ] || die "$tarball missing: run 'make setup' (installs linux-source-6.1)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
# Bump when the recipe below changes what gets built.
recipe=1
key=$({ cat "$here/debug.config"; echo "recipe $recipe $srcver"; gcc --version | head -1; } \
      | sha256sum | cut -c1-16)
dir=$cache/debug-kernel/$key
mkdir -p "$cache/debug-kernel"
# One build per key at a time (make check starts it in the background).
exec 9> "$cache/debug-kernel/$key.lock"
flock 9
if [ -f "$dir/done" ]; then
    say "cached: $dir (key $key)"
    echo "$dir"; exit 0
fi

say "building (key $key; about 8 minutes on 2 idle cores, longer beside other work) in $dir"
rm -rf "$dir"; mkdir -p "$dir"
started=$SECONDS
tar -C "$dir" -xf "$tarball"
mv "$dir/linux-source-6.1" "$dir/src"
src=$dir/src out=$dir/build
mkdir -p "$out"
log=$dir/build.log
make -C "$src" O="$out" defconfig > "$log" 2>&1
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
    "$src/kernel/configs/kvm_guest.config" "$here/debug.config" >> "$log" 2>&1
make -C "$src" O="$out" olddefconfig >> "$log" 2>&1

# Every line of the fragment must have held: a dependency that silently
# dropped an option would make the lane check less than it claims.
bad=0
while read -r line; do
    case $line in
        "# CONFIG_"*) name=${line#\# }; name=${name%% *}
            if grep -q "^$name=" "$out/.config"; then say "fragment: $name stayed on"; bad=1; fi ;;
        CONFIG_*) grep -qxF "$line" "$out/.config" || { say "fragment: '$line' did not hold"; bad=1; } ;;
    esac
done < "$here/debug.config"
[ $bad = 0 ] || die "the configuration does not hold the fragment (see above)"

jobs=${JOBS:-$(nproc)}
make -C "$src" O="$out" -j"$jobs" bzImage modules >> "$log" 2>&1 \
    || { tail -30 "$log" >&2; die "kernel build failed (log: $log)"; }
release=$(cat "$out/include/config/kernel.release")
make -C "$src" O="$out" INSTALL_MOD_PATH="$dir/root" INSTALL_MOD_STRIP=1 modules_install >> "$log" 2>&1
mkdir -p "$dir/root/boot"
cp "$out/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$release"
echo "$release" > "$dir/release"
# Objects are not needed to build external modules; keep what kbuild reads.
find "$out" -name '*.o' -not -path '*/scripts/*' -not -path '*/tools/*' -delete
touch "$dir/done"
say "built $release in $((SECONDS - started)) s"
echo "$dir"
