#!/usr/bin/env bash
# `make check-install`: the installed product in one VM (Debian's 6.1):
# selftests/install/make-install-udev.sh (make install, modprobe pulls RTRS,
# udevd with our rules: /dev/rnbd/<session>/<path>, by-uuid/label/part*,
# rnbdctl save + the unit's ExecStop/ExecStart, make uninstall leaves
# nothing), selftests/install/dkms.sh (make dkms, dkms ldtarball or, with
# DKMS_BUILD=1, a build in the VM; install, modinfo -n, modprobe, remove)
# and selftests/install/deb.sh (apt-get install of the two packages, DKMS
# through their postinst, an unsupported kernel skipped, modprobe, the
# kernel hooks, apt-get purge leaves nothing). About 25 minutes under TCG,
# so not part of `make check` unless CHECK_INSTALL=1. Does its own setup
# (tools/setup.sh, idempotent) and builds what it needs (modules, rnbdctl,
# the packages: make deb into build/deb) first.
# Usage: tools/check-install.sh [OUTPUT_DIR]   (default build/check)
# Last line: "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${1:-build/check}
mkdir -p "$out"
SETUP_QUIET=1 tools/setup.sh > "$out/install-setup.log" 2>&1 ||
    { tail -20 "$out/install-setup.log"; echo "0 passed, 1 failed"; exit 1; }
{ make --no-print-directory modules rnbdctl && make --no-print-directory deb; } > "$out/install-build.log" 2>&1 ||
    { tail -20 "$out/install-build.log"; echo "0 passed, 1 failed"; exit 1; }
tools/vm/run.sh --timeout 2400 --log "$out/vm-install.log" -- \
    bash -c 'selftests/install/make-install-udev.sh; a=$?; selftests/install/dkms.sh; b=$?; selftests/install/deb.sh; c=$?
        [ $a = 0 ] && [ $b = 0 ] && [ $c = 0 ]' \
    > "$out/vm-install.out" 2>&1; rc=$?
grep -E '^(ok|not ok)|run.sh:' "$out/vm-install.out" | tail -40
p=$(grep -cE '^ok [0-9]+' "$out/vm-install.log" || true)
f=$(grep -E '^not ok [0-9]+' "$out/vm-install.log" | grep -cvE '# (SKIP|TODO)' || true)
[ $rc = 0 ] || f=$((f + 1))  # the run itself failed (crash, WARN, timeout, ...)
echo "$p passed, $f failed"
[ "$f" = 0 ]
