# Objects of rtrs-client.ko and rtrs-server.ko (see ../Kbuild).
# The RDMA layer comes from ../kernel/ib/objects.mk ($(kernel-ib-objs)), the
# address parser from ../common/objects.mk ($(common-objs)).
rtrs-codec-objs := rtrs/core/rtrs-codec.o
rtrs-client-objs = rtrs/client/rtrs-clt-mod.o rtrs/client/rtrs-clt-export.o rtrs/trace/kapi-rtrs-clt-trace.o rtrs/client/rtrs-clt.o \
	rtrs/client/rtrs-clt-session.o rtrs/client/rtrs-clt-path.o rtrs/client/rtrs-clt-handshake.o rtrs/client/rtrs-clt-io.o rtrs/client/rtrs-clt-read-slots.o rtrs/client/rtrs-clt-connection.o rtrs/client/rtrs-clt-sysfs.o \
	rtrs/core/rtrs-clt-proto.o \
	$(rtrs-codec-objs) \
	$(common-objs) rtrs/core/rtrs-clt-policy.o rtrs/core/rtrs-stats.o rtrs/core/rtrs-permits.o $(kernel-ib-objs)
rtrs-server-objs := rtrs/server/rtrs-srv-mod.o rtrs/trace/kapi-rtrs-srv-trace.o rtrs/server/rtrs-srv.o rtrs/server/rtrs-srv-context.o rtrs/server/rtrs-srv-path.o rtrs/core/rtrs-srv-protocol.o rtrs/core/rtrs-srv-limits.o rtrs/core/rtrs-srv-chunk-owners.o \
	rtrs/server/rtrs-srv-io.o rtrs/server/rtrs-srv-sysfs.o $(common-objs) $(rtrs-codec-objs) rtrs/core/rtrs-stats.o $(kernel-ib-objs)
# The trace event definitions find their own header again through
# <trace/define_trace.h> (TRACE_INCLUDE_PATH ".").
CFLAGS_rtrs/trace/kapi-rtrs-clt-trace.o := -I$(src)/rtrs/trace
CFLAGS_rtrs/trace/kapi-rtrs-srv-trace.o := -I$(src)/rtrs/trace

# Test-only modules of this folder (built with CXXRT_SELFTEST=1):
# add "rtrs/tests/kmod/<name>.o" here and define its <path>-y objects.
rtrs-selftest-modules := rtrs/tests/kmod/rtrs-ib-selftest.o
rtrs/tests/kmod/rtrs-ib-selftest-y := rtrs/tests/kmod/rtrs-ib-selftest-mod.o \
	rtrs/tests/kmod/rtrs-ib-selftest-run.o $(kernel-ib-objs) $(cxxrt-objs)

# The server's test user: an in-memory store served over our rtrs-server.
rtrs-selftest-modules += rtrs/tests/kmod/rtrs-srv-selftest.o
rtrs/tests/kmod/rtrs-srv-selftest-y := rtrs/tests/kmod/rtrs-srv-selftest-mod.o \
	rtrs/tests/kmod/rtrs-srv-selftest-store.o $(cxxrt-objs)

# The client's test user: opens a session through rtrs-client's C API and
# checks IO against rtrs-srv-selftest (proto=store) or an RNBD server (proto=rnbd).
rtrs-selftest-modules += rtrs/tests/kmod/rtrs-clt-selftest.o
rtrs/tests/kmod/rtrs-clt-selftest-y := rtrs/tests/kmod/rtrs-clt-selftest-mod.o \
	rtrs/tests/kmod/rtrs-clt-selftest-run.o $(common-objs) rnbd/core/rnbd-codec.o $(cxxrt-objs)

# The hostile peer: speaks RTRS/RNBD on the wire with bad input, against our
# server (selftests/hostile/).
rtrs-selftest-modules += rtrs/tests/kmod/rtrs-hostile.o
rtrs/tests/kmod/rtrs-hostile-y := rtrs/tests/kmod/rtrs-hostile-mod.o rtrs/tests/kmod/rtrs-hostile-run.o \
	rtrs/core/rtrs-codec.o rnbd/core/rnbd-codec.o $(kernel-ib-objs) $(cxxrt-objs)
