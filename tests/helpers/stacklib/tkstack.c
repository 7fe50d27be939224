/*
 * libtkstack.so: the shared-library frame of stackprog's stacks.
 * tkstack_lib() makes the getppid system call itself, so its own frame is
 * the innermost of the callchain (built with frame pointers).
 */
#include <unistd.h>
#include <sys/syscall.h>

#include "tkstack.h"

__attribute__((noinline)) long tkstack_lib(void)
{
	return tkstack_getppid();
}
