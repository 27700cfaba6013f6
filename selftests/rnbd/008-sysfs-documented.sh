#!/usr/bin/env bash
# Every sysfs file of the four modules is documented, and every documented
# file exists: our client and our server in one VM, one device mapped over
# two Soft-RoCE paths (so every per-session, per-path and per-device
# directory exists), then every file and link under
#   /sys/class/rtrs-client, /sys/class/rtrs-server, /sys/class/rnbd-client,
#   /sys/class/rnbd-server, /sys/kernel/rnbd_client, /sys/kernel/rnbd_server,
#   /sys/block/rnbd<N>/rnbd_client, /sys/block/rnbd<N>/rnbd
# is listed, instance names replaced by the placeholders the documentation
# uses, and compared both ways with the inventory in Documentation/sysfs.md
# (read at run time, so files other work documents are included). Each
# inventory entry's file name must also appear in the prose above it.
# The driver model's own files (uevent, power/, subsystem, device) are not
# ours and are left out.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
export LC_ALL=C
doc=Documentation/sysfs.md
tmp=$(mktemp -d /tmp/rnbd-sysfs.XXXXXX)
cleanup() {
    rnbd_stack_teardown
    rm -rf "$tmp"
}
trap cleanup EXIT

setup() {
    rxe_setup 2 >/dev/null || return 1
    modprobe brd rd_nr=1 rd_size=8192 || return 1
    rnbd_server_load ours && rnbd_client_load || return 1
    rnbd_map "sessname=doc path=ip:${RXE_ADDR[0]} path=ip:${RXE_ADDR[1]} device_path=/dev/ram0" > "$tmp/dev"
}
check "setup: two rxe paths, brd, our four modules, /dev/ram0 mapped over both paths" setup
dev=$(cat "$tmp/dev")

# The documented inventory: the fenced block after the "## Inventory" heading.
awk '/^## Inventory/ { on = 1; next } on && /^```/ { if (inb) exit; inb = 1; next } inb && NF { print $1 }' \
    "$doc" | sort -u > "$tmp/documented"
check "the inventory in $doc lists files ($(wc -l < "$tmp/documented"))" test -s "$tmp/documented"

listing() {
    local top
    for top in /sys/class/rtrs-client/* /sys/class/rtrs-server/* /sys/class/rnbd-client/* /sys/class/rnbd-server/* \
        /sys/kernel/rnbd_client /sys/kernel/rnbd_server "/sys/block/$dev/rnbd_client" "/sys/block/$dev/rnbd"; do
        [ -e "$top" ] || continue
        # "$top/": follow the class's own link to the device directory, nothing below.
        find "$top/" -mindepth 1 \( -type f -o -type l \)
    done | sed -E \
        -e 's#//+#/#g' \
        -e '\#/(uevent|subsystem|device)$#d' -e '\#/power/#d' \
        -e 's#^/sys/class/(rtrs-client|rtrs-server)/[^/]+/#/sys/class/\1/<session>/#' \
        -e 's#/paths/[^/]+/#/paths/<path>/#' \
        -e 's#^(/sys/class/rnbd-client/ctl/devices)/[^/]+$#\1/<device_id>@<sessname>#' \
        -e 's#^(/sys/kernel/rnbd_client/devices)/[^/]+$#\1/<device_id>#' \
        -e 's#^(/sys/class/rnbd-server/ctl/devices)/[^/]+/#\1/<device_name>/#' \
        -e 's#/sessions/[^/]+/#/sessions/<session>/#' \
        -e 's#^/sys/block/rnbd[0-9]+/#/sys/block/rnbd<N>/#' |
        sort -u
}
listing > "$tmp/present"
diag "$(wc -l < "$tmp/present") files and links present"
undocumented=$(comm -23 "$tmp/present" "$tmp/documented")
missing=$(comm -13 "$tmp/present" "$tmp/documented")
if [ -z "$undocumented" ]; then ok "every file present is in the inventory"; else
    not_ok "files present but not in the inventory of $doc:"; echo "$undocumented" | sed 's/^/#   /'; fi
if [ -z "$missing" ]; then ok "every file in the inventory is present"; else
    not_ok "files in the inventory of $doc but not present:"; echo "$missing" | sed 's/^/#   /'; fi

# The prose (everything above the inventory) names each file in backquotes.
awk '/^## Inventory/ { exit } { print }' "$doc" > "$tmp/prose"
unnamed=""
while read -r f; do
    name=${f##*/}
    grep -qF "\`$name\`" "$tmp/prose" || grep -qF "/$name\`" "$tmp/prose" || grep -qF "$name," "$tmp/prose" ||
        grep -qF "$name}" "$tmp/prose" ||
        unnamed+="$f "
done < "$tmp/documented"
if [ -z "$unnamed" ]; then ok "every inventory entry is described in the text of $doc"; else
    not_ok "inventory entries the text of $doc does not describe: $unnamed"; fi
tap_done; exit $?
