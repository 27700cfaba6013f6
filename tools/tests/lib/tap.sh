# shellcheck shell=bash
# What the host script tests (tools/tests/*.sh) share, sourced first:
#   $top   the repo
#   $tmp   a scratch directory, removed at exit
#   say ok|"not ok" DESC   one TAP line; any "not ok" makes $failed 1
# End a test with: echo "1..$n"; exit $failed
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
say() { n=$((n + 1)); echo "$1 $n - $2"; [ "$1" = ok ] || failed=1; }
