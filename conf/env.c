/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The environment policy (SPEC 3.4): HARN_EGRESS_* variables stand in for
 * a policy file.  Setting any of them, even to "", installs a policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"

const char *const conf_env_vars[] = {
	"HARN_EGRESS_ALLOW",
	"HARN_EGRESS_DENY",
	"HARN_EGRESS_DEFAULT",
	"HARN_EGRESS_BLOCK_PRIVATE",
	"HARN_EGRESS_ALLOW_LOOPBACK",
	NULL
};

static bool
is_sep(char c)
{
	return c == ',' || c == ';' || c == '\n';
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int
env_rules(struct conf *c, const char *var, const char *val, bool allow,
    char *err, size_t errlen)
{
	struct egress_rule r;
	const char *p = val, *e, *why;
	size_t len;

	while (*p != '\0') {
		while (is_space(*p) || is_sep(*p))
			p++;
		for (e = p; *e != '\0' && !is_sep(*e); e++)
			;
		len = e - p;
		while (len > 0 && is_space(p[len - 1]))
			len--;
		if (len > 0) {
			if (egress_rule_parse(p, len, allow, &r, &why) == -1) {
				snprintf(err, errlen, "%s: rule '%.*s': %s",
				    var, (int)(len > 200 ? 200 : len), p, why);
				return -1;
			}
			if (egress_policy_add(c->policy, &r) == -1) {
				snprintf(err, errlen, "%s: out of memory", var);
				return -1;
			}
		}
		p = e;
	}
	return 0;
}

static int
env_bool(const char *var, const char *val, bool *out, char *err,
    size_t errlen)
{
	static const char *const yes[] = { "on", "true", "1" };
	static const char *const no[] = { "off", "false", "0" };
	size_t i;

	for (i = 0; i < 3; i++) {
		if (strcmp(val, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(val, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	snprintf(err, errlen, "%s: '%.64s' is not on, off, true, false, 1 or 0",
	    var, val);
	return -1;
}

/* The policy's bytes, for its digest: each set variable as NAME=VALUE\n. */
static int
env_bytes(struct conf *c, const char *(*get)(const char *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int i, rv;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return -1;
	for (i = 0; conf_env_vars[i] != NULL; i++)
		if (get(conf_env_vars[i]) != NULL)
			fprintf(f, "%s=%s\n", conf_env_vars[i],
			    get(conf_env_vars[i]));
	if (fclose(f) != 0) {
		free(buf);
		return -1;
	}
	rv = conf_keep_bytes(c, buf, len);
	free(buf);
	return rv;
}

static int
env_apply(struct conf *c, const char *(*get)(const char *), char *err,
    size_t errlen)
{
	const char *v;
	bool b;

	if ((v = get("HARN_EGRESS_DEFAULT")) != NULL) {
		if (strcmp(v, "allow") != 0 && strcmp(v, "deny") != 0) {
			snprintf(err, errlen,
			    "HARN_EGRESS_DEFAULT: '%.64s' is not allow or deny",
			    v);
			return -1;
		}
		egress_policy_set_default_allow(c->policy,
		    strcmp(v, "allow") == 0);
	}
	if ((v = get("HARN_EGRESS_BLOCK_PRIVATE")) != NULL) {
		if (env_bool("HARN_EGRESS_BLOCK_PRIVATE", v, &b, err,
		    errlen) == -1)
			return -1;
		egress_policy_set_block_private(c->policy, b);
	}
	if ((v = get("HARN_EGRESS_ALLOW_LOOPBACK")) != NULL) {
		if (env_bool("HARN_EGRESS_ALLOW_LOOPBACK", v, &b, err,
		    errlen) == -1)
			return -1;
		egress_policy_set_allow_loopback(c->policy, b);
	}
	if ((v = get("HARN_EGRESS_ALLOW")) != NULL &&
	    env_rules(c, "HARN_EGRESS_ALLOW", v, true, err, errlen) == -1)
		return -1;
	if ((v = get("HARN_EGRESS_DENY")) != NULL &&
	    env_rules(c, "HARN_EGRESS_DENY", v, false, err, errlen) == -1)
		return -1;
	if (env_bytes(c, get) == -1) {
		snprintf(err, errlen, "environment policy: out of memory");
		return -1;
	}
	return 0;
}

int
conf_from_env(const char *(*get)(const char *), struct conf **out, char *err,
    size_t errlen)
{
	struct conf *c;
	int i;

	*out = NULL;
	for (i = 0; conf_env_vars[i] != NULL; i++)
		if (get(conf_env_vars[i]) != NULL)
			break;
	if (conf_env_vars[i] == NULL)
		return 0;
	if ((c = conf_new("env")) == NULL) {
		snprintf(err, errlen, "environment policy: out of memory");
		return -1;
	}
	if (env_apply(c, get, err, errlen) == -1) {
		conf_free(c);
		return -1;
	}
	*out = c;
	return 1;
}
