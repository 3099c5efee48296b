/* A population's models that are done (population_step.c calls
 * dlca__pop_judge): finished as one run is (dlca_loop_finish, _polish,
 * _eval_fresh) and judged. Where the repair or evolution of a near miss
 * is due (packed bits), it runs on a host thread (dlca__loop_polish_host)
 * while the device trains the others, the model DLCA_POP_POLISHING; at
 * most one such thread at a time, the lowest slot waiting first. A
 * search's result depends only on the circuit and the options, never on
 * timing; only the step at which the model is judged does
 * (dlca__pop_reap, at the start of each step; the most promising search
 * runs first, the lowest hard loss its model reached). polish_inline
 * keeps everything on the caller's thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "recipe/loop_impl.h"
#include "recipe/population_impl.h"

struct pop_job {
  dlca__polish_job job;
  dlca_loop_result res;   /* the search's results: the loop's copy, back at the end */
  pthread_t thread;
  int threaded;           /* the thread was started (and not yet joined) */
  int done;               /* the search has ended (under *lock) */
  char *msg;              /* its error message (the status is thread-local) */
  pthread_mutex_t *lock;
};

static void *polish_thread(void *arg) {
  pop_job *pj = arg;
  int rc = dlca__loop_polish_host(&pj->job);
  char *msg = rc ? strdup(dlca_last_error()) : NULL;
  pthread_mutex_lock(pj->lock);
  pj->msg = msg, pj->done = 1;
  pthread_mutex_unlock(pj->lock);
  return NULL;
}

/* Right or wrong, after the fresh grids: the model's state, the winner. */
static int decide(dlca_population *P, int j) {
  pop_model *pm = &P->models[j];
  dlca_loop *r = pm->loop;
  int rc = dlca_loop_eval_fresh(r);
  if (rc) return dlca__loop_fail(rc, "population: model %d, seed %llu", j, (unsigned long long)pm->seed);
  dlca_loop_result *w = &r->res;
  int right;
  if (w->diverged || w->abandoned) right = 0;
  else if (P->lo.eval_fresh > 0) right = dlca_loop_fresh_ok(r);
  else {
    dlca_eval ev;
    if ((rc = dlca__loop_evaluate(r, &ev))) return rc;
    right = ev.errors == 0;
  }
  if (right && P->po.accept && (rc = P->po.accept(P->po.accept_user, P, j, &right)))
    return dlca__loop_fail(rc, "population: accepting model %d, seed %llu", j, (unsigned long long)pm->seed);
  pm->state = right ? DLCA_POP_RIGHT : w->abandoned ? DLCA_POP_ABANDONED : DLCA_POP_WRONG;
  P->finished += !w->abandoned;
  P->abandoned += w->abandoned != 0;
  if (right && P->winner < 0) P->winner = j;
  return DLCA_OK;
}

static void job_free(pop_job *pj) {
  if (!pj) return;
  dlca__loop_polish_free(&pj->job);
  free(pj->msg);
  free(pj);
}

static int join(dlca_population *P, int j);

int dlca__pop_judge(dlca_population *P, int j) {
  pop_model *pm = &P->models[j];
  dlca_loop *r = pm->loop;
  const int evaluated = r->res.evaluated; /* the last epoch's, which finish clears */
  pop_job *pj = calloc(1, sizeof *pj);
  int rc = pj ? dlca_loop_finish(r) : dlca__fail(DLCA_ENOMEM, "population: out of memory");
  if (!rc) rc = dlca__loop_polish_begin(r, &pj->job);
  if (rc) {
    free(pj);
    return dlca__loop_fail(rc, "population: finishing model %d, seed %llu", j, (unsigned long long)pm->seed);
  }
  r->res.evaluated = evaluated;
  if (!pj->job.pending) {
    free(pj);
    return decide(P, j);
  }
  pj->res = r->res, pj->job.w = &pj->res, pj->job.tick_r = NULL, pj->lock = &P->polish_lock;
  pm->job = pj;
  pm->state = DLCA_POP_POLISHING;
  if (!P->po.polish_inline) return DLCA_OK; /* a thread's, started by dlca__pop_reap */
  dlca__loop_polish_host(&pj->job);
  pj->done = 1;
  return join(P, j);
}

/* Model j's search has ended: its results back into its loop, checked and
 * set on its trainer, and the model judged. */
static int join(dlca_population *P, int j) {
  pop_model *pm = &P->models[j];
  pop_job *pj = pm->job;
  if (pj->threaded) pthread_join(pj->thread, NULL), P->polishing--;
  pm->job = NULL;
  pm->loop->res = pj->res;
  pm->loop->res.evaluated = 0; /* its last evaluation was seen at the step that ended its training */
  pj->job.w = &pm->loop->res;
  if (pj->msg) pj->job.rc = dlca__fail(pj->job.rc, "%s", pj->msg);
  int rc = dlca__loop_polish_end(pm->loop, &pj->job);
  job_free(pj);
  if (rc) return dlca__loop_fail(rc, "population: repairing model %d, seed %llu", j, (unsigned long long)pm->seed);
  return decide(P, j);
}

static int is_done(dlca_population *P, pop_job *pj) {
  pthread_mutex_lock(&P->polish_lock);
  const int done = pj->done;
  pthread_mutex_unlock(&P->polish_lock);
  return done;
}

/* The most promising search waiting (the lowest hard loss its model
 * reached, then the lowest slot) gets the thread, where none runs. */
static int start_next(dlca_population *P, int *waiting) {
  *waiting = 0;
  int next = -1;
  for (int j = 0; j < P->M; j++) {
    pop_job *pj = P->models[j].job;
    if (!pj) continue;
    *waiting = 1;
    if (pj->threaded || P->polishing) continue;
    if (next < 0 || dlca__pop_promise(P, j) < dlca__pop_promise(P, next)) next = j;
  }
  if (next < 0) return DLCA_OK;
  pop_job *pj = P->models[next].job;
  if (pthread_create(&pj->thread, NULL, polish_thread, pj))
    return dlca__fail(DLCA_ENOMEM, "population: no thread for the repair of model %d", next);
  pj->threaded = 1, P->polishing++;
  return DLCA_OK;
}

int dlca__pop_reap(dlca_population *P, int wait) {
  for (;;) {
    int rc = DLCA_OK, waiting;
    for (int j = 0; j < P->M && !rc; j++) { /* those ended (wait: the one running), in slot order */
      pop_job *pj = P->models[j].job;
      if (pj && pj->threaded && (wait || is_done(P, pj))) rc = join(P, j);
    }
    if (rc || (P->winner >= 0 && !P->po.run_all)) return rc; /* the others' searches are not needed */
    rc = start_next(P, &waiting);
    if (rc || !wait || !waiting) return rc;
  }
}

void dlca__pop_drop(dlca_population *P) {
  for (int j = 0; P->models && j < P->M; j++) {
    pop_job *pj = P->models[j].job;
    if (!pj) continue;
    if (pj->threaded) pthread_join(pj->thread, NULL);
    job_free(pj);
    P->models[j].job = NULL;
  }
  P->polishing = 0;
}
