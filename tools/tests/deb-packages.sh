#!/usr/bin/env bash
# Host test of the Debian packages (debian/, `make deb`), inspected with
# dpkg-deb, never installed here (selftests/install/deb.sh installs them in
# the VM):
#   - `make deb` (dpkg-buildpackage -b -us -uc in a copy of the tree) builds
#     rnbd-cxx-dkms (all), rnbdctl (amd64) and rnbdctl-dbgsym, at
#     dkms.conf's version;
#   - rnbd-cxx-dkms: depends on dkms, g++, make and the kernel headers; its
#     /usr/src/rnbd-cxx-<version>/ is exactly `make dkms`'s tree (no
#     debian/, no build product); its postinst/prerm are dh_dkms's for
#     rnbd-cxx/<version>;
#   - rnbdctl: exactly rnbdctl, the units, the udev rules and helper, the
#     metrics writer, the man pages, the bash completion and the modprobe.d template in Debian
#     12's places, with those paths substituted; /etc/modprobe.d/rnbd.conf
#     its only conffile; no manifest, no module; rnbdctl stripped and built
#     with dpkg-buildflags' hardening (PIE, BIND_NOW, fortified calls),
#     its symbols in rnbdctl-dbgsym; the maintainer scripts parse, and
#     none starts, stops or restarts rnbd-maps.service or rnbd-exports.service;
#   - dkms.conf's kernels: BUILD_EXCLUSIVE_KERNEL takes Debian 12's 6.1 and
#     6.12 releases only, and AUTOINSTALL is off for an autoinstall of
#     another kernel; as root with dkms, in a private DKMS tree of the
#     package's source: `dkms build` for 6.99.0-1-amd64 exits 77 (skipped)
#     and `dkms autoinstall` for it exits 0 with nothing built.
# Takes 1-2 minutes (the package build compiles rnbdctl). DEB_DIR=DIR
# inspects the packages already there (tools/check-install.sh: build/deb)
# instead of building. DKMS_BUILD=1 adds a real `dkms build` of the
# package's tree for the 6.1 headers (several minutes more).
# TAP; exit 1 if any check fails.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. selftests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH=$PATH:/usr/sbin:/sbin

for t in dpkg-buildpackage dpkg-deb dh dh_dkms; do
    command -v $t >/dev/null || tap_skip_all "no $t (tools/setup.sh installs debhelper and dh-dkms)"
done
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' dkms.conf)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)

if [ -n "${DEB_DIR:-}" ]; then
    debs=$DEB_DIR
    diag "inspecting the packages in $debs (DEB_DIR)"
else
    debs=$tmp/deb
    start=$SECONDS
    check "make deb: dpkg-buildpackage -b -us -uc in a copy of the tree" sh -c "
        make -s deb DEB_OUT='$debs' > '$tmp/build.out' 2>&1 || { sed 's/^/#   /' '$tmp/build.out'; exit 1; }"
    diag "make deb took $((SECONDS - start)) s"
fi
dkms_deb=$debs/${name}-dkms_${version}_all.deb
ctl_deb=$debs/rnbdctl_${version}_amd64.deb
dbg_deb=$debs/rnbdctl-dbgsym_${version}_amd64.deb
check "three packages at dkms.conf's version $version: ${name}-dkms (all), rnbdctl and rnbdctl-dbgsym (amd64)" \
    test -f "$dkms_deb" -a -f "$ctl_deb" -a -f "$dbg_deb"
[ -f "$dkms_deb" ] && [ -f "$ctl_deb" ] || { tap_done; exit 1; }
field() { dpkg-deb -f "$1" "$2"; }
for d in "$dkms_deb" "$ctl_deb"; do dpkg-deb -x "$d" "$tmp/$(basename "$d" .deb)"; dpkg-deb -e "$d" "$tmp/$(basename "$d" .deb).control"; done
dk=$tmp/$(basename "$dkms_deb" .deb)
ct=$tmp/$(basename "$ctl_deb" .deb)

# ---- rnbd-cxx-dkms ----
depends_on() { # package-file, then the alternatives groups that must be there
    local deps d
    deps=$(field "$1" Depends | tr -d ' ' | tr ',' '\n'); shift
    for d in "$@"; do printf '%s\n' "$deps" | grep -qx -- "$d" || { diag "no Depends: $d (Depends: $(printf '%s' "$deps" | tr '\n' ' '))"; return 1; }; done
}
check "${name}-dkms depends on dkms (>= 3.0.10-8~), g++, make and linux-headers-amd64 | ... | linux-headers" \
    depends_on "$dkms_deb" 'dkms(>=3.0.10-8~)' g++ make 'linux-headers-amd64|linux-headers-6.12-amd64|linux-headers-generic|linux-headers'
make -s dkms DESTDIR="$tmp/dkms" > /dev/null 2>&1
list_tree() { (cd "$1" && find . -type f -o -type l | sed 's,^\./,,' | sort); }
same_tree() {
    local a=$tmp/dkms/usr/src/$name-$version b=$dk/usr/src/$name-$version
    [ -d "$a" ] && [ -d "$b" ] || { diag "missing $a or $b"; return 1; }
    diff <(list_tree "$a") <(list_tree "$b") > "$tmp/tree.diff" || { head -20 "$tmp/tree.diff" | sed 's/^/#   /'; return 1; }
    diff -r "$a" "$b" > "$tmp/tree.diff" || { head -20 "$tmp/tree.diff" | sed 's/^/#   /'; return 1; }
}
check "/usr/src/$name-$version/ is exactly make dkms's tree (dkms.conf, Makefile, Kbuild, sources, gates)" same_tree
check "... and nothing else under / but the package's docs" sh -c "
    [ \"\$(cd '$dk' && find . -type f ! -path './usr/src/$name-$version/*' ! -path './usr/share/doc/$name-dkms/*' | head -3)\" = '' ]"
check "... without debian/, build products, build/ or .cache" sh -c "
    [ -z \"\$(cd '$dk/usr/src/$name-$version' && find . \\( -path ./debian -o -name '*.o' -o -name '*.ko' -o -name '*.cmd' \
        -o -path ./build -o -path ./.cache -o -path ./generated \\) -print | head -3)\" ]"
check "dh_dkms's postinst (common.postinst $name $version) and prerm (dkms remove)" sh -c "
    grep -q '^DKMS_NAME=$name\$' '$dk.control/postinst' && grep -q '^DKMS_VERSION=$version\$' '$dk.control/postinst' &&
    grep -q 'common.postinst' '$dk.control/postinst' && grep -q 'dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all' '$dk.control/prerm'"

# ---- rnbdctl ----
expected_files() {
    printf '%s\n' ./etc/modprobe.d/rnbd.conf ./lib/systemd/system/rnbd-maps.service ./lib/systemd/system/rnbd-exports.service \
        ./lib/systemd/system/rnbd-metrics.service ./usr/share/bash-completion/completions/rnbdctl \
        ./lib/systemd/system/rnbd-metrics.timer ./lib/udev/rnbd_id ./lib/udev/rules.d/60-rnbd.rules \
        ./usr/lib/rnbd-cxx/rnbd-textfile ./usr/sbin/rnbdctl ./usr/share/doc/rnbdctl/changelog.gz ./usr/share/doc/rnbdctl/copyright
    for f in Documentation/man/*.[1-8]; do n=$(basename "$f"); echo "./usr/share/man/man${n##*.}/$n.gz"; done
}
files_as_expected() {
    diff <(expected_files | sort) <(cd "$ct" && find . -type f -o -type l | sort) > "$tmp/files.diff" ||
        { sed 's/^/#   /' "$tmp/files.diff"; return 1; }
}
check "rnbdctl holds exactly rnbdctl, the units, udev rules + helper, metrics writer, man pages, modprobe.d template (no module, no manifest)" \
    files_as_expected
check "its only conffile is /etc/modprobe.d/rnbd.conf (the template, unchanged)" sh -c "
    [ \"\$(cat '$ct.control/conffiles')\" = /etc/modprobe.d/rnbd.conf ] && cmp -s packaging/modprobe.d/rnbd.conf '$ct/etc/modprobe.d/rnbd.conf'"
check "rnbdctl depends on libc6 and libstdc++6 (shlibs) and kmod" \
    sh -c "deps=\$(dpkg-deb -f '$ctl_deb' Depends); case \$deps in *libc6*libstdc++6*kmod*) ;; *) echo \"# Depends: \$deps\"; exit 1 ;; esac"
check "the units, rules and writer name /usr/sbin/rnbdctl, /lib/udev/rnbd_id, /usr/lib/rnbd-cxx; no @NAME@ left" sh -c "
    grep -qx 'ExecStart=/usr/sbin/rnbdctl restore' '$ct/lib/systemd/system/rnbd-maps.service' &&
    grep -qx 'ExecStop=/usr/sbin/rnbdctl unmap --all' '$ct/lib/systemd/system/rnbd-maps.service' &&
    grep -qx 'ExecStart=/usr/sbin/rnbdctl server restore' '$ct/lib/systemd/system/rnbd-exports.service' &&
    grep -qx 'ExecStop=/usr/sbin/rnbdctl server export remove --all' '$ct/lib/systemd/system/rnbd-exports.service' &&
    grep -q '^ExecStart=/usr/lib/rnbd-cxx/rnbd-textfile ' '$ct/lib/systemd/system/rnbd-metrics.service' &&
    grep -q 'IMPORT{program}=\"/lib/udev/rnbd_id %p\"' '$ct/lib/udev/rules.d/60-rnbd.rules' &&
    grep -q 'rnbdctl=\${RNBDCTL:-/usr/sbin/rnbdctl}' '$ct/usr/lib/rnbd-cxx/rnbd-textfile' && ! grep -rl '@[A-Z]*DIR@' '$ct'"
hardened() {
    local bin=$ct/usr/sbin/rnbdctl
    # Each tool's whole output first: with pipefail, `tool | grep -q` fails
    # when grep stops reading early and the tool dies of SIGPIPE.
    local sections header dynamic segments symbols
    sections=$(readelf -S "$bin") && header=$(readelf -h "$bin") && dynamic=$(readelf -d "$bin") &&
        segments=$(readelf -lW "$bin") && symbols=$(nm -D "$bin") || { diag "readelf/nm failed on $bin"; return 1; }
    grep -q '\.symtab' <<< "$sections" && { diag "rnbdctl is not stripped"; return 1; }
    grep -q 'Type: *DYN' <<< "$header" || { diag "rnbdctl is not PIE"; return 1; }
    grep -q 'BIND_NOW' <<< "$dynamic" || { diag "no BIND_NOW (LDFLAGS -z now)"; return 1; }
    grep -q GNU_RELRO <<< "$segments" || { diag "no RELRO"; return 1; }
    grep -qE ' U __[a-z]+_chk@' <<< "$symbols" || { diag "no fortified call (CPPFLAGS -D_FORTIFY_SOURCE)"; return 1; }
    grep -q ' U __stack_chk_fail@' <<< "$symbols" || { diag "no stack protector (CXXFLAGS)"; return 1; }
}
check "rnbdctl is stripped and hardened by dpkg-buildflags (PIE, BIND_NOW, RELRO, fortified calls, stack protector)" hardened
debug_symbols() {
    local id
    id=$(readelf -n "$ct/usr/sbin/rnbdctl" | sed -n 's/.*Build ID: *//p')
    dpkg-deb -c "$dbg_deb" > "$tmp/dbg.list" || return 1
    [ -n "$id" ] && grep -q "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" "$tmp/dbg.list"
}
check "rnbdctl-dbgsym holds rnbdctl's symbols (by its build id)" debug_symbols
scripts_parse() {
    local f rc=0
    for f in "$dk.control"/{preinst,postinst,prerm,postrm} "$ct.control"/{preinst,postinst,prerm,postrm}; do
        [ -f "$f" ] || continue
        sh -n "$f" 2> "$tmp/sh.err" || { diag "$(basename "$(dirname "$f")")/$(basename "$f"): $(cat "$tmp/sh.err")"; rc=1; }
    done
    return $rc
}
check "every maintainer script parses (sh -n)" scripts_parse
maps_left_alone() {
    local hits u
    # (messages to the administrator aside)
    hits=$(cat "$ct.control"/p* | grep -vE '^[[:space:]]*(echo|")' | grep -E "deb-systemd-invoke[^#]*rnbd-(maps|exports)|systemctl +[^#]*(start|stop|restart|reload)[^#]*rnbd-(maps|exports)")
    [ -z "$hits" ] || { printf '%s\n' "$hits" | sed 's/^/#   /'; return 1; }
    # dh_installsystemd --no-enable: enable only what was enabled before
    for u in rnbd-maps.service rnbd-exports.service rnbd-metrics.timer; do
        grep -q "deb-systemd-helper debian-installed '$u'" "$ct.control/postinst" || { diag "$u: not --no-enable's snippet"; return 1; }
    done
    ! grep -q 'was-enabled defaults to true' "$ct.control/postinst"
}
check "rnbdctl's scripts never start, stop or restart rnbd-maps.service or rnbd-exports.service, and enable no unit on installation" maps_left_alone
check "the metrics units are stopped on removal; udev rules reloaded on configure and removal" sh -c "
    grep -q \"deb-systemd-invoke stop 'rnbd-metrics.service' 'rnbd-metrics.timer'\" '$ct.control/prerm' &&
    grep -q 'udevadm control --reload' '$ct.control/postinst' && grep -q 'udevadm control --reload' '$ct.control/postrm'"

# ---- dkms.conf: the kernels ----
conf=$dk/usr/src/$name-$version/dkms.conf
kernel_regex() {
    local k rc=0 re
    re=$(bash -c ". '$conf' >/dev/null 2>&1; echo \"\$BUILD_EXCLUSIVE_KERNEL\"")
    for k in 6.1.0-56-amd64 6.1.0-9-amd64 6.12.117+deb12-amd64 6.12.57+deb13-amd64; do
        [[ $k =~ $re ]] || { diag "$k not taken by '$re'"; rc=1; }
    done
    for k in 6.10.11-amd64 6.13.1-amd64 6.2.0-1-amd64 7.1.0-1-amd64 5.10.0-30-amd64 6.99.0-1-amd64; do
        [[ $k =~ $re ]] && { diag "$k taken by '$re'"; rc=1; }
    done
    return $rc
}
check "BUILD_EXCLUSIVE_KERNEL takes 6.1.* and 6.12.* only" kernel_regex
autoinstall_gate() {
    local k got
    for k in 6.1.0-57-amd64:yes 6.12.117+deb12-amd64:yes 6.99.0-1-amd64: 7.0.0-1-amd64/x86_64: :yes; do
        got=$(_ka=${k%:*} bash -c ". '$conf' >/dev/null 2>&1; echo \"\$AUTOINSTALL\"")
        [ "$got" = "${k##*:}" ] || { diag "autoinstall -k '${k%:*}': AUTOINSTALL='$got', not '${k##*:}'"; return 1; }
    done
}
check "AUTOINSTALL: yes, but off for \`dkms autoinstall -k\` of another kernel" autoinstall_gate

if [ "$(id -u)" = 0 ] && command -v dkms >/dev/null; then
    # A private DKMS tree of the package's source (dkms creates its signing
    # key /var/lib/dkms/mok.* if the machine has none, as for any build).
    d=$tmp/dkms-tree
    mkdir -p "$d/dkms" "$d/install"
    dk_args=(--dkmstree "$d/dkms" --sourcetree "$dk/usr/src" --installtree "$d/install")
    (cd "$tmp" && dkms add "$name/$version" "${dk_args[@]}") > "$tmp/add.out" 2>&1 || sed 's/^/#   /' "$tmp/add.out"
    # (dkms needs some kernel tree to read before it decides)
    some_headers=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | head -1)
    skipped() {
        (cd "$tmp" && dkms build "$name/$version" -k 6.99.0-1-amd64 ${some_headers:+--kernelsourcedir "$some_headers"} \
            "${dk_args[@]}") > "$tmp/build.out" 2>&1; local rc=$?
        [ $rc = 77 ] || { diag "exit $rc"; sed 's/^/#   /' "$tmp/build.out" | tail -5; return 1; }
    }
    check "dkms build for 6.99.0-1-amd64 (the package's tree): skipped, exit 77" skipped
    autoinstalled() {
        (cd "$tmp" && dkms autoinstall -k 6.99.0-1-amd64 "${dk_args[@]}") > "$tmp/ai.out" 2>&1; local rc=$?
        [ $rc = 0 ] || { diag "exit $rc"; sed 's/^/#   /' "$tmp/ai.out" | tail -5; return 1; }
        dkms status "$name" "${dk_args[@]}" 2>/dev/null | grep -q '6.99' && { diag "$(dkms status "$name" "${dk_args[@]}")"; return 1; }
        return 0
    }
    check "dkms autoinstall -k 6.99.0-1-amd64 (the kernel hooks' command): exit 0, nothing built" autoinstalled
    # Whether this dkms still needs dkms.conf's AUTOINSTALL guard: the same
    # tree without it (3.0.10: exit 11, which fails a kernel package).
    mkdir -p "$d/unguarded/src" "$d/unguarded/dkms"
    cp -a "$dk/usr/src/$name-$version" "$d/unguarded/src/"
    sed -i '/^if \[\[ -n \${_ka/,/^fi$/d' "$d/unguarded/src/$name-$version/dkms.conf"
    (cd "$tmp" && dkms add "$name/$version" --dkmstree "$d/unguarded/dkms" --sourcetree "$d/unguarded/src" --installtree "$d/install" &&
        dkms autoinstall -k 6.99.0-1-amd64 --dkmstree "$d/unguarded/dkms" --sourcetree "$d/unguarded/src" --installtree "$d/install") \
        > "$tmp/unguarded.out" 2>&1
    rc=$?
    diag "without dkms.conf's AUTOINSTALL guard, this dkms ($(dkms --version 2>/dev/null)) autoinstall -k 6.99.0-1-amd64 exits $rc"
    abi=$(cat .cache/kernel.abi 2>/dev/null)
    if [ "${DKMS_BUILD:-0}" = 1 ] && [ ! -f "/usr/src/linux-headers-$abi/Makefile" ]; then
        skip "DKMS_BUILD=1: dkms build of the package's tree" "no /usr/src/linux-headers-$abi (.cache/kernel.abi: tools/setup.sh)"
    elif [ "${DKMS_BUILD:-0}" = 1 ]; then
        built() {
            local start=$SECONDS rc m
            (cd "$tmp" && nice dkms build -j 1 "$name/$version" -k "$abi" --kernelsourcedir "/usr/src/linux-headers-$abi" \
                "${dk_args[@]}") > "$tmp/build61.out" 2>&1; rc=$?
            diag "dkms build for $abi took $((SECONDS - start)) s"
            [ $rc = 0 ] || { tail -20 "$tmp/build61.out" | sed 's/^/#   /'; return 1; }
            for m in rtrs-client rtrs-server rnbd-client rnbd-server; do
                ls "$d/dkms/$name/$version/$abi/"*/module/$m.ko* > /dev/null 2>&1 || { diag "no $m.ko"; return 1; }
            done
        }
        check "DKMS_BUILD=1: dkms build of the package's tree for $abi: the four modules" built
    fi
else
    skip "dkms build / autoinstall for an unsupported kernel in a private DKMS tree" "not root or no dkms"
fi
tap_done
