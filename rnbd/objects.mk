# Objects of rnbd-client.ko and rnbd-server.ko (see ../Kbuild): rnbd's own
# (core/, client/, server/, trace/) and the kernel abstractions they sit on
# (kernel/block/, kernel/net/).
rnbd-client-objs := rnbd/client/rnbd-clt-mod.o rnbd/client/kapi-rnbd-clt-blk.o rnbd/trace/kapi-rnbd-clt-trace.o \
	kernel/block/kapi-blk.o \
	kernel/block/kapi-sg.o kernel/net/kapi-net.o rnbd/client/rnbd-clt.o rnbd/client/rnbd-clt-session.o \
	rnbd/client/rnbd-clt-dev.o rnbd/client/rnbd-clt-dev-io.o rnbd/client/rnbd-clt-dev-sysfs.o \
	rnbd/core/rnbd-codec.o rnbd/core/rnbd-clt-options.o $(common-objs)
rnbd-server-objs := rnbd/server/rnbd-srv-mod.o rnbd/trace/kapi-rnbd-srv-trace.o rnbd/server/rnbd-srv.o \
	rnbd/server/rnbd-srv-session.o rnbd/server/rnbd-srv-device.o rnbd/server/rnbd-srv-io.o \
	rnbd/server/rnbd-srv-io-bdev.o rnbd/server/rnbd-srv-io-file.o rnbd/server/rnbd-srv-exports.o \
	rnbd/server/kapi-rnbd-srv-bio.o kernel/block/kapi-blkdev.o kernel/block/kapi-bio.o \
	kernel/block/kapi-file.o rnbd/core/rnbd-codec.o rnbd/core/rnbd-srv-exports.o $(common-objs)
# The trace event definitions find their own header again through
# <trace/define_trace.h> (TRACE_INCLUDE_PATH ".").
CFLAGS_rnbd/trace/kapi-rnbd-clt-trace.o := -I$(src)/rnbd/trace
CFLAGS_rnbd/trace/kapi-rnbd-srv-trace.o := -I$(src)/rnbd/trace
