# Host builds of the kernel-independent C++: googletest unit tests and
# libFuzzer targets. The same source files go into the modules unchanged;
# the host side supplies its own C boundary (cxxrt/tests/host/kapi-host.cpp).

HOST_CXX ?= g++
FUZZ_CXX ?= clang++
BUILD := build/host
FUZZ_SECONDS ?= 20

HOST_INCLUDES := -Icxxrt/tests/host/include -Icxxrt/include -Iinclude -I.
HOST_FLAGS := -std=gnu++20 -DCXXRT_HOST $(HOST_INCLUDES) -Wall -Wextra -Werror -Wno-unused-parameter \
	-fno-exceptions -fno-rtti -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all

# Kernel-independent sources: they must build for the kernel and the host alike.
HOST_SOURCES := cxxrt/src/alloc.cpp cxxrt/src/log.cpp cxxrt/src/parse.cpp \
	$(wildcard rtrs/rtrs-codec.cpp rtrs/rtrs-permits.cpp rtrs/rtrs-addr.cpp rtrs/rtrs-clt-policy.cpp rtrs/rtrs-stats.cpp \
	           rnbd/rnbd-codec.cpp rnbd/rnbd-clt-options.cpp)
HOST_TESTS := $(wildcard cxxrt/tests/host/test_*.cpp rtrs/tests/host/test_*.cpp rnbd/tests/host/test_*.cpp)
HOST_SUPPORT := cxxrt/tests/host/kapi-host.cpp
FUZZ_TARGETS := $(wildcard rtrs/tests/fuzz/fuzz_*.cpp rnbd/tests/fuzz/fuzz_*.cpp cxxrt/tests/fuzz/fuzz_*.cpp)

host_obj = $(BUILD)/obj/$(1:.cpp=.o)
HOST_OBJECTS := $(foreach s,$(HOST_SOURCES) $(HOST_TESTS) $(HOST_SUPPORT),$(call host_obj,$(s)))

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	@echo "  HOSTCXX $<"
	@$(HOST_CXX) $(HOST_FLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/unit-tests: $(HOST_OBJECTS)
	@echo "  HOSTLD  $@"
	@$(HOST_CXX) $(HOST_FLAGS) -o $@ $^ -lgtest -lgtest_main -pthread

-include $(HOST_OBJECTS:.o=.d)

host-tests: $(BUILD)/unit-tests
	$(BUILD)/unit-tests --gtest_brief=1

FUZZ_FLAGS := -std=gnu++20 -DCXXRT_HOST $(HOST_INCLUDES) -g -O1 -fno-exceptions -fno-rtti \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_BINARIES := $(foreach f,$(FUZZ_TARGETS),$(BUILD)/fuzz/$(basename $(notdir $(f))))

$(BUILD)/fuzz/%: $(FUZZ_TARGETS) $(HOST_SOURCES) $(HOST_SUPPORT)
	@mkdir -p $(dir $@)
	@echo "  FUZZCXX $@"
	@$(FUZZ_CXX) $(FUZZ_FLAGS) -o $@ $(filter %/$*.cpp,$(FUZZ_TARGETS)) $(HOST_SOURCES) $(HOST_SUPPORT)

fuzz-build: $(FUZZ_BINARIES)

# Each target runs for FUZZ_SECONDS from an empty corpus; a crash fails.
fuzz: $(FUZZ_BINARIES)
	@for f in $(FUZZ_BINARIES); do \
		mkdir -p $(BUILD)/corpus/$$(basename $$f); \
		echo "fuzz: $$f for $(FUZZ_SECONDS)s"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(BUILD)/corpus/$$(basename $$f) \
			> $(BUILD)/fuzz/$$(basename $$f).log 2>&1 || { tail -30 $(BUILD)/fuzz/$$(basename $$f).log; exit 1; }; \
		grep -h "stat::number_of_executed_units" $(BUILD)/fuzz/$$(basename $$f).log; \
	done
