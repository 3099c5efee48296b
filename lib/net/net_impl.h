/* The network object behind include/dlca_cl/net.h and what its two
 * backends share. Internal. */
#ifndef DLCA_NET_IMPL_H
#define DLCA_NET_IMPL_H
#include "core/internal.h"
#include "dlca_cl/net.h"

/* The per-sample shape of an activation: [F] or [C, H, W]. */
typedef struct dlca__nshape {
  int rank;
  size_t d[3];
} dlca__nshape;

size_t dlca__nshape_n(const dlca__nshape *s);
/* "[16, 8, 8]" into buf. */
void dlca__nshape_text(const dlca__nshape *s, char *buf, size_t len);

struct dlca_net {
  size_t n_layers;
  dlca_net_layer *layers;
  int loss;
  dlca__nshape *shape; /* n_layers + 1: shape[0] the input, shape[i + 1] layer i's output */
  size_t *poff;        /* layer i's weight at params + poff[i], its bias after it (dense, conv2d) */
  size_t *wsize;       /* layer i's weight floats (0 for a layer without parameters) */
  size_t n_tensors;    /* weight and bias of each dense and conv2d layer, in layer order */
  size_t n_params;
  float *params;
};

/* 1 for dense and conv2d. */
int dlca__net_has_params(const dlca_net_layer *l);
/* The bias floats of layer i (its units; 0 without parameters). */
size_t dlca__net_bsize(const dlca_net *net, size_t i);
/* Checks spec and builds net's shapes and offsets (params left NULL).
 * where names the source in messages ("dlca_net_new" or a file). */
int dlca__net_build(const dlca_net_spec *spec, const char *where, dlca_net **out);
/* PyTorch's default initialisation from seed (net.h). */
void dlca__net_init(dlca_net *net, uint64_t seed);
/* The sizes of the n_tensors parameter tensors, in order. */
void dlca__net_tensor_sizes(const dlca_net *net, size_t *sizes);
/* The rank-1/3 shape and rank of tensor j (weight or bias of some layer). */
void dlca__net_tensor_shape(const dlca_net *net, size_t j, int *rank, size_t shape[4]);
/* The pool/conv stride actually used. */
int dlca__net_stride(const dlca_net_layer *l);

/* ---- the CPU twin of the layers (double, row-major, N samples) ---- */
/* y = layer i of x; params of the layer at p (double). */
void dlca__net_ref_forward(const dlca_net *net, size_t i, size_t N, const double *p, const double *x, double *y);
/* dx (may be NULL) and the layer's parameter gradients at dp (overwritten),
 * given x, y and dy. */
void dlca__net_ref_backward(const dlca_net *net, size_t i, size_t N, const double *p, const double *x,
                            const double *y, const double *dy, double *dx, double *dp);

/* The trainer and its two backends (lib/net/ref_train.c, lib/net/cl_train.c). */
typedef struct dlca__net_ref dlca__net_ref;
typedef struct dlca__net_cl dlca__net_cl;
struct dlca_net_trainer {
  dlca_net *net;
  dlca_context *ctx;
  dlca_optim_config cfg;
  size_t batch, n;
  dlca__net_ref *ref;
  dlca__net_cl *cl;
};
/* DLCA_EDEVMEM where t's batch cannot fit the device (or, for the CPU twin
 * and a CPU device, what the process can get), naming a batch that fits. */
int dlca__net_check_memory(const dlca_net_trainer *t);
int dlca__net_ref_new(dlca_net_trainer *t);
void dlca__net_ref_free(dlca__net_ref *r);
int dlca__net_ref_data(dlca_net_trainer *t, const float *x, const float *y);
int dlca__net_ref_step(dlca_net_trainer *t, uint64_t seed, uint64_t epoch, size_t b);
int dlca__net_ref_loss(dlca_net_trainer *t, double *loss);
int dlca__net_ref_eval(dlca_net_trainer *t, size_t n, const float *x, const float *y, double *acc, double *loss);
int dlca__net_ref_sync(dlca_net_trainer *t);
int dlca__net_ref_set_lr(dlca_net_trainer *t, double lr);

int dlca__net_cl_new(dlca_net_trainer *t);
void dlca__net_cl_free(dlca__net_cl *c);
int dlca__net_cl_data(dlca_net_trainer *t, const float *x, const float *y);
int dlca__net_cl_step(dlca_net_trainer *t, uint64_t seed, uint64_t epoch, size_t b);
int dlca__net_cl_loss(dlca_net_trainer *t, double *loss);
int dlca__net_cl_eval(dlca_net_trainer *t, size_t n, const float *x, const float *y, double *acc, double *loss);
int dlca__net_cl_sync(dlca_net_trainer *t);
int dlca__net_cl_set_lr(dlca_net_trainer *t, double lr);

/* Accuracy of N rows of K logits against class targets: the count of rows
 * whose first maximum is the target. */
size_t dlca__net_correct(size_t N, size_t K, const double *logits, const float *target);
#endif
