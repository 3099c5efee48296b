/* Sequential networks of the compute layer (issue 31): dense, conv2d,
 * relu/sigmoid/tanh, flatten and max/mean pooling layers with a loss,
 * PyTorch's default initialisation (seeded), a JSON file format
 * (doc/ops.md), and a trainer whose step runs the forward, the loss, the
 * backward and the optimizer on an OpenCL device with no host round trip, or
 * on the CPU twin. The digits data set ships with the library. */
#ifndef DLCA_CL_NET_H
#define DLCA_CL_NET_H

#include <stddef.h>
#include <stdint.h>
#include "dlca_cl/cl.h"
#include "dlca_cl/core.h"
#include "dlca_cl/optim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dlca_net_layer_kind {
  DLCA_NET_DENSE, DLCA_NET_CONV2D, DLCA_NET_RELU, DLCA_NET_SIGMOID, DLCA_NET_TANH, DLCA_NET_FLATTEN,
  DLCA_NET_MAXPOOL, DLCA_NET_MEANPOOL, DLCA_NET_LAYER_KINDS
} dlca_net_layer_kind;

/* One layer. dense: units outputs of a flat input (weight [units, in], bias
 * [units]); conv2d: units output channels, a k x k kernel (weight [units, C,
 * k, k], bias [units]), stride (0 means 1) and zero padding pad; pools: a k x
 * k window, stride (0 means k), no padding. The other fields stay 0. */
typedef struct dlca_net_layer {
  int kind; /* dlca_net_layer_kind */
  size_t units;
  int k, stride, pad;
} dlca_net_layer;

typedef enum dlca_net_loss { DLCA_NET_SOFTMAX_XENT, DLCA_NET_MSE } dlca_net_loss;

/* The network: one sample is [in_shape[0]] (in_rank 1) or [C, H, W]
 * (in_rank 3). softmax_xent's targets are class indices (one float per
 * sample), mse's are the output's shape. */
typedef struct dlca_net_spec {
  int in_rank;
  size_t in_shape[3];
  size_t n_layers;
  const dlca_net_layer *layers;
  int loss; /* dlca_net_loss */
} dlca_net_spec;

/* "dense", "conv2d", "relu", "sigmoid", "tanh", "flatten", "maxpool",
 * "meanpool"; "softmax_cross_entropy", "mse". NULL / -1 when unknown. */
DLCA_API const char *dlca_net_layer_name(int kind);
DLCA_API int dlca_net_layer_from_name(const char *name);
DLCA_API const char *dlca_net_loss_name(int loss);

/* The digits models: "mlp" (64-128-10, relu) and "cnn" (conv 3x3x16 pad 1,
 * relu, conv 3x3x32 pad 1, relu, maxpool 2, flatten, dense 10), softmax
 * cross-entropy. The layers are static. DLCA_EINVAL for another name. */
DLCA_API DLCA_WUR int dlca_net_preset(const char *name, dlca_net_spec *out);

/* A network of spec's shape with PyTorch's default initialisation: weight
 * and bias of dense and conv2d uniform in +-1/sqrt(fan_in), drawn with
 * dlca_rng_u32(seed, tensor, element) (doc/ops.md). DLCA_EINVAL naming the
 * layer for shapes that do not fit (dense after an unflattened image, a
 * window over the input, ...). */
typedef struct dlca_net dlca_net;
DLCA_API DLCA_WUR int dlca_net_new(const dlca_net_spec *spec, uint64_t seed, dlca_net **out);
DLCA_API void dlca_net_free(dlca_net *net);
/* Floats per input sample, per output sample, and parameters in all. */
DLCA_API size_t dlca_net_in_size(const dlca_net *net);
DLCA_API size_t dlca_net_out_size(const dlca_net *net);
DLCA_API size_t dlca_net_n_params(const dlca_net *net);
/* Floats per target sample: 1 for softmax_xent, the output's size for mse. */
DLCA_API size_t dlca_net_target_size(const dlca_net *net);

/* The JSON format "dlca-net" version 1 (doc/ops.md), written atomically;
 * load validates every field and names the file and the JSON path of the
 * first bad one (DLCA_EPARSE, or DLCA_EMODEL for shapes that do not fit). */
DLCA_API DLCA_WUR int dlca_net_save(const dlca_net *net, const char *path);
DLCA_API DLCA_WUR int dlca_net_load(const char *path, dlca_net **out);

/* A trainer of net on ctx's device (ctx NULL: the CPU twin, float32
 * parameters and optimizer, double forward and backward). The optimizer is
 * cfg (NULL: AdamW with torch's defaults); batch samples per step. It
 * works on its own copy of the parameters: dlca_net_trainer_sync copies them
 * back into net. net must outlive the trainer. */
typedef struct dlca_net_trainer dlca_net_trainer;
DLCA_API DLCA_WUR int dlca_net_trainer_new(dlca_net *net, dlca_context *ctx, const dlca_optim_config *cfg,
                                           size_t batch, dlca_net_trainer **out);
DLCA_API void dlca_net_trainer_free(dlca_net_trainer *t);
/* The training set, uploaded once: n samples of dlca_net_in_size floats
 * and their targets (dlca_net_target_size floats each). n >= batch. */
DLCA_API DLCA_WUR int dlca_net_trainer_data(dlca_net_trainer *t, size_t n, const float *x, const float *y);
/* floor(n / batch): an epoch's samples past the last full batch are left out. */
DLCA_API size_t dlca_net_steps_per_epoch(const dlca_net_trainer *t);
/* One step: batch b of epoch e, the samples perm(seed, e, b * batch + j)
 * for j < batch (a seeded permutation of the training set, the same on
 * both backends), gathered on the device; forward, loss, backward and the
 * optimizer update. Enqueues only. */
DLCA_API DLCA_WUR int dlca_net_step(dlca_net_trainer *t, uint64_t seed, uint64_t epoch, size_t b);
/* The mean loss of the steps since the last call (waits), or NaN if none. */
DLCA_API DLCA_WUR int dlca_net_trainer_loss(dlca_net_trainer *t, double *loss);
/* The accuracy (argmax against the class, softmax_xent only; else NaN) and
 * the mean loss over n samples. */
DLCA_API DLCA_WUR int dlca_net_evaluate(dlca_net_trainer *t, size_t n, const float *x, const float *y,
                                        double *accuracy, double *loss);
/* Waits, and copies the trained parameters into the trainer's net. */
DLCA_API DLCA_WUR int dlca_net_trainer_sync(dlca_net_trainer *t);
DLCA_API DLCA_WUR int dlca_net_trainer_set_lr(dlca_net_trainer *t, double lr);

/* Sample i (< n) of the seeded permutation of 0..n-1 of an epoch: a 4-round
 * Feistel network on dlca_rng_u32 with cycle walking (doc/ops.md); the
 * device computes the same. */
DLCA_API uint32_t dlca_net_perm(uint64_t seed, uint64_t epoch, uint32_t n, uint32_t i);

/* The digits data set (data/digits, installed in the package data
 * directory; DLCA_NET_DATA overrides the directory): 1797 8x8 images,
 * pixels scaled 0..16 -> 0..1, row i a test row when i % 5 == 4. x holds
 * n x 64 floats, y n classes (as floats). */
typedef struct dlca_dataset {
  size_t n_train, n_test, in_size;
  float *x_train, *y_train, *x_test, *y_test;
} dlca_dataset;
DLCA_API DLCA_WUR int dlca_dataset_load(const char *name, dlca_dataset *out);
/* The same from a gzip'd or plain CSV file of 64 pixels and a class per line. */
DLCA_API DLCA_WUR int dlca_dataset_load_digits_file(const char *path, dlca_dataset *out);
DLCA_API void dlca_dataset_free(dlca_dataset *d);

#ifdef __cplusplus
}
#endif
#endif
