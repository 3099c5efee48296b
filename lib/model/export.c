/* The hard circuit of one cell as C or Verilog (include/dlca_cl/model.h,
 * dlca_model_export; doc/export.md).
 *
 * The model is first flattened into a netlist of signals: 0 and 1 are the
 * constants, 2 .. 9C + 1 the patch bits in[f * C + c], and every later
 * signal a gate node (op, a, b) over earlier ones, so that signal order is
 * a topological order. Each model gate is folded as it is added: FALSE and
 * TRUE become constants, pass-through A and B become the input signal, an
 * op whose inputs are constant or one and the same signal becomes a
 * constant, a wire or a NOT, and NOT of a NOT is the signal itself. Only the
 * nodes that the cell's C outputs read are written. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model_impl.h"

enum { SIG_0 = 0, SIG_1 = 1, SIG_IN = 2, OP_NOT = 12 }; /* op 12 is NOT A: a node NOT x has a = b = x */

typedef struct node {
  uint8_t op;    /* 1..14 except 3, 5, 10 (NOT B becomes NOT A) */
  int32_t a, b;  /* signals */
} node;

typedef struct netlist {
  int C;
  size_t n, cap;   /* signals; node i is signal SIG_IN + 9C + i */
  node *nodes;
  int32_t *out;    /* [C] */
} netlist;

/* Bit (a, b) of op's truth table: op = 8 f(0,0) + 4 f(0,1) + 2 f(1,0) + f(1,1). */
static int op_value(int op, int a, int b) { return (op >> (3 - (2 * a + b))) & 1; }

static int32_t first_node(const netlist *nl) { return SIG_IN + 9 * nl->C; }

static const node *node_of(const netlist *nl, int32_t s) {
  return s >= first_node(nl) ? &nl->nodes[s - first_node(nl)] : NULL;
}

/* A new node, or -1 when out of memory. */
static int32_t push(netlist *nl, int op, int32_t a, int32_t b) {
  node *p = dlca__grow(nl->nodes, &nl->cap, nl->n + 1, sizeof *p, 4096);
  if (!p) return -1;
  nl->nodes = p;
  nl->nodes[nl->n] = (node){(uint8_t)op, a, b};
  return first_node(nl) + (int32_t)nl->n++;
}

static int32_t not_of(netlist *nl, int32_t x) {
  if (x == SIG_0 || x == SIG_1) return x ^ 1;
  const node *n = node_of(nl, x);
  if (n && n->op == OP_NOT) return n->a;
  return push(nl, OP_NOT, x, x);
}

/* The signal of op(a, b), folded. */
static int32_t gate(netlist *nl, int op, int32_t a, int32_t b) {
  const int ca = a == SIG_0 || a == SIG_1, cb = b == SIG_0 || b == SIG_1;
  if (ca && cb) return op_value(op, a, b) ? SIG_1 : SIG_0;
  if (ca || cb || a == b) { /* a function of one signal x */
    const int32_t x = ca ? b : a;
    const int f0 = op_value(op, ca ? a : 0, cb ? b : 0), f1 = op_value(op, ca ? a : 1, cb ? b : 1);
    if (f0 == f1) return f0 ? SIG_1 : SIG_0;
    return f1 ? x : not_of(nl, x);
  }
  switch (op) {
    case 0: return SIG_0;
    case 15: return SIG_1;
    case 3: return a;
    case 5: return b;
    case 10: return not_of(nl, b);
    case 12: return not_of(nl, a);
    default: return push(nl, op, a, b);
  }
}

static int hard_op_of(const dlca_model *m, size_t first_logit) {
  return dlca__hard_op(m->shape.parametrisation, m->params + first_logit);
}

/* Flattens m into nl (doc/semantics.md section 3). */
static int build(const dlca_model *m, netlist *nl) {
  const int C = m->shape.channels, K = dlca__model_K(m), S = dlca__model_S(m), npg = dlca__model_npg(m);
  const int width = dlca__model_max_width(m) > 9 ? dlca__model_max_width(m) : 9;
  int32_t *cur = malloc(sizeof(int32_t) * (size_t)width), *nxt = malloc(sizeof(int32_t) * (size_t)width);
  int32_t *uin = malloc(sizeof(int32_t) * (size_t)dlca__model_update_in(m));
  nl->C = C;
  nl->out = malloc(sizeof(int32_t) * (size_t)C);
  int rc = cur && nxt && uin && nl->out ? DLCA_OK : DLCA_ENOMEM;
  for (int c = 0; c < C && !rc; c++) uin[c] = SIG_IN + 4 * C + c; /* the centre */
  for (int c = 0; c < C && !rc; c++)
    for (int k = 0; k < K && !rc; k++) {
      for (int f = 0; f < 9; f++) cur[f] = SIG_IN + f * C + c;
      for (int l = 0; l < m->n_perceive && !rc; l++) {
        const dlca_layer *L = &m->perceive[l];
        for (int g = 0; g < L->n_gates && !rc; g++) {
          const int op = hard_op_of(m, L->offset + ((size_t)k * L->n_gates + g) * npg);
          if ((nxt[g] = gate(nl, op, cur[L->wa[g]], cur[L->wb[g]])) < 0) rc = DLCA_ENOMEM;
        }
        int32_t *t = cur;
        cur = nxt, nxt = t;
      }
      for (int s = 0; s < S; s++) uin[C + c * S * K + s * K + k] = cur[s];
    }
  const int32_t *in = uin;
  for (int l = 0; l < m->n_update && !rc; l++) {
    const dlca_layer *L = &m->update[l];
    for (int g = 0; g < L->n_gates && !rc; g++)
      if ((nxt[g] = gate(nl, hard_op_of(m, L->offset + (size_t)g * npg), in[L->wa[g]], in[L->wb[g]])) < 0)
        rc = DLCA_ENOMEM;
    int32_t *t = cur;
    cur = nxt, nxt = t;
    in = cur;
  }
  if (!rc) memcpy(nl->out, in, sizeof(int32_t) * (size_t)C);
  free(cur), free(nxt), free(uin);
  return rc ? dlca__fail(rc, "dlca_model_export: out of memory flattening the circuit") : DLCA_OK;
}

/* live[i] = 1 for each node that a kept output reads; in_used[k] for each
 * patch bit. The kept channels grow to a fixpoint: a channel whose patch
 * bits a kept output reads (any patch element) is kept too, since it feeds
 * the next step. Outputs of the other channels become constant 0. */
static void mark_live(netlist *nl, uint8_t *keep_ch, uint8_t *live, uint8_t *in_used, dlca_export_info *info) {
  const int32_t base = first_node(nl);
  const int C = nl->C;
  for (;;) {
    memset(live, 0, nl->n + 1), memset(in_used, 0, (size_t)9 * C);
    for (int c = 0; c < C; c++) {
      const int32_t s = nl->out[c];
      if (!keep_ch[c]) continue;
      if (s >= base) live[s - base] = 1;
      else if (s >= SIG_IN) in_used[s - SIG_IN] = 1;
    }
    for (size_t i = nl->n; i-- > 0;) {
      if (!live[i]) continue;
      const int32_t ab[2] = {nl->nodes[i].a, nl->nodes[i].b};
      for (int j = 0; j < 2; j++) {
        if (ab[j] >= base) live[ab[j] - base] = 1;
        else if (ab[j] >= SIG_IN) in_used[ab[j] - SIG_IN] = 1;
      }
    }
    int grew = 0;
    for (int k = 0; k < 9 * C; k++)
      if (in_used[k] && !keep_ch[k % C]) keep_ch[k % C] = 1, grew = 1;
    if (!grew) break;
  }
  for (int c = 0; c < C; c++) {
    if (!keep_ch[c]) nl->out[c] = SIG_0;
    info->channels_kept += keep_ch[c];
    info->const_outputs += nl->out[c] == SIG_0 || nl->out[c] == SIG_1;
  }
  for (size_t i = 0; i < nl->n; i++)
    if (live[i]) info->logic_gates++, info->not_gates += nl->nodes[i].op == OP_NOT;
  for (int k = 0; k < 9 * C; k++) info->inputs_used += in_used[k];
}

/* A growing text buffer. */
typedef struct text {
  char *p;
  size_t n, cap;
  int oom;
} text;

static void put(text *t, const char *fmt, ...) DLCA_PRINTF(2, 3);
static void put(text *t, const char *fmt, ...) {
  if (t->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) { t->oom = 1; return; }
    if (t->p && t->n + (size_t)k < t->cap) { t->n += (size_t)k; return; }
    size_t cap = (t->cap ? 2 * t->cap : 1 << 16) + (size_t)k;
    char *q = realloc(t->p, cap);
    if (!q) { t->oom = 1; return; }
    t->p = q, t->cap = cap;
  }
}

/* Signal s as an expression of the C (v = 0) or Verilog (v = 1) text. */
static void sig(text *t, const netlist *nl, int32_t s, const int32_t *num, int v) {
  if (s == SIG_0) put(t, v ? "1'b0" : "0");
  else if (s == SIG_1) put(t, v ? "1'b1" : "~(uint64_t)0");
  else if (s < first_node(nl)) put(t, "in[%d]", s - SIG_IN);
  else put(t, "n%d", num[s - first_node(nl)]);
}

/* The expression of node n: ops 1..14 in the basis of &, |, ^ and ~. */
static void expr(text *t, const netlist *nl, const node *n, const int32_t *num, int v) {
  static const char *const form[16] = {
      NULL, "%A & %B", "%A & ~%B", NULL, "~%A & %B", NULL, "%A ^ %B", "%A | %B",
      "~(%A | %B)", "~(%A ^ %B)", NULL, "%A | ~%B", "~%A", "~%A | %B", "~(%A & %B)", NULL};
  for (const char *f = form[n->op]; *f; f++) {
    if (f[0] == '%' && (f[1] == 'A' || f[1] == 'B')) {
      sig(t, nl, f[1] == 'A' ? n->a : n->b, num, v);
      f++;
    } else {
      put(t, "%c", *f);
    }
  }
}

/* The circuit's body: a declaration per live gate, then an assignment per output, in C (v = 0) or
 * Verilog (v = 1). */
static void write_body(text *t, const netlist *nl, const uint8_t *live, const int32_t *num, int v) {
  for (size_t i = 0; i < nl->n; i++) {
    if (!live[i]) continue;
    put(t, v ? "  wire n%d = " : "  const uint64_t n%d = ", num[i]);
    expr(t, nl, &nl->nodes[i], num, v);
    put(t, ";\n");
  }
  for (int c = 0; c < nl->C; c++) {
    put(t, v ? "  assign out[%d] = " : "  out[%d] = ", c);
    sig(t, nl, nl->out[c], num, v);
    put(t, ";\n");
  }
}

static void write_c(text *t, const netlist *nl, const uint8_t *live, const int32_t *num, const char *name,
                    int periodic) {
  const int C = nl->C;
  put(t,
      "/* %s: the hard circuit of one cell of a DiffLogic CA, written by libdlca_cl %s\n"
      " * (dlca_model_export, doc/export.md). %d channels, %s boundary. */\n"
      "#include <stdint.h>\n#include <string.h>\n\n"
      "enum { %s_CHANNELS = %d, %s_PERIODIC = %d };\n\n"
      "/* 64 cells at once: bit i of in[f * %d + c] is channel c of patch element f (row f / 3 - 1,\n"
      " * column f %% 3 - 1 from cell i); bit i of out[c] is channel c of cell i's new state. */\n"
      "static inline void %s_cells64(const uint64_t *in, uint64_t *out) {\n",
      name, dlca_version_string(), C, periodic ? "periodic" : "zero", name, C, name, periodic, C, name);
  write_body(t, nl, live, num, 0);
  put(t,
      "}\n\n"
      "/* One synchronous step: state and next are [height][width][%d] of 0s and 1s (next not state). */\n"
      "static inline void %s_step(int height, int width, const uint8_t *state, uint8_t *next) {\n"
      "  const long cells = (long)height * width;\n"
      "  for (long j0 = 0; j0 < cells; j0 += 64) {\n"
      "    uint64_t in[9 * %d], out[%d];\n"
      "    memset(in, 0, sizeof in);\n"
      "    const int n = cells - j0 < 64 ? (int)(cells - j0) : 64;\n"
      "    for (int i = 0; i < n; i++) {\n"
      "      const int r = (int)((j0 + i) / width), q = (int)((j0 + i) %% width);\n"
      "      for (int f = 0; f < 9; f++) {\n"
      "        int rr = r + f / 3 - 1, qq = q + f %% 3 - 1;\n"
      "        if (%s_PERIODIC) rr = (rr + height) %% height, qq = (qq + width) %% width;\n"
      "        else if (rr < 0 || rr >= height || qq < 0 || qq >= width) continue;\n"
      "        const uint8_t *s = state + ((long)rr * width + qq) * %d;\n"
      "        for (int c = 0; c < %d; c++) in[f * %d + c] |= (uint64_t)(s[c] & 1) << i;\n"
      "      }\n"
      "    }\n"
      "    %s_cells64(in, out);\n"
      "    for (int i = 0; i < n; i++)\n"
      "      for (int c = 0; c < %d; c++) next[(j0 + i) * %d + c] = (uint8_t)((out[c] >> i) & 1);\n"
      "  }\n"
      "}\n\n"
      "/* One asynchronous step: fire[r * width + q] = 1 where the cell updates; a cell that does not fire\n"
      " * keeps its whole state. */\n"
      "static inline void %s_step_async(int height, int width, const uint8_t *state, const uint8_t *fire,\n"
      "                                 uint8_t *next) {\n"
      "  %s_step(height, width, state, next);\n"
      "  for (long j = 0; j < (long)height * width; j++)\n"
      "    if (!fire[j]) memcpy(next + j * %d, state + j * %d, %d);\n"
      "}\n",
      C, name, C, C, name, C, C, C, name, C, C, name, name, C, C, C);
}

static void write_verilog(text *t, const netlist *nl, const uint8_t *live, const int32_t *num, const char *name,
                          int periodic) {
  const int C = nl->C;
  put(t,
      "// %s_cell: the hard circuit of one cell of a DiffLogic CA, written by libdlca_cl %s\n"
      "// (dlca_model_export, doc/export.md). %d channels (%s boundary in the grid around it).\n"
      "// in[f * %d + c]: channel c of patch element f (row f / 3 - 1, column f %% 3 - 1 from the cell);\n"
      "// out[c]: channel c of the cell's new state. Combinational.\n"
      "module %s_cell (input wire [%d:0] in, output wire [%d:0] out);\n",
      name, dlca_version_string(), C, periodic ? "periodic" : "zero", C, name, 9 * C - 1, C - 1);
  write_body(t, nl, live, num, 1);
  put(t, "endmodule\n");
  /* the grid around it: one cell module per cell, the boundary, and the state registers */
  put(t,
      "\n"
      "// %s_grid: a HEIGHT x WIDTH grid of %s_cell, one synchronous step per rising clock edge.\n"
      "// state[(r * WIDTH + q) * %d + c] is channel c of cell (r, q); while load is 1, the clock\n"
      "// loads init instead. The boundary is the model's: %s.\n"
      "module %s_grid #(parameter HEIGHT = 16, parameter WIDTH = 16) (\n"
      "    input wire clk, input wire load, input wire [HEIGHT * WIDTH * %d - 1:0] init,\n"
      "    output reg [HEIGHT * WIDTH * %d - 1:0] state);\n"
      "  wire [HEIGHT * WIDTH * %d - 1:0] next;\n"
      "  genvar r, q, f;\n"
      "  generate\n"
      "    for (r = 0; r < HEIGHT; r = r + 1) begin : row\n"
      "      for (q = 0; q < WIDTH; q = q + 1) begin : col\n"
      "        wire [%d:0] patch;\n"
      "        for (f = 0; f < 9; f = f + 1) begin : nb\n",
      name, name, C, periodic ? "periodic (rows and columns wrap)" : "zero (cells outside the grid read 0)", name,
      C, C, C, 9 * C - 1);
  if (periodic)
    put(t,
        "          assign patch[f * %d +: %d] = state[(((r + f / 3 + HEIGHT - 1) %% HEIGHT) * WIDTH +\n"
        "                                         (q + f %% 3 + WIDTH - 1) %% WIDTH) * %d +: %d];\n",
        C, C, C, C);
  else
    put(t,
        "          if (r + f / 3 >= 1 && r + f / 3 <= HEIGHT &&\n"
        "              q + f %% 3 >= 1 && q + f %% 3 <= WIDTH) begin : inside\n"
        "            assign patch[f * %d +: %d] = state[((r + f / 3 - 1) * WIDTH + q + f %% 3 - 1) * %d +: %d];\n"
        "          end else begin : outside\n"
        "            assign patch[f * %d +: %d] = %d'b0;\n"
        "          end\n",
        C, C, C, C, C, C, C);
  put(t,
      "        end\n"
      "        %s_cell u_cell (.in(patch), .out(next[(r * WIDTH + q) * %d +: %d]));\n"
      "      end\n"
      "    end\n"
      "  endgenerate\n"
      "  always @(posedge clk) state <= load ? init : next;\n"
      "endmodule\n",
      name, C, C);
}

static int valid_name(const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n == 0 || n > 64 || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return 0;
  return 1;
}

int dlca_model_export(const dlca_model *m, dlca_export_format format, const char *name, const int *keep,
                      int n_keep, const char *path, dlca_export_info *info) {
  if (!m || !path) return dlca__fail(DLCA_EINVAL, "dlca_model_export: a NULL model or path");
  if (format != DLCA_EXPORT_C && format != DLCA_EXPORT_VERILOG)
    return dlca__fail(DLCA_EINVAL, "dlca_model_export: format %d is neither C (0) nor Verilog (1)", (int)format);
  if (!valid_name(name))
    return dlca__fail(DLCA_EINVAL, "dlca_model_export: name '%s' is not an identifier of at most 64 letters, "
                      "digits and '_' (not a digit first)", name ? name : "(null)");
  if (n_keep < 0 || (n_keep > 0 && !keep))
    return dlca__fail(DLCA_EINVAL, "dlca_model_export: %d channels to keep, at %p", n_keep, (const void *)keep);
  for (int i = 0; i < n_keep; i++)
    if (keep[i] < 0 || keep[i] >= m->shape.channels)
      return dlca__fail(DLCA_EINVAL, "dlca_model_export: channel %d to keep: the model has channels 0 to %d", keep[i],
                        m->shape.channels - 1);
  netlist nl;
  memset(&nl, 0, sizeof nl);
  dlca_export_info got;
  memset(&got, 0, sizeof got);
  int rc = build(m, &nl);
  uint8_t *live = rc ? NULL : calloc(nl.n + 1, 1), *in_used = rc ? NULL : calloc((size_t)9 * nl.C, 1);
  uint8_t *keep_ch = rc ? NULL : calloc((size_t)nl.C, 1);
  int32_t *num = rc ? NULL : malloc(sizeof(int32_t) * (nl.n + 1));
  text t = {0};
  if (!rc && !(live && in_used && keep_ch && num)) rc = dlca__fail(DLCA_ENOMEM, "dlca_model_export: out of memory");
  if (!rc) {
    for (int c = 0; c < nl.C; c++) keep_ch[c] = n_keep == 0;
    for (int i = 0; i < n_keep; i++) keep_ch[keep[i]] = 1;
    mark_live(&nl, keep_ch, live, in_used, &got);
    int32_t k = 0;
    for (size_t i = 0; i < nl.n; i++) num[i] = live[i] ? k++ : -1;
    if (format == DLCA_EXPORT_C) write_c(&t, &nl, live, num, name, m->shape.periodic);
    else write_verilog(&t, &nl, live, num, name, m->shape.periodic);
    if (t.oom) rc = dlca__fail(DLCA_ENOMEM, "dlca_model_export: out of memory writing %s", path);
  }
  if (!rc) rc = dlca__write_file_atomic(path, t.p, t.n);
  if (!rc && info) {
    got.model_gates = 0;
    for (int l = 0; l < m->n_perceive; l++) got.model_gates += (size_t)m->perceive[l].n_gates * dlca__model_K(m);
    got.model_gates *= (size_t)m->shape.channels;
    for (int l = 0; l < m->n_update; l++) got.model_gates += (size_t)m->update[l].n_gates;
    *info = got;
  }
  free(t.p), free(live), free(in_used), free(keep_ch), free(num), free(nl.nodes), free(nl.out);
  return rc;
}
