/* ptarget-usdt's provider (usdt/ptusdt.c): dtrace -h header, -G object */
provider ptk {
	probe hello(int, char *);
};
