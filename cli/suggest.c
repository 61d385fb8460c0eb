/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The nearest known word to a mistyped one ("chek" -> "check"), for
 * messages that say what was meant.
 */
#include <string.h>

#include "cli/cli.h"

#define WORD_MAX	32

/* Edit distance (insertions, deletions, substitutions), capped words. */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, up;
	size_t row[WORD_MAX + 1];

	if (la > WORD_MAX || lb > WORD_MAX)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			cur = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < cur)
				cur = row[j] + 1;
			if (row[j - 1] + 1 < cur)
				cur = row[j - 1] + 1;
			row[j] = cur;
			prev = up;
		}
	}
	return row[lb];
}

const char *
cli_nearest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t i, d, bestd = 3;		/* at most two edits away */

	for (i = 0; i < n; i++) {
		d = distance(word, names[i]);
		if (d < bestd && d < strlen(names[i])) {
			best = names[i];
			bestd = d;
		}
	}
	return best;
}
