# RNBD/RTRS in C++ — top-level commands. See README.md.
#
#   make            everything `make install` installs: the four modules against KDIR
#                   (and their gates) and rnbdctl (build/rnbdctl/rnbdctl)
#   make modules    the four modules alone (what DKMS runs)
#   make rnbdctl    the admin CLI alone (CPPFLAGS, CXXFLAGS, LDFLAGS are added)
#   make setup      install what a fresh Debian 12 machine needs (idempotent)
#   make demo       the main job in a VM, from nothing
#   make check      every test: host unit tests, fuzzers, build gates, VM selftests
#   make debug-lane the sanitizer lane alone (debug kernel, part of check)
#   make bench      benchmarks against upstream RNBD (not part of check)
#   make churn      1000 module load/unload and 1000 map/IO/unmap cycles in a VM, and
#                   the allocation-failure sweep at every allocation (CHURN_CYCLES=N;
#                   `make check` runs 25 cycles each and every 16th allocation)
#   make vm         an interactive shell in the test VM
#   make install    modules into /lib/modules/<kver>/updates/, depmod, rnbdctl and its bash
#                   completion, man pages, udev rules, systemd units, /etc/modprobe.d/rnbd.conf
#                   (DESTDIR, PREFIX)
#   make uninstall  removes exactly what install placed (its manifest), depmod
#   make dkms       the source tree under /usr/src/rnbd-cxx-<version>/ for `dkms install`
#   make deb        the Debian packages (debian/: rnbd-cxx-dkms, rnbdctl) into build/deb/
#   make clean

TOP := $(CURDIR)
KERNEL_ABI = $(shell cat $(TOP)/.cache/kernel.abi 2>/dev/null)
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(if $(KERNEL_ABI),$(wildcard /usr/src/linux-headers-$(KERNEL_ABI))))

# No vmlinux in a headers package, so module BTF cannot be generated; say so
# once here instead of letting kbuild print a notice per module.
KBUILD_ARGS := -C $(KDIR) M=$(TOP) CONFIG_DEBUG_INFO_BTF_MODULES= $(if $(V),V=$(V))

# Sanitizers of a debug kernel; check-ko then requires instrumented C++.
KERNEL_SANITIZERS = $(shell grep -oE '^CONFIG_(KASAN|UBSAN)=y' $(KDIR)/.config 2>/dev/null | sed 's/^CONFIG_//; s/=y$$//')

# Kernels with IBT or clang LTO run objtool on each module's linked object
# only (kbuild's delay-objtool); check-ko then looks for its sections there.
OBJTOOL_AT_LINK = $(shell grep -qE '^CONFIG_(X86_KERNEL_IBT|LTO_CLANG)=y' $(KDIR)/include/config/auto.conf 2>/dev/null && echo --objtool-at-link)

MODULES := rtrs/rtrs-client.ko rtrs/rtrs-server.ko rnbd/rnbd-client.ko rnbd/rnbd-server.ko
# C++ objects that go into modules (each must carry objtool's sections).
CXX_OBJECTS = $(patsubst %.cpp,%.o,$(shell find cxxrt common kernel rtrs rnbd -name '*.cpp' -not -path '*/tests/host/*' -not -path '*/tests/fuzz/*'))

.PHONY: all install uninstall dkms deb debug-lane modules setup demo check check-install bench churn vm clean host-tests fuzz gate-tests plant-tests selftest-modules vm-tests kdir-check

# The default goal: what `make install` places (it refuses to run without both).
all: modules rnbdctl

modules: kdir-check
	$(MAKE) $(KBUILD_ARGS) modules
	tools/check-ko.sh --sanitizers "$(strip $(KERNEL_SANITIZERS))" $(OBJTOOL_AT_LINK) $(MODULES) -- $$(for o in $(CXX_OBJECTS); do [ -f $$o ] && echo $$o; done)

# The in-kernel cxxrt self-test module is built only for tests.
selftest-modules: kdir-check
	$(MAKE) $(KBUILD_ARGS) CXXRT_SELFTEST=1 modules
	tools/check-ko.sh $(OBJTOOL_AT_LINK) $(MODULES) $$(find cxxrt common kernel rtrs rnbd -path "*/tests/kmod/*.ko")

kdir-check:
	@test -n "$(KDIR)" -a -f "$(KDIR)/Makefile" || { echo "No kernel build tree$(if $(KDIR), at KDIR=$(KDIR)): install the kernel's headers" \
		"(apt-get install linux-headers-$$(uname -r) g++ make), or pass KDIR=<a kernel build tree>" >&2; exit 1; }
	@tools/kbuild/check-compiler.sh "$(KDIR)"

setup:
	tools/setup.sh

# ---- host side: unit tests and fuzzers of the kernel-independent C++ ----
include tools/host.mk
# The admin CLI: make rnbdctl -> build/rnbdctl/rnbdctl
include tools/rnbdctl/rnbdctl.mk

# The build gates must reject what they promise to reject.
gate-tests: kdir-check
	tools/gate-tests/run.sh "$(KDIR)"

# Harness faults planted in a copy of the tree must fail make check's verdicts.
plant-tests: selftest-modules
	tools/plant-tests/run.sh

# ---- VM ----
vm-tests: selftest-modules
	tools/vm/run.sh --timeout 2700 --log build/vm/check.log -- selftests/run.sh

check:
	tools/check.sh

# The installed product in the VM (make install, udev, save/restore, DKMS):
# about 20 minutes under TCG, so outside `make check` (CHECK_INSTALL=1 adds it).
check-install:
	tools/check-install.sh

debug-lane:
	tools/debug-lane.sh

demo:
	tools/demo.sh

bench:
	tools/bench.sh

# The long lane: churn with memory and slab figures every quarter, asserted
# flat, and the allocation-failure sweep at every allocation (rnbd/030 with
# SWEEP_STRIDE=1). About 3 s per module cycle, 4.5 s per map cycle and
# 10 s per sweep step under TCG on a busy 2-core machine: about 2.5 hours.
CHURN_CYCLES ?= 1000
churn: modules
	tools/vm/run.sh --timeout $$(( $(CHURN_CYCLES) * 20 + 5400 )) --log build/vm/churn.log -- \
		env CHURN_CYCLES=$(CHURN_CYCLES) SWEEP_STRIDE=1 selftests/run.sh churn/ rnbd/030

vm:
	tools/vm/run.sh --interactive

# ---- install, uninstall, DKMS (packaging/; see packaging/README.md) ----
# The kernel release comes from KDIR (the tree the modules were built for;
# its UTS_RELEASE: Debian's include/config/kernel.release is the upstream one).
PREFIX ?= /usr/local
INSTALL_KVER = $(or $(KVER),$(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null),$(shell uname -r))
INSTALL_VARS := DESTDIR PREFIX SBINDIR MANDIR UDEVDIR SYSTEMDUNITDIR PKGLIBDIR DATADIR SYSCONFDIR MODULEDIR \
	BASHCOMPLETIONDIR INSTALL_MOD_STRIP INSTALL_STRIP STRIP INSTALL_MODULES INSTALL_MANIFEST DKMS_SRCDIR
INSTALL_ENV = $(foreach v,$(INSTALL_VARS),$(if $(filter-out undefined,$(origin $(v))),$(v)='$($(v))')) \
	KVER='$(INSTALL_KVER)'

install:
	$(INSTALL_ENV) packaging/install.sh install

uninstall:
	$(INSTALL_ENV) packaging/install.sh uninstall

dkms:
	$(INSTALL_ENV) packaging/dkms.sh

# dpkg-buildpackage -b in a copy of the tree (packaging/build-deb.sh).
DEB_OUT ?= build/deb
deb:
	packaging/build-deb.sh $(DEB_OUT)

clean:
	-$(MAKE) $(KBUILD_ARGS) CXXRT_SELFTEST=1 clean 2>/dev/null
	rm -rf build generated
