// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers every provider shares.  The providers themselves live in
 * prov/, one file per probe family, and their list (prov/prov.c) is handed
 * to the language by the command (elab_opts.providers, run_opts.providers).
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/provider.h"

struct prov_probe *prov_probe_new(const struct provider *prov,
				  const char *pp, enum prov_state state)
{
	struct prov_probe *p = xcalloc(1, sizeof(*p));

	p->prov = prov;
	p->pp = xstrdup(pp);
	p->state = state;
	p->count_global = -1;
	return p;
}

void prov_probe_free(struct prov_probe *p)
{
	if (!p)
		return;
	if (p->prov && p->prov->free_probe)
		p->prov->free_probe(p);
	free(p->pp);
	free(p->filter);
	free(p->count_key);
	free(p);
}

void prov_list_push(struct prov_list *l, struct prov_probe *p)
{
	AST_VEC_PUSH(l, p);
}

bool prov_comp_is(const struct ast_pp *pp, size_t i, const char *name)
{
	return i < pp->ncomps && !strcmp(pp->comps[i].name, name);
}

bool prov_comp_num(const struct ast_pp *pp, size_t i, int64_t *v)
{
	if (i >= pp->ncomps || !pp->comps[i].arg ||
	    pp->comps[i].arg->kind != AST_E_NUM)
		return false;
	*v = pp->comps[i].arg->u.num;
	return true;
}
