/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Latencies in a log-linear histogram: exact below 32 us, then 32 buckets
 * per power of two (about 3% wide), so a run of millions of requests keeps
 * a fixed 15 KiB and its percentiles without sorting.
 */
#include "bench/loadgen.h"

static int
bucket_of(uint64_t v)
{
	int e;

	if (v < HIST_SUB)
		return (int)v;
	e = 63 - __builtin_clzll(v);		/* v's top bit, >= 5 */
	return (e - HIST_SUB_BITS + 1) * HIST_SUB +
	    (int)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* The lowest value of bucket b, and its width. */
static void
bucket_range(int b, double *lo, double *width)
{
	int e, m;

	if (b < HIST_SUB) {
		*lo = b;
		*width = 1;
		return;
	}
	e = b / HIST_SUB + HIST_SUB_BITS - 1;
	m = b % HIST_SUB;
	*width = (double)(1ULL << (e - HIST_SUB_BITS));
	*lo = (double)(HIST_SUB + m) * *width;
}

void
hist_add(struct hist *h, uint64_t us)
{
	h->count[bucket_of(us)]++;
	h->n++;
	if (us > h->max)
		h->max = us;
}

double
hist_quantile(const struct hist *h, double q)
{
	uint64_t want, seen = 0;
	double lo, width, v;
	int b;

	if (h->n == 0)
		return 0;
	want = (uint64_t)(q * (double)h->n);
	if (want >= h->n)
		want = h->n - 1;
	for (b = 0; b < HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen > want)
			break;
	}
	bucket_range(b, &lo, &width);
	v = lo + (width - 1) / 2;
	return v > (double)h->max ? (double)h->max : v;
}
