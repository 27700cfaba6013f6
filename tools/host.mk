# Host builds of the kernel-independent C++: googletest unit tests and
# libFuzzer targets. The same source files go into the modules unchanged;
# the host side supplies its own C boundary (cxxrt/tests/host/kapi-host.cpp).

HOST_CXX ?= g++
FUZZ_CXX ?= clang++
BUILD := build/host
FUZZ_SECONDS ?= 20

HOST_INCLUDES := -Icxxrt/tests/host/include -Icxxrt/include -Iinclude -I.
HOST_FLAGS := -std=gnu++20 -DCXXRT_HOST -DCXXRT_DEBUG $(HOST_INCLUDES) -Wall -Wextra -Werror -Wno-unused-parameter \
	-fno-exceptions -fno-rtti -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all

# Kernel-independent sources: they must build for the kernel and the host
# alike. Every file of the core folders (a core file includes no boundary
# header: tools/check-layers.sh), so a new core file is host-built unasked.
CORE_DIRS := common rtrs/core rnbd/core
HOST_SOURCES := cxxrt/src/alloc.cpp cxxrt/src/log.cpp cxxrt/src/parse.cpp \
	$(wildcard $(addsuffix /*.cpp,$(CORE_DIRS)))
HOST_TESTS := $(wildcard cxxrt/tests/host/test_*.cpp rtrs/tests/host/test_*.cpp rnbd/tests/host/test_*.cpp \
	tools/rnbdctl/tests/*.cpp)
# The admin CLI's code (main.cpp aside) is unit-tested in the same binary.
RNBDCTL_LIB_SOURCES := $(filter-out tools/rnbdctl/main.cpp,$(wildcard tools/rnbdctl/*.cpp))
HOST_SUPPORT := cxxrt/tests/host/kapi-host.cpp
FUZZ_TARGETS := $(wildcard rtrs/tests/fuzz/fuzz_*.cpp rnbd/tests/fuzz/fuzz_*.cpp cxxrt/tests/fuzz/fuzz_*.cpp)

host_obj = $(BUILD)/obj/$(1:.cpp=.o)
HOST_OBJECTS := $(foreach s,$(HOST_SOURCES) $(HOST_TESTS) $(HOST_SUPPORT) $(RNBDCTL_LIB_SOURCES),$(call host_obj,$(s)))

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	@echo "  HOSTCXX $<"
	@$(HOST_CXX) $(HOST_FLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/unit-tests: $(HOST_OBJECTS)
	@echo "  HOSTLD  $@"
	@$(HOST_CXX) $(HOST_FLAGS) -o $@ $^ -lgtest -lgtest_main -pthread

-include $(HOST_OBJECTS:.o=.d)

# rnbdctl's tests also run the built binary (tools/rnbdctl/rnbdctl.mk).
host-tests: $(BUILD)/unit-tests rnbdctl
	$(BUILD)/unit-tests --gtest_brief=1

FUZZ_FLAGS := -std=gnu++20 -DCXXRT_HOST -DCXXRT_DEBUG $(HOST_INCLUDES) -g -O1 -fno-exceptions -fno-rtti \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_BINARIES := $(foreach f,$(FUZZ_TARGETS),$(BUILD)/fuzz/$(basename $(notdir $(f))))

# The core and the host boundary are compiled once for all the fuzzers
# (instrumented for coverage, without libFuzzer's main: fuzzer-no-link);
# each target compiles its own source and links them. Compiling the core
# once per target made this stage take 14 times the compiler's work.
comma := ,
FUZZ_LIB_FLAGS := $(subst -fsanitize=fuzzer$(comma),-fsanitize=fuzzer-no-link$(comma),$(FUZZ_FLAGS))
fuzz_obj = $(BUILD)/fuzzobj/$(1:.cpp=.o)
FUZZ_LIB_OBJECTS := $(foreach s,$(HOST_SOURCES) $(HOST_SUPPORT),$(call fuzz_obj,$(s)))

$(BUILD)/fuzzobj/%.o: %.cpp
	@mkdir -p $(dir $@)
	@echo "  FUZZCXX $<"
	@$(FUZZ_CXX) $(FUZZ_LIB_FLAGS) -MMD -MP -c -o $@ $<

-include $(FUZZ_LIB_OBJECTS:.o=.d)
.SECONDARY: $(FUZZ_LIB_OBJECTS)

# The target's own source only (the stem is the fuzzer's name); its
# dependency file lists the headers it includes.
fuzz_source = $(filter %/$(1).cpp,$(FUZZ_TARGETS))
.SECONDEXPANSION:
$(FUZZ_BINARIES): $(BUILD)/fuzz/%: $$(call fuzz_source,$$*) $(FUZZ_LIB_OBJECTS)
	@mkdir -p $(dir $@)
	@echo "  FUZZLD  $@"
	@$(FUZZ_CXX) $(FUZZ_FLAGS) -MMD -MP -MF $@.d -o $@ $^

-include $(FUZZ_BINARIES:=.d)

fuzz-build: $(FUZZ_BINARIES)

# Each target runs for FUZZ_SECONDS, from its saved corpus under
# $(BUILD)/corpus; a crash or a violated oracle fails. Prints executions and
# executions per second for each target (tools/fuzz.sh).
fuzz: $(FUZZ_BINARIES)
	@tools/fuzz.sh $(FUZZ_SECONDS) $(BUILD) $(FUZZ_TARGETS)
