/* The gate census of a hard circuit; see gates.h. */
#include "gates.h"

const char *const gate_op_names[16] = {"FALSE", "AND", "A AND NOT B", "A",          "NOT A AND B", "B",
                                       "XOR",   "OR",  "NOR",         "XNOR",       "NOT B",       "A OR NOT B",
                                       "NOT A", "NOT A OR B",         "NAND",       "TRUE"};

void gate_summary_of(const dlca_model *m, gate_summary *out) {
  out->active = dlca_model_gate_histogram(m, out->counts);
  out->total = 0;
  for (int i = 0; i < 16; i++) out->total += out->counts[i];
}

void gate_summary_print(FILE *f, const gate_summary *g) {
  fprintf(f, "active gates:   %zu of %zu (not pass-through A or B)\n", g->active, g->total);
  fprintf(f, "gate histogram:");
  const char *sep = " ";
  for (int i = 0; i < 16; i++)
    if (g->counts[i]) fprintf(f, "%s%s %zu", sep, gate_op_names[i], g->counts[i]), sep = ", ";
  fprintf(f, "\n");
}
