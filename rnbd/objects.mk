# Objects of rnbd-client.ko and rnbd-server.ko (see ../Kbuild).
rnbd-client-objs := rnbd/rnbd-clt-mod.o rnbd/rnbd-clt.o rnbd/rnbd-codec.o rnbd/rnbd-clt-options.o rtrs/rtrs-addr.o
rnbd-server-objs := rnbd/rnbd-srv-mod.o rnbd/rnbd-srv.o rnbd/rnbd-codec.o
