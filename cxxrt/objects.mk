# Objects of the C++ runtime, linked into every module (see ../Kbuild).
cxxrt-objs := cxxrt/src/alloc.o cxxrt/src/log.o cxxrt/src/module.o cxxrt/src/parse.o \
	cxxrt/src/work.o cxxrt/src/sysfs.o \
	cxxrt/kapi/kapi-mem.o cxxrt/kapi/kapi-log.o cxxrt/kapi/kapi-sync.o cxxrt/kapi/kapi-debugfs.o \
	cxxrt/kapi/kapi-wq.o cxxrt/kapi/kapi-wait.o cxxrt/kapi/kapi-sysfs.o cxxrt/kapi/kapi-percpu.o

cxxrt-selftest-objs := cxxrt/tests/kmod/selftest-mod.o cxxrt/tests/kmod/selftest.o \
	cxxrt/tests/kmod/selftest-sysfs.o
