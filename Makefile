# Top-level wrapper. `make` builds the four modules against KDIR.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(wildcard /usr/src/linux-headers-$(shell cat .cache/kernel.abi 2>/dev/null)))
TOP := $(CURDIR)

modules:
	$(MAKE) -C $(KDIR) M=$(TOP) modules
