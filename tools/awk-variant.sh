# Sourced by tools/check.sh and tools/demo.sh (bash). AWK_VARIANT=mawk|gawk|
# busybox puts a shim named `awk` first in PATH, so every script of the run,
# on the host, runs with that awk, and sets VM_AWK so tools/vm/run.sh gives
# the guest the same one (the verdict must not depend on which awk it is).
# Without AWK_VARIANT nothing changes. Needs $top (the repository root).
if [ -n "${AWK_VARIANT:-}" ]; then
    awk_shim=$top/build/awk-$AWK_VARIANT
    case $AWK_VARIANT in
        mawk|gawk) awk_exec="exec /usr/bin/$AWK_VARIANT \"\$@\"" ;;
        busybox) awk_exec='exec busybox awk "$@"' ;;
        *) echo "AWK_VARIANT must be mawk, gawk or busybox (not '$AWK_VARIANT')" >&2; exit 2 ;;
    esac
    mkdir -p "$awk_shim"
    printf '#!/bin/sh\n%s\n' "$awk_exec" > "$awk_shim/awk"
    chmod +x "$awk_shim/awk"
    export PATH=$awk_shim:$PATH VM_AWK=$AWK_VARIANT
    echo "awk for this run: $AWK_VARIANT (host and guest)"
fi
