/* After a run's last epoch (dlca_cl/recipe.h): keep-best's logits back, the
 * repair and evolution of the hard circuit, and the check on fresh grids. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/internal.h"
#include "recipe/repair.h"
#include "recipe/loop_impl.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The hard evaluation of a candidate circuit, as dlca__loop_evaluate
 * scores (gol: its 512 boards, on the host). */
static int repair_score(void *ctx, const float *logits, dlca_eval *ev) {
  dlca_loop *r = ctx;
  if (r->gol) {
    dlca_bits *b = NULL;
    int rc = dlca__loop_gol_bits(r, logits, &b);
    if (!rc) rc = dlca_bits_run(b, ev, NULL);
    dlca_bits_free(b);
    return rc;
  }
  int rc = dlca_trainer_set_params(r->t, logits);
  return rc ? rc : dlca_trainer_eval_hard(r->t, ev);
}

/* The ticks go to the loop's events only where the search runs on the
 * caller's thread (job->tick_r); a population's host thread has none. */
static int tick(dlca__polish_job *j, dlca_loop_event_kind kind, int pass, size_t done, size_t total,
                const dlca_eval *best) {
  dlca_loop *r = j->tick_r;
  if (!r || !r->events) return 0;
  dlca_loop_event ev = {kind, r->res.epoch, NULL, 0, 0, 0, pass, done, total, best};
  return r->events(r->events_user, &ev);
}

static int repair_tick(void *ctx, int pass, size_t gate, size_t gates, const dlca_eval *best) {
  return tick(ctx, DLCA_LOOP_REPAIR, pass, gate, gates, best);
}

static int evolve_tick(void *ctx, int pass, size_t gen, size_t gens, const dlca_eval *cur) {
  (void)pass;
  return tick(ctx, DLCA_LOOP_EVOLVE, -1, gen, gens, cur);
}

/* The evolution of b, then its tidying: drift changed many gates that the
 * result does not need, which are set back. */
static int evolve(dlca__polish_job *j) {
  dlca_loop_result *w = j->w;
  const dlca_loop_options *o = &j->opt;
  const double t1 = now_s();
  const size_t G = dlca_bits_n_gates(j->b);
  uint8_t *orig = malloc(G);
  int rc = orig ? DLCA_OK : dlca__fail(DLCA_ENOMEM, "evolution: out of memory");
  for (size_t g = 0; !rc && g < G; g++) orig[g] = (uint8_t)dlca_bits_op(j->b, g);
  const dlca__evolve_params ep = {(uint64_t)o->evolve, dlca_rng_u32(o->seed, 0x45564F4Cu, 0), /* "EVOL" */
                                  (int)o->evolve_lineages, (int)o->evolve_lambda, (int)o->evolve_changes, 64};
  if (!rc) rc = dlca__repair_evolve(j->b, &ep, evolve_tick, j, &w->evolve);
  if (!rc) rc = dlca__repair_tidy(j->b, orig, &w->evolve_reverted);
  free(orig);
  w->have_evolve = 1;
  w->evolve_s = now_s() - t1;
  return rc;
}

/* The searches on the packed-bits circuit (all cores, many variants a
 * pass); the kept ops go back into j->l. Host memory only: a population
 * runs it on a thread of its own while the device trains the others. */
int dlca__loop_polish_host(dlca__polish_job *j) {
  dlca_loop_result *w = j->w;
  const dlca_loop_options *o = &j->opt;
  dlca_bits *b = j->b;
  int passes_on = j->passes_on, evolve_on = j->evolve_on;
  dlca_eval cur; /* the circuit's evaluation where known, for the gates below */
  int have_cur = 0, rc = DLCA_OK;
  if (passes_on && o->repair_max_wrong >= 0) { /* a far miss is not worth the passes */
    have_cur = !(rc = dlca_bits_run(b, &cur, NULL));
    if (have_cur && cur.errors > (size_t)o->repair_max_wrong)
      passes_on = 0, w->repair_skipped = 1, w->repair_wrong = cur.errors;
  }
  if (!rc && passes_on) {
    rc = dlca__repair_bits(b, (int)o->repair, repair_tick, j, &w->repair);
    w->have_repair = 1, w->repair_bits = 1;
    w->repair_s = now_s() - j->t0;
    cur = w->repair.after, have_cur = !rc;
  }
  if (!rc && evolve_on && o->evolve_max_wrong >= 0) { /* only near misses are worth the generations */
    if (!have_cur) rc = dlca_bits_run(b, &cur, NULL);
    if (!rc && cur.errors > (size_t)o->evolve_max_wrong)
      evolve_on = 0, w->evolve_skipped = 1, w->evolve_wrong = cur.errors;
  }
  if (!rc && evolve_on && !w->repair.stopped) rc = evolve(j);
  for (size_t g = 0; !rc && g < j->P / (size_t)j->npg; g++) dlca__repair_set_op(j->l, j->npg, g, dlca_bits_op(b, g));
  if (!rc) rc = dlca_bits_run(b, &j->end, NULL);
  return j->rc = rc;
}

/* The repair by the trainer's scores, where the start grids are not 0/1
 * (no packed bits): on the caller's thread. */
static int search_scored(dlca_loop *r, dlca__polish_job *j) {
  dlca_loop_result *w = &r->res;
  dlca_eval ev;
  int rc = DLCA_OK;
  if (j->evolve_on) return dlca__fail(DLCA_EINVAL, "evolve: needs start grids of 0s and 1s (the packed-bits circuit)");
  if (r->opt.repair_max_wrong >= 0 && !(rc = repair_score(r, j->l, &ev)) &&
      ev.errors > (size_t)r->opt.repair_max_wrong) {
    w->repair_skipped = 1, w->repair_wrong = ev.errors;
  } else if (!rc) {
    rc = dlca__repair_circuit(j->l, j->P / (size_t)r->npg, r->npg, (int)r->opt.repair, repair_score, repair_tick, j,
                              &w->repair);
    w->have_repair = 1, w->repair_s = now_s() - j->t0;
  }
  return rc;
}

void dlca__loop_polish_free(dlca__polish_job *j) {
  dlca_bits_free(j->b);
  free(j->l);
  memset(j, 0, sizeof *j);
}

int dlca__loop_polish_begin(dlca_loop *r, dlca__polish_job *j) {
  dlca_loop_result *w = &r->res;
  const dlca_loop_options *o = &r->opt;
  int rc;
  memset(j, 0, sizeof *j);
  if (w->have_best && (rc = dlca_trainer_set_params(r->t, r->best)))
    return dlca__loop_fail(rc, "keep-best: restoring the logits of epoch %llu", (unsigned long long)w->best_epoch);
  /* a recipe's searches are for what this run trained; asked for, they take
   * any model. An abandoned run is far from working: they would only cost time */
  const int trained = w->epoch != w->first;
  j->passes_on = o->repair > 0 && (trained || !(o->search_needs_training & 1)) && !w->abandoned;
  j->evolve_on = o->evolve > 0 && (trained || !(o->search_needs_training & 2)) && !w->abandoned;
  if (!j->passes_on && !j->evolve_on) return DLCA_OK;
  j->opt = *o, j->npg = r->npg, j->w = w, j->tick_r = r;
  j->P = dlca_trainer_n_params(r->t);
  if (!(j->l = malloc(sizeof(float) * j->P))) return dlca__fail(DLCA_ENOMEM, "repair: out of memory");
  j->t0 = now_s();
  rc = dlca_trainer_get_params(r->t, j->l);
  if (!rc && (r->gol ? dlca__loop_gol_bits(r, j->l, &j->b) : dlca_trainer_bits(r->t, &j->b)) == DLCA_OK) j->pending = 1;
  else if (!rc) rc = search_scored(r, j);
  if (!rc && !j->pending) rc = dlca_trainer_set_params(r->t, j->l);
  if (rc) dlca__loop_polish_free(j);
  return rc;
}

int dlca__loop_polish_end(dlca_loop *r, dlca__polish_job *j) {
  int rc = j->rc;
  dlca_eval ev;
  /* the trainer's own evaluation of the result must agree */
  if (!rc && !(rc = repair_score(r, j->l, &ev)) && ev.errors != j->end.errors)
    rc = dlca__fail(DLCA_EPARITY,
                    "repair/evolve: the trainer finds %zu values wrong in the changed circuit, the packed-bits "
                    "circuit %zu", ev.errors, j->end.errors);
  if (!rc) rc = dlca_trainer_set_params(r->t, j->l);
  dlca__loop_polish_free(j);
  return rc;
}

int dlca_loop_polish(dlca_loop *r) {
  dlca__polish_job j;
  int rc = dlca__loop_polish_begin(r, &j);
  if (rc || !j.pending) return rc;
  dlca__loop_polish_host(&j);
  return dlca__loop_polish_end(r, &j);
}

int dlca_loop_eval_fresh(dlca_loop *r) {
  dlca_loop_result *w = &r->res;
  int rc;
  if (r->opt.eval_fresh <= 0 || w->abandoned) return DLCA_OK;
  /* on the host, packed bits: the device's result, without a round trip a
   * batch (gol: all 512 boards, one batch; start grids that are not 0s and
   * 1s: on the device) */
  if (r->gol) rc = dlca__loop_evaluate(r, &w->fresh);
  else if ((rc = dlca_trainer_eval_fresh_bits(r->t, r->opt.seed, (int)r->opt.eval_fresh, &w->fresh)) == DLCA_EINVAL)
    rc = dlca_trainer_eval_hard_fresh(r->t, r->opt.seed, (int)r->opt.eval_fresh, &w->fresh);
  if (rc) return rc;
  w->have_fresh = 1;
  return DLCA_OK;
}
