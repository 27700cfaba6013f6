#!/usr/bin/env bash
# Post-link gate for C++ in kernel modules. Fails (exit 1) when a module
# carries something that cannot work in the kernel:
#  - .init_array/.ctors: static constructors, which modules never run. The
#    one exception is KASAN's global registration: on a KASAN kernel the
#    compiler adds, per object, a constructor that only calls
#    __asan_register_globals (the loader runs it under CONFIG_CONSTRUCTORS).
#    An entry is accepted only if its function calls that and nothing else
#    (a C++ dynamic initializer calls constructors or
#    __asan_before_dynamic_init, or calls nothing at all when inlined);
#  - .eh_frame/.gcc_except_table: exception/unwind tables;
#  - undefined C++ runtime symbols: any mangled import (_Z..., e.g. a plain
#    `operator new` _Znwm), __cxa_guard_*/__cxa_atexit, __gxx_*, typeinfo;
# and when a C++ object lacks the ORC and return-site sections objtool adds
# (without them stack traces and the Retbleed/SRSO return patching are lost).
# With --sanitizers "KASAN UBSAN" (the debug kernel's CONFIG_KASAN/UBSAN),
# the C++ objects must be instrumented like C ones: every C++ object with
# code references __asan_* (KASAN), and the C++ objects as a whole reference
# __ubsan_* (UBSAN bounds checks appear only where an index is checkable).
# With --objtool-at-link (the kernel's config has X86_KERNEL_IBT or
# LTO_CLANG: kbuild then runs objtool once on each module's linked object,
# not per object; Debian's 6.12 does), the sections are required of each
# module's linked object (MODULE.o), which holds all its C++ code, instead.
# Usage: check-ko.sh [--sanitizers LIST] [--objtool-at-link] MODULE.ko... [-- CXX_OBJECT.o...]
set -uo pipefail
NM=${NM:-nm}
OBJDUMP=${OBJDUMP:-objdump}
status=0
fail() { echo "check-ko: $*" >&2; status=1; }

modules=() objects=() sanitizers='' at_link=0
if [ "${1:-}" = --sanitizers ]; then sanitizers=${2:-}; shift 2; fi
if [ "${1:-}" = --objtool-at-link ]; then at_link=1; shift; fi
target=modules
for arg in "$@"; do
    if [ "$arg" = "--" ]; then target=objects; continue; fi
    if [ "$target" = modules ]; then modules+=("$arg"); else objects+=("$arg"); fi
done

# Prints one line per .init_array/.ctors entry whose function is not a pure
# KASAN registration ("section+offset: reason"); nothing when all are.
non_kasan_constructors() { # object
    local entries
    entries=$(readelf -rW "$1" | awk '
        /^Relocation section/ { on = ($0 ~ /\.(init_array|ctors)/); next }
        on && $3 ~ /^R_X86_64_64$/ { print $5, ($7 == "" ? 0 : $7) }')
    [ -n "$entries" ] || return 0
    while read -r section addend; do
        $OBJDUMP -dr -j "$section" "$1" 2>/dev/null | awk -v want="$addend" -v where="$section+0x$addend" '
            function hex(s,   i, c, v) { v = 0; s = tolower(s)
                for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
                return v }
            BEGIN { target = hex(want); inside = 0; found = 0; registers = 0; other = "" }
            /^[0-9a-f]+ <.*>:$/ { inside = (hex($1) == target); if (inside) found = 1; next }
            inside && /R_X86_64_PLT32/ {
                sym = $3; sub(/[-+]0x[0-9a-f]+$/, "", sym)
                if (sym == "__asan_register_globals") registers = 1
                else if (sym != "__x86_return_thunk" && sym != "__fentry__") other = other " " sym }
            END {
                if (!found) print where ": no function at this entry"
                else if (!registers || other != "") print where ": not a KASAN registration (calls:" other ")" }'
    done <<<"$entries"
}

for ko in "${modules[@]}"; do
    [ -f "$ko" ] || { fail "$ko: missing"; continue; }
    sections=$($OBJDUMP -h "$ko" | awk '{print $2}')
    for ctor in .init_array .ctors; do
        if grep -qx -- "$ctor" <<<"$sections" || grep -q -- "^$ctor\." <<<"$sections"; then
            bad=$(non_kasan_constructors "$ko")
            [ -z "$bad" ] || fail "$ko: has section $ctor with static constructors, which modules never run: $(echo $bad)"
        fi
    done
    for forbidden in .eh_frame .gcc_except_table; do
        if grep -qx -- "$forbidden" <<<"$sections" || grep -q -- "^$forbidden\." <<<"$sections"; then
            fail "$ko: has section $forbidden (static constructors or unwind tables are not allowed in modules)"
        fi
    done
    bad=$($NM -u "$ko" | awk '{print $2}' | grep -E '^(_Z|__cxa_(guard|atexit|throw|begin_catch|allocate_exception)|__gxx_|__dso_handle|_Unwind_)' || true)
    [ -z "$bad" ] || fail "$ko: undefined C++ runtime symbols: $(echo $bad)"
done

objtool_checked=("${objects[@]}")
if [ $at_link = 1 ]; then
    objtool_checked=()
    for ko in "${modules[@]}"; do objtool_checked+=("${ko%.ko}.o"); done
fi
for obj in "${objtool_checked[@]}"; do
    [ -f "$obj" ] || { fail "$obj: missing"; continue; }
    sections=$($OBJDUMP -h "$obj" | awk '{print $2}')
    # An object with code has returns; objtool must have recorded them.
    if grep -qx .text <<<"$sections" || grep -q '^\.text\.' <<<"$sections"; then
        grep -qx .orc_unwind <<<"$sections" || fail "$obj: no .orc_unwind (objtool did not run on it)"
        grep -qx .return_sites <<<"$sections" || fail "$obj: no .return_sites (return thunks unpatchable)"
    fi
done

# (grep -c, not -q: -q stops reading, nm gets SIGPIPE, and pipefail turns
# a match into a failure.)
ubsan_refs=0
for obj in "${objects[@]}"; do
    case " $sanitizers " in *" KASAN "*)
        # (awk reads all of objdump's output: with grep -q, awk could get
        # SIGPIPE and pipefail then skipped the check now and then.)
        if $OBJDUMP -h "$obj" | awk '$2 ~ /^\.text/ { text = 1 } END { exit !text }'; then
            $NM -u "$obj" | grep -c ' __asan_' > /dev/null || fail "$obj: no __asan_ references on a KASAN kernel (C++ not instrumented)"
        fi ;;
    esac
    $NM -u "$obj" | grep -c ' __ubsan_' > /dev/null && ubsan_refs=$((ubsan_refs + 1))
done
case " $sanitizers " in *" UBSAN "*)
    [ ${#objects[@]} = 0 ] || [ $ubsan_refs -gt 0 ] || fail "no C++ object references __ubsan_ on a UBSAN kernel (C++ not instrumented)" ;;
esac

if [ $status -eq 0 ]; then
    echo "check-ko: ${#modules[@]} modules and ${#objects[@]} C++ objects clean${sanitizers:+ (instrumented for: $sanitizers; $ubsan_refs objects with UBSAN checks)}"
fi
exit $status
