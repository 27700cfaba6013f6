#!/usr/bin/env bash
# Interop: OUR rtrs-client against Linux 6.1's rtrs-server + rnbd-server
# (built by tools/upstream/build.sh): the whole suite of 002-client-server.sh
# (data verification at every IO size, a full queue in flight, server errors,
# permits, sysfs, disconnect/reconnect, fail-over, link events), with the
# test module speaking RNBD 2.0 (SESS_INFO, OPEN of brd's /dev/ram0, IO,
# CLOSE) over our client's C API. Environment: see 002-client-server.sh.
RTRS_SERVER=upstream exec bash "$(dirname "$0")/002-client-server.sh"
