#!/usr/bin/env bash
# Static checks clang can do on code gcc builds: lock annotations
# (-Wthread-safety), and no global constructors or exit-time destructors.
# Works because kernel C++ includes no Linux header. Also the tree-wide
# checks: no kernel-version conditional in C++, the layers
# (tools/check-layers.sh), and the vocabulary counts
# (tools/vocabulary-counts.sh) at most, and at least, their baseline
# (tools/vocabulary-baseline.txt). Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."
CLANG=${CLANG:-clang++}
# LINT_FILES narrows the clang pass (tools/gate-tests lints the one file it
# plants a fault in); the three tree-wide checks always run.
files=${LINT_FILES:-$(find cxxrt common kernel rtrs rnbd -name '*.cpp' -not -path '*/tests/host/*' -not -path '*/tests/fuzz/*' | sort)}
flags="-std=gnu++20 -fsyntax-only -nostdinc++ -ffreestanding -fno-exceptions -fno-rtti
  -Icxxrt/include -Iinclude -I. -Igenerated
  -Wthread-safety -Wglobal-constructors -Wexit-time-destructors -Werror
  -Wno-unknown-attributes -Wno-gnu-statement-expression -Wno-unused-command-line-argument"
[ -f generated/cxxrt-kabi.h ] || { echo "1..0 # SKIP run 'make' first (generated/cxxrt-kabi.h)"; exit 0; }
n=0 failed=0
echo "1..$(( $(wc -w <<<"$files") + 3 ))"
# Kernel differences live in the C boundary only: no C++ file (kernel or
# host side, headers included) may ask which kernel it is built for.
n=$((n + 1))
versioned=$(grep -lE 'LINUX_VERSION_CODE|KERNEL_VERSION|linux/version\.h' \
    $(find cxxrt common kernel rtrs rnbd include -name '*.cpp' -o -name '*.hpp' | sort) 2>/dev/null || true)
if [ -z "$versioned" ]; then
    echo "ok $n - no kernel-version conditional in C++"
else
    echo "not ok $n - kernel-version conditional in C++ (belongs in a C boundary file)"
    echo "$versioned" | sed 's/^/#   /'
    failed=$((failed + 1))
fi
# Product code reaches the kernel through the abstraction layer only.
n=$((n + 1))
if layers=$(tools/check-layers.sh 2>&1); then
    echo "ok $n - layers: $layers"
else
    echo "not ok $n - layers"; echo "$layers" | sed 's/^/#   /'
    failed=$((failed + 1))
fi
# One vocabulary: each count of tools/vocabulary-counts.sh stays at its
# baseline. Above it, the lint names the measure and where each one is;
# below it, the baseline is lowered to the count in the same change (so
# the count cannot creep back).
n=$((n + 1))
if counts=$(tools/vocabulary-counts.sh --list 2>&1); then
    drift=$(printf '%s\n' "$counts" | awk '
        FNR == NR { if ($0 !~ /^#/ && NF == 2) base[$1] = $2; next }
        /^[^ ]/ {
            name = $1; count = $2; rose = 0
            if (!(name in base)) { print name " " count ": not in tools/vocabulary-baseline.txt"; next }
            if (count + 0 > base[name] + 0) {
                rose = 1
                print name " rose to " count " (baseline " base[name] "): use the vocabulary instead; never raise the baseline. Where:"
            } else if (count + 0 < base[name] + 0)
                print name " fell to " count ": lower its line in tools/vocabulary-baseline.txt from " base[name] " to " count " (the baseline only goes down)"
            next
        }
        rose { print }' tools/vocabulary-baseline.txt -)
    if [ -z "$drift" ]; then
        echo "ok $n - vocabulary at its baseline: $(printf '%s\n' "$counts" | awk '/^[^ ]/ { printf "%s%s %s", sep, $1, $2; sep = ", " }')"
    else
        echo "not ok $n - vocabulary off its baseline (tools/vocabulary-counts.sh --list)"
        echo "$drift" | head -40 | sed 's/^/#   /'
        failed=$((failed + 1))
    fi
else
    echo "not ok $n - vocabulary counts"; echo "$counts" | sed 's/^/#   /'
    failed=$((failed + 1))
fi
for f in $files; do
    n=$((n + 1))
    if out=$($CLANG $flags "$f" 2>&1); then
        echo "ok $n - lint $f"
    else
        echo "not ok $n - lint $f"; echo "$out" | head -20 | sed 's/^/#   /'
        failed=$((failed + 1))
    fi
done
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
