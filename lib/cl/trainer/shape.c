/* The shape of the compiled trainer kernels, from the model: sizes, fan-outs
 * and BWD_PUSH's plan of a cell's act row. */
#include <stdlib.h>
#include <string.h>
#include "cl/trainer/cl_trainer.h"

/* The most gates of layer L that read one of its inputs (at least 1). */
static int layer_fanout(const dlca_layer *L) {
  int *cnt = calloc((size_t)L->n_in, sizeof(int)), r = 1;
  if (!cnt) return 2 * L->n_gates; /* an upper bound; only wastes table space */
  for (int g = 0; g < L->n_gates; g++) cnt[L->wa[g]]++, cnt[L->wb[g]]++;
  for (int i = 0; i < L->n_in; i++)
    if (cnt[i] > r) r = cnt[i];
  free(cnt);
  return r;
}

/* BWD_PUSH's gradient slots of update layer L's inputs (trainer.cl): the
 * readers of each input (fo[i]) and where its slots past the first two
 * start (ov[i] = R2 n + the readers past two of inputs 0 .. i-1); returns
 * the slots' floats. */
int dlca__clt_push_slots(const dlca_layer *L, int fanout, int *fo, int *ov) {
  const int n = L->n_in, r2 = fanout < 2 ? fanout : 2;
  for (int i = 0; i < n; i++) fo[i] = 0;
  for (int g = 0; g < L->n_gates; g++) fo[L->wa[g]]++, fo[L->wb[g]]++;
  int o = r2 * n;
  for (int i = 0; i < n; i++) ov[i] = o, o += fo[i] > 2 ? fo[i] - 2 : 0;
  return o;
}

/* BWD_PUSH's layout of a cell's act row in dlca_backward: the activations
 * (UTOTAL floats; the last layer's outputs, which nothing reads, hold the
 * output gradient), then the gradient slots of each update layer's inputs
 * (push_slots), planned from the last layer down: layer l's slots go at the
 * first place past the activations its phase and the ones below still read
 * (the inputs of layers 0 .. l) that misses the slots it reads (those of
 * layer l + 1). Returns the floats a row needs, 0 where a slot index would
 * not fit 16 bits (or out of host memory). */
size_t dlca__clt_push_plan(const dlca_model *m, cl_shape *s) {
  const int *U = m->shape.update_layers;
  int *fo = malloc(sizeof(int) * (size_t)s->dw), *ov = malloc(sizeof(int) * (size_t)s->dw), big = !fo || !ov;
  int size[DLCA_MAX_LAYERS]; /* floats of layer l's gradient slots */
  for (int l = 0; l < s->NU && !big; l++)
    if ((size[l] = dlca__clt_push_slots(&m->update[l], s->fanout[l], fo, ov)) > 65536 || U[l] > 65536) big = 1;
  free(fo), free(ov);
  if (big) return 0;
  size_t ao[DLCA_MAX_LAYERS + 1], top;
  ao[0] = 0;
  for (int l = 0; l < s->NU; l++) ao[l + 1] = ao[l] + (size_t)U[l];
  size_t in_off = ao[s->NU], in_size = (size_t)U[s->NU];
  s->push_off[s->NU] = (int)in_off, top = in_off + in_size;
  for (int l = s->NU - 1; l >= 0; l--) {
    size_t o = ao[l] + (size_t)U[l], sz = (size_t)size[l];
    if (o < in_off + in_size && o + sz > in_off) o = in_off + in_size;
    s->push_off[l] = (int)o;
    if (o + sz > top) top = o + sz;
    in_off = o, in_size = sz;
  }
  return top;
}

void dlca__clt_shape_of(const dlca_model *m, cl_shape *s) {
  memset(s, 0, sizeof *s);
  s->C = m->shape.channels, s->K = m->shape.n_kernels, s->S = dlca__model_S(m);
  s->NP = m->n_perceive, s->NU = m->n_update;
  s->uin = m->shape.update_layers[0];
  for (int l = 0; l <= s->NP; l++) s->PTOT += m->shape.perceive_layers[l];
  for (int l = 0; l <= s->NU; l++) {
    s->UTOTAL += m->shape.update_layers[l];
    if (m->shape.update_layers[l] > s->dw) s->dw = m->shape.update_layers[l];
  }
  for (int l = 0; l < s->NP; l++) s->PG1 += m->perceive[l].n_gates, s->n_wires += 2 * (size_t)m->perceive[l].n_gates;
  for (int l = 0; l < s->NU; l++) {
    s->NGU += m->update[l].n_gates;
    if (m->update[l].n_gates > s->gmax) s->gmax = m->update[l].n_gates;
    s->n_wires += 2 * (size_t)m->update[l].n_gates;
    s->fanout[l] = layer_fanout(&m->update[l]);
    s->n_rev += (size_t)s->fanout[l] * (size_t)m->update[l].n_in;
  }
  s->NGP = s->K * s->PG1;
  size_t ck9 = (size_t)s->C * s->K * 9;
  s->act_floats = (size_t)s->UTOTAL > ck9 ? (size_t)s->UTOTAL : ck9;
  s->pact = s->act_floats;
  s->acc_stride = (size_t)s->K * s->PG1 * 4 + (size_t)s->NGU * 4;
}
