/* libdlca_cl: train and run Differentiable Logic Cellular Automata on any
 * OpenCL device. This is the whole public API; the topic headers below are
 * split only to keep each one readable. Semantics: doc/semantics.md. */
#ifndef DLCA_CL_H
#define DLCA_CL_H

#include "dlca_cl/core.h"    /* status codes, errors, version, RNG */
#include "dlca_cl/model.h"   /* model shapes, presets, wiring, JSON I/O */
#include "dlca_cl/ref.h"     /* the C CPU reference engine */
#include "dlca_cl/cl.h"      /* OpenCL devices, kernel loader, binary cache, tuning */
#include "dlca_cl/trainer.h" /* training on the CPU reference or on a device */
#include "dlca_cl/parity.h"  /* device-versus-reference checks */
#include "dlca_cl/bits.h"    /* the hard circuit on packed bits */
#include "dlca_cl/recipe.h"  /* targets, recommended recipes, the training loop */
#include "dlca_cl/population.h" /* M models of a preset side by side on one device */
#include "dlca_cl/optim.h"   /* optimizers, gradient clipping, lr schedules */
#include "dlca_cl/tensor.h"  /* device tensors of the compute layer */
#include "dlca_cl/ops.h"     /* the ops on them, forward and backward, and the tape */
#include "dlca_cl/net.h"     /* sequential networks, their trainer, the digits data set */

#endif
