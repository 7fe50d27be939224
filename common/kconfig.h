/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_KCONFIG_H
#define TAPKIT_KCONFIG_H

/*
 * The running kernel's build configuration, for stap's %( CONFIG_X ... %):
 * $TAPKIT_KCONFIG when set, else /proc/config.gz (CONFIG_IKCONFIG_PROC),
 * else /boot/config-RELEASE.
 */
struct kconfig;

/* The configuration of kernel @release (uname -r), read on first use by
 * kconfig_get(); never NULL.  Free with kconfig_free(). */
struct kconfig *kconfig_new(const char *release);
void kconfig_free(struct kconfig *kc);

/*
 * The value of @name ("CONFIG_SMP"): "y", "m", a number, or a string
 * without its quotes; NULL when it is not set, or when no configuration
 * could be read (kconfig_source() then says so).
 */
const char *kconfig_get(struct kconfig *kc, const char *name);

/* The file the values came from, or NULL when none could be read. */
const char *kconfig_source(struct kconfig *kc);

#endif
