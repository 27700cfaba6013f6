#!/usr/bin/env bash
# Host test of tools/check-ko.sh on objects compiled as a KASAN kernel
# compiles them: KASAN's per-object constructor (only __asan_register_globals)
# is accepted; a C++ dynamic initializer is refused, whether it calls a
# constructor or was inlined; --sanitizers KASAN refuses an uninstrumented
# object. TAP output; exit 1 if any case fails.
. "$(dirname "$0")/lib/tap.sh"
compile() { # name flags... < source
    g++ -O2 -c -x c++ -fno-exceptions -fno-asynchronous-unwind-tables "${@:2}" - -o "$tmp/$1.ko"
}
kasan=(-fsanitize=kernel-address --param asan-globals=1)
printf 'int table[10];\nint get(int i) { return table[i]; }\n' | compile kasan-globals "${kasan[@]}"
printf 'int table[10];\nstruct S { S(); int x; };\nS s;\nint get(int i) { return table[i] + s.x; }\n' \
    | compile kasan-ctor "${kasan[@]}"
printf 'int table[10];\nextern int seed;\nstruct S { S() : x(seed) {} int x; };\nS s;\nint get(int i) { return table[i] + s.x; }\n' \
    | compile kasan-inlined-ctor "${kasan[@]}"
printf 'struct S { S(); int x; };\nS s;\nint get() { return s.x; }\n' | compile plain-ctor
printf 'int table[10];\nint get(int i) { return table[i]; }\n' | compile plain

expect() { # verdict description args...
    local want=$1 desc=$2; shift 2
    "$top/tools/check-ko.sh" "$@" > "$tmp/out" 2>&1; rc=$?
    if { [ "$want" = pass ] && [ $rc = 0 ]; } || { [ "$want" = fail ] && [ $rc != 0 ]; }; then say ok "$desc"
    else say "not ok" "$desc (exit $rc)"; sed 's/^/#   /' "$tmp/out"; fi
}
expect pass "KASAN global registration in .init_array is accepted" "$tmp/kasan-globals.ko"
expect fail "a C++ constructor beside KASAN's registration is refused" "$tmp/kasan-ctor.ko"
expect fail "an inlined C++ dynamic initializer on KASAN is refused" "$tmp/kasan-inlined-ctor.ko"
expect fail "a C++ constructor without KASAN is refused" "$tmp/plain-ctor.ko"
# As objects objtool has seen (the other check of the object gate).
for o in kasan-globals plain; do
    objcopy --add-section .orc_unwind=/dev/null --add-section .return_sites=/dev/null "$tmp/$o.ko" "$tmp/${o%-globals}.o"
done
expect pass "--sanitizers KASAN accepts an instrumented object" --sanitizers KASAN "$tmp/kasan-globals.ko" -- "$tmp/kasan.o"
expect fail "--sanitizers KASAN refuses an uninstrumented object" --sanitizers KASAN "$tmp/plain.ko" -- "$tmp/plain.o"
echo "1..$n"
exit $failed
