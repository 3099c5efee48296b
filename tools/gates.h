/* The hard circuit's gate census that dlca-train and dlca-eval print: the
 * active-gate count and the 16-op histogram of dlca_model_gate_histogram(). */
#ifndef DLCA_TOOLS_GATES_H
#define DLCA_TOOLS_GATES_H

#include <stddef.h>
#include <stdio.h>
#include "dlca_cl.h"

typedef struct gate_summary {
  size_t counts[16]; /* gates whose hard op is op i (spec/dlca.md section 1) */
  size_t active;     /* gates other than pass-through A (3) or B (5) */
  size_t live;       /* gates whose op can change the loss channels (dlca_bits_live_gates); 0: unknown */
  size_t live_logic; /* of those, the ones other than pass-through A or B: the logic to deploy */
  size_t total;
} gate_summary;

/* The op names of spec/dlca.md section 1, by index. */
extern const char *const gate_op_names[16];

/* The census of m's hard circuit; `live` for a loss on these channels. */
void gate_summary_of(const dlca_model *m, const int *loss_channels, int n_loss, gate_summary *out);
/* The summary lines, "active gates:   ...", "live gates:     ..." (when
 * known) and "gate histogram: ...". */
void gate_summary_print(FILE *f, const gate_summary *g);

#endif
