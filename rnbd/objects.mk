# Objects of rnbd-client.ko and rnbd-server.ko (see ../Kbuild).
rnbd-client-objs := rnbd/rnbd-clt-mod.o rnbd/kapi-rnbd-clt-trace.o rnbd/kapi-blk.o rnbd/kapi-blk-rtrs.o rnbd/rnbd-clt.o \
	rnbd/rnbd-clt-session.o rnbd/rnbd-clt-dev.o rnbd/rnbd-codec.o rnbd/rnbd-clt-options.o rtrs/rtrs-addr.o
rnbd-server-objs := rnbd/rnbd-srv-mod.o rnbd/kapi-rnbd-srv-trace.o rnbd/rnbd-srv.o rnbd/rnbd-srv-session.o rnbd/rnbd-srv-device.o \
	rnbd/rnbd-srv-io.o rnbd/rnbd-srv-io-bdev.o rnbd/rnbd-srv-io-file.o rnbd/kapi-blkdev.o rnbd/kapi-bio.o rnbd/kapi-file.o rnbd/rnbd-codec.o
# The trace event definitions find their own header again through
# <trace/define_trace.h> (TRACE_INCLUDE_PATH ".").
CFLAGS_rnbd/kapi-rnbd-clt-trace.o := -I$(src)/rnbd
CFLAGS_rnbd/kapi-rnbd-srv-trace.o := -I$(src)/rnbd
