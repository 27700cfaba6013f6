# Objects of the RDMA layer (RDMA-CM + verbs), linked into rtrs-client.ko,
# rtrs-server.ko and the RDMA test modules (see ../../Kbuild): the C
# boundary (kapi-rdma*.c) and the kernel::ib C++ types over it.
kernel-ib-objs := kernel/ib/kapi-rdma-cm.o kernel/ib/kapi-rdma-verbs.o kernel/ib/kapi-rdma-mr.o \
	kernel/ib/ib-cm.o kernel/ib/ib-verbs.o kernel/ib/ib-memory.o
# Its C files check sizes against the generated header.
$(addprefix $(obj)/,$(filter %.o,$(kernel-ib-objs))): $(obj)/generated/cxxrt-kabi.h
