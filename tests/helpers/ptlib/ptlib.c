/* libptarget.so: a shared library for process("...").library() probes */
__attribute__((noinline)) int pt_lib_add(int a, int b)
{
	return a + b;
}
