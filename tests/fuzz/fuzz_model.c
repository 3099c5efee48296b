/* libFuzzer: the dlca-model JSON loader (dlca_model_load, lib/model/json.c)
 * on a file of the fuzzer's bytes. A model that loads must survive the
 * round trip through dlca__model_to_json unchanged; a refusal must name
 * the file. */
#include "fuzz.h"
#include "model/model_impl.h"

static void round_trip(const dlca_model *m) {
  json_t *j = dlca__model_to_json(m);
  dlca_model *back = NULL;
  if (!j || dlca__model_from_json(j, "round trip", &back) != DLCA_OK) {
    fprintf(stderr, "fuzz: a loaded model does not load back: %s\n", dlca_last_error());
    abort();
  }
  size_t n = dlca_model_n_params(m);
  if (dlca_model_n_params(back) != n ||
      memcmp(dlca_model_params_const(m), dlca_model_params_const(back), n * sizeof(float)) != 0) {
    fprintf(stderr, "fuzz: a loaded model changes in the round trip\n");
    abort();
  }
  dlca_model_free(back);
  json_decref(j);
}

/* Seed mode: a small model in either parametrisation, as dlca_model_save
 * writes it. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *dir = fuzz_seed_dir();
  if (!dir) return 0;
  int rc = 0;
  for (int par = 0; par < 2 && !rc; par++) {
    dlca_model_shape s = fuzz_small_shape(par ? DLCA_PARAM_IWP : DLCA_PARAM_SOFTMAX16);
    dlca_model *m;
    char p[1024];
    snprintf(p, sizeof p, "%s/small-%s.json", dir, dlca_parametrisation_name(par));
    if (!(rc = dlca_model_new(&s, 1, &m))) {
      rc = dlca_model_save(m, p);
      dlca_model_free(m);
    }
  }
  fuzz_seed_done(rc, "model");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("model.json", data, size);
  dlca_model *m = NULL;
  int rc = dlca_model_load(path, &m);
  fuzz_check_refusal(rc, path);
  if (!rc) {
    round_trip(m);
    dlca_model_free(m);
  }
  return 0;
}
