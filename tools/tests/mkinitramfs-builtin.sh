#!/usr/bin/env bash
# Host test of tools/vm/mkinitramfs.sh on a kernel whose virtio, 9p and
# overlay are built in (as in the debug kernel): the image builds, holds
# only the modular ones, and a module that is neither is only a warning.
# TAP output; exit 1 if any case fails.
. "$(dirname "$0")/lib/tap.sh"
abi=6.1.0-test
mdir=$tmp/kernel/lib/modules/$abi
mkdir -p "$mdir/kernel/drivers/virtio" "$mdir/kernel/net/9p"
: > "$mdir/kernel/drivers/virtio/virtio_pci.ko"
: > "$mdir/kernel/net/9p/9pnet.ko"
cat > "$mdir/modules.dep" <<'DEP'
kernel/drivers/virtio/virtio_pci.ko:
kernel/net/9p/9pnet.ko:
DEP
cat > "$mdir/modules.builtin" <<'BUILTIN'
kernel/drivers/virtio/virtio_pci_legacy_dev.ko
kernel/drivers/virtio/virtio_pci_modern_dev.ko
kernel/net/9p/9pnet_virtio.ko
kernel/fs/9p/9p.ko
kernel/fs/overlayfs/overlay.ko
BUILTIN
image=$("$top/tools/vm/mkinitramfs.sh" --kdir "$tmp/kernel" --abi "$abi" --out-dir "$tmp/out" 2> "$tmp/err"); rc=$?
if [ $rc = 0 ] && [ -f "$image" ]; then say ok "built-in virtio/9p/overlay: the image builds"
else say "not ok" "built-in virtio/9p/overlay: mkinitramfs failed (exit $rc)"; sed 's/^/#   /' "$tmp/err"; fi
if [ -f "${image:-/nonexistent}" ]; then
    list=$(cd "$tmp" && gzip -dc "$image" | cpio -i --quiet --to-stdout modules.list 2>/dev/null)
    [ "$(printf '%s\n' "$list" | tr '\n' ' ')" = "virtio_pci.ko 9pnet.ko " ] \
        && say ok "only the modular modules are in the image" \
        || say "not ok" "modules.list is '$list'"
fi
# fscache and netfs are neither modular nor built in here: not an error,
# and nothing to warn about (they may not exist).
if ! grep -q "warning" "$tmp/err"; then say ok "no warning for built-in or optional modules"
else say "not ok" "unexpected warning: $(head -1 "$tmp/err")"; fi
echo "1..$n"
exit $failed
