#!/usr/bin/env bash
# Post-link gate for C++ in kernel modules. Fails (exit 1) when a module
# carries something that cannot work in the kernel:
#  - .init_array/.ctors: static constructors, which modules never run;
#  - .eh_frame/.gcc_except_table: exception/unwind tables;
#  - undefined C++ runtime symbols: any mangled import (_Z..., e.g. a plain
#    `operator new` _Znwm), __cxa_guard_*/__cxa_atexit, __gxx_*, typeinfo;
# and when a C++ object lacks the ORC and return-site sections objtool adds
# (without them stack traces and the Retbleed/SRSO return patching are lost).
# Usage: check-ko.sh MODULE.ko... [-- CXX_OBJECT.o...]
set -uo pipefail
NM=${NM:-nm}
OBJDUMP=${OBJDUMP:-objdump}
status=0
fail() { echo "check-ko: $*" >&2; status=1; }

modules=() objects=()
target=modules
for arg in "$@"; do
    if [ "$arg" = "--" ]; then target=objects; continue; fi
    if [ "$target" = modules ]; then modules+=("$arg"); else objects+=("$arg"); fi
done

for ko in "${modules[@]}"; do
    [ -f "$ko" ] || { fail "$ko: missing"; continue; }
    sections=$($OBJDUMP -h "$ko" | awk '{print $2}')
    for forbidden in .init_array .ctors .eh_frame .gcc_except_table; do
        if grep -qx -- "$forbidden" <<<"$sections" || grep -q -- "^$forbidden\." <<<"$sections"; then
            fail "$ko: has section $forbidden (static constructors or unwind tables are not allowed in modules)"
        fi
    done
    bad=$($NM -u "$ko" | awk '{print $2}' | grep -E '^(_Z|__cxa_(guard|atexit|throw|begin_catch|allocate_exception)|__gxx_|__dso_handle|_Unwind_)' || true)
    [ -z "$bad" ] || fail "$ko: undefined C++ runtime symbols: $(echo $bad)"
done

for obj in "${objects[@]}"; do
    sections=$($OBJDUMP -h "$obj" | awk '{print $2}')
    # An object with code has returns; objtool must have recorded them.
    if grep -qx .text <<<"$sections" || grep -q '^\.text\.' <<<"$sections"; then
        grep -qx .orc_unwind <<<"$sections" || fail "$obj: no .orc_unwind (objtool did not run on it)"
        grep -qx .return_sites <<<"$sections" || fail "$obj: no .return_sites (return thunks unpatchable)"
    fi
done

if [ $status -eq 0 ]; then
    echo "check-ko: ${#modules[@]} modules and ${#objects[@]} C++ objects clean"
fi
exit $status
