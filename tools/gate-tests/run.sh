#!/usr/bin/env bash
# Proves the build gates bite: each case copies the tree, plants one thing
# that must never reach a module, builds, and expects the build to FAIL with
# the right diagnosis. Prints TAP.
#   static-ctor : a global object with a constructor (.init_array)
#   plain-new   : `new T` without GFP flags (undefined _Znwm)
#   eh-frame    : unwind tables forced on (.eh_frame)
#   kapi-call   : product code calling a C boundary function itself; the
#                 lint's layering check (tools/check-layers.sh, part of
#                 `make check`'s lint stage) must refuse it
#   core-include: a kernel-independent core file (rtrs/core/) including a
#                 kernel header; the same layering check must refuse it
#   kernel-product: the kernel layer (kernel/block/) calling a product's
#                 upcall by name (an rnbd_* function); the same layering
#                 check must refuse it
#   unlocked    : a CXXRT_GUARDED_BY member read without its lock (the guard
#                 of rtrs-server's Context::session_count() taken out); the
#                 lint's clang -Wthread-safety must refuse it
#   raw-atomic  : a raw __atomic_load_n in product code (rtrs-client); the
#                 lint's vocabulary count must rise above its baseline and
#                 the lint name the measure and the line
# Usage: tools/gate-tests/run.sh KDIR [CASE...]   (default: every case)
set -uo pipefail
kdir=${1:?usage: run.sh KDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${GATE_TESTS_DIR:-$top/build/gate-tests}  # the debug lane runs beside the stock stage
rm -rf "$work"; mkdir -p "$work"

cases=(static-ctor plain-new eh-frame kapi-call core-include kernel-product unlocked raw-atomic)
[ $# -gt 1 ] && cases=("${@:2}")
echo "1..${#cases[@]}"
n=0 failed=0
for name in "${cases[@]}"; do
    n=$((n + 1))
    dir=$work/$name
    mkdir -p "$dir"
    (cd "$top" && git ls-files -co --exclude-standard | grep -v '^\.cache/' | cpio -pdm --quiet "$dir")
    target=$dir/rtrs/client/rtrs-clt.cpp
    # The planted faults are all in rtrs-client: build that module alone.
    check=(make -C "$dir" KDIR="$kdir" modules GATE_MODULE=rtrs/rtrs-client MODULES=rtrs/rtrs-client.ko)
    case $name in
        static-ctor)
            printf '\nstruct GateCtor { GateCtor() { kapi_might_sleep(); } };\nGateCtor g_gate_ctor;\n' >> "$target"
            # On a KASAN kernel the compiler also wraps the initializer in
            # __asan_before/after_dynamic_init, which modpost then refuses
            # before check-ko sees the .init_array; either way it fails.
            expect='\.init_array|__asan_before_dynamic_init' ;;
        plain-new)
            printf '\nextern "C" int* gate_plain_new(void);\nint* gate_plain_new(void) { return new int(3); }\n' >> "$target"
            expect='_Znwm' ;;
        eh-frame)
            echo 'cxx-subset-flags += -fasynchronous-unwind-tables' >> "$dir/tools/kbuild/cxx.mk"
            printf '\nextern "C" int gate_unwind(int x);\nint gate_unwind(int x) { return x + 1; }\n' >> "$target"
            expect='\.eh_frame' ;;
        kapi-call)
            printf '\nextern "C" void gate_boundary_call(void);\nvoid gate_boundary_call(void) { kapi_might_sleep(); }\n' >> "$target"
            check=("$dir/tools/check-layers.sh" "$dir")
            expect='names the C boundary directly: rtrs/client/rtrs-clt.cpp' ;;
        core-include)
            printf '\n#include <linux/slab.h>\n' >> "$dir/rtrs/core/rtrs-codec.cpp"
            check=("$dir/tools/check-layers.sh" "$dir")
            expect='core includes a boundary header: rtrs/core/rtrs-codec.cpp' ;;
        kernel-product)
            printf '\nvoid rnbd_gate_upcall(void);\nvoid kapi_gate_call(void)\n{\n\trnbd_gate_upcall();\n}\n' >> "$dir/kernel/block/kapi-blk.c"
            check=("$dir/tools/check-layers.sh" "$dir")
            expect='kernel layer names a product \(rnbd, rtrs\): kernel/block/kapi-blk.c' ;;
        unlocked)
            # The lint needs the generated kabi header (ignored by git): a
            # tree without it would skip and seem to pass, so none is a failure.
            cp -r "$top/generated" "$dir/" 2>/dev/null
            sed -i '/^u32 Context::session_count()/,/^}/ s/MutexGuard guard(mutex_);//' "$dir/rtrs/server/rtrs-srv-context.cpp"
            check=(env LINT_FILES=rtrs/server/rtrs-srv-context.cpp "$dir/tools/lint.sh")
            expect="rtrs-srv-context.cpp:.*reading variable 'session_count_' requires holding mutex 'mutex_'" ;;
        raw-atomic)
            cp -r "$top/generated" "$dir/" 2>/dev/null  # as for unlocked: without it the lint skips
            printf '\nextern "C" int gate_raw_atomic(const int* p);\nint gate_raw_atomic(const int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }\n' >> "$target"
            check=(env LINT_FILES=rtrs/client/rtrs-clt.cpp "$dir/tools/lint.sh")
            expect='rtrs/client/rtrs-clt.cpp:[0-9]+: int gate_raw_atomic' ;;  # listed under its rising measure
    esac
    if "${check[@]}" > "$dir.log" 2>&1; then
        echo "not ok $n - $name: the build succeeded but must fail"
        failed=$((failed + 1))
    elif grep -qE "$expect" "$dir.log"; then
        echo "ok $n - $name: rejected ($(grep -m1 -E "$expect" "$dir.log" | sed 's/^ *//' | cut -c1-110))"
    else
        echo "not ok $n - $name: build failed, but not for $expect (see $dir.log)"
        failed=$((failed + 1))
    fi
done
rm -rf "$work"/*/  # keep only the logs
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
