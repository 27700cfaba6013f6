# Objects of rtrs-client.ko and rtrs-server.ko (see ../Kbuild).
rtrs-common-objs := rtrs/rtrs-codec.o
rtrs-client-objs := rtrs/rtrs-clt-mod.o rtrs/rtrs-clt.o $(rtrs-common-objs) \
	rtrs/rtrs-addr.o rtrs/rtrs-clt-policy.o rtrs/rtrs-stats.o rtrs/rtrs-permits.o
rtrs-server-objs := rtrs/rtrs-srv-mod.o rtrs/rtrs-srv.o $(rtrs-common-objs) rtrs/rtrs-stats.o

# Test-only modules of this folder (built with CXXRT_SELFTEST=1):
# add "rtrs/tests/kmod/<name>.o" here and define its <path>-y objects.
rtrs-selftest-modules :=
