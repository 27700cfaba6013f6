#!/usr/bin/env bash
# Guest entry point of the VM selftests: runs every selftests/<group>/NNN-*.sh
# in order (or those matching the given patterns) and fails if any fails.
# Each script prints TAP; the host counts the ok/not ok lines.
# Usage (inside the VM, from the repo top): selftests/run.sh [pattern...]
set -uo pipefail
cd "$(dirname "$0")/.."
scripts=$(ls selftests/*/[0-9][0-9][0-9]-*.sh 2>/dev/null | sort)
if [ $# -gt 0 ]; then
    pattern=$(printf '%s|' "$@"); pattern=${pattern%|}
    scripts=$(grep -E "$pattern" <<<"$scripts" || true)
fi
[ -n "$scripts" ] || { echo "selftests: nothing matches: $*" >&2; exit 1; }
echo "TAP version 13"
failed=0

# The interop peer is Linux's RNBD/RTRS of the running kernel, built by
# tools/upstream/build.sh against it: 6.12's under .cache/upstream-6.12.
if [ -z "${UPSTREAM_KO_DIR:-}" ]; then
    case $(uname -r) in
        6.12.*) export UPSTREAM_KO_DIR=$PWD/.cache/upstream-6.12 ;;
    esac
fi

# On a kernel with kmemleak (the debug lane), forget what boot left behind
# so that the scan after the tests reports only objects leaked during them.
kmemleak=/sys/kernel/debug/kmemleak
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ -w "$kmemleak" ]; then
    echo scan > "$kmemleak"; echo clear > "$kmemleak"
fi

for script in $scripts; do
    echo "# === $script"
    start=$(date +%s)
    if ! bash "$script"; then
        echo "# FAILED: $script"
        failed=$((failed + 1))
    fi
    echo "# --- $script took $(( $(date +%s) - start ))s"
done
if [ -w "$kmemleak" ]; then
    echo "# === kmemleak scan after the selftests"
    # An object must stay unreferenced across scans and be a few seconds old
    # before kmemleak reports it.
    sleep 6; echo scan > "$kmemleak"; sleep 1; echo scan > "$kmemleak"
    leaks=$(grep -c '^unreferenced object' "$kmemleak" || true)
    if [ "$leaks" = 0 ]; then
        echo "ok 1 - kmemleak: no object leaked during the selftests"
    else
        cat "$kmemleak"  # the log judge fails the run on these lines too
        echo "not ok 1 - kmemleak: $leaks unreferenced objects after the selftests"
        failed=$((failed + 1))
    fi
fi
echo "# selftest scripts failed: $failed"
[ "$failed" = 0 ]
