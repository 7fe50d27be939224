// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for test_usdt: USDT probes written two ways.
 *
 * - By hand, in tk_usdt_fn below: each note's argument string is chosen
 *   here, so the tests know the exact translation to expect; each call
 *   site is a global label, so nm gives its address independently.
 * - Through <sys/sdt.h> in main(), with a semaphore, as programs do; the
 *   compiler chooses those operands.
 *
 * Built as a PIE and as a fixed-address executable.  Never run.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

long tk_counter[2] = { 1, 2 };
unsigned short tk_hand_sema_semaphore __attribute__((section(".probes")));
unsigned short tk_compiled_semaphore __attribute__((section(".probes")));

/* One stapsdt note for the nop at global label @label. */
#define TK_NOTE(label, prov, name, sema, args)				\
	"	.globl " label "\n"					\
	label ":	nop\n"						\
	"	.pushsection .note.stapsdt,\"\",\"note\"\n"		\
	"	.balign 4\n"						\
	"	.4byte 992f-991f, 994f-993f, 3\n"			\
	"991:	.asciz \"stapsdt\"\n"					\
	"992:	.balign 4\n"						\
	"993:	.8byte " label "\n"					\
	"	.8byte _.stapsdt.base\n"				\
	"	.8byte " sema "\n"					\
	"	.asciz \"" prov "\"\n"					\
	"	.asciz \"" name "\"\n"					\
	"	.asciz \"" args "\"\n"					\
	"994:	.balign 4\n"						\
	"	.popsection\n"

__asm__(".ifndef _.stapsdt.base\n"
	"	.pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"
	"	.weak _.stapsdt.base\n"
	"	.hidden _.stapsdt.base\n"
	"_.stapsdt.base: .space 1\n"
	"	.size _.stapsdt.base, 1\n"
	"	.popsection\n"
	".endif\n"
	".text\n"
	".globl tk_usdt_fn\n"
	".type tk_usdt_fn, @function\n"
	"tk_usdt_fn:\n"
	TK_NOTE("tk_usdt_regs", "tk", "regs", "0",
		"-4@%ebx 8@%rax 4@%eax 2@%r9w 1@%ah -1@%dil 8@%r15 %ecx")
	TK_NOTE("tk_usdt_mem", "tk", "mem", "0",
		"8@-24(%rbp) -4@16(%rsp) 8@(%rax) 8@tk_counter(%rip) "
		"-8@tk_counter+8(%rip) 8@tk_counter")
	TK_NOTE("tk_usdt_imm", "tk", "imm", "0",
		"-4@$5 -4@$-5 8@$0x10 -2@$-1")
	TK_NOTE("tk_usdt_bad", "tk", "bad", "0",
		"8@(%rax,%rdx,8) 16@%rax 8@%xmm1 8@tk_nosuch(%rip) 8@$tk_counter")
	TK_NOTE("tk_usdt_sema", "tk", "hand_sema", "tk_hand_sema_semaphore",
		"4@%edi")
	TK_NOTE("tk_usdt_twice1", "tk2", "twice", "0", "")
	TK_NOTE("tk_usdt_twice2", "tk2", "twice", "0", "")
	"	mov $0x11223344, %eax\n"
	"	ret\n"
	".size tk_usdt_fn, .-tk_usdt_fn\n");

int main(int argc, char **argv)
{
	if (tk_compiled_semaphore)
		STAP_PROBE2(tk, compiled, argc, (long)argv);
	return 0;
}
