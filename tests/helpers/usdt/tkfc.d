/* funccount's USDT workload (usdtloop.c): a provider for dtrace -h / -G */
provider tkfc {
	probe tick(int);
	probe tock(int);
};
