#!/usr/bin/env bash
# Static checks clang can do on code gcc builds: lock annotations
# (-Wthread-safety), and no global constructors or exit-time destructors.
# Works because kernel C++ includes no Linux header. Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."
CLANG=${CLANG:-clang++}
# LINT_FILES narrows the clang pass (tools/gate-tests lints the one file it
# plants a fault in); the two tree-wide checks always run.
files=${LINT_FILES:-$(find cxxrt common kernel rtrs rnbd -name '*.cpp' -not -path '*/tests/host/*' -not -path '*/tests/fuzz/*' | sort)}
flags="-std=gnu++20 -fsyntax-only -nostdinc++ -ffreestanding -fno-exceptions -fno-rtti
  -Icxxrt/include -Iinclude -I. -Igenerated
  -Wthread-safety -Wglobal-constructors -Wexit-time-destructors -Werror
  -Wno-unknown-attributes -Wno-gnu-statement-expression -Wno-unused-command-line-argument"
[ -f generated/cxxrt-kabi.h ] || { echo "1..0 # SKIP run 'make' first (generated/cxxrt-kabi.h)"; exit 0; }
n=0 failed=0
echo "1..$(( $(wc -w <<<"$files") + 2 ))"
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
