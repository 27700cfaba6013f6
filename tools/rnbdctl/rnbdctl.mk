# rnbdctl, the admin CLI (tools/rnbdctl/): userspace C++ with libstdc++,
# linked with the modules' kernel-independent parsers (map_device options,
# path addresses, path policies, export definitions) built for the host, so
# it refuses a bad option with the module's own message before writing to sysfs.
#   make rnbdctl   -> build/rnbdctl/rnbdctl
# CPPFLAGS, CXXFLAGS and LDFLAGS (environment or command line) come after
# the flags below, so they add to them and win where they differ: a
# distribution's hardening and debug flags (dpkg-buildflags in debian/rules).
# When they change, everything is rebuilt (build/rnbdctl/flags).
# Its host tests are part of `make host-tests` (tools/host.mk).

RNBDCTL_BUILD := build/rnbdctl
RNBDCTL_KERNEL_SOURCES := cxxrt/src/parse.cpp common/rtrs-addr.cpp rtrs/core/rtrs-clt-policy.cpp rnbd/core/rnbd-clt-options.cpp \
	rnbd/core/rnbd-srv-exports.cpp
RNBDCTL_FLAGS := -std=gnu++20 -DCXXRT_HOST $(HOST_INCLUDES) -Wall -Wextra -Werror -Wno-unused-parameter \
	-fno-exceptions -fno-rtti -O2 -g
RNBDCTL_OBJECTS := $(patsubst %.cpp,$(RNBDCTL_BUILD)/obj/%.o,$(RNBDCTL_LIB_SOURCES) tools/rnbdctl/main.cpp $(RNBDCTL_KERNEL_SOURCES))

RNBDCTL_COMMAND := $(HOST_CXX) $(CPPFLAGS) $(RNBDCTL_FLAGS) $(CXXFLAGS) -- $(LDFLAGS)

# Rewritten only when the compiler or the flags differ from the last build
# (the recipe always runs; make then sees whether the file changed).
$(RNBDCTL_BUILD)/flags: FORCE_RNBDCTL_FLAGS
	@mkdir -p $(@D)
	@printf '%s\n' '$(subst ','\'',$(RNBDCTL_COMMAND))' > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
.PHONY: FORCE_RNBDCTL_FLAGS

$(RNBDCTL_BUILD)/obj/%.o: %.cpp $(RNBDCTL_BUILD)/flags
	@mkdir -p $(dir $@)
	@echo "  CXX     $<"
	@$(HOST_CXX) $(CPPFLAGS) $(RNBDCTL_FLAGS) $(CXXFLAGS) -MMD -MP -c -o $@ $<

$(RNBDCTL_BUILD)/rnbdctl: $(RNBDCTL_OBJECTS) $(RNBDCTL_BUILD)/flags
	@echo "  LD      $@"
	@$(HOST_CXX) $(RNBDCTL_FLAGS) $(CXXFLAGS) $(LDFLAGS) -o $@ $(RNBDCTL_OBJECTS)

-include $(RNBDCTL_OBJECTS:.o=.d)

.PHONY: rnbdctl
rnbdctl: $(RNBDCTL_BUILD)/rnbdctl
