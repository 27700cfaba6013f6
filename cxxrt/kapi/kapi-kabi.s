	.file	"kapi-kabi.c"
# GNU C11 (Debian 12.2.0-14+deb12u1) version 12.2.0 (x86_64-linux-gnu)
#	compiled by GNU C version 12.2.0, GMP version 6.2.1, MPFR version 4.2.0, MPC version 1.3.1, isl version isl-0.25-GMP

# GGC heuristics: --param ggc-min-expand=100 --param ggc-min-heapsize=131072
# options passed: -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -m64 -mno-80387 -mno-fp-ret-in-387 -mpreferred-stack-boundary=3 -mskip-rax-setup -mtune=generic -mno-red-zone -mcmodel=kernel -mindirect-branch=thunk-extern -mindirect-branch-register -mindirect-branch-cs-prefix -mfunction-return=thunk-extern -mharden-sls=all -mrecord-mcount -mfentry -march=x86-64 -O2 -std=gnu11 -p -fno-strict-aliasing -fno-common -fshort-wchar -fno-PIE -fcf-protection=none -falign-jumps=1 -falign-loops=1 -fno-asynchronous-unwind-tables -fno-jump-tables -fno-delete-null-pointer-checks -fno-allow-store-data-races -fstack-protector-strong -ftrivial-auto-var-init=zero -fno-stack-clash-protection -fno-strict-overflow -fstack-check=no -fconserve-stack -fno-builtin-wcslen
	.text
	.section	.text.startup,"ax",@progbits
	.p2align 4
	.globl	main
	.type	main, @function
main:
1:	call	__fentry__
	.section __mcount_loc, "a",@progbits
	.quad 1b
	.previous
# /work/main/cxxrt/kapi/kapi-kabi.c:26: 	KABI_OBJECT(SPINLOCK, spinlock_t);
#APP
# 26 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_SPINLOCK $4 sizeof(spinlock_t)"	#
# 0 "" 2
# 26 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_SPINLOCK $4 __alignof__(spinlock_t)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:27: 	KABI_OBJECT(MUTEX, struct mutex);
# 27 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_MUTEX $32 sizeof(struct mutex)"	#
# 0 "" 2
# 27 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_MUTEX $8 __alignof__(struct mutex)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:28: 	KABI_OBJECT(COMPLETION, struct completion);
# 28 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_COMPLETION $32 sizeof(struct completion)"	#
# 0 "" 2
# 28 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_COMPLETION $8 __alignof__(struct completion)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:29: 	KABI_OBJECT(WORK, struct work_struct);
# 29 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_WORK $32 sizeof(struct work_struct)"	#
# 0 "" 2
# 29 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_WORK $8 __alignof__(struct work_struct)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:30: 	KABI_OBJECT(DELAYED_WORK, struct delayed_work);
# 30 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_DELAYED_WORK $88 sizeof(struct delayed_work)"	#
# 0 "" 2
# 30 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_DELAYED_WORK $8 __alignof__(struct delayed_work)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:31: 	KABI_OBJECT(TIMER, struct timer_list);
# 31 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_TIMER $40 sizeof(struct timer_list)"	#
# 0 "" 2
# 31 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_TIMER $8 __alignof__(struct timer_list)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:32: 	KABI_OBJECT(WAIT_QUEUE_HEAD, wait_queue_head_t);
# 32 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_WAIT_QUEUE_HEAD $24 sizeof(wait_queue_head_t)"	#
# 0 "" 2
# 32 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_WAIT_QUEUE_HEAD $8 __alignof__(wait_queue_head_t)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:33: 	KABI_OBJECT(KOBJECT, struct kobject);
# 33 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_KOBJECT $64 sizeof(struct kobject)"	#
# 0 "" 2
# 33 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_KOBJECT $8 __alignof__(struct kobject)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:34: 	BLANK();
# 34 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->"
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:35: 	DEFINE(KABI_GFP_KERNEL, GFP_KERNEL);
# 35 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_GFP_KERNEL $3264 GFP_KERNEL"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:36: 	DEFINE(KABI_GFP_ATOMIC, GFP_ATOMIC);
# 36 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_GFP_ATOMIC $2592 GFP_ATOMIC"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:37: 	DEFINE(KABI_GFP_NOIO, GFP_NOIO);
# 37 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_GFP_NOIO $3072 GFP_NOIO"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:38: 	DEFINE(KABI_GFP_NOWAIT, GFP_NOWAIT);
# 38 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_GFP_NOWAIT $2048 GFP_NOWAIT"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:39: 	DEFINE(KABI___GFP_ZERO, __GFP_ZERO);
# 39 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI___GFP_ZERO $256 __GFP_ZERO"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:40: 	DEFINE(KABI_PAGE_SIZE, PAGE_SIZE);
# 40 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_PAGE_SIZE $4096 PAGE_SIZE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:42: }
#NO_APP
	xorl	%eax, %eax	#
	jmp	__x86_return_thunk
	.size	main, .-main
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
