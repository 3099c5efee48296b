/* The gate census of a hard circuit; see gates.h. */
#include "gates.h"
#include <stdlib.h>

const char *const gate_op_names[16] = {"FALSE", "AND", "A AND NOT B", "A",          "NOT A AND B", "B",
                                       "XOR",   "OR",  "NOR",         "XNOR",       "NOT B",       "A OR NOT B",
                                       "NOT A", "NOT A OR B",         "NAND",       "TRUE"};

void gate_summary_of(const dlca_model *m, const int *loss_channels, int n_loss, gate_summary *out) {
  out->active = dlca_model_gate_histogram(m, out->counts);
  out->total = 0;
  for (int i = 0; i < 16; i++) out->total += out->counts[i];
  /* liveness does not depend on the grid, the start or the target: one
   * cell of zeros is enough to build the packed-bits circuit */
  out->live = 0;
  dlca_model_shape s;
  dlca_model_get_shape(m, &s);
  dlca_run run = dlca_run_default(1, 1, 1, 1);
  run.n_loss_channels = n_loss < DLCA_MAX_LOSS_CHANNELS ? n_loss : DLCA_MAX_LOSS_CHANNELS;
  for (int i = 0; i < run.n_loss_channels; i++) run.loss_channels[i] = loss_channels[i];
  float *zero = calloc((size_t)s.channels, sizeof(float));
  dlca_bits *b = NULL;
  uint8_t *live = malloc(out->total ? out->total : 1);
  out->live_logic = 0;
  if (zero && live && dlca_bits_new(m, &run, zero, zero, &b) == DLCA_OK) {
    out->live = dlca_bits_live_gates(b, live);
    for (size_t g = 0; out->live && g < out->total; g++) {
      const int op = dlca_bits_op(b, g);
      out->live_logic += live[g] && op != 3 && op != 5;
    }
  }
  dlca_bits_free(b);
  free(zero), free(live);
}

void gate_summary_print(FILE *f, const gate_summary *g) {
  fprintf(f, "active gates:   %zu of %zu (not pass-through A or B)\n", g->active, g->total);
  if (g->live)
    fprintf(f, "live gates:     %zu of %zu (whose op can change the loss channels), %zu of them logic (not A or B): "
               "the circuit to deploy\n", g->live, g->total, g->live_logic);
  fprintf(f, "gate histogram:");
  const char *sep = " ";
  for (int i = 0; i < 16; i++)
    if (g->counts[i]) fprintf(f, "%s%s %zu", sep, gate_op_names[i], g->counts[i]), sep = ", ";
  fprintf(f, "\n");
}
