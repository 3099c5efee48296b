/* Learning-rate schedules in closed form (torch.optim.lr_scheduler's values
 * at step t), and SequentialLR-like chains of them. */
#include <math.h>
#include <string.h>
#include "optim/internal.h"

static const char *const names[] = {"constant", "step", "exponential", "cosine", "onecycle", "linear"};

const char *dlca_lrs_kind_name(int kind) {
  return kind >= 0 && kind <= DLCA_LRS_LINEAR ? names[kind] : "unknown";
}

int dlca_lrs_kind_from_name(const char *name, int *kind) {
  for (int k = 0; k <= DLCA_LRS_LINEAR; k++)
    if (name && !strcmp(name, names[k])) return *kind = k, DLCA_OK;
  if (name && !strcmp(name, "linear_warmup")) return *kind = DLCA_LRS_LINEAR, DLCA_OK;
  return dlca__fail(DLCA_EINVAL, "unknown lr schedule '%s' (constant, step, exponential, cosine, onecycle, "
                    "linear)", name ? name : "(null)");
}

int dlca_lr_spec_default(int kind, double base_lr, dlca_lr_spec *s) {
  if (kind < 0 || kind > DLCA_LRS_LINEAR)
    return dlca__fail(DLCA_EINVAL, "lr schedule kind %d is not one of 0..%d", kind, DLCA_LRS_LINEAR);
  memset(s, 0, sizeof *s);
  s->kind = kind, s->base_lr = base_lr;
  s->gamma = 0.1;
  s->max_lr = base_lr, s->pct_start = 0.3, s->div_factor = 25, s->final_div_factor = 1e4;
  s->start_factor = 1.0 / 3.0, s->end_factor = 1.0, s->total_iters = 5;
  return DLCA_OK;
}

static int set_count(uint64_t *f, const char *name, double v) {
  if (!(v >= 0 && v <= 9007199254740992.0 && v == floor(v)))
    return dlca__fail(DLCA_EINVAL, "lr schedule: %s = %g is not a whole number >= 0", name, v);
  *f = (uint64_t)v;
  return DLCA_OK;
}

int dlca_lr_spec_set(dlca_lr_spec *s, const char *n, double v) {
  struct { const char *name; double *d; uint64_t *u; } f[] = {
      {"base_lr", &s->base_lr, 0}, {"gamma", &s->gamma, 0}, {"step_size", 0, &s->step_size},
      {"T_max", 0, &s->t_max}, {"eta_min", &s->eta_min, 0}, {"max_lr", &s->max_lr, 0},
      {"pct_start", &s->pct_start, 0}, {"div_factor", &s->div_factor, 0},
      {"final_div_factor", &s->final_div_factor, 0}, {"total_steps", 0, &s->total_steps},
      {"start_factor", &s->start_factor, 0}, {"end_factor", &s->end_factor, 0},
      {"total_iters", 0, &s->total_iters}};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    if (strcmp(n, f[i].name)) continue;
    if (f[i].u) return set_count(f[i].u, n, v);
    *f[i].d = v;
    return DLCA_OK;
  }
  return dlca__fail(DLCA_EINVAL, "lr schedule %s: unknown argument '%s'", dlca_lrs_kind_name(s->kind), n);
}

/* v in [lo, hi] (open ends where asked), finite. */
static int range(const dlca_lr_spec *s, const char *name, double v, double lo, double hi, int lo_open,
                 int hi_open) {
  int ok = isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  if (ok) return DLCA_OK;
  return dlca__fail(DLCA_EINVAL, "lr schedule %s: %s = %g is outside %c%g, %g%c", dlca_lrs_kind_name(s->kind),
                    name, v, lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
}

static int positive(const dlca_lr_spec *s, const char *name, uint64_t v) {
  if (v > 0) return DLCA_OK;
  return dlca__fail(DLCA_EINVAL, "lr schedule %s: %s = 0 must be >= 1", dlca_lrs_kind_name(s->kind), name);
}

int dlca_lr_spec_check(const dlca_lr_spec *s) {
  if (!s || s->kind < 0 || s->kind > DLCA_LRS_LINEAR)
    return dlca__fail(DLCA_EINVAL, "lr schedule: kind %d is not one of 0..%d", s ? s->kind : -1, DLCA_LRS_LINEAR);
  int st = s->kind == DLCA_LRS_ONECYCLE ? 0 : range(s, "base_lr", s->base_lr, 0, INFINITY, 0, 1);
  switch (st ? -1 : s->kind) {
  case DLCA_LRS_STEP: st = range(s, "gamma", s->gamma, 0, INFINITY, 0, 1);
    return st ? st : positive(s, "step_size", s->step_size);
  case DLCA_LRS_EXPONENTIAL: return range(s, "gamma", s->gamma, 0, INFINITY, 0, 1);
  case DLCA_LRS_COSINE: st = range(s, "eta_min", s->eta_min, 0, INFINITY, 0, 1);
    return st ? st : positive(s, "T_max", s->t_max);
  case DLCA_LRS_ONECYCLE:
    if ((st = range(s, "max_lr", s->max_lr, 0, INFINITY, 0, 1)) ||
        (st = range(s, "pct_start", s->pct_start, 0, 1, 0, 0)) ||
        (st = range(s, "div_factor", s->div_factor, 0, INFINITY, 1, 1)) ||
        (st = range(s, "final_div_factor", s->final_div_factor, 0, INFINITY, 1, 1)))
      return st;
    return positive(s, "total_steps", s->total_steps);
  case DLCA_LRS_LINEAR:
    if ((st = range(s, "start_factor", s->start_factor, 0, 1, 1, 0)) ||
        (st = range(s, "end_factor", s->end_factor, 0, 1, 0, 0)))
      return st;
    return positive(s, "total_iters", s->total_iters);
  default: return st;
  }
}

/* OneCycleLR, anneal_strategy cos, three_phase False (torch's get_lr). */
static double onecycle(const dlca_lr_spec *s, uint64_t t) {
  double initial = s->max_lr / s->div_factor, min_lr = initial / s->final_div_factor;
  double end1 = s->pct_start * (double)s->total_steps - 1, end2 = (double)s->total_steps - 1;
  double start = 0, a = initial, b = s->max_lr, end = end1;
  if ((double)t > end1) start = end1, a = s->max_lr, b = min_lr, end = end2;
  double pct = ((double)t - start) / (end - start);
  return b + (a - b) / 2.0 * (cos(M_PI * pct) + 1);
}

int dlca_lr_at(const dlca_lr_spec *s, uint64_t t, double *lr) {
  int st = dlca_lr_spec_check(s);
  if (st) return st;
  double b = s->base_lr, x = (double)t;
  switch (s->kind) {
  case DLCA_LRS_STEP: *lr = b * pow(s->gamma, (double)(t / s->step_size)); break;
  case DLCA_LRS_EXPONENTIAL: *lr = b * pow(s->gamma, x); break;
  case DLCA_LRS_COSINE: *lr = s->eta_min + (b - s->eta_min) * (1 + cos(M_PI * x / (double)s->t_max)) / 2; break;
  case DLCA_LRS_ONECYCLE:
    if (t >= s->total_steps)
      return dlca__fail(DLCA_EINVAL, "lr schedule onecycle: step %llu is past total_steps = %llu",
                        (unsigned long long)t, (unsigned long long)s->total_steps);
    *lr = onecycle(s, t);
    break;
  case DLCA_LRS_LINEAR: {
    double it = (double)s->total_iters, f = x < it ? x : it;
    *lr = b * (s->start_factor + (s->end_factor - s->start_factor) * f / it);
    break;
  }
  default: *lr = b;
  }
  return DLCA_OK;
}

int dlca_lr_chain_at(size_t n, const dlca_lr_spec *parts, const uint64_t *milestones, uint64_t t, double *lr) {
  if (n == 0 || !parts) return dlca__fail(DLCA_EINVAL, "lr chain: no schedules");
  if (n > 1 && !milestones) return dlca__fail(DLCA_EINVAL, "lr chain: %zu schedules and no milestones", n);
  for (size_t i = 2; i < n; i++)
    if (milestones[i - 1] <= milestones[i - 2])
      return dlca__fail(DLCA_EINVAL, "lr chain: milestone %zu = %llu is not above milestone %zu = %llu", i - 1,
                        (unsigned long long)milestones[i - 1], i - 2, (unsigned long long)milestones[i - 2]);
  size_t i = 0;
  while (i + 1 < n && t >= milestones[i]) i++;
  return dlca_lr_at(&parts[i], i ? t - milestones[i - 1] : t, lr);
}

int dlca_lr_chain_fill(size_t n, const dlca_lr_spec *parts, const uint64_t *milestones, uint64_t first,
                       size_t count, float *out) {
  for (size_t j = 0; j < count; j++) {
    double lr;
    int st = dlca_lr_chain_at(n, parts, milestones, first + j, &lr);
    if (st) return st;
    out[j] = (float)lr;
  }
  return DLCA_OK;
}
