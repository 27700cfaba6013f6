#!/usr/bin/env bash
# rnbd-server's export policy against Linux 6.1's rnbd-client (built by
# tools/upstream/build.sh into .cache/upstream): with the server's defaults
# only block devices map; regular files, etc/shadow, /dev/zero, /dev/null,
# a FIFO, a socket and a directory are refused within a second with ENOENT,
# as a missing path is;
# file_export_dir serves images inside it only (no '..', no symlink out).
# See lib-export-policy.sh. Runs inside the test VM:
#
#   tools/vm/run.sh --timeout 900 -- selftests/run.sh rnbd/011
cd "$(dirname "$0")/../.." || exit 1
EXPORT_CLIENT=upstream
. selftests/rnbd/lib-export-policy.sh
