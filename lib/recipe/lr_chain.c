/* The loop's chain of torch's lr schedules (DLCA_LR_CHAIN, issue 32): its
 * text form, and the defaults that the run's lr and epochs give. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "recipe/loop_impl.h"

/* "NAME=VALUE" of part `part` into s. */
static int parse_field(const char *field, dlca_lr_spec *s, const char *part) {
  const char *eq = strchr(field, '=');
  char name[64], *end;
  if (!eq || eq == field || (size_t)(eq - field) >= sizeof name)
    return dlca__fail(DLCA_EINVAL, "lr schedule '%s': '%s' is not NAME=VALUE", part, field);
  memcpy(name, field, (size_t)(eq - field));
  name[eq - field] = 0;
  errno = 0;
  double v = strtod(eq + 1, &end);
  if (end == eq + 1 || *end || errno)
    return dlca__fail(DLCA_EINVAL, "lr schedule '%s': %s = '%s' is not a number", part, name, eq + 1);
  if (dlca_lr_spec_set(s, name, v)) return dlca__loop_fail(DLCA_EINVAL, "lr schedule '%s'", part);
  return DLCA_OK;
}

/* One part, "KIND[@EPOCH][:NAME=VALUE...]" (modified in place), as part i. */
static int parse_part(char *part, int i, dlca_loop_options *o) {
  char shown[128];
  snprintf(shown, sizeof shown, "%s", part);
  char *save = NULL, *head = strtok_r(part, ":", &save), *at = head ? strchr(head, '@') : NULL;
  int kind;
  if (at) *at++ = 0;
  if (!head || dlca_lrs_kind_from_name(head, &kind)) return dlca__loop_fail(DLCA_EINVAL, "lr schedule '%s'", shown);
  if ((i == 0) != !at)
    return dlca__fail(DLCA_EINVAL, "lr schedule '%s': %s", shown,
                      i ? "a part after the first needs @EPOCH, the epoch it starts at" : "the first part starts at 0");
  if (at) {
    char *end;
    errno = 0;
    unsigned long long e = strtoull(at, &end, 10);
    uint64_t prev = i > 1 ? o->lr_milestones[i - 2] : 0;
    if (end == at || *end || errno || *at == '-' || e <= prev)
      return dlca__fail(DLCA_EINVAL, "lr schedule '%s': @%s is not an epoch after %llu", shown, at,
                        (unsigned long long)prev);
    o->lr_milestones[i - 1] = e;
  }
  dlca_lr_spec *s = &o->lr_parts[i];
  if (dlca_lr_spec_default(kind, 0, s)) return dlca__loop_fail(DLCA_EINVAL, "lr schedule '%s'", shown);
  for (char *f = strtok_r(NULL, ":", &save); f; f = strtok_r(NULL, ":", &save)) {
    int rc = parse_field(f, s, shown);
    if (rc) return rc;
  }
  return DLCA_OK;
}

int dlca_loop_parse_lr_chain(const char *text, dlca_loop_options *o) {
  if (!text || !o) return dlca__fail(DLCA_EINVAL, "dlca_loop_parse_lr_chain: NULL argument");
  char *copy = strdup(text), *save = NULL;
  if (!copy) return dlca__fail(DLCA_ENOMEM, "lr schedule: out of memory");
  int n = 0, rc = DLCA_OK;
  for (char *p = strtok_r(copy, ",", &save); p && !rc; p = strtok_r(NULL, ",", &save), n++)
    rc = n < DLCA_LOOP_MAX_LR_PARTS ? parse_part(p, n, o)
                                    : dlca__fail(DLCA_EINVAL, "lr schedule '%s': more than %d parts", text,
                                                 DLCA_LOOP_MAX_LR_PARTS);
  free(copy);
  if (!rc && n == 0) rc = dlca__fail(DLCA_EINVAL, "lr schedule '%s': no part", text);
  if (rc) return rc;
  o->n_lr_parts = n;
  o->lr_schedule = DLCA_LR_CHAIN;
  return DLCA_OK;
}

/* The chain with the run's defaults filled in (base lr, sizes), checked. */
int dlca__loop_lr_chain_fill(dlca_loop_options *o, double lr) {
  if (o->n_lr_parts < 1 || o->n_lr_parts > DLCA_LOOP_MAX_LR_PARTS)
    return dlca__fail(DLCA_EINVAL, "lr chain: %d parts, not 1 to %d", o->n_lr_parts, DLCA_LOOP_MAX_LR_PARTS);
  for (int i = 0; i < o->n_lr_parts; i++) {
    dlca_lr_spec *s = &o->lr_parts[i];
    const uint64_t start = i ? o->lr_milestones[i - 1] : 0;
    const uint64_t span = (uint64_t)o->epochs > start ? (uint64_t)o->epochs - start : 1;
    if (s->base_lr == 0) s->base_lr = lr;
    if (s->max_lr == 0) s->max_lr = lr;
    if (s->t_max == 0) s->t_max = span;
    if (s->total_steps == 0) s->total_steps = span;
    if (dlca_lr_spec_check(s)) return dlca__loop_fail(DLCA_EINVAL, "lr schedule part %d (%s)", i + 1,
                                                     dlca_lrs_kind_name(s->kind));
  }
  return DLCA_OK;
}
