# Kernel-independent objects both products link (see ../Kbuild): the path
# address parser (rtrs-client, rtrs-server, rnbd-client, rtrs-clt-selftest).
common-objs := common/rtrs-addr.o
