# C++ support for Kbuild, included from the top-level Kbuild.
#
# Kbuild has no C++ rule, so this file adds one. The flags are the kernel's
# own code-generation flags for this build (KBUILD_CFLAGS of the tree given
# by KDIR: -mcmodel=kernel, -mno-red-zone, no SSE, retpoline and return
# thunks, stack protector, -pg -mfentry, ...), minus the options that only
# mean something to a C compiler, plus the C++ subset switches. Nothing is
# hand-copied, so a different kernel config gives the matching C++ flags.
# objtool then runs on each C++ object exactly as on C objects.

CXX := $(subst gcc,g++,$(CC))

# Options that are valid for C only (g++ warns about each of them).
cxx-c-only-flags := -std=gnu11 -Wstrict-prototypes -Werror=strict-prototypes \
	-Werror=implicit-function-declaration -Werror=implicit-int -Wno-pointer-sign \
	-Werror=incompatible-pointer-types -Werror=designated-init \
	-Wdeclaration-after-statement -Wmissing-prototypes -Wold-style-definition -Wno-main \
	-Wnested-externs -Wno-override-init

cxx-subset-flags := -std=gnu++20 -nostdinc -nostdinc++ -ffreestanding \
	-fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit -fno-gnu-unique \
	-fno-asynchronous-unwind-tables -fno-unwind-tables \
	-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Werror

cxx-include-flags := -I$(src)/include -I$(src)/cxxrt/include -I$(src) -I$(obj)/generated

# The kernel's sanitizer flags reach C through c_flags only; give C++ the
# same instrumentation when a debug kernel enables them.
cxx-sanitizer-flags = $(if $(CONFIG_KASAN),$(CFLAGS_KASAN)) $(if $(CONFIG_UBSAN),$(CFLAGS_UBSAN))
# A KASAN kernel is the debug lane's: cxxrt's debug-only checks are on
# there (CXXRT_DEBUG_ASSERT), off in the release build.
cxx-debug-flags = $(if $(CONFIG_KASAN),-DCXXRT_DEBUG)

cxx_flags = -Wp,-MMD,$(depfile) \
	$(filter-out $(cxx-c-only-flags),$(KBUILD_CFLAGS) $(KBUILD_CFLAGS_MODULE)) \
	$(cxx-subset-flags) $(cxx-sanitizer-flags) $(cxx-debug-flags) \
	$(cxx-include-flags)

# C++ puts inline functions and template instances in COMDAT groups, and
# the linker keeps one copy per group. But the __mcount_loc entries gcc
# records for them (and objtool's ORC/return-site entries) live outside the
# groups, so a discarded duplicate leaves them pointing into a discarded
# section and `ld -r` fails. Ungrouping each object keeps every copy (weak
# symbols still resolve to one), so those tables stay valid. Inline
# variables must then be weak, not STB_GNU_UNIQUE: -fno-gnu-unique.
# The steps are separate commands, not joined by &&: kbuild runs them under
# `set -e`, which stops at any failing command but not at a failure inside an
# && list, and cmd_objtool appends "; objtool ...", whose status would then
# hide a compile error whenever an older object is still there.
quiet_cmd_cxx_o_cpp = CXX [M]  $@
      cmd_cxx_o_cpp = $(CXX) $(cxx_flags) -c -o $@ $<; \
		$(OBJCOPY) --remove-section=.group $@ $(cmd_objtool)

$(obj)/%.o: $(src)/%.cpp $(obj)/generated/cxxrt-kabi.h FORCE
	$(call if_changed_dep,cxx_o_cpp)

# Sizes, alignments and constants of kernel objects, generated from the real
# headers (the asm-offsets technique); see cxxrt/kapi/kapi-kabi.c.
targets += cxxrt/kapi/kapi-kabi.s
$(obj)/generated/cxxrt-kabi.h: $(obj)/cxxrt/kapi/kapi-kabi.s FORCE
	$(Q)mkdir -p $(dir $@)
	$(call filechk,offsets,CXXRT_KABI_H)
