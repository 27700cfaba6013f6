#!/usr/bin/env bash
# rnbd-server's export policy against our own rnbd-client: the same cases as
# 011 (see lib-export-policy.sh); the map must fail within a second with the
# server's errno (ENOENT for every object the policy refuses). Runs inside
# the test VM:
#
#   tools/vm/run.sh --timeout 900 -- selftests/run.sh rnbd/012
cd "$(dirname "$0")/../.." || exit 1
EXPORT_CLIENT=ours
. selftests/rnbd/lib-export-policy.sh
