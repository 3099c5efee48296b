/* The CPU twin (reference engine) of the compute layer's ops, in double on
 * plain row-major arrays (shared/testdata/ops/README.md gives the semantics,
 * PyTorch's). Internal. Every backward accumulates in a fixed order (the
 * row-major order of the output), with no atomics: results are reproducible. */
#ifndef DLCA_OPS_REF_H
#define DLCA_OPS_REF_H
#include <stddef.h>

#define DLCA__MAX_RANK 4

typedef struct dlca__shape {
  int rank; /* 0 (a scalar) to DLCA__MAX_RANK */
  size_t d[DLCA__MAX_RANK];
} dlca__shape;

/* The element count (1 for a scalar). */
size_t dlca__shape_n(const dlca__shape *s);
/* 1 where a and b are the same shape. */
int dlca__shape_eq(const dlca__shape *a, const dlca__shape *b);

/* A strided view of an array: element j (row-major over shape) of the view is
 * base[offset + sum_k j_k * stride[k]]. Movement ops and broadcasting are views. */
typedef struct dlca__view {
  dlca__shape shape;
  ptrdiff_t stride[DLCA__MAX_RANK];
  ptrdiff_t offset;
} dlca__view;

/* The offset in the base array of element j of the view. */
ptrdiff_t dlca__view_at(const dlca__view *v, size_t j);
/* dst[j] = src[view(j)] for every j of v->shape. */
void dlca__ref_gather(const dlca__view *v, const double *src, double *dst);
/* dst[view(j)] += src[j], j in row-major order. */
void dlca__ref_scatter_add(const dlca__view *v, const double *src, double *dst);

/* ---- unary: the 12 elementwise functions ---- */
#define DLCA__UNARY_FNS(X) \
  X(neg) X(exp) X(log) X(relu) X(sigmoid) X(tanh) X(sqrt) X(recip) X(exp2) X(log2) X(sin) X(cos)
typedef enum {
#define DLCA__U_ENUM(n) DLCA__U_##n,
  DLCA__UNARY_FNS(DLCA__U_ENUM) DLCA__U_COUNT
#undef DLCA__U_ENUM
} dlca__unary_fn;
/* The function called name, or -1. */
int dlca__unary_fn_from_name(const char *name);
const char *dlca__unary_fn_name(dlca__unary_fn fn);
void dlca__ref_unary(dlca__unary_fn fn, size_t n, const double *x, double *y);
/* dx = dy * f'(x), given x and y = f(x). */
void dlca__ref_unary_backward(dlca__unary_fn fn, size_t n, const double *x, const double *y, const double *dy,
                              double *dx);

/* ---- binary: the 7 functions with NumPy broadcasting ---- */
#define DLCA__BINARY_FNS(X) X(add) X(sub) X(mul) X(div) X(max) X(mod) X(cmplt)
typedef enum {
#define DLCA__B_ENUM(n) DLCA__B_##n,
  DLCA__BINARY_FNS(DLCA__B_ENUM) DLCA__B_COUNT
#undef DLCA__B_ENUM
} dlca__binary_fn;
int dlca__binary_fn_from_name(const char *name);
const char *dlca__binary_fn_name(dlca__binary_fn fn);
/* The broadcast shape of a and b; DLCA_EINVAL (with a message) where they do not broadcast. */
int dlca__broadcast_shape(const dlca__shape *a, const dlca__shape *b, dlca__shape *y);
/* The view of x (shape xs) broadcast to ys: stride 0 on the broadcast axes. */
void dlca__broadcast_view(const dlca__shape *xs, const dlca__shape *ys, dlca__view *v);
int dlca__ref_binary(dlca__binary_fn fn, const dlca__shape *as, const double *a, const dlca__shape *bs, const double *b,
                     double *y);
/* da, db (either may be NULL) get d(sum y*dy)/da, /db, summed over broadcast
 * axes in the row-major order of y. cmplt has no gradient: zeros. */
int dlca__ref_binary_backward(dlca__binary_fn fn, const dlca__shape *as, const double *a, const dlca__shape *bs,
                              const double *b, const double *dy, double *da, double *db);

/* ---- reduce: sum, max, mean over a set of axes ---- */
typedef enum { DLCA__R_sum, DLCA__R_max, DLCA__R_mean, DLCA__R_COUNT } dlca__reduce_fn;
int dlca__reduce_fn_from_name(const char *name);
/* mask of the reduced axes from a list (negative counts from the end; a
 * repeat or an axis out of range is DLCA_EINVAL), and y's shape. */
int dlca__reduce_shape(const dlca__shape *x, const long *axes, size_t naxes, int keepdim, unsigned *mask,
                       dlca__shape *y);
void dlca__ref_reduce(dlca__reduce_fn fn, const dlca__shape *xs, unsigned mask, const double *x, double *y);
/* max's gradient goes to the first maximum in row-major order (DLCA_ENOMEM
 * only there, for its per-output argmax). */
int dlca__ref_reduce_backward(dlca__reduce_fn fn, const dlca__shape *xs, unsigned mask, const double *x,
                              const double *dy, double *dx);

/* ---- movement: permute, expand, pad, shrink, stride ---- */
typedef enum {
  DLCA__M_permute,
  DLCA__M_expand,
  DLCA__M_pad,
  DLCA__M_shrink,
  DLCA__M_stride,
  DLCA__M_COUNT
} dlca__move_fn;
int dlca__move_fn_from_name(const char *name);
/* One movement: its arguments per axis (dims for permute, the shape for expand
 * (-1 keeps an axis), [before, after] for pad, [start, end) for shrink, the
 * step for stride). */
typedef struct dlca__move {
  dlca__move_fn fn;
  int n; /* how many entries of arg */
  long arg[DLCA__MAX_RANK][2];
  double value; /* pad's fill */
} dlca__move;
/* y's shape, and the view that relates x and y: for pad, x's place in y
 * (view over x's shape into y); for the others, y as a view of x. */
int dlca__move_plan(const dlca__move *m, const dlca__shape *xs, dlca__shape *ys, dlca__view *v);
int dlca__ref_move(const dlca__move *m, const dlca__shape *xs, const double *x, double *y);
/* The adjoint: expand sums over broadcast axes, pad crops, shrink and stride scatter into zeros. */
int dlca__ref_move_backward(const dlca__move *m, const dlca__shape *xs, const double *dy, double *dx);

/* ---- losses, reduction mean ---- */
double dlca__ref_mse(size_t n, const double *in, const double *target);
/* d_in, d_target (either may be NULL) for upstream gradient g. */
void dlca__ref_mse_backward(size_t n, const double *in, const double *target, double g, double *d_in, double *d_target);
/* logits [N,K], target [N] class indices; DLCA_EINVAL for a target out of [0, K). */
int dlca__ref_softmax_xent(size_t N, size_t K, const double *logits, const double *target, double *loss);
int dlca__ref_softmax_xent_backward(size_t N, size_t K, const double *logits, const double *target, double g,
                                    double *d_logits);
#endif
