#ifndef TKSTACK_H
#define TKSTACK_H

#include <unistd.h>
#include <sys/syscall.h>

/* getppid made in the calling function itself (no libc frame above it):
 * the callchain's first address is then in the caller */
static inline __attribute__((always_inline)) long tkstack_getppid(void)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"((long)SYS_getppid)
			 : "rcx", "r11", "memory");
	return r;
#else
	return syscall(SYS_getppid);
#endif
}

long tkstack_lib(void);

#endif
