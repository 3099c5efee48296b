/* A bank-aware order of each update layer's gates (lib/cl/bank_order.c). */
#ifndef DLCA_CL_BANK_ORDER_H
#define DLCA_CL_BANK_ORDER_H

#include "model/model_impl.h"

/* rows[l] (l = 0 .. n_update, malloc'd) gets the storage index of each unit
 * of level l (level 0 the update input, level l > 0 layer l - 1's outputs);
 * levels 0 and n_update keep the identity. Deterministic. DLCA_ENOMEM. */
int dlca__bank_order(const dlca_model *m, int **rows);

#endif
