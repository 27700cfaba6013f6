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
	.text
	.p2align 4
	.globl	kabi_cxxrt_wq_wait
	.type	kabi_cxxrt_wq_wait, @function
kabi_cxxrt_wq_wait:
1:	call	__fentry__
	.section __mcount_loc, "a",@progbits
	.quad 1b
	.previous
# /work/main/cxxrt/kapi/kapi-kabi.c:48: 	KABI_OBJECT(WAIT_QUEUE_ENTRY, struct wait_queue_entry);
#APP
# 48 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_WAIT_QUEUE_ENTRY $40 sizeof(struct wait_queue_entry)"	#
# 0 "" 2
# 48 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_WAIT_QUEUE_ENTRY $8 __alignof__(struct wait_queue_entry)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:49: 	DEFINE(KABI_WQ_UNBOUND, WQ_UNBOUND);
# 49 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_WQ_UNBOUND $2 WQ_UNBOUND"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:50: 	DEFINE(KABI_WQ_FREEZABLE, WQ_FREEZABLE);
# 50 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_WQ_FREEZABLE $4 WQ_FREEZABLE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:51: 	DEFINE(KABI_WQ_MEM_RECLAIM, WQ_MEM_RECLAIM);
# 51 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_WQ_MEM_RECLAIM $8 WQ_MEM_RECLAIM"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:52: 	DEFINE(KABI_WQ_HIGHPRI, WQ_HIGHPRI);
# 52 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_WQ_HIGHPRI $16 WQ_HIGHPRI"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:53: 	DEFINE(KABI_WQ_CPU_INTENSIVE, WQ_CPU_INTENSIVE);
# 53 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_WQ_CPU_INTENSIVE $32 WQ_CPU_INTENSIVE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:54: 	DEFINE(KABI_WQ_SYSFS, WQ_SYSFS);
# 54 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_WQ_SYSFS $64 WQ_SYSFS"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:55: 	DEFINE(KABI_WQ_MAX_ACTIVE, WQ_MAX_ACTIVE);
# 55 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_WQ_MAX_ACTIVE $512 WQ_MAX_ACTIVE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:57: }
#NO_APP
	xorl	%eax, %eax	#
	jmp	__x86_return_thunk
	.size	kabi_cxxrt_wq_wait, .-kabi_cxxrt_wq_wait
	.p2align 4
	.globl	kabi_rtrs_rdma
	.type	kabi_rtrs_rdma, @function
kabi_rtrs_rdma:
1:	call	__fentry__
	.section __mcount_loc, "a",@progbits
	.quad 1b
	.previous
# /work/main/cxxrt/kapi/kapi-kabi.c:70: 	KABI_OBJECT(IB_CQE, struct ib_cqe);
#APP
# 70 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_IB_CQE $8 sizeof(struct ib_cqe)"	#
# 0 "" 2
# 70 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_IB_CQE $8 __alignof__(struct ib_cqe)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:71: 	KABI_OBJECT(SCATTERLIST, struct scatterlist);
# 71 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_SCATTERLIST $32 sizeof(struct scatterlist)"	#
# 0 "" 2
# 71 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_SCATTERLIST $8 __alignof__(struct scatterlist)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:72: 	KABI_OBJECT(SOCKADDR_STORAGE, struct sockaddr_storage);
# 72 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_SIZEOF_SOCKADDR_STORAGE $128 sizeof(struct __kernel_sockaddr_storage)"	#
# 0 "" 2
# 72 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_ALIGNOF_SOCKADDR_STORAGE $8 __alignof__(struct __kernel_sockaddr_storage)"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:73: 	DEFINE(KABI_RDMA_PS_TCP, RDMA_PS_TCP);
# 73 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_PS_TCP $262 RDMA_PS_TCP"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:74: 	DEFINE(KABI_RDMA_PS_IB, RDMA_PS_IB);
# 74 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_PS_IB $319 RDMA_PS_IB"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:75: 	DEFINE(KABI_RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ADDR_RESOLVED);
# 75 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_ADDR_RESOLVED $0 RDMA_CM_EVENT_ADDR_RESOLVED"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:76: 	DEFINE(KABI_RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_ADDR_ERROR);
# 76 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_ADDR_ERROR $1 RDMA_CM_EVENT_ADDR_ERROR"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:77: 	DEFINE(KABI_RDMA_CM_EVENT_ROUTE_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED);
# 77 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_ROUTE_RESOLVED $2 RDMA_CM_EVENT_ROUTE_RESOLVED"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:78: 	DEFINE(KABI_RDMA_CM_EVENT_ROUTE_ERROR, RDMA_CM_EVENT_ROUTE_ERROR);
# 78 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_ROUTE_ERROR $3 RDMA_CM_EVENT_ROUTE_ERROR"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:79: 	DEFINE(KABI_RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_CONNECT_REQUEST);
# 79 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_CONNECT_REQUEST $4 RDMA_CM_EVENT_CONNECT_REQUEST"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:80: 	DEFINE(KABI_RDMA_CM_EVENT_CONNECT_RESPONSE, RDMA_CM_EVENT_CONNECT_RESPONSE);
# 80 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_CONNECT_RESPONSE $5 RDMA_CM_EVENT_CONNECT_RESPONSE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:81: 	DEFINE(KABI_RDMA_CM_EVENT_CONNECT_ERROR, RDMA_CM_EVENT_CONNECT_ERROR);
# 81 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_CONNECT_ERROR $6 RDMA_CM_EVENT_CONNECT_ERROR"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:82: 	DEFINE(KABI_RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_EVENT_UNREACHABLE);
# 82 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_UNREACHABLE $7 RDMA_CM_EVENT_UNREACHABLE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:83: 	DEFINE(KABI_RDMA_CM_EVENT_REJECTED, RDMA_CM_EVENT_REJECTED);
# 83 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_REJECTED $8 RDMA_CM_EVENT_REJECTED"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:84: 	DEFINE(KABI_RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_ESTABLISHED);
# 84 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_ESTABLISHED $9 RDMA_CM_EVENT_ESTABLISHED"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:85: 	DEFINE(KABI_RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_DISCONNECTED);
# 85 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_DISCONNECTED $10 RDMA_CM_EVENT_DISCONNECTED"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:86: 	DEFINE(KABI_RDMA_CM_EVENT_DEVICE_REMOVAL, RDMA_CM_EVENT_DEVICE_REMOVAL);
# 86 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_DEVICE_REMOVAL $11 RDMA_CM_EVENT_DEVICE_REMOVAL"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:87: 	DEFINE(KABI_RDMA_CM_EVENT_ADDR_CHANGE, RDMA_CM_EVENT_ADDR_CHANGE);
# 87 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_ADDR_CHANGE $14 RDMA_CM_EVENT_ADDR_CHANGE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:88: 	DEFINE(KABI_RDMA_CM_EVENT_TIMEWAIT_EXIT, RDMA_CM_EVENT_TIMEWAIT_EXIT);
# 88 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_RDMA_CM_EVENT_TIMEWAIT_EXIT $15 RDMA_CM_EVENT_TIMEWAIT_EXIT"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:89: 	DEFINE(KABI_IB_CM_REJ_CONSUMER_DEFINED, IB_CM_REJ_CONSUMER_DEFINED);
# 89 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_CM_REJ_CONSUMER_DEFINED $28 IB_CM_REJ_CONSUMER_DEFINED"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:90: 	DEFINE(KABI_IB_CM_REQ_PRIVATE_DATA_SIZE, IB_CM_REQ_PRIVATE_DATA_SIZE);
# 90 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_CM_REQ_PRIVATE_DATA_SIZE $92 IB_CM_REQ_PRIVATE_DATA_SIZE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:91: 	DEFINE(KABI_IB_CM_REP_PRIVATE_DATA_SIZE, IB_CM_REP_PRIVATE_DATA_SIZE);
# 91 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_CM_REP_PRIVATE_DATA_SIZE $196 IB_CM_REP_PRIVATE_DATA_SIZE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:92: 	DEFINE(KABI_IB_CM_REJ_PRIVATE_DATA_SIZE, IB_CM_REJ_PRIVATE_DATA_SIZE);
# 92 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_CM_REJ_PRIVATE_DATA_SIZE $148 IB_CM_REJ_PRIVATE_DATA_SIZE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:93: 	DEFINE(KABI_IB_POLL_SOFTIRQ, IB_POLL_SOFTIRQ);
# 93 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_POLL_SOFTIRQ $0 IB_POLL_SOFTIRQ"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:94: 	DEFINE(KABI_IB_POLL_WORKQUEUE, IB_POLL_WORKQUEUE);
# 94 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_POLL_WORKQUEUE $1 IB_POLL_WORKQUEUE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:95: 	DEFINE(KABI_IB_POLL_DIRECT, IB_POLL_DIRECT);
# 95 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_POLL_DIRECT $3 IB_POLL_DIRECT"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:96: 	DEFINE(KABI_IB_PD_UNSAFE_GLOBAL_RKEY, IB_PD_UNSAFE_GLOBAL_RKEY);
# 96 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_PD_UNSAFE_GLOBAL_RKEY $1 IB_PD_UNSAFE_GLOBAL_RKEY"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:97: 	DEFINE(KABI_IB_WC_SUCCESS, IB_WC_SUCCESS);
# 97 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_SUCCESS $0 IB_WC_SUCCESS"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:98: 	DEFINE(KABI_IB_WC_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR);
# 98 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_WR_FLUSH_ERR $5 IB_WC_WR_FLUSH_ERR"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:99: 	DEFINE(KABI_IB_WC_SEND, IB_WC_SEND);
# 99 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_SEND $0 IB_WC_SEND"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:100: 	DEFINE(KABI_IB_WC_RDMA_WRITE, IB_WC_RDMA_WRITE);
# 100 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_RDMA_WRITE $1 IB_WC_RDMA_WRITE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:101: 	DEFINE(KABI_IB_WC_RDMA_READ, IB_WC_RDMA_READ);
# 101 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_RDMA_READ $2 IB_WC_RDMA_READ"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:102: 	DEFINE(KABI_IB_WC_LOCAL_INV, IB_WC_LOCAL_INV);
# 102 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_LOCAL_INV $6 IB_WC_LOCAL_INV"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:103: 	DEFINE(KABI_IB_WC_REG_MR, IB_WC_REG_MR);
# 103 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_REG_MR $8 IB_WC_REG_MR"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:104: 	DEFINE(KABI_IB_WC_RECV, IB_WC_RECV);
# 104 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_RECV $128 IB_WC_RECV"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:105: 	DEFINE(KABI_IB_WC_RECV_RDMA_WITH_IMM, IB_WC_RECV_RDMA_WITH_IMM);
# 105 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_RECV_RDMA_WITH_IMM $129 IB_WC_RECV_RDMA_WITH_IMM"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:106: 	DEFINE(KABI_IB_WC_WITH_IMM, IB_WC_WITH_IMM);
# 106 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_WITH_IMM $2 IB_WC_WITH_IMM"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:107: 	DEFINE(KABI_IB_WC_WITH_INVALIDATE, IB_WC_WITH_INVALIDATE);
# 107 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WC_WITH_INVALIDATE $4 IB_WC_WITH_INVALIDATE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:108: 	DEFINE(KABI_IB_WR_RDMA_WRITE, IB_WR_RDMA_WRITE);
# 108 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WR_RDMA_WRITE $0 IB_WR_RDMA_WRITE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:109: 	DEFINE(KABI_IB_WR_RDMA_WRITE_WITH_IMM, IB_WR_RDMA_WRITE_WITH_IMM);
# 109 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WR_RDMA_WRITE_WITH_IMM $1 IB_WR_RDMA_WRITE_WITH_IMM"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:110: 	DEFINE(KABI_IB_WR_SEND, IB_WR_SEND);
# 110 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WR_SEND $2 IB_WR_SEND"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:111: 	DEFINE(KABI_IB_WR_SEND_WITH_IMM, IB_WR_SEND_WITH_IMM);
# 111 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WR_SEND_WITH_IMM $3 IB_WR_SEND_WITH_IMM"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:112: 	DEFINE(KABI_IB_WR_SEND_WITH_INV, IB_WR_SEND_WITH_INV);
# 112 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WR_SEND_WITH_INV $9 IB_WR_SEND_WITH_INV"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:113: 	DEFINE(KABI_IB_WR_RDMA_READ, IB_WR_RDMA_READ);
# 113 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_WR_RDMA_READ $4 IB_WR_RDMA_READ"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:114: 	DEFINE(KABI_IB_SEND_FENCE, IB_SEND_FENCE);
# 114 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_SEND_FENCE $1 IB_SEND_FENCE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:115: 	DEFINE(KABI_IB_SEND_SIGNALED, IB_SEND_SIGNALED);
# 115 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_SEND_SIGNALED $2 IB_SEND_SIGNALED"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:116: 	DEFINE(KABI_IB_SEND_SOLICITED, IB_SEND_SOLICITED);
# 116 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_SEND_SOLICITED $4 IB_SEND_SOLICITED"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:117: 	DEFINE(KABI_IB_SEND_INLINE, IB_SEND_INLINE);
# 117 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_SEND_INLINE $8 IB_SEND_INLINE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:118: 	DEFINE(KABI_IB_ACCESS_LOCAL_WRITE, IB_ACCESS_LOCAL_WRITE);
# 118 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_ACCESS_LOCAL_WRITE $1 IB_ACCESS_LOCAL_WRITE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:119: 	DEFINE(KABI_IB_ACCESS_REMOTE_WRITE, IB_ACCESS_REMOTE_WRITE);
# 119 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_ACCESS_REMOTE_WRITE $2 IB_ACCESS_REMOTE_WRITE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:120: 	DEFINE(KABI_IB_ACCESS_REMOTE_READ, IB_ACCESS_REMOTE_READ);
# 120 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_IB_ACCESS_REMOTE_READ $4 IB_ACCESS_REMOTE_READ"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:121: 	DEFINE(KABI_DMA_BIDIRECTIONAL, DMA_BIDIRECTIONAL);
# 121 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_DMA_BIDIRECTIONAL $0 DMA_BIDIRECTIONAL"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:122: 	DEFINE(KABI_DMA_TO_DEVICE, DMA_TO_DEVICE);
# 122 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_DMA_TO_DEVICE $1 DMA_TO_DEVICE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:123: 	DEFINE(KABI_DMA_FROM_DEVICE, DMA_FROM_DEVICE);
# 123 "/work/main/cxxrt/kapi/kapi-kabi.c" 1
	
.ascii "->KABI_DMA_FROM_DEVICE $2 DMA_FROM_DEVICE"	#
# 0 "" 2
# /work/main/cxxrt/kapi/kapi-kabi.c:125: }
#NO_APP
	xorl	%eax, %eax	#
	jmp	__x86_return_thunk
	.size	kabi_rtrs_rdma, .-kabi_rtrs_rdma
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
