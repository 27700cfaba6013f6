# Objects of rtrs-client.ko and rtrs-server.ko (see ../Kbuild).
# The RDMA layer (RDMA-CM + verbs): the C boundary and the rtrs::ib wrappers.
rtrs-ib-objs := rtrs/kapi-rdma-cm.o rtrs/kapi-rdma-verbs.o rtrs/kapi-rdma-mr.o \
	rtrs/ib/ib-cm.o rtrs/ib/ib-verbs.o rtrs/ib/ib-memory.o
# Its C files check sizes against the generated header.
$(addprefix $(obj)/,$(filter %.o,$(rtrs-ib-objs))): $(obj)/generated/cxxrt-kabi.h

rtrs-common-objs := rtrs/rtrs-codec.o
rtrs-client-objs = rtrs/rtrs-clt-mod.o rtrs/rtrs-clt-export.o rtrs/kapi-rtrs-clt-trace.o rtrs/rtrs-clt.o \
	rtrs/rtrs-clt-session.o rtrs/rtrs-clt-path.o rtrs/rtrs-clt-connection.o rtrs/rtrs-clt-sysfs.o \
	rtrs/rtrs-clt-proto.o \
	$(rtrs-common-objs) \
	rtrs/rtrs-addr.o rtrs/rtrs-clt-policy.o rtrs/rtrs-stats.o rtrs/rtrs-permits.o $(rtrs-ib-objs)
rtrs-server-objs := rtrs/rtrs-srv-mod.o rtrs/kapi-rtrs-srv-trace.o rtrs/rtrs-srv.o rtrs/rtrs-srv-context.o rtrs/rtrs-srv-path.o rtrs/rtrs-srv-protocol.o \
	rtrs/rtrs-srv-io.o rtrs/rtrs-srv-sysfs.o rtrs/rtrs-addr.o $(rtrs-common-objs) rtrs/rtrs-stats.o $(rtrs-ib-objs)
# The trace event definitions find their own header again through
# <trace/define_trace.h> (TRACE_INCLUDE_PATH ".").
CFLAGS_rtrs/kapi-rtrs-clt-trace.o := -I$(src)/rtrs
CFLAGS_rtrs/kapi-rtrs-srv-trace.o := -I$(src)/rtrs

# Test-only modules of this folder (built with CXXRT_SELFTEST=1):
# add "rtrs/tests/kmod/<name>.o" here and define its <path>-y objects.
rtrs-selftest-modules := rtrs/tests/kmod/rtrs-ib-selftest.o
rtrs/tests/kmod/rtrs-ib-selftest-y := rtrs/tests/kmod/rtrs-ib-selftest-mod.o \
	rtrs/tests/kmod/rtrs-ib-selftest-run.o $(rtrs-ib-objs) $(cxxrt-objs)

# The server's test user: an in-memory store served over our rtrs-server.
rtrs-selftest-modules += rtrs/tests/kmod/rtrs-srv-selftest.o
rtrs/tests/kmod/rtrs-srv-selftest-y := rtrs/tests/kmod/rtrs-srv-selftest-mod.o \
	rtrs/tests/kmod/rtrs-srv-selftest-store.o $(cxxrt-objs)

# The client's test user: opens a session through rtrs-client's C API and
# checks IO against rtrs-srv-selftest (proto=store) or an RNBD server (proto=rnbd).
rtrs-selftest-modules += rtrs/tests/kmod/rtrs-clt-selftest.o
rtrs/tests/kmod/rtrs-clt-selftest-y := rtrs/tests/kmod/rtrs-clt-selftest-mod.o \
	rtrs/tests/kmod/rtrs-clt-selftest-run.o rtrs/rtrs-addr.o rnbd/core/rnbd-codec.o $(cxxrt-objs)

# The hostile peer: speaks RTRS/RNBD on the wire with bad input, against our
# server (selftests/hostile/).
rtrs-selftest-modules += rtrs/tests/kmod/rtrs-hostile.o
rtrs/tests/kmod/rtrs-hostile-y := rtrs/tests/kmod/rtrs-hostile-mod.o rtrs/tests/kmod/rtrs-hostile-run.o \
	rtrs/rtrs-codec.o rnbd/core/rnbd-codec.o $(rtrs-ib-objs) $(cxxrt-objs)
