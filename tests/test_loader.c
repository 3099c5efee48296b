/* dlca_model_load on malformed input. Each case takes a small valid model
 * (dlca_model_new, saved), changes one field of its JSON with jansson, and
 * checks the status and the one-line message: the file path first, then the
 * JSON path of the offending field (doc/model-format.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <jansson.h>
#include "model/model_impl.h"
#include "util.h"

/* Removes a test's temporary directory; called only once the test passed,
 * so that a failure leaves its files for inspection. */
static void rm_tmpdir(const char *dir) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* The base model: C = 2, K = 2, perceive [9, 8, 4, 2], update [10, 8, 4, 2],
 * softmax-16 or IWP (4 logits per gate). */
static dlca_model *base_model_p(dlca_wiring wiring, const int *update, int n_update, dlca_parametrisation par) {
  dlca_model_shape s;
  memset(&s, 0, sizeof s);
  s.channels = 2, s.n_kernels = 2, s.periodic = 1;
  static const int p[] = {9, 8, 4, 2};
  static const int u[] = {10, 8, 4, 2};
  if (!update) update = u, n_update = 4;
  s.n_perceive_layers = 4;
  memcpy(s.perceive_layers, p, sizeof p);
  s.n_update_layers = n_update;
  memcpy(s.update_layers, update, sizeof(int) * (size_t)n_update);
  s.perceive_first_wiring = DLCA_WIRING_FIRST_KERNEL;
  s.wiring = wiring;
  s.parametrisation = par;
  dlca_model *m;
  ck_assert_msg(dlca_model_new(&s, 17, &m) == DLCA_OK, "%s", dlca_last_error());
  tu_random(m->params, m->n_params, -4, 4, 5);
  return m;
}

static dlca_model *base_model(dlca_wiring wiring, const int *update, int n_update) {
  return base_model_p(wiring, update, n_update, DLCA_PARAM_SOFTMAX16);
}

/* The base model as a jansson tree, through dlca_model_save (so the cases
 * start from exactly what the library writes). */
static json_t *base_json_p(const char *dir, dlca_parametrisation par) {
  char path[1100];
  snprintf(path, sizeof path, "%s/base.json", dir);
  dlca_model *m = base_model_p(DLCA_WIRING_UNIQUE, NULL, 0, par);
  ck_assert_int_eq(dlca_model_save(m, path), DLCA_OK);
  dlca_model_free(m);
  json_error_t err;
  json_t *root = json_load_file(path, 0, &err);
  ck_assert_msg(root != NULL, "%s", err.text);
  return root;
}

static json_t *base_json(const char *dir) { return base_json_p(dir, DLCA_PARAM_SOFTMAX16); }

/* Finds the parent of a path like "update.wires[3][0][17]" and the last step:
 * *key (object member) or *index (array element). */
static json_t *walk(json_t *root, const char *path, char *key, long *index) {
  json_t *cur = root, *parent = NULL;
  const char *p = path;
  key[0] = 0;
  *index = -1;
  while (*p) {
    parent = cur;
    if (*p == '[') {
      char *end;
      *index = strtol(p + 1, &end, 10);
      key[0] = 0;
      ck_assert_msg(*end == ']', "bad path %s", path);
      p = end + 1;
      cur = json_array_get(cur, (size_t)*index);
    } else {
      if (*p == '.') p++;
      size_t n = strcspn(p, ".[");
      memcpy(key, p, n);
      key[n] = 0;
      *index = -1;
      p += n;
      cur = json_object_get(cur, key);
    }
    ck_assert_msg(cur != NULL || !*p, "path %s does not exist in the base model", path);
  }
  return parent;
}

#define MARK "@@VALUE@@"

/* Replaces (value != NULL) or deletes (value == NULL) the field at path, or
 * appends it where the index is one past the end of an array; the
 * value is inserted as raw text, so that it can be any JSON or not JSON. */
static char *mutate(json_t *base, const char *path, const char *value) {
  json_t *root = json_deep_copy(base);
  char key[256];
  long index;
  json_t *parent = walk(root, path, key, &index);
  json_t *mark = json_string(MARK);
  if (key[0]) {
    if (value) json_object_set_new(parent, key, mark);
    else json_object_del(parent, key), json_decref(mark);
  } else {
    if (value && (size_t)index == json_array_size(parent)) json_array_append_new(parent, mark);
    else if (value) json_array_set_new(parent, (size_t)index, mark);
    else json_array_remove(parent, (size_t)index), json_decref(mark);
  }
  char *text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(9));
  json_decref(root);
  if (!value) return text;
  char *at = strstr(text, "\"" MARK "\"");
  ck_assert_ptr_nonnull(at);
  size_t head = (size_t)(at - text), ml = strlen(MARK) + 2, vl = strlen(value), tl = strlen(text);
  char *out = malloc(tl - ml + vl + 1);
  memcpy(out, text, head);
  memcpy(out + head, value, vl);
  memcpy(out + head + vl, at + ml, tl - head - ml + 1);
  free(text);
  return out;
}

/* JSON text of `depth` nested arrays around 1. */
static char *nested(int depth) {
  char *s = malloc((size_t)depth * 2 + 2);
  memset(s, '[', (size_t)depth);
  s[depth] = '1';
  memset(s + depth + 1, ']', (size_t)depth);
  s[2 * depth + 1] = 0;
  return s;
}

typedef struct loader_case {
  const char *name;
  const char *path;  /* the field to change; NULL: the file is `value` itself */
  const char *value; /* raw JSON text for it; NULL deletes the field */
  int rc;
  const char *msg;   /* must appear in dlca_last_error() */
} loader_case;

#define DEEP "@DEEP@"       /* value: 5000 nested arrays */
#define DEEP_OK "@DEEP_OK@" /* value: 500 nested arrays (within jansson's depth limit) */
#define TRUNC "@TRUNC@"     /* the file: the base model cut in half */
#define L16(x) "[" x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "]"
#define L15(x) "[" x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "]"

static const loader_case cases[] = {
    /* not JSON: EPARSE, "file:line:col: not valid JSON: ..." */
    {"empty file", NULL, "", DLCA_EPARSE, "not valid JSON"},
    {"only spaces", NULL, "  \n\t ", DLCA_EPARSE, "not valid JSON"},
    {"truncated", NULL, TRUNC, DLCA_EPARSE, "not valid JSON"},
    {"trailing garbage", NULL, "{\"format\": \"dlca-model\"} x", DLCA_EPARSE, "not valid JSON"},
    {"NaN logit", "update.logits[0][1][2]", "NaN", DLCA_EPARSE, "not valid JSON"},
    {"Infinity logit", "update.logits[0][1][2]", "Infinity", DLCA_EPARSE, "not valid JSON"},
    {"1e400 logit", "update.logits[0][1][2]", "1e400", DLCA_EPARSE, "not valid JSON"},
    {"integer overflow", "channels", "99999999999999999999999", DLCA_EPARSE, "not valid JSON"},
    {"deep nesting garbage", NULL, DEEP, DLCA_EPARSE, "not valid JSON"},
    {"deep nesting in a field", "perceive.n_kernels", DEEP, DLCA_EPARSE, "not valid JSON"},
    {"unterminated string", "format", "\"dlca-model", DLCA_EPARSE, "not valid JSON"},
    /* the top level */
    {"not an object", NULL, "[1, 2, 3]", DLCA_EMODEL, "expected a dlca-model object, found an array"},
    {"a number", NULL, "42", DLCA_EMODEL, "expected a dlca-model object, found an integer"},
    {"null", NULL, "null", DLCA_EMODEL, "expected a dlca-model object, found null"},
    {"wrong format", "format", "\"dlca-modle\"", DLCA_EMODEL, "format: expected \"dlca-model\""},
    {"format missing", "format", NULL, DLCA_EMODEL, "format: expected \"dlca-model\""},
    {"format not a string", "format", "1", DLCA_EMODEL, "format: expected \"dlca-model\""},
    {"version 2", "version", "2", DLCA_EMODEL, "version: 2 is not in [1, 1]"},
    {"version 0", "version", "0", DLCA_EMODEL, "version: 0 is not in [1, 1]"},
    {"version as string", "version", "\"1\"", DLCA_EMODEL, "version: expected an integer, found a string"},
    {"version missing", "version", NULL, DLCA_EMODEL, "version: missing"},
    {"channels as string", "channels", "\"2\"", DLCA_EMODEL, "channels: expected an integer, found a string"},
    {"channels real", "channels", "2.0", DLCA_EMODEL, "channels: expected an integer, found a real number"},
    {"channels 0", "channels", "0", DLCA_EMODEL, "channels: 0 is not in [1, 4096]"},
    {"channels negative", "channels", "-2", DLCA_EMODEL, "channels: -2 is not in [1, 4096]"},
    {"channels huge", "channels", "4097", DLCA_EMODEL, "channels: 4097 is not in [1, 4096]"},
    {"channels nested", "channels", DEEP_OK, DLCA_EMODEL, "channels: expected an integer, found an array"},
    {"channels disagree", "channels", "3", DLCA_EMODEL, "update.layers[0]: 10, but C + C*S*K = 3 + 3*2*2 = 15"},
    {"periodic as string", "periodic", "\"yes\"", DLCA_EMODEL, "periodic: expected true or false, found a string"},
    {"periodic as 1", "periodic", "1", DLCA_EMODEL, "periodic: expected true or false, found an integer"},
    {"periodic missing", "periodic", NULL, DLCA_EMODEL, "periodic: expected true or false, found nothing"},
    /* perceive */
    {"perceive missing", "perceive", NULL, DLCA_EMODEL, "perceive: expected an object, found nothing"},
    {"perceive an array", "perceive", "[]", DLCA_EMODEL, "perceive: expected an object, found an array"},
    {"update missing", "update", NULL, DLCA_EMODEL, "update: expected an object, found nothing"},
    {"n_kernels missing", "perceive.n_kernels", NULL, DLCA_EMODEL, "perceive.n_kernels: missing"},
    {"n_kernels 0", "perceive.n_kernels", "0", DLCA_EMODEL, "perceive.n_kernels: 0 is not in [1, 4096]"},
    {"n_kernels disagree", "perceive.n_kernels", "3", DLCA_EMODEL, "update.layers[0]: 10, but C + C*S*K = 2 + 2*2*3 = 14"},
    {"perceive.layers missing", "perceive.layers", NULL, DLCA_EMODEL, "perceive.layers: missing"},
    {"perceive.layers an object", "perceive.layers", "{}", DLCA_EMODEL, "perceive.layers: expected an array, found an object"},
    {"perceive.layers[0] != 9", "perceive.layers[0]", "8", DLCA_EMODEL, "perceive.layers[0]: 8, but a 3x3 patch has 9 inputs"},
    {"perceive.layers too short", "perceive.layers", "[9]", DLCA_EMODEL, "perceive.layers: needs 2 to 64 entries, has 1"},
    {"perceive.layers entry a string", "perceive.layers[2]", "\"4\"", DLCA_EMODEL, "perceive.layers[2]: expected an integer, found a string"},
    {"perceive.layers entry 0", "perceive.layers[2]", "0", DLCA_EMODEL, "perceive.layers[2]: 0 is not in [1, 65536]"},
    {"huge layer", "perceive.layers[1]", "100000", DLCA_EMODEL, "perceive.layers[1]: 100000 is not in [1, 65536]"},
    {"huge layer int64", "update.layers[1]", "9223372036854775807", DLCA_EMODEL, "update.layers[1]: 9223372036854775807 is not in [1, 65536]"},
    {"huge layer negative", "update.layers[1]", "-9223372036854775808", DLCA_EMODEL, "update.layers[1]: -9223372036854775808 is not in [1, 65536]"},
    {"huge layer real", "update.layers[1]", "1e300", DLCA_EMODEL, "update.layers[1]: expected an integer, found a real number"},
    /* update.layers */
    {"update.layers[0] != C + C*S*K", "update.layers[0]", "11", DLCA_EMODEL, "update.layers[0]: 11, but C + C*S*K = 2 + 2*2*2 = 10"},
    {"last update layer != C", "update.layers[3]", "3", DLCA_EMODEL, "update.layers[3]: the last layer has 3 gates, but channels is 2"},
    {"update.layers 65 entries", "update.layers",
     "[10,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,2]",
     DLCA_EMODEL, "update.layers: needs 2 to 64 entries, has 65"},
    /* wires */
    {"wire index out of range", "update.wires[0][0][3]", "10", DLCA_EMODEL, "update.wires[0][0][3]: index 10 >= layer input 10"},
    {"wire index far out of range", "update.wires[2][1][1]", "300", DLCA_EMODEL, "update.wires[2][1][1]: index 300 >= layer input 4"},
    {"negative wire index", "perceive.wires[1][1][2]", "-1", DLCA_EMODEL, "perceive.wires[1][1][2]: index -1 is negative"},
    {"wire index real", "perceive.wires[0][0][0]", "1.0", DLCA_EMODEL, "perceive.wires[0][0][0]: expected an integer, found a real number"},
    {"wire index null", "perceive.wires[0][1][7]", "null", DLCA_EMODEL, "perceive.wires[0][1][7]: expected an integer, found null"},
    {"wire array wrong length", "update.wires[1][0]", "[0]", DLCA_EMODEL, "update.wires[1][0]: 1 wires, but the layer has 4 gates"},
    {"wire array too long", "perceive.wires[2][1]", "[0,1,2]", DLCA_EMODEL, "perceive.wires[2][1]: 3 wires, but the layer has 2 gates"},
    {"wires not arrays", "update.wires[0]", "5", DLCA_EMODEL, "update.wires[0]: expected [[wa...], [wb...]], found an integer"},
    {"wires one side", "update.wires[0]", "[[0,1,2,3,4,5,6,7]]", DLCA_EMODEL, "update.wires[0]: expected [[wa...], [wb...]], found an array of the wrong length"},
    {"wires side an object", "update.wires[0][1]", "{}", DLCA_EMODEL, "update.wires[0][1]: expected an array, found an object"},
    {"wires an object", "update.wires", "{}", DLCA_EMODEL, "update.wires: expected an array, found an object"},
    {"wires missing", "perceive.wires", NULL, DLCA_EMODEL, "perceive.wires: missing"},
    {"extra layer in wires", "perceive.wires[3]", "[[0],[1]]", DLCA_EMODEL, "perceive.wires: 4 layers, but perceive.layers has 3"},
    {"missing layer in wires", "update.wires[2]", NULL, DLCA_EMODEL, "update.wires: 2 layers, but update.layers has 3"},
    /* logits */
    {"logits array wrong length", "update.logits[0]", "[]", DLCA_EMODEL, "update.logits[0]: 0 entries, but the layer has 8 gates"},
    {"logits layer a number", "update.logits[1]", "7", DLCA_EMODEL, "update.logits[1]: expected an array, found an integer"},
    {"a gate with 15 logits", "update.logits[1][2]", L15("0.5"), DLCA_EMODEL, "update.logits[1][2]: expected 16 logits, found an array of the wrong length"},
    {"a gate with 17 logits", "perceive.logits[1][0][3]", "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]", DLCA_EMODEL, "perceive.logits[1][0][3]: expected 16 logits, found an array of the wrong length"},
    {"a gate a number", "perceive.logits[0][0][0]", "5", DLCA_EMODEL, "perceive.logits[0][0][0]: expected 16 logits, found an integer"},
    {"a gate null", "update.logits[2][1]", "null", DLCA_EMODEL, "update.logits[2][1]: expected 16 logits, found null"},
    {"1e39 logit", "perceive.logits[0][1][2][5]", "1e39", DLCA_EMODEL, "perceive.logits[0][1][2][5]: logit 1e+39 is not finite in float32"},
    {"-1e39 logit", "update.logits[2][0][15]", "-1e39", DLCA_EMODEL, "update.logits[2][0][15]: logit -1e+39 is not finite in float32"},
    {"string logit", "update.logits[2][0][3]", "\"1\"", DLCA_EMODEL, "update.logits[2][0][3]: expected a number, found a string"},
    {"bool logit", "update.logits[2][0][0]", "true", DLCA_EMODEL, "update.logits[2][0][0]: expected a number, found a boolean"},
    {"wrong number of kernels", "perceive.logits[1][1]", NULL, DLCA_EMODEL, "perceive.logits[1]: 1 entries, but the layer has 2 kernels"},
    {"wrong gates in a kernel", "perceive.logits[2][1]", "[" L16("0") "]", DLCA_EMODEL, "perceive.logits[2][1]: 1 entries, but the layer has 2 gates"},
    {"extra layer in logits", "update.logits[3]", "[]", DLCA_EMODEL, "update.logits: 4 layers, but update.layers has 3"},
    {"perceive.logits missing", "perceive.logits", NULL, DLCA_EMODEL, "perceive.logits: missing"},
    {"update.logits a string", "update.logits", "\"x\"", DLCA_EMODEL, "update.logits: expected an array, found a string"},
    /* issue 6: a softmax-16 file that claims to be IWP */
    {"16 logits under iwp", "parametrisation", "\"iwp\"", DLCA_EMODEL, "perceive.logits[0][0][0]: expected 4 logits (parametrisation iwp), found an array of the wrong length"},
};

/* The same checks on an IWP model (issue 6): 4 logits per gate. */
static const loader_case iwp_cases[] = {
    {"parametrisation misspelt", "parametrisation", "\"IWP\"", DLCA_EMODEL, "parametrisation: \"IWP\" is not \"softmax16\" or \"iwp\""},
    {"parametrisation a number", "parametrisation", "1", DLCA_EMODEL, "parametrisation: expected \"softmax16\" or \"iwp\", found an integer"},
    {"parametrisation null", "parametrisation", "null", DLCA_EMODEL, "parametrisation: expected \"softmax16\" or \"iwp\", found null"},
    {"parametrisation dropped", "parametrisation", NULL, DLCA_EMODEL, "perceive.logits[0][0][0]: expected 16 logits, found an array of the wrong length"},
    {"iwp gate with 16 logits", "update.logits[1][2]", L16("0.5"), DLCA_EMODEL, "update.logits[1][2]: expected 4 logits (parametrisation iwp), found an array of the wrong length"},
    {"iwp gate with 3 logits", "perceive.logits[1][0][3]", "[1,2,3]", DLCA_EMODEL, "perceive.logits[1][0][3]: expected 4 logits (parametrisation iwp), found an array of the wrong length"},
    {"iwp gate with 5 logits", "update.logits[2][0]", "[1,2,3,4,5]", DLCA_EMODEL, "update.logits[2][0]: expected 4 logits (parametrisation iwp), found an array of the wrong length"},
    {"iwp gate a number", "update.logits[0][7]", "0", DLCA_EMODEL, "update.logits[0][7]: expected 4 logits (parametrisation iwp), found an integer"},
    {"iwp 1e39 logit", "perceive.logits[0][1][2][3]", "1e39", DLCA_EMODEL, "perceive.logits[0][1][2][3]: logit 1e+39 is not finite in float32"},
    {"iwp string logit", "update.logits[2][1][0]", "\"0\"", DLCA_EMODEL, "update.logits[2][1][0]: expected a number, found a string"},
    {"iwp NaN logit", "update.logits[0][1][2]", "NaN", DLCA_EPARSE, "not valid JSON"},
    {"iwp wrong gates", "update.logits[1]", "[[0,0,0,0]]", DLCA_EMODEL, "update.logits[1]: 1 entries, but the layer has 4 gates"},
};

/* The file for case c, written into dir. */
static const char *write_case(const char *dir, json_t *base, const loader_case *c, int i) {
  char *text;
  if (!c->path) {
    if (!strcmp(c->value, TRUNC)) {
      text = json_dumps(base, JSON_COMPACT);
      text[strlen(text) / 2] = 0;
    } else if (!strcmp(c->value, DEEP)) {
      text = nested(5000);
    } else {
      text = strdup(c->value);
    }
  } else if (c->value && !strcmp(c->value, DEEP)) {
    char *deep = nested(5000);
    text = mutate(base, c->path, deep);
    free(deep);
  } else if (c->value && !strcmp(c->value, DEEP_OK)) {
    char *deep = nested(500);
    text = mutate(base, c->path, deep);
    free(deep);
  } else {
    text = mutate(base, c->path, c->value);
  }
  char name[64];
  snprintf(name, sizeof name, "case%02d.json", i);
  const char *p = tu_write(dir, name, text);
  free(text);
  return p;
}

/* Every case of a table against one base model; returns the failures. */
static int run_cases(const char *dir, json_t *base, const loader_case *cs, size_t n) {
  int failures = 0;
  for (size_t i = 0; i < n; i++) {
    const loader_case *c = &cs[i];
    char path[1100];
    snprintf(path, sizeof path, "%s", write_case(dir, base, c, (int)i));
    dlca_model *m = (dlca_model *)&failures; /* must come back NULL */
    int rc = dlca_model_load(path, &m);
    const char *msg = dlca_last_error();
    int ok = rc == c->rc && m == NULL && !strncmp(msg, path, strlen(path)) && strstr(msg, c->msg) && !strchr(msg, '\n');
    if (!ok) {
      fprintf(stderr, "loader case '%s': got %s, expected %s\n  message: %s\n  expected to start with the path and contain: %s\n",
              c->name, dlca_strerror_name(rc), dlca_strerror_name(c->rc), msg, c->msg);
      failures++;
      if (rc == DLCA_OK && m != (dlca_model *)&failures) dlca_model_free(m);
    }
  }
  return failures;
}

START_TEST(test_malformed) {
  const char *dir = tu_tmpdir("loader");
  json_t *base = base_json(dir);
  int failures = run_cases(dir, base, cases, sizeof cases / sizeof *cases);
  json_decref(base);
  ck_assert_msg(failures == 0, "%d of %zu malformed-model cases failed (details on stderr)", failures,
                sizeof cases / sizeof *cases);
  rm_tmpdir(dir);
}
END_TEST

/* Issue 6: malformed IWP files, each named with its JSON path; and a valid
 * IWP file loads with 4 logits per gate. */
START_TEST(test_malformed_iwp) {
  const char *dir = tu_tmpdir("loader-iwp");
  json_t *base = base_json_p(dir, DLCA_PARAM_IWP);
  ck_assert_str_eq(json_string_value(json_object_get(base, "parametrisation")), "iwp");
  int failures = run_cases(dir, base, iwp_cases, sizeof iwp_cases / sizeof *iwp_cases);
  ck_assert_msg(failures == 0, "%d of %zu malformed IWP cases failed (details on stderr)", failures,
                sizeof iwp_cases / sizeof *iwp_cases);
  /* "softmax16" spelt out is the default; integers are fine as IWP logits */
  char *text = mutate(base, "update.logits[0][0]", "[-1,-2,3,4]");
  const char *p = tu_write(dir, "ok.json", text);
  free(text);
  dlca_model *m;
  ck_assert_msg(dlca_model_load(p, &m) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(dlca_model_params_per_gate(m), 4);
  ck_assert(m->params[m->update[0].offset] == -1.0f && m->params[m->update[0].offset + 3] == 4.0f);
  dlca_model_free(m);
  json_decref(base);
  base = base_json(dir);
  text = mutate(base, "parametrisation", "\"softmax16\"");
  p = tu_write(dir, "ok16.json", text);
  free(text);
  ck_assert_msg(dlca_model_load(p, &m) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(dlca_model_params_per_gate(m), 16);
  dlca_model_free(m);
  json_decref(base);
  rm_tmpdir(dir);
}
END_TEST

START_TEST(test_missing_file) {
  const char *dir = tu_tmpdir("loader-missing");
  char path[1100];
  snprintf(path, sizeof path, "%s/no-such-model.json", dir);
  dlca_model *m = (dlca_model *)&path;
  ck_assert_int_eq(dlca_model_load(path, &m), DLCA_EIO);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(dlca_last_error(), path) && !strchr(dlca_last_error(), '\n'), "%s", dlca_last_error());
  ck_assert_msg(strstr(dlca_last_error(), "No such file"), "%s", dlca_last_error());
  snprintf(path, sizeof path, "%s/no/such/dir/m.json", dir);
  ck_assert_int_eq(dlca_model_load(path, &m), DLCA_EIO);
  /* a directory cannot be read: EIO, not a JSON syntax error */
  ck_assert_int_eq(dlca_model_load(dir, &m), DLCA_EIO);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(dlca_last_error(), dir) && strstr(dlca_last_error(), "directory"), "%s", dlca_last_error());
  rm_tmpdir(dir);
}
END_TEST

START_TEST(test_valid_variants) {
  const char *dir = tu_tmpdir("loader-valid");
  json_t *base = base_json(dir);
  /* fields the format does not know are ignored; integers are fine as logits;
   * a gate may read one input twice; the first perception layer need not be
   * first_kernel-shaped once its wires are explicit */
  static const struct { const char *path, *value; } ok[] = {
      {"comment", "\"made by hand\""},
      {"update.logits[0][0]", "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]"},
      {"update.logits[0][1][0]", "-0.0"},
      {"update.logits[0][1][1]", "3.4028234e38"},
      {"update.logits[0][1][2]", "1e-45"},
      {"update.logits[0][1][3]", "1e-50"}, /* underflows to 0 in float32: finite, accepted */
      {"perceive.wires[0][0][0]", "4"},    /* (4, 4): reads the centre twice */
      {"perceive.wires[0][1][0]", "0"},
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    char *text = mutate(base, ok[i].path, ok[i].value);
    const char *p = tu_write(dir, "ok.json", text);
    free(text);
    dlca_model *m;
    ck_assert_msg(dlca_model_load(p, &m) == DLCA_OK, "%s = %s: %s", ok[i].path, ok[i].value, dlca_last_error());
    if (i == 1)
      for (int j = 0; j < 16; j++) ck_assert(m->params[m->update[0].offset + j] == (float)j);
    if (i == 2) ck_assert(signbit(m->params[m->update[0].offset + 16]));
    if (i == 5) ck_assert(m->params[m->update[0].offset + 16 + 3] == 0.0f);
    dlca_model_free(m);
  }
  json_decref(base);
  /* random wiring that breaks the unique rule (2G < N) is a valid model */
  static const int u[] = {10, 3, 2}; /* 2*3 < 10 */
  dlca_model *m = base_model(DLCA_WIRING_RANDOM, u, 3), *r;
  char path[1100];
  snprintf(path, sizeof path, "%s/random.json", dir);
  ck_assert_int_eq(dlca_model_save(m, path), DLCA_OK);
  ck_assert_msg(dlca_model_load(path, &r) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(!memcmp(m->update[0].wa, r->update[0].wa, sizeof(int32_t) * 3));
  ck_assert(!memcmp(m->params, r->params, sizeof(float) * m->n_params));
  dlca_model_free(m);
  dlca_model_free(r);
  rm_tmpdir(dir);
}
END_TEST

START_TEST(test_huge_shape) {
  /* A consistent shape of 17 GB of logits (4096 kernels of 65536 gates) whose
   * arrays are tiny: the file is invalid, and the loader must say so from
   * the array sizes instead of first asking for the memory. Under an address
   * space limit a loader that allocates first gets ENOMEM. */
  const char *dir = tu_tmpdir("loader-huge");
  json_t *root = base_json(dir);
  json_object_set_new(root, "channels", json_integer(1));
  json_t *P = json_object_get(root, "perceive"), *U = json_object_get(root, "update");
  json_object_set_new(P, "n_kernels", json_integer(4096));
  json_object_set_new(P, "layers", json_pack("[i,i,i]", 9, 65536, 1));
  json_object_set_new(P, "wires", json_pack("[[[i],[i]],[[i],[i]]]", 0, 4, 0, 1));
  json_object_set_new(P, "logits", json_pack("[[],[]]"));
  json_object_set_new(U, "layers", json_pack("[i,i]", 4097, 1));
  json_object_set_new(U, "wires", json_pack("[[[i],[i]]]", 0, 1));
  json_object_set_new(U, "logits", json_pack("[[[i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i]]]", 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  char *text = json_dumps(root, JSON_COMPACT);
  json_decref(root);
  const char *p = tu_write(dir, "huge.json", text);
  free(text);
#if !defined(__SANITIZE_ADDRESS__)
  struct rlimit old, lim;
  getrlimit(RLIMIT_AS, &old);
  lim = old;
  lim.rlim_cur = (rlim_t)4 << 30; /* 4 GiB */
  if (old.rlim_cur == RLIM_INFINITY || old.rlim_cur > lim.rlim_cur) setrlimit(RLIMIT_AS, &lim);
#endif
  dlca_model *m;
  int rc = dlca_model_load(p, &m);
#if !defined(__SANITIZE_ADDRESS__)
  setrlimit(RLIMIT_AS, &old);
#endif
  ck_assert_msg(rc == DLCA_EMODEL, "rc %s: %s", dlca_strerror_name(rc), dlca_last_error());
  ck_assert_msg(strstr(dlca_last_error(), "perceive.wires[0][0]: 1 wires, but the layer has 65536 gates"), "%s",
                dlca_last_error());
  rm_tmpdir(dir);
}
END_TEST

Suite *suite_loader(void) {
  Suite *s = suite_create("loader");
  TCase *tc = tcase_create("loader");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_malformed);
  tcase_add_test(tc, test_malformed_iwp);
  tcase_add_test(tc, test_missing_file);
  tcase_add_test(tc, test_valid_variants);
  tcase_add_test(tc, test_huge_shape);
  suite_add_tcase(s, tc);
  return s;
}
