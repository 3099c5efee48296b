/* Optimizer hyperparameters: torch's defaults, names, and the range checks
 * that refuse a bad value by name. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "optim/internal.h"

#define K_SGD (1u << DLCA_OPTIM_SGD)
#define K_ADAM ((1u << DLCA_OPTIM_ADAM) | (1u << DLCA_OPTIM_ADAMW))
#define K_RMS (1u << DLCA_OPTIM_RMSPROP)
#define K_ADAGRAD (1u << DLCA_OPTIM_ADAGRAD)
#define K_ALL (K_SGD | K_ADAM | K_RMS | K_ADAGRAD)

/* Every field: its name, place, whether it is a 0/1 flag, the kinds it
 * belongs to, and its range [lo, hi] (hi_open: [lo, hi)). */
typedef struct field {
  const char *name;
  size_t off;
  int flag;
  unsigned kinds;
  double lo, hi;
  int hi_open;
} field;

#define D(f) offsetof(dlca_optim_config, f)
static const field fields[] = {
    {"lr", D(lr), 0, K_ALL, 0, INFINITY, 1},
    {"weight_decay", D(weight_decay), 0, K_ALL, 0, INFINITY, 1},
    {"eps", D(eps), 0, K_ADAM | K_RMS | K_ADAGRAD, 0, INFINITY, 1},
    {"momentum", D(momentum), 0, K_SGD | K_RMS, 0, INFINITY, 1},
    {"dampening", D(dampening), 0, K_SGD, 0, INFINITY, 1},
    {"nesterov", D(nesterov), 1, K_SGD, 0, 1, 0},
    {"beta1", D(beta1), 0, K_ADAM, 0, 1, 1},
    {"beta2", D(beta2), 0, K_ADAM, 0, 1, 1},
    {"amsgrad", D(amsgrad), 1, K_ADAM, 0, 1, 0},
    {"alpha", D(alpha), 0, K_RMS, 0, 1, 0},
    {"centered", D(centered), 1, K_RMS, 0, 1, 0},
    {"lr_decay", D(lr_decay), 0, K_ADAGRAD, 0, INFINITY, 1},
    {"initial_accumulator_value", D(initial_accumulator_value), 0, K_ADAGRAD, 0, INFINITY, 1},
};
#undef D
#define N_FIELDS (sizeof fields / sizeof fields[0])

static const char *const kind_names[] = {"sgd", "adam", "adamw", "rmsprop", "adagrad"};

const char *dlca_optim_kind_name(int kind) {
  return kind >= 0 && kind <= DLCA_OPTIM_ADAGRAD ? kind_names[kind] : "unknown";
}

int dlca_optim_kind_from_name(const char *name, int *kind) {
  for (int k = 0; k <= DLCA_OPTIM_ADAGRAD; k++)
    if (name && !strcmp(name, kind_names[k])) return *kind = k, DLCA_OK;
  return dlca__fail(DLCA_EINVAL, "unknown optimizer '%s' (sgd, adam, adamw, rmsprop, adagrad)",
                    name ? name : "(null)");
}

int dlca_optim_config_default(int kind, dlca_optim_config *o) {
  if (kind < 0 || kind > DLCA_OPTIM_ADAGRAD)
    return dlca__fail(DLCA_EINVAL, "optimizer kind %d is not one of 0..%d", kind, DLCA_OPTIM_ADAGRAD);
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->lr = kind >= DLCA_OPTIM_RMSPROP ? 1e-2 : 1e-3;
  if (kind == DLCA_OPTIM_ADAM || kind == DLCA_OPTIM_ADAMW) o->beta1 = 0.9, o->beta2 = 0.999, o->eps = 1e-8;
  if (kind == DLCA_OPTIM_ADAMW) o->weight_decay = 1e-2;
  if (kind == DLCA_OPTIM_RMSPROP) o->alpha = 0.99, o->eps = 1e-8;
  if (kind == DLCA_OPTIM_ADAGRAD) o->eps = 1e-10;
  return DLCA_OK;
}

static double get(const dlca_optim_config *c, const field *f) {
  const char *p = (const char *)c + f->off;
  return f->flag ? (double)*(const int *)p : *(const double *)p;
}

/* The kinds a field belongs to, as text. */
static const char *kinds_text(unsigned kinds) {
  static _Thread_local char buf[64];
  buf[0] = 0;
  for (int k = 0; k <= DLCA_OPTIM_ADAGRAD; k++)
    if (kinds & (1u << k)) strcat(strcat(buf, buf[0] ? ", " : ""), kind_names[k]);
  return buf;
}

int dlca_optim_config_set(dlca_optim_config *c, const char *name, double value) {
  const char *kn = dlca_optim_kind_name(c->kind);
  for (size_t i = 0; i < N_FIELDS; i++) {
    const field *f = &fields[i];
    if (strcmp(name, f->name)) continue;
    if (!(f->kinds & (1u << c->kind)))
      return dlca__fail(DLCA_EINVAL, "%s: %s is not an option of %s (it belongs to %s)", kn, name, kn,
                        kinds_text(f->kinds));
    if (f->flag && value != 0 && value != 1)
      return dlca__fail(DLCA_EINVAL, "%s: %s = %g must be 0 or 1", kn, name, value);
    char *p = (char *)c + f->off;
    if (f->flag) *(int *)p = (int)value;
    else *(double *)p = value;
    return DLCA_OK;
  }
  return dlca__fail(DLCA_EINVAL, "%s: unknown hyperparameter '%s'", kn, name);
}

static int check_field(const dlca_optim_config *c, const field *f, const char *kn) {
  double v = get(c, f);
  if (!(f->kinds & (1u << c->kind))) {
    if (v == 0) return DLCA_OK;
    return dlca__fail(DLCA_EINVAL, "%s: %s = %g is not an option of %s (it belongs to %s)", kn, f->name, v,
                      kn, kinds_text(f->kinds));
  }
  if (f->flag) {
    if (v == 0 || v == 1) return DLCA_OK;
    return dlca__fail(DLCA_EINVAL, "%s: %s = %g must be 0 or 1", kn, f->name, v);
  }
  int ok = isfinite(v) && v >= f->lo && (f->hi_open ? v < f->hi : v <= f->hi);
  if (ok) return DLCA_OK;
  return dlca__fail(DLCA_EINVAL, "%s: %s = %g is outside [%g, %g%c", kn, f->name, v, f->lo, f->hi,
                    isinf(f->hi) || f->hi_open ? ')' : ']');
}

int dlca_optim_config_check(const dlca_optim_config *c) {
  if (!c) return dlca__fail(DLCA_EINVAL, "optimizer configuration is NULL");
  if (c->kind < 0 || c->kind > DLCA_OPTIM_ADAGRAD)
    return dlca__fail(DLCA_EINVAL, "optimizer kind %d is not one of 0..%d (sgd .. adagrad)", c->kind,
                      DLCA_OPTIM_ADAGRAD);
  const char *kn = dlca_optim_kind_name(c->kind);
  for (size_t i = 0; i < N_FIELDS; i++) {
    int st = check_field(c, &fields[i], kn);
    if (st) return st;
  }
  if (c->nesterov && (c->momentum <= 0 || c->dampening != 0))
    return dlca__fail(DLCA_EINVAL, "sgd: nesterov needs momentum > 0 and dampening = 0 (momentum = %g, "
                      "dampening = %g)", c->momentum, c->dampening);
  return DLCA_OK;
}

size_t dlca__optim_slots(const dlca_optim_config *c) {
  switch (c->kind) {
  case DLCA_OPTIM_SGD: return c->momentum != 0 ? 1 : 0;
  case DLCA_OPTIM_ADAM:
  case DLCA_OPTIM_ADAMW: return c->amsgrad ? 3 : 2;
  case DLCA_OPTIM_RMSPROP: return 1 + (c->centered != 0) + (c->momentum > 0);
  default: return 1;
  }
}
