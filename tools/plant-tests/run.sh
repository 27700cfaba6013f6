#!/usr/bin/env bash
# Proves that `make check` fails on each class of test-harness fault: each
# case copies the tree, plants one fault, runs the step of make check that
# must catch it and applies make check's own verdict to the output
# (tools/check-verdicts.sh, the functions tools/check.sh uses). A case passes
# when that verdict counts a failure for the expected reason. Prints TAP.
#   hang             a selftest that never returns: the VM runner's timeout
#   skip-after-setup a selftest whose prerequisite goes missing after a check
#                    passed, and that calls tap_skip_all
#   hostile-skip     a hostile-peer script that skips as a whole (1..0)
#   lost-teardown    a selftest that leaves a module loaded (selftests/run.sh
#                    checks after every script)
#   log-pattern      a kernel report the log judge must fail on ("sysfs:
#                    cannot create duplicate filename") in an otherwise
#                    passing run
#   host-exit        a host unit test that leaks: gtest prints PASSED, then
#                    LeakSanitizer makes `make host-tests` exit non-zero
#   script-exit      a host script test that prints only "ok" and exits 1
#   lint-exit        a lint that exits 2 before printing any TAP
# The VM cases need the modules built (cxxrt's self-test module); host-exit
# reuses build/host's objects when they exist (one file then compiles).
# Usage: tools/plant-tests/run.sh [CASE...]   (default: every case)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/build/plant-tests
rm -rf "$work"; mkdir -p "$work"
cd "$top"
. tools/check-tap.sh
. tools/check-verdicts.sh

cases=(hang skip-after-setup hostile-skip lost-teardown log-pattern host-exit script-exit lint-exit)
[ $# -gt 0 ] && cases=("$@")
echo "1..${#cases[@]}"

# copy_tree DIR: the tracked and untracked (not ignored) files, as gate-tests.
copy_tree() {
    mkdir -p "$1"
    git ls-files -co --exclude-standard | grep -vE '^(\.cache|build)(/|$)' | cpio -pdm --quiet "$1"
    ln -s "$top/.cache" "$1/.cache"
}
# plant_script DIR PATH: a selftest script (stdin) at DIR/PATH.
plant_script() { mkdir -p "$(dirname "$1/$2")"; cat > "$1/$2"; chmod +x "$1/$2"; }

# The VM cases that judge per script share one boot: their sections of the
# log are judged one by one.
vm_shared=
vm_run() { # dir log timeout patterns...: rc of tools/vm/run.sh
    local dir=$1 log=$2 timeout=$3; shift 3
    tools/vm/run.sh --cwd "$dir" --smp 1 --timeout "$timeout" --boot-retries 1 --log "$log" \
        -- selftests/run.sh "$@" > "$log.out" 2>&1
}
# section LOG SCRIPT: the part of a selftests/run.sh log that belongs to SCRIPT.
section() { awk -v s="# === $2" '$0 == s { on = 1; print; next } /^# === / { on = 0 } on' "$1"; }

n=0 failed=0
# verdict NAME EXPECT: failures[] (from a verdict_*) must hold EXPECT (ERE).
verdict() {
    local name=$1 expect=$2 f
    if [ "$v_f" = 0 ]; then
        echo "not ok $n - $name: make check's verdict counted no failure (${v_p} passed, ${v_s} skipped)"
        failed=$((failed + 1)); return
    fi
    f=$(printf '%s\n' "${failures[@]}" | grep -m1 -E "$expect")
    if [ -n "$f" ]; then
        echo "ok $n - $name: make check fails: $(cut -c1-140 <<<"$f")"
    else
        echo "not ok $n - $name: failed, but not for /$expect/: $(printf '%s | ' "${failures[@]}" | cut -c1-200)"
        failed=$((failed + 1))
    fi
}

for name in "${cases[@]}"; do
    n=$((n + 1))
    failures=() skips=()
    dir=$work/$name
    case $name in
        hang)
            copy_tree "$dir"
            plant_script "$dir" selftests/rtrs/990-planted-hang.sh <<'EOF'
#!/usr/bin/env bash
echo "1..1"
sleep 100000
echo "ok 1 - never printed"
EOF
            vm_run "$dir" "$dir.log" 90 990-planted-hang; rc=$?
            verdict_vm "VM selftests" "$dir.log" "$dir.log.out" $rc
            verdict "$name" 'run\.sh: .*: FAIL: timeout after' ;;
        skip-after-setup|hostile-skip|lost-teardown)
            script=selftests/rtrs/991-planted-skip-after-setup.sh
            [ $name = hostile-skip ] && script=selftests/hostile/992-planted-skip.sh
            [ $name = lost-teardown ] && script=selftests/rtrs/993-planted-teardown.sh
            if [ -z "$vm_shared" ]; then
                vm_shared=$work/shared
                copy_tree "$vm_shared"
                cp cxxrt/tests/kmod/cxxrt-selftest.ko "$vm_shared/cxxrt/tests/kmod/" 2>/dev/null
                plant_script "$vm_shared" selftests/rtrs/991-planted-skip-after-setup.sh <<'EOF'
#!/usr/bin/env bash
. "$(dirname "$0")/../lib.sh"
check "setup: the debugfs check file is there" true
tap_skip_all "the debugfs check file went missing"
EOF
                plant_script "$vm_shared" selftests/hostile/992-planted-skip.sh <<'EOF'
#!/usr/bin/env bash
. "$(dirname "$0")/../lib.sh"
tap_skip_all "the hostile module is not built"
EOF
                plant_script "$vm_shared" selftests/rtrs/993-planted-teardown.sh <<'EOF'
#!/usr/bin/env bash
. "$(dirname "$0")/../lib.sh"
check "a module loads" insmod cxxrt/tests/kmod/cxxrt-selftest.ko
tap_done
EOF
                vm_run "$vm_shared" "$vm_shared.log" 300 99[123]-planted
            fi
            # This script's part of the log only, the run's own verdict aside
            # (the other planted scripts fail it too).
            section "$vm_shared.log" "$script" > "$dir.log"
            verdict_vm "VM selftests" "$dir.log" /dev/null 0
            case $name in
                skip-after-setup) verdict "$name" 'not ok [0-9]+ - the rest of the script cannot run' ;;
                hostile-skip) verdict "$name" 'hostile/992-planted-skip.sh skipped \(a hostile' ;;
                lost-teardown) verdict "$name" 'not ok 1000 - selftests/rtrs/993-planted-teardown.sh left behind: modules cxxrt_selftest' ;;
            esac ;;
        log-pattern)
            copy_tree "$dir"
            plant_script "$dir" selftests/rtrs/994-planted-log.sh <<'EOF'
#!/usr/bin/env bash
echo "1..1"
echo "sysfs: cannot create duplicate filename '/devices/virtual/block/planted'" > /dev/kmsg
echo "ok 1 - the script itself passes"
EOF
            vm_run "$dir" "$dir.log" 300 994-planted-log; rc=$?
            verdict_vm "VM selftests" "$dir.log" "$dir.log.out" $rc
            # The judge's reason is one line; the log lines it names follow.
            grep -q 'log line .*cannot create duplicate filename' "$dir.log.out" \
                || failures=("(the judge did not name the planted line)")
            verdict "$name" 'run\.sh: .*: FAIL: check-log\.sh found problems' ;;
        host-exit)
            copy_tree "$dir"
            # The objects of the last `make host-tests`, so only the planted
            # file compiles (timestamps kept: make sees them up to date).
            [ -d build/host ] && mkdir -p "$dir/build" && cp -a build/host "$dir/build/"
            [ -d build/rnbdctl ] && mkdir -p "$dir/build" && cp -a build/rnbdctl "$dir/build/"
            cat > "$dir/cxxrt/tests/host/test_planted_leak.cpp" <<'EOF'
#include <gtest/gtest.h>
// Planted by tools/plant-tests: passes, and leaks (LeakSanitizer at exit).
TEST(Planted, PassesAndLeaks) { volatile int* p = new int[8]; p[0] = 1; EXPECT_EQ(p[0], 1); }
EOF
            make -C "$dir" -j2 host-tests > "$dir.log" 2>&1; rc=$?
            verdict_host_tests "$dir.log" $rc
            verdict "$name" 'LeakSanitizer|make host-tests exited' ;;
        script-exit)
            copy_tree "$dir"
            printf '#!/usr/bin/env bash\necho "1..1"\necho "ok 1 - looks fine"\nexit 1\n' > "$dir/tools/tests/planted-exit.sh"
            chmod +x "$dir/tools/tests/planted-exit.sh"
            "$dir/tools/tests/planted-exit.sh" > "$dir.log" 2>&1; rc=$?
            verdict_tap "host script tests (planted-exit)" tools/tests/planted-exit.sh "$dir.log" $rc
            verdict "$name" 'exited 1 with no .not ok. line' ;;
        lint-exit)
            copy_tree "$dir"
            sed -i '0,/^set /s//exit 2\n&/' "$dir/tools/lint.sh"
            (cd "$dir" && tools/lint.sh) > "$dir.log" 2>&1; rc=$?
            verdict_tap lint tools/lint.sh "$dir.log" $rc
            verdict "$name" 'lint: tools/lint.sh exited 2 with no .not ok. line' ;;
        *)
            echo "not ok $n - $name: no such case"; failed=$((failed + 1)) ;;
    esac
done
rm -rf "$work"/*/  # keep only the logs
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
