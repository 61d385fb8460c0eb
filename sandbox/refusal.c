/* SPDX-License-Identifier: Apache-2.0 */
/* The refusal record (SPEC 6.4): why a spawn was refused, as one JSON line. */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "sandbox/internal.h"

/* Detail text is for people: printable ASCII only, so it always encodes. */
static void
printable(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src != NULL && src[i] != '\0' && i + 1 < len; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

/* confinements_tried: each confinement with what it lacked. */
static json_t *
tried_json(const struct sandbox_tried *t, size_t n)
{
	char text[512];
	json_t *a, *o;
	size_t i;

	if ((a = json_array()) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		printable(text, sizeof(text), t[i].detail);
		o = json_pack("{s:s, s:s, s:s, s:s}", "confinement",
		    sandbox_confinement_name(t[i].confinement), "mechanism",
		    sandbox_mech_name((enum sandbox_mech)t[i].mech),
		    "availability", sandbox_avail_name(t[i].avail), "detail",
		    text);
		if (o == NULL || json_array_append_new(a, o) == -1) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

void
sandbox_refusal(enum sandbox_area area, const char *reason,
    const char *detail, enum sandbox_profile profile, int mech,
    enum sandbox_avail avail, const struct sandbox_tried *tried,
    size_t ntried)
{
	json_t *rec, *km = NULL, *tj;
	char *line, text[512];

	printable(text, sizeof(text), detail);
	rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}",
	    "schema", "harn.process.sandbox_refusal.v1",
	    "mechanism", sandbox_area_name(area), "reason", reason,
	    "detail", text, "backend", "linux",
	    "profile", sandbox_profile_name(profile));
	if (rec != NULL && mech >= 0 && mech < MECH_COUNT) {
		km = json_pack("{s:s, s:s, s:s, s:s}",
		    "mechanism", sandbox_mech_name((enum sandbox_mech)mech),
		    "availability", sandbox_avail_name(avail),
		    "profile", sandbox_profile_name(profile),
		    "requirement", "profile");
		if (km == NULL || json_object_set_new(rec, "sandbox_mechanism",
		    km) == -1) {
			json_decref(rec);
			rec = NULL;
		}
	}
	if (rec != NULL && ntried > 0 && ((tj = tried_json(tried, ntried)) ==
	    NULL || json_object_set_new(rec, "confinements_tried", tj) == -1)) {
		json_decref(rec);
		rec = NULL;
	}
	line = rec ? json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (line != NULL)
		fprintf(stderr, "%s\n", line);
	else
		fprintf(stderr, "{\"schema\":\"harn.process.sandbox_refusal.v1\","
		    "\"mechanism\":\"unknown\",\"reason\":\"out of memory\","
		    "\"backend\":\"linux\"}\n");
	fflush(stderr);
	free(line);
	json_decref(rec);
}
