#!/usr/bin/env bash
# sysfs add_path and remove_path of our RTRS client, against our server
# (always_invalidate=Y): usage text, EINVAL for a bad address, EEXIST for the
# addresses of an existing path (both "src@dst" and "src,dst"), a path added
# and removed while verified IO runs (no IO lost or failed while a path
# remains), the last path removed (IO then fails) and a path added back to
# an empty session, and a path that cannot connect (the write fails, no
# directory stays). TAP output; root, in the VM.
# shellcheck source=selftests/rtrs/004-multipath-policies.sh
RTRS_CLT_LIB_ONLY=1 . "$(dirname "$0")/004-multipath-policies.sh"
clt_setup 2 1 Y
a0=${RXE_ADDR[0]} a1=${RXE_ADDR[1]}
p0=$(clt_pdir 0) p1=$(clt_pdir 1)
add=$clt_sess_dir/add_path
check "one path at open" bash -c "[ -d '$p0' ] && [ ! -e '$p1' ]"
check "add_path prints its usage" clt_expect $add "$(printf 'Usage: echo [<source addr>@]<destination addr> > add_path\n\n*addr ::= [ ip:<ipv4|ipv6> | gid:<gid> ]')"
fails_with() { # TEXT ERRNO-TEXT: writing TEXT to add_path fails with that error
    local err
    if err=$( { echo "$1" > $add; } 2>&1 ); then echo "add_path accepted '$1'"; return 1; fi
    echo "$err"; grep -q "$2" <<<"$err"
}
check "add_path refuses 'ip:bogus' (EINVAL)" fails_with ip:bogus "Invalid argument"
check "add_path refuses the existing path's address (EEXIST)" fails_with "ip:$a0" "File exists"
check "add_path refuses it in src,dst form too (EEXIST)" fails_with "ip:$a0,ip:$a0" "File exists"
check "add_path ip:$a1 (blocks until connected)" bash -c "echo ip:$a1 > $add"
check "the new path's directory is there, connected" clt_expect "$p1/state" connected
check "its remove_path prints its usage" clt_expect "$p1/remove_path" "Usage: echo 1 > remove_path"
echo rr > $clt_sess_dir/mpath_policy
cat $clt_checkfile > /tmp/ar-check1
check "verified IO over both paths" clt_io_clean /tmp/ar-check1
both_carried() { echo "$(clt_ios "$p0") $(clt_ios "$p1")"; [ "$(clt_ios "$p0")" -gt 0 ] && [ "$(clt_ios "$p1")" -gt 0 ]; }
check "both paths carried IO" both_carried

cat $clt_checkfile > /tmp/ar-check2 &
reader=$!
sleep 1
check "remove_path 0 while IO runs" bash -c "echo 1 > '$p0/remove_path'"
wait $reader
check "no IO lost, failed or corrupted" clt_io_clean /tmp/ar-check2
check "path 0's directory is gone" test ! -e "$p0"
expect_errno "remove_path refuses 0" EINVAL "$p1/remove_path" 0

cat $clt_checkfile > /tmp/ar-check3 &
reader=$!
sleep 1
check "add_path ip:$a0@ip:$a0 (src@dst) while IO runs" bash -c "echo ip:$a0@ip:$a0 > $add"
wait $reader
check "no IO lost, failed or corrupted" clt_io_clean /tmp/ar-check3
check "path 0 is back, connected" clt_expect "$p0/state" connected

check "remove_path 1 and 0: the last path may go too" bash -c "echo 1 > '$p1/remove_path' && echo 1 > '$p0/remove_path'"
check "no path directories left" bash -c "[ -z \"\$(ls $clt_sess_dir/paths)\" ]"
cat $clt_checkfile > /tmp/ar-check4; cat /tmp/ar-check4
check "without paths IO fails (and is refused, not lost)" bash -c \
    "[ \$(sed -n 's/.*refused \([0-9]*\).*/\1/p' /tmp/ar-check4) -gt 0 ] && grep -q 'lost 0' /tmp/ar-check4"
check "add_path ip:$a1,ip:$a1 (the seed's src,dst form) to the empty session" bash -c "echo ip:$a1,ip:$a1 > $add"
check "path 1 connected" clt_expect "$p1/state" connected
cat $clt_checkfile > /tmp/ar-check5
check "verified IO again" clt_io_clean /tmp/ar-check5

unreachable=192.0.2.9
# A write that hangs is its own failure ("timed out"), not the refusal expected.
rc=0 start=$SECONDS
err=$(timeout 80 bash -c "echo ip:$unreachable > $add" 2>&1) || rc=$?
if [ $rc = 124 ]; then not_ok "add_path to an address nobody answers: timed out (the write still blocked after 80 s)"
elif [ $rc = 0 ]; then not_ok "add_path to an address nobody answers fails: it was accepted"
else ok "add_path to an address nobody answers fails ($(errno_name "$err") after $((SECONDS - start)) s)"; fi
check "and leaves no directory" bash -c "! ls $clt_sess_dir/paths | grep -q '$unreachable'"

clt_finish; exit $?
