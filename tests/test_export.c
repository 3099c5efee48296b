/* dlca_model_export (lib/model/export.c) against its oracle, the float CPU
 * reference with hard gates: the exported C, compiled with the build's
 * compiler ($DLCA_CC) and run for T synchronous steps, must give the
 * reference's final state bit for bit, on fresh random circuits (random
 * logits, so that every op but FALSE and TRUE, and foldings, occur), random 0/1 grids,
 * periodic and zero boundaries, sync and async steps (explicit fire masks),
 * softmax-16 and IWP, and two presets. Where
 * Icarus Verilog is installed, the Verilog module must compute what the C
 * computes on random patches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* The C compiler of the build ($DLCA_CC, set by make check), else cc. */
static const char *compiler(void) {
  const char *cc = getenv("DLCA_CC");
  return cc && *cc ? cc : "cc";
}

/* In dir: the C program PROG.c and the Verilog testbench TOP.v (with
 * gen.v) must print the same text. */
static void same_output(const char *dir, const char *prog, const char *top, const char *what, const char *which) {
  char cmd[4000];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && %s -O1 -o %s %s.c && ./%s > %s.c.txt && iverilog -s %s -o %s.vvp %s.v gen.v && "
           "vvp -n %s.vvp > %s.v.txt && cmp -s %s.c.txt %s.v.txt",
           dir, compiler(), prog, prog, prog, prog, top, top, top, top, top, prog, top);
  ck_assert_msg(system(cmd) == 0, "%s: %s and the C differ, or a step failed: %s", what, which, cmd);
}

/* T steps; varied: the final state must hold both 0s and 1s (one step of a
 * random circuit does; several may die out, which still checks equality) */
static void check_c(const dlca_model *m, const int *keep, int n_keep, int H, int W, int T, uint64_t seed,
                    const char *what, int varied, int async) {
  dlca_model_shape s;
  dlca_model_get_shape(m, &s);
  const int C = s.channels;
  const size_t n = (size_t)H * W * C;
  float *x = malloc(sizeof(float) * n), *ref = malloc(sizeof(float) * n);
  uint8_t *xb = malloc(n), *got = malloc(n);
  ck_assert(x && ref && xb && got);
  for (size_t i = 0; i < n; i++) xb[i] = (uint8_t)(dlca_rng_u32(seed, 7, (uint32_t)i) >> 31), x[i] = xb[i];
  dlca_run run = dlca_run_default(1, H, W, T);
  /* async: random fire masks [T][H][W], about 60% ones, through run.fire_masks and fire.bin */
  uint8_t *masks = malloc((size_t)T * H * W);
  ck_assert(masks);
  for (size_t i = 0; i < (size_t)T * H * W; i++)
    masks[i] = async ? dlca_rng_u32(seed, 8, (uint32_t)i) < 0x9999999Au : 1;
  run.async = async, run.fire_masks = async ? masks : NULL;
  ck_assert_msg(dlca_ref_forward(m, &run, x, 1, NULL, ref, NULL) == DLCA_OK, "%s", dlca_last_error());

  const char *dir = tu_tmpdir("export");
  char path[1200], cmd[4000];
  snprintf(path, sizeof path, "%s/gen.h", dir);
  dlca_export_info info;
  ck_assert_msg(dlca_model_export(m, DLCA_EXPORT_C, "cell", keep, n_keep, path, &info) == DLCA_OK, "%s: %s", what,
                dlca_last_error());
  ck_assert_msg(info.logic_gates > 0 && info.logic_gates <= info.model_gates, "%s: %zu logic gates of %zu", what,
                info.logic_gates, info.model_gates);
  char harness[3000];
  snprintf(harness, sizeof harness,
           "#include <stdio.h>\n#include \"gen.h\"\n"
           "enum { H = %d, W = %d, T = %d, C = %d };\n"
           "static uint8_t a[H * W * C], b[H * W * C];\n"
           "int main(void) {\n"
           "  FILE *f = fopen(\"in.bin\", \"rb\");\n"
           "  if (!f || fread(a, 1, sizeof a, f) != sizeof a) return 1;\n"
           "  fclose(f);\n"
           "  static uint8_t fire[T * H * W];\n"
           "  f = fopen(\"fire.bin\", \"rb\");\n"
           "  if (!f || fread(fire, 1, sizeof fire, f) != sizeof fire) return 1;\n"
           "  fclose(f);\n"
           "  for (int t = 0; t < T; t++) {\n"
           "    if (%d) cell_step_async(H, W, a, fire + t * H * W, b); else cell_step(H, W, a, b);\n"
           "    memcpy(a, b, sizeof a);\n  }\n"
           "  f = fopen(\"out.bin\", \"wb\");\n"
           "  if (!f || fwrite(a, 1, sizeof a, f) != sizeof a) return 1;\n"
           "  return fclose(f) != 0;\n}\n",
           H, W, T, C, async);
  tu_write(dir, "harness.c", harness);
  snprintf(path, sizeof path, "%s/fire.bin", dir);
  FILE *fm = fopen(path, "wb");
  ck_assert(fm && fwrite(masks, 1, (size_t)T * H * W, fm) == (size_t)T * H * W && fclose(fm) == 0);
  snprintf(path, sizeof path, "%s/in.bin", dir);
  FILE *f = fopen(path, "wb");
  ck_assert(f && fwrite(xb, 1, n, f) == n && fclose(f) == 0);
  snprintf(cmd, sizeof cmd, "cd '%s' && %s -O1 -o prog harness.c && ./prog", dir, compiler());
  ck_assert_msg(system(cmd) == 0, "%s: compiling or running the exported C failed: %s", what, cmd);
  snprintf(path, sizeof path, "%s/out.bin", dir);
  f = fopen(path, "rb");
  ck_assert(f && fread(got, 1, n, f) == n);
  fclose(f);
  size_t diff = 0, ones = 0;
  /* with keep: the kept channels only */
  for (size_t i = 0; i < n; i++) {
    int kept = n_keep == 0;
    for (int j = 0; j < n_keep; j++) kept |= (int)(i % (size_t)C) == keep[j];
    if (kept) diff += got[i] != (uint8_t)ref[i], ones += got[i];
  }
  ck_assert_msg(diff == 0, "%s: %zu of %zu state values differ from the reference", what, diff, n);
  ck_assert_msg(!varied || (ones > 0 && ones < n), "%s: a constant final state (%zu ones of %zu) tests little", what,
                ones, n);
  free(x), free(ref), free(xb), free(got), free(masks);
}

/* Random logits, but no gate FALSE or TRUE: random ops would fold most
 * circuits to a constant within a few layers, which tests little. */
static void randomise(dlca_model *m, uint64_t seed) {
  const int npg = dlca_model_params_per_gate(m);
  float *l = dlca_model_params(m);
  const size_t n = dlca_model_n_params(m);
  tu_random(l, n, -3.0f, 3.0f, seed);
  for (size_t g = 0; g < n; g += (size_t)npg) {
    if (npg == 16) l[g] = l[g + 15] = -5.0f;
    else if ((l[g] > 0) == (l[g + 1] > 0) && (l[g] > 0) == (l[g + 2] > 0) && (l[g] > 0) == (l[g + 3] > 0))
      l[g] = -l[g];
  }
}

/* The Verilog cell module against the exported C on random patches and,
 * with grid, the Verilog grid module against the C grid step for 3 steps
 * of a random 5x7 grid; where Icarus Verilog is installed (the C against
 * the reference: check_c). */
static void check_verilog(const dlca_model *m, uint64_t seed, const char *what, int grid) {
  if (system("command -v iverilog >/dev/null 2>&1 && command -v vvp >/dev/null 2>&1") != 0) return;
  dlca_model_shape s;
  dlca_model_get_shape(m, &s);
  const int C = s.channels, NP = 256;
  const char *dir = tu_tmpdir("export-v");
  char path[1200];
  snprintf(path, sizeof path, "%s/gen.h", dir);
  ck_assert_msg(dlca_model_export(m, DLCA_EXPORT_C, "cell", NULL, 0, path, NULL) == DLCA_OK, "%s", dlca_last_error());
  snprintf(path, sizeof path, "%s/gen.v", dir);
  ck_assert_msg(dlca_model_export(m, DLCA_EXPORT_VERILOG, "cell", NULL, 0, path, NULL) == DLCA_OK, "%s",
                dlca_last_error());
  /* patches.txt: one 9C-bit vector a line, bit 9C - 1 first ($readmemb's order) */
  snprintf(path, sizeof path, "%s/patches.txt", dir);
  FILE *f = fopen(path, "w");
  ck_assert(f);
  for (int p = 0; p < NP; p++) {
    for (int j = 9 * C - 1; j >= 0; j--) fputc('0' + (int)(dlca_rng_u32(seed, (uint32_t)p, (uint32_t)j) >> 31), f);
    fputc('\n', f);
  }
  ck_assert(fclose(f) == 0);
  char src[2000];
  snprintf(src, sizeof src,
           "#include <stdio.h>\n#include \"gen.h\"\n"
           "int main(void) {\n  char line[%d];\n  FILE *f = fopen(\"patches.txt\", \"r\");\n"
           "  while (f && fscanf(f, \"%%%ds\", line) == 1) {\n"
           "    uint64_t in[%d] = {0}, out[%d];\n"
           "    for (int j = 0; j < %d; j++) in[j] = (uint64_t)(line[%d - 1 - j] - '0');\n"
           "    cell_cells64(in, out);\n"
           "    for (int c = %d - 1; c >= 0; c--) putchar('0' + (int)(out[c] & 1));\n"
           "    putchar('\\n');\n  }\n  return 0;\n}\n",
           9 * C + 2, 9 * C + 1, 9 * C, C, 9 * C, 9 * C, C);
  tu_write(dir, "c.c", src);
  snprintf(src, sizeof src,
           "module tb;\n  reg [%d:0] mem [0:%d];\n  reg [%d:0] in;\n  wire [%d:0] out;\n  integer i;\n"
           "  cell_cell dut (.in(in), .out(out));\n"
           "  initial begin\n    $readmemb(\"patches.txt\", mem);\n"
           "    for (i = 0; i < %d; i = i + 1) begin in = mem[i]; #1 $display(\"%%b\", out); end\n"
           "  end\nendmodule\n",
           9 * C - 1, NP - 1, 9 * C - 1, C - 1, NP);
  tu_write(dir, "tb.v", src);
  same_output(dir, "c", "tb", what, "the Verilog module");
  if (!grid) return;
  enum { GH = 5, GW = 7, GT = 3 };
  const int N = GH * GW * C;
  snprintf(path, sizeof path, "%s/init.txt", dir);
  f = fopen(path, "w");
  ck_assert(f);
  for (int j = N - 1; j >= 0; j--) fputc('0' + (int)(dlca_rng_u32(seed, 9, (uint32_t)j) >> 31), f);
  ck_assert(fputc('\n', f) != EOF && fclose(f) == 0);
  snprintf(src, sizeof src,
           "#include <stdio.h>\n#include \"gen.h\"\n"
           "int main(void) {\n  static char line[%d + 2];\n  static uint8_t a[%d], b[%d];\n"
           "  FILE *f = fopen(\"init.txt\", \"r\");\n  if (!f || fscanf(f, \"%%%ds\", line) != 1) return 1;\n"
           "  for (int j = 0; j < %d; j++) a[j] = (uint8_t)(line[%d - 1 - j] - '0');\n"
           "  for (int t = 0; t < %d; t++) { cell_step(%d, %d, a, b); memcpy(a, b, sizeof a); }\n"
           "  for (int j = %d - 1; j >= 0; j--) putchar('0' + a[j]);\n  putchar('\\n');\n  return 0;\n}\n",
           N, N, N, N + 1, N, N, (int)GT, (int)GH, (int)GW, N);
  tu_write(dir, "g.c", src);
  snprintf(src, sizeof src,
           "module tbg;\n  reg clk = 0, load = 1;\n  reg [%d:0] m [0:0];\n  wire [%d:0] state;\n  integer t;\n"
           "  cell_grid #(.HEIGHT(%d), .WIDTH(%d)) g (.clk(clk), .load(load), .init(m[0]), .state(state));\n"
           "  initial begin\n    $readmemb(\"init.txt\", m);\n    #1 clk = 1; #1 clk = 0; load = 0;\n"
           "    for (t = 0; t < %d; t = t + 1) begin #1 clk = 1; #1 clk = 0; end\n"
           "    $display(\"%%b\", state);\n  end\nendmodule\n",
           N - 1, N - 1, (int)GH, (int)GW, (int)GT);
  tu_write(dir, "tbg.v", src);
  same_output(dir, "g", "tbg", what, "the Verilog grid");
}

static dlca_model *random_model(const dlca_model_shape *s, uint64_t seed) {
  dlca_model *m;
  ck_assert_msg(dlca_model_new(s, seed, &m) == DLCA_OK, "%s", dlca_last_error());
  randomise(m, seed ^ 0xE4B0u);
  return m;
}

START_TEST(test_export_small) {
  /* _i: bit 0 periodic, bit 1 IWP, bit 2 a one-output perception stack */
  dlca_model_shape s = tu_small_shape(3, 3, (_i >> 2) & 1, _i & 1, 1, DLCA_WIRING_RANDOM);
  s.parametrisation = (_i >> 1) & 1 ? DLCA_PARAM_IWP : DLCA_PARAM_SOFTMAX16;
  dlca_model *m = random_model(&s, 200 + (uint64_t)_i);
  char what[64];
  snprintf(what, sizeof what, "small case %d", _i);
  check_c(m, NULL, 0, 9, 7, 1, 300 + (uint64_t)_i, what, 1, 0); /* 63 cells: one 64-cell word, not full */
  check_c(m, NULL, 0, 9, 7, 3, 310 + (uint64_t)_i, what, 0, 0);
  const int keep = _i % 3;
  check_c(m, &keep, 1, 9, 7, 3, 330 + (uint64_t)_i, what, 0, 0);
  check_c(m, NULL, 0, 9, 7, 2, 340 + (uint64_t)_i, what, 0, 1);
  check_verilog(m, 320 + (uint64_t)_i, what, 1);
  dlca_model_free(m);
}
END_TEST

START_TEST(test_export_presets) {
  static const char *const names[] = {"gol", "checkerboard"};
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new_preset(names[_i], 11, &m), DLCA_OK);
  randomise(m, 0xE4B1u + (uint64_t)_i);
  check_c(m, NULL, 0, 12, 11, 1, 400 + (uint64_t)_i, names[_i], 1, 0); /* 132 cells: three words */
  check_c(m, NULL, 0, 12, 11, 3, 410 + (uint64_t)_i, names[_i], 0, 0);
  const int keep = 0;
  check_c(m, &keep, 1, 12, 11, 3, 430 + (uint64_t)_i, names[_i], 0, 0);
  check_c(m, NULL, 0, 12, 11, 1, 440 + (uint64_t)_i, names[_i], 1, 1);
  check_verilog(m, 420 + (uint64_t)_i, names[_i], 0);
  dlca_model_free(m);
}
END_TEST

START_TEST(test_export_folding) {
  /* every gate pass-through A: the cell's output is its centre, and no logic is left */
  dlca_model *m;
  ck_assert_int_eq(dlca_model_new_preset("checkerboard", 1, &m), DLCA_OK);
  dlca_export_info info;
  const char *dir = tu_tmpdir("export-fold");
  char path[1200];
  snprintf(path, sizeof path, "%s/a.v", dir);
  ck_assert_int_eq(dlca_model_export(m, DLCA_EXPORT_VERILOG, "a", NULL, 0, path, &info), DLCA_OK);
  ck_assert_uint_eq(info.logic_gates, 0);
  ck_assert_uint_eq(info.const_outputs, 0);
  ck_assert_uint_le(info.inputs_used, 8);
  ck_assert_uint_eq(info.model_gates, 16 * 14 * 8 + 2816);
  /* bad names and formats: EINVAL, and no file */
  snprintf(path, sizeof path, "%s/b.c", dir);
  ck_assert_int_eq(dlca_model_export(m, DLCA_EXPORT_C, "9lives", NULL, 0, path, NULL), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "9lives"), "%s", dlca_last_error());
  ck_assert_int_eq(dlca_model_export(m, DLCA_EXPORT_C, "a-b", NULL, 0, path, NULL), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_export(m, (dlca_export_format)7, "a", NULL, 0, path, NULL), DLCA_EINVAL);
  ck_assert_int_eq(dlca_model_export(NULL, DLCA_EXPORT_C, "a", NULL, 0, path, NULL), DLCA_EINVAL);
  const int bad_keep[2] = {0, 8};
  ck_assert_int_eq(dlca_model_export(m, DLCA_EXPORT_C, "a", bad_keep, 2, path, NULL), DLCA_EINVAL);
  ck_assert_msg(strstr(dlca_last_error(), "channel 8"), "%s", dlca_last_error());
  ck_assert_int_eq(dlca_model_export(m, DLCA_EXPORT_C, "a", NULL, 1, path, NULL), DLCA_EINVAL);
  ck_assert_msg(fopen(path, "r") == NULL, "a failed export left %s", path);
  snprintf(path, sizeof path, "%s/no/such/dir/c.c", dir);
  ck_assert_int_eq(dlca_model_export(m, DLCA_EXPORT_C, "a", NULL, 0, path, NULL), DLCA_EIO);
  /* pass-through everywhere, keeping channel 2: each output is one patch bit, so the kept channels
   * are a chain from channel 2, and every other output is the constant 0 */
  const int keep2 = 2;
  snprintf(path, sizeof path, "%s/k.c", dir);
  ck_assert_int_eq(dlca_model_export(m, DLCA_EXPORT_C, "a", &keep2, 1, path, &info), DLCA_OK);
  ck_assert_uint_ge(info.channels_kept, 1);
  ck_assert_uint_eq(info.const_outputs, 8 - info.channels_kept);
  ck_assert_uint_eq(info.inputs_used, info.channels_kept);
  dlca_model_free(m);
}
END_TEST

Suite *suite_export(void) {
  Suite *s = suite_create("export");
  TCase *tc = tcase_create("ref");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_export_small, 0, 8);
  tcase_add_loop_test(tc, test_export_presets, 0, 2);
  tcase_add_test(tc, test_export_folding);
  suite_add_tcase(s, tc);
  return s;
}
