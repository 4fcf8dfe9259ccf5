/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_SCENARIOS_ZAP_ZAP_TABLE_H
#define HOST_SCENARIOS_ZAP_ZAP_TABLE_H

#include "scenarios/zap/zap_run.h"

/* zap --table [LIST]: the seed's patterns, its tables; exit status. */
int zap_table(const struct common *c, const struct zap_opts *zo,
	      const char *list);

#endif
