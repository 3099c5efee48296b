/* libFuzzer: the tuning table loader (dlca__tuning_load, lib/cl/tuning.c)
 * on a file of the fuzzer's bytes; a table that loads is then asked for
 * every parameter it holds, under its own device names and others. */
#include "fuzz.h"
#include "cl/runtime.h"

static void look_up(const dlca__tuning_table *t) {
  static const char *types[] = {"cpu", "gpu", "accelerator", "", NULL};
  (void)dlca__tuning_matches(t, "pthread-cpu", "pocl 3.1");
  (void)dlca__tuning_matches(t, t->device, t->driver);
  for (size_t i = 0; i < t->n_entries; i++) {
    const dlca__tuning_entry *e = &t->entries[i];
    for (size_t k = 0; k < e->n_params; k++) {
      int v;
      const dlca__tuning_param *p = &e->params[k];
      (void)dlca__tuning_lookup(t, e->device, e->driver, e->vendor, p->stem, p->name, &v);
      (void)dlca__tuning_lookup_typed(t, "NVIDIA H100 80GB HBM3", "", "NVIDIA Corporation",
                                      types[k % 5], p->stem, p->name, &v);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("tuning.json", data, size);
  dlca__tuning_table t;
  int rc = dlca__tuning_load(path, &t);
  fuzz_check_refusal(rc, path);
  if (!rc) {
    look_up(&t);
    dlca__tuning_free(&t);
  }
  return 0;
}
