# rnbdctl, the admin CLI (tools/rnbdctl/): userspace C++ with libstdc++,
# linked with the modules' kernel-independent parsers (map_device options,
# path addresses, path policies, export definitions) built for the host, so
# it refuses a bad option with the module's own message before writing to sysfs.
#   make rnbdctl   -> build/rnbdctl/rnbdctl
# Its host tests are part of `make host-tests` (tools/host.mk).

RNBDCTL_BUILD := build/rnbdctl
RNBDCTL_KERNEL_SOURCES := cxxrt/src/parse.cpp common/rtrs-addr.cpp rtrs/core/rtrs-clt-policy.cpp rnbd/core/rnbd-clt-options.cpp \
	rnbd/core/rnbd-srv-exports.cpp
RNBDCTL_FLAGS := -std=gnu++20 -DCXXRT_HOST $(HOST_INCLUDES) -Wall -Wextra -Werror -Wno-unused-parameter \
	-fno-exceptions -fno-rtti -O2 -g
RNBDCTL_OBJECTS := $(patsubst %.cpp,$(RNBDCTL_BUILD)/obj/%.o,$(RNBDCTL_LIB_SOURCES) tools/rnbdctl/main.cpp $(RNBDCTL_KERNEL_SOURCES))

$(RNBDCTL_BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	@echo "  CXX     $<"
	@$(HOST_CXX) $(RNBDCTL_FLAGS) -MMD -MP -c -o $@ $<

$(RNBDCTL_BUILD)/rnbdctl: $(RNBDCTL_OBJECTS)
	@echo "  LD      $@"
	@$(HOST_CXX) $(RNBDCTL_FLAGS) -o $@ $^

-include $(RNBDCTL_OBJECTS:.o=.d)

.PHONY: rnbdctl
rnbdctl: $(RNBDCTL_BUILD)/rnbdctl
