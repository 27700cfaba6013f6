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
for script in $scripts; do
    echo "# === $script"
    start=$(date +%s)
    if ! bash "$script"; then
        echo "# FAILED: $script"
        failed=$((failed + 1))
    fi
    echo "# --- $script took $(( $(date +%s) - start ))s"
done
echo "# selftest scripts failed: $failed"
[ "$failed" = 0 ]
