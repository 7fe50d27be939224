/* A versioned symbol as glibc has them: tk_ver@TK_1 (old) and tk_ver@@TK_2
 * (the default); .symtab names both with their versions. */
int old_f(void) { return 1; }
int new_f(void) { return 2; }
__asm__(".symver old_f,tk_ver@TK_1");
__asm__(".symver new_f,tk_ver@@TK_2");
