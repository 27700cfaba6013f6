#!/usr/bin/env bash
# make install / make uninstall: places the product on this machine (or
# under DESTDIR) and takes it away again, exactly. Usage:
#
#   packaging/install.sh install      (run from the repo top, after `make`:
#                                      the modules and rnbdctl must be built)
#   packaging/install.sh uninstall
#
# Environment (the Makefile passes what was given to make):
#   DESTDIR          staging root; depmod, systemctl and udevadm are then
#                    not run (a package's scripts do that)         (empty)
#   PREFIX           /usr/local
#   KVER             kernel release the modules are for      (uname -r)
#   SBINDIR          $PREFIX/sbin          rnbdctl
#   MANDIR           $PREFIX/share/man     rnbdctl.8, module pages (4)
#   UDEVDIR          $PREFIX/lib/udev      rules.d/60-rnbd.rules, rnbd_id
#   SYSTEMDUNITDIR   $PREFIX/lib/systemd/system
#   PKGLIBDIR        $PREFIX/lib/rnbd-cxx  rnbd-textfile
#   DATADIR          $PREFIX/share/rnbd-cxx   the install manifest
#   SYSCONFDIR       /etc                  modprobe.d/rnbd.conf (kept if there)
#   MODULEDIR        /lib/modules          <KVER>/updates/rnbd-cxx/*.ko
#   BASHCOMPLETIONDIR /usr/share/bash-completion/completions   rnbdctl (the
#                    one directory bash-completion always reads, whatever
#                    XDG_DATA_DIRS says; like SYSCONFDIR, not under PREFIX)
#   INSTALL_MOD_STRIP=1                    strip debug info from the modules
#   INSTALL_STRIP=0                        install rnbdctl unstripped (default:
#                                          stripped; $STRIP, default strip)
#   INSTALL_MODULES=0                      no modules (and no depmod): a package
#                                          whose modules come from DKMS
#   INSTALL_MANIFEST=0                     no manifest (DESTDIR only: a package
#                                          manager keeps its own list)
#
# systemd reads units from /usr/local/lib/systemd/system and udev reads
# rules from /usr/local/lib/udev/rules.d, so the default PREFIX works as is.
#
# The manifest ($DATADIR/install-manifest) lists what install created, one
# entry a line (paths without DESTDIR):
#   f PATH            a file
#   c SHA256 PATH     a configuration file: uninstall removes it only if unchanged
#   d PATH            a directory install created: removed if empty at the end
#   k KVER            a kernel release whose modules.dep depmod rebuilt
# Installing again (another kernel, a newer build) adds to it; uninstall
# removes every entry and the manifest, then runs depmod for each k.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

action=${1:-}
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
KVER=${KVER:-$(uname -r)}
SBINDIR=${SBINDIR:-$PREFIX/sbin}
MANDIR=${MANDIR:-$PREFIX/share/man}
UDEVDIR=${UDEVDIR:-$PREFIX/lib/udev}
SYSTEMDUNITDIR=${SYSTEMDUNITDIR:-$PREFIX/lib/systemd/system}
PKGLIBDIR=${PKGLIBDIR:-$PREFIX/lib/rnbd-cxx}
DATADIR=${DATADIR:-$PREFIX/share/rnbd-cxx}
SYSCONFDIR=${SYSCONFDIR:-/etc}
MODULEDIR=${MODULEDIR:-/lib/modules}
BASHCOMPLETIONDIR=${BASHCOMPLETIONDIR:-/usr/share/bash-completion/completions}
INSTALL_STRIP=${INSTALL_STRIP:-1}
INSTALL_MODULES=${INSTALL_MODULES:-1}
INSTALL_MANIFEST=${INSTALL_MANIFEST:-1}
STRIP=${STRIP:-strip}
manifest=$DATADIR/install-manifest
RNBDCTL=build/rnbdctl/rnbdctl

MODULES=(rtrs/rtrs-client.ko rtrs/rtrs-server.ko rnbd/rnbd-client.ko rnbd/rnbd-server.ko)
UNITS=(rnbd-maps.service rnbd-exports.service rnbd-metrics.service rnbd-metrics.timer)

say() { echo "install: $*"; }
die() { echo "install: error: $*" >&2; exit 1; }
PATH=$PATH:/usr/sbin:/sbin

# Every absolute path must stay absolute once DESTDIR is put in front.
for v in PREFIX SBINDIR MANDIR UDEVDIR SYSTEMDUNITDIR PKGLIBDIR DATADIR SYSCONFDIR MODULEDIR BASHCOMPLETIONDIR; do
    case ${!v} in /*) ;; *) die "$v must be an absolute path, not '${!v}'" ;; esac
done

entries=()          # manifest lines of this run
record() { entries+=("$*"); }

# make_dirs DIR: mkdir -p, recording each directory it creates.
make_dirs() {
    local dir=$1 missing=() d
    [ -z "$DESTDIR" ] || mkdir -p "$DESTDIR"  # the staging root is the caller's
    d=$dir
    while [ "$d" != / ] && [ ! -d "$DESTDIR$d" ]; do
        missing=("$d" "${missing[@]}")
        d=$(dirname "$d")
    done
    for d in "${missing[@]}"; do
        mkdir "$DESTDIR$d"
        record "d $d"
    done
}

# place SRC DEST MODE [strip]: copies SRC to DEST through a temporary name (a
# running system never sees half a file); with "strip", its symbols go.
place() {
    local src=$1 dest=$2 mode=$3
    make_dirs "$(dirname "$dest")"
    cp "$src" "$DESTDIR$dest.rnbd-new"
    if [ "${4:-}" = strip ] && ! $STRIP "$DESTDIR$dest.rnbd-new"; then
        rm -f "$DESTDIR$dest.rnbd-new"
        die "$STRIP $src failed"
    fi
    chmod "$mode" "$DESTDIR$dest.rnbd-new"
    mv -f "$DESTDIR$dest.rnbd-new" "$DESTDIR$dest"
    record "f $dest"
}

# substituted SRC: SRC with the @DIR@ names of this install filled in (to stdout).
substituted() {
    sed -e "s|@SBINDIR@|$SBINDIR|g" -e "s|@UDEVDIR@|$UDEVDIR|g" -e "s|@PKGLIBDIR@|$PKGLIBDIR|g" \
        -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" "$1"
}

# config SRC DEST: a configuration file, placed only if there is none; one
# the administrator already has is left alone (and is not ours to remove,
# unless an earlier install placed it: its manifest entry stays).
config() {
    local src=$1 dest=$2
    if [ -e "$DESTDIR$dest" ]; then
        old_manifest | grep -q "^c [0-9a-f]* $dest\$" || say "kept $dest (already there, not installed by us)"
        return 0
    fi
    make_dirs "$(dirname "$dest")"
    cp "$src" "$DESTDIR$dest"
    chmod 0644 "$DESTDIR$dest"
    record "c $(sha256sum < "$DESTDIR$dest" | cut -d' ' -f1) $dest"
}

old_manifest() { [ -f "$DESTDIR$manifest" ] && grep -v '^#' "$DESTDIR$manifest" || true; }

write_manifest() {
    local tmp
    [ "$INSTALL_MANIFEST" != 0 ] || return 0
    make_dirs "$DATADIR"
    tmp=$DESTDIR$manifest.rnbd-new
    {
        echo "# rnbd-cxx install manifest: what 'make install' created (paths without DESTDIR)."
        echo "# 'make uninstall' removes exactly these; see packaging/install.sh."
        { old_manifest; printf '%s\n' "${entries[@]}"; } | awk '!seen[$0]++'
    } > "$tmp"
    mv -f "$tmp" "$DESTDIR$manifest"
}

run_depmod() { # KVER
    if [ -n "$DESTDIR" ]; then
        say "DESTDIR set: depmod not run (run 'depmod $1' once the files are in place)"
    elif [ -d "$MODULEDIR/$1/kernel" ] || [ -f "$MODULEDIR/$1/modules.order" ]; then
        depmod -a "$1" && say "depmod $1"
    else
        say "no $MODULEDIR/$1 of an installed kernel: depmod not run"
    fi
}

reload_managers() {
    [ -z "$DESTDIR" ] || return 0
    if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
        systemctl daemon-reload 2>/dev/null || true
    fi
    if command -v udevadm >/dev/null && [ -S /run/udev/control ]; then
        udevadm control --reload 2>/dev/null || true
    fi
}

do_install() {
    local ko magic name src
    # Everything is checked before anything is placed.
    [ "$INSTALL_MANIFEST" != 0 ] || [ -n "$DESTDIR" ] ||
        die "INSTALL_MANIFEST=0 is for staging into DESTDIR (a package): without the manifest, uninstall could not remove what install placed"
    if [ "$INSTALL_MODULES" != 0 ]; then
        for ko in "${MODULES[@]}"; do
            [ -f "$ko" ] || die "$ko is not built: run 'make' (or 'make KDIR=...') first"
            magic=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
            [ "$magic" = "$KVER" ] ||
                die "$ko is built for $magic, not $KVER: rebuild with make KDIR=<$KVER's build tree>, or pass KVER=$magic"
        done
    fi
    [ -x "$RNBDCTL" ] || die "$RNBDCTL is not built: run 'make' (it builds the modules and rnbdctl) first"

    # Modules: updates/ wins over the kernel's own rnbd/rtrs modules in depmod's search order.
    if [ "$INSTALL_MODULES" != 0 ]; then
        for ko in "${MODULES[@]}"; do
            name=$(basename "$ko")
            place "$ko" "$MODULEDIR/$KVER/updates/rnbd-cxx/$name" 0644
            [ "${INSTALL_MOD_STRIP:-}" = 1 ] && strip --strip-debug "$DESTDIR$MODULEDIR/$KVER/updates/rnbd-cxx/$name"
        done
        record "k $KVER"
    fi

    # The CLI (stripped unless INSTALL_STRIP=0: a package's dh_strip keeps
    # the symbols apart) and the man pages.
    place "$RNBDCTL" "$SBINDIR/rnbdctl" 0755 "$([ "$INSTALL_STRIP" = 0 ] || echo strip)"
    place tools/rnbdctl/rnbdctl.bash-completion "$BASHCOMPLETIONDIR/rnbdctl" 0644
    for src in Documentation/man/*.[1-8]; do
        [ -f "$src" ] || continue
        name=$(basename "$src")
        place "$src" "$MANDIR/man${name##*.}/$name" 0644
    done

    # udev, systemd, metrics helper.
    substituted packaging/udev/60-rnbd.rules.in > build/packaging/60-rnbd.rules
    place build/packaging/60-rnbd.rules "$UDEVDIR/rules.d/60-rnbd.rules" 0644
    place packaging/udev/rnbd_id "$UDEVDIR/rnbd_id" 0755
    for name in "${UNITS[@]}"; do
        substituted "packaging/systemd/$name" > "build/packaging/$name"
        place "build/packaging/$name" "$SYSTEMDUNITDIR/$name" 0644
    done
    substituted packaging/rnbd-textfile > build/packaging/rnbd-textfile
    place build/packaging/rnbd-textfile "$PKGLIBDIR/rnbd-textfile" 0755

    config packaging/modprobe.d/rnbd.conf "$SYSCONFDIR/modprobe.d/rnbd.conf"

    write_manifest
    [ "$INSTALL_MODULES" = 0 ] || run_depmod "$KVER"
    reload_managers
    if [ "$INSTALL_MODULES" = 0 ]; then
        say "installed (no modules) under ${DESTDIR:-/}$([ "$INSTALL_MANIFEST" = 0 ] || echo " (manifest $manifest)")"
    else
        say "installed for kernel $KVER under ${DESTDIR:-/}$([ "$INSTALL_MANIFEST" = 0 ] || echo " (manifest $manifest)")"
    fi
}

do_uninstall() {
    local line kind a b kvers=() units=() unit lines
    [ -f "$DESTDIR$manifest" ] || { say "nothing to uninstall: no $DESTDIR$manifest"; return 0; }
    # (no process substitution: the test VM has no /dev/fd)
    mapfile -t lines <<< "$(old_manifest)"
    # Units an administrator enabled: their links go too (a running service
    # is not stopped: that would unmap devices in use).
    for line in "${lines[@]}"; do
        read -r kind a b <<< "$line"
        [ "$kind" = f ] && [ "$(dirname "$a")" = "$SYSTEMDUNITDIR" ] && units+=("$(basename "$a")")
    done
    if [ ${#units[@]} -gt 0 ] && command -v systemctl >/dev/null; then
        systemctl ${DESTDIR:+--root="$DESTDIR"} --no-reload disable "${units[@]}" >/dev/null 2>&1 || true
        for unit in "${units[@]}"; do
            [ -z "$DESTDIR" ] && [ -d /run/systemd/system ] && systemctl -q is-active "$unit" 2>/dev/null &&
                say "$unit is still active (not stopped; it is gone after 'systemctl stop $unit')"
        done
    fi
    for line in "${lines[@]}"; do
        read -r kind a b <<< "$line"
        case $kind in
            f) rm -f "$DESTDIR$a" ;;
            c)
                [ -e "$DESTDIR$b" ] || continue
                if [ "$(sha256sum < "$DESTDIR$b" | cut -d' ' -f1)" = "$a" ]; then
                    rm -f "$DESTDIR$b"
                else
                    say "kept $b: changed since it was installed"
                fi
                ;;
            k) kvers+=("$a") ;;
        esac
    done
    rm -f "$DESTDIR$manifest"
    # Directories last, deepest first; only those install created, only if empty.
    printf '%s\n' "${lines[@]}" | awk '$1 == "d" { print length($2), $2 }' | sort -rn | cut -d' ' -f2- |
        while read -r a; do
            rmdir "$DESTDIR$a" 2>/dev/null || { [ -d "$DESTDIR$a" ] && say "kept $a: not empty"; }
        done
    for a in "${kvers[@]}"; do run_depmod "$a"; done
    reload_managers
    say "uninstalled from ${DESTDIR:-/}"
}

case $action in
    install) mkdir -p build/packaging; do_install ;;
    uninstall) do_uninstall ;;
    *) echo "usage: $0 install|uninstall (see the header for the environment)" >&2; exit 2 ;;
esac
