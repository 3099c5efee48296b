/* dlca_trainer_eval_hard_fresh on the packed-bits circuit, on the host
 * (include/dlca_cl/bits.h): the same batches and fire masks as the device
 * draws (lib/train/epoch.c), each batch's sums added in batch order, so the
 * result is the device's bit for bit. The batches run on all cores. */
#include <stdlib.h>
#include <string.h>
#include "dlca_cl/bits.h"
#include "ref/ref_impl.h"
#include "train/epoch.h"

/* Batch i of the fresh evaluation: epoch i of the fresh seed. */
static int one_batch(const dlca_model *m, const dlca_train_config *f, const float *input, const float *target,
                     uint64_t i, float *x, dlca_eval *ev, float *state) {
  dlca__start_grids(f, m->shape.channels, input, i, x);
  const dlca_run run = dlca__epoch_run(f, NULL, i);
  dlca_bits *b = NULL;
  int rc = dlca_bits_new(m, &run, x, target, &b);
  if (!rc) rc = dlca_bits_run(b, ev, state);
  dlca_bits_free(b);
  return rc;
}

int dlca_bits_eval_fresh(const dlca_model *m, const dlca_train_config *c, const float *input, const float *target,
                         uint64_t seed, int n_batches, dlca_eval *out, float *state) {
  if (!m || !c || !target || !out) return dlca__fail(DLCA_EINVAL, "dlca_bits_eval_fresh: NULL argument");
  if (n_batches < 1) return dlca__fail(DLCA_EINVAL, "dlca_bits_eval_fresh: %d batches", n_batches);
  if (c->start == DLCA_START_UPLOAD && !input)
    return dlca__fail(DLCA_EINVAL, "dlca_bits_eval_fresh: start is DLCA_START_UPLOAD but no input was given");
  if (c->start != DLCA_START_RANDOM && !c->async) n_batches = 1;
  dlca_train_config f = *c;
  f.seed = seed ^ DLCA_FRESH_SEED_XOR;
  const size_t grid = (size_t)c->batch * c->height * c->width * (size_t)m->shape.channels;
  dlca_eval *ev = calloc((size_t)n_batches, sizeof *ev);
  int *st = calloc((size_t)n_batches, sizeof *st);
  int rc = ev && st ? DLCA_OK : dlca__fail(DLCA_ENOMEM, "dlca_bits_eval_fresh: out of memory");
  /* batch 0 on this thread first: a bad configuration or start grid fails
   * here, with its message (a thread's message would be its own) */
  float *x0 = rc ? NULL : malloc(sizeof(float) * grid);
  if (!rc && !x0) rc = dlca__fail(DLCA_ENOMEM, "dlca_bits_eval_fresh: out of memory");
  if (!rc) rc = one_batch(m, &f, input, target, 0, x0, &ev[0], n_batches == 1 ? state : NULL);
  free(x0);
  if (!rc && n_batches > 1) {
#pragma omp parallel
    {
      float *x = malloc(sizeof(float) * grid);
#pragma omp for schedule(dynamic, 1)
      for (int i = 1; i < n_batches; i++)
        st[i] = x ? one_batch(m, &f, input, target, (uint64_t)i, x, &ev[i], i == n_batches - 1 ? state : NULL)
                  : DLCA_ENOMEM;
      free(x);
    }
    for (int i = 1; i < n_batches && !rc; i++)
      if (st[i]) { /* again here, for the message */
        float *x = malloc(sizeof(float) * grid);
        rc = x ? one_batch(m, &f, input, target, (uint64_t)i, x, &ev[i], NULL)
               : dlca__fail(DLCA_ENOMEM, "dlca_bits_eval_fresh: out of memory");
        free(x);
        if (!rc) rc = dlca__fail(st[i], "dlca_bits_eval_fresh: batch %d failed on a worker thread", i);
      }
  }
  if (!rc) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n_batches; i++)
      out->hard_loss += ev[i].hard_loss, out->errors += ev[i].errors, out->total += ev[i].total;
    out->accuracy = 1.0 - (double)out->errors / (double)out->total;
  }
  free(ev), free(st);
  return rc;
}
