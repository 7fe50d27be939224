// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <stdatomic.h>

#include "common/parallel.h"

#define MAX_THREADS 64

struct work {
	atomic_int next;
	int n;
	void (*fn)(int i, void *arg);
	void *arg;
};

static void *worker(void *p)
{
	struct work *w = p;
	int i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->n)
		w->fn(i, w->arg);
	return NULL;
}

void parallel_for(int n, int threads, void (*fn)(int i, void *arg), void *arg)
{
	struct work w = { .n = n, .fn = fn, .arg = arg };
	pthread_t tid[MAX_THREADS];
	int i, started = 0;

	atomic_init(&w.next, 0);
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if (threads > n)
		threads = n;
	for (i = 1; i < threads; i++)
		if (pthread_create(&tid[started], NULL, worker, &w) == 0)
			started++;
	worker(&w);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}
