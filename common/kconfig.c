// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's .config, as stap's preprocessor compares CONFIG_X
 * against it.  stap reads the build tree's .config; a machine without
 * one usually has the same text in /proc/config.gz or /boot.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/kconfig.h"
#include "common/log.h"

struct kconfig {
	char *release;
	bool loaded;
	char *text;		/* the file, NUL-terminated */
	char *source;
	char value[256];	/* the last value returned */
};

struct kconfig *kconfig_new(const char *release)
{
	struct kconfig *kc = xcalloc(1, sizeof(*kc));

	kc->release = xstrdup(release ? release : "");
	return kc;
}

void kconfig_free(struct kconfig *kc)
{
	if (!kc)
		return;
	free(kc->release);
	free(kc->text);
	free(kc->source);
	free(kc);
}

/* The whole of @path, gzip-compressed or not (zlib reads both). */
static char *slurp(const char *path)
{
	gzFile f = gzopen(path, "rb");
	size_t n = 0, cap = 1 << 16;
	char *buf;
	int k;

	if (!f)
		return NULL;
	buf = xmalloc(cap);
	while ((k = gzread(f, buf + n, (unsigned int)(cap - n - 1))) > 0) {
		n += (size_t)k;
		if (cap - n < 2)
			buf = xrealloc(buf, cap *= 2);
	}
	if (k < 0) {
		gzclose(f);
		free(buf);
		return NULL;
	}
	gzclose(f);
	buf[n] = '\0';
	return buf;
}

static void load(struct kconfig *kc)
{
	const char *env = getenv("TAPKIT_KCONFIG");
	char boot[512];
	const char *try[3];
	int i, n = 0;

	kc->loaded = true;
	snprintf(boot, sizeof(boot), "/boot/config-%s", kc->release);
	if (env && *env) {
		try[n++] = env;
	} else {
		try[n++] = "/proc/config.gz";
		try[n++] = boot;
	}
	for (i = 0; i < n && !kc->text; i++)
		if ((kc->text = slurp(try[i])))
			kc->source = xstrdup(try[i]);
}

const char *kconfig_get(struct kconfig *kc, const char *name)
{
	size_t len = strlen(name), n;
	const char *p, *v, *end;

	if (!kc->loaded)
		load(kc);
	/* "CONFIG_X=value" at the start of a line; "# CONFIG_X is not set"
	 * and absent lines mean unset */
	for (p = kc->text; p && *p; p = end + (*end == '\n')) {
		end = strchrnul(p, '\n');
		if (strncmp(p, name, len) || p[len] != '=')
			continue;
		v = p + len + 1;
		n = (size_t)(end - v);
		if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
			v++;
			n -= 2;
		}
		if (n >= sizeof(kc->value))
			n = sizeof(kc->value) - 1;
		memcpy(kc->value, v, n);
		kc->value[n] = '\0';
		return kc->value;
	}
	return NULL;
}

const char *kconfig_source(struct kconfig *kc)
{
	if (!kc->loaded)
		load(kc);
	return kc->source;
}
