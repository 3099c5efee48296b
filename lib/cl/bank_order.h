/* A bank-aware order of each update layer's gates (lib/cl/bank_order.c). */
#ifndef DLCA_CL_BANK_ORDER_H
#define DLCA_CL_BANK_ORDER_H

#include "dlca_cl/cl.h"
#include "model/model_impl.h"

/* rows[l] (l = 0 .. n_update, malloc'd) gets the storage index of each unit
 * of level l (level 0 the update input, level l > 0 layer l - 1's outputs);
 * levels 0 and n_update keep the identity; `proposals` swaps are proposed
 * per hidden unit (BWD_BANKS_EFFORT). Deterministic. DLCA_ENOMEM. */
int dlca__bank_order(const dlca_model *m, int proposals, int **rows);
/* The same order through ctx's disk cache (<dir>/orders/<key>.order, keyed
 * by the search's version, proposals and the update wiring): a valid entry
 * is read (*from_cache = 1, where from_cache is not NULL); a missing or bad
 * one is computed and stored (a store that fails is a context warning). */
int dlca__bank_order_cached(dlca_context *ctx, const dlca_model *m, int proposals, int **rows, int *from_cache);

#endif
