/* libFuzzer: the dlca-net JSON loader (dlca_net_load, lib/net/json.c) on a
 * file of the fuzzer's bytes. A refusal must name the file; a network that
 * loads must save and load back with the same layers and parameters, bit
 * for bit. */
#include "fuzz.h"
#include "net/net_impl.h"

static void round_trip(const dlca_net *net) {
  const char *path = fuzz_write("back.json", (const uint8_t *)"", 0);
  dlca_net *back = NULL;
  if (dlca_net_save(net, path) != DLCA_OK || dlca_net_load(path, &back) != DLCA_OK) {
    fprintf(stderr, "fuzz: a loaded network does not save and load back: %s\n", dlca_last_error());
    abort();
  }
  if (back->n_layers != net->n_layers || back->n_params != net->n_params ||
      memcmp(back->params, net->params, net->n_params * sizeof(float)) != 0) {
    fprintf(stderr, "fuzz: a loaded network changes in the round trip\n");
    abort();
  }
  dlca_net_free(back);
}

/* Seed mode: the digits MLP and CNN as dlca_net_save writes them. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *dir = fuzz_seed_dir();
  if (!dir) return 0;
  int rc = 0;
  const char *models[] = {"mlp", "cnn"};
  for (int k = 0; k < 2 && !rc; k++) {
    dlca_net_spec s;
    dlca_net *net;
    char p[1024];
    snprintf(p, sizeof p, "%s/%s.json", dir, models[k]);
    if (!(rc = dlca_net_preset(models[k], &s)) && !(rc = dlca_net_new(&s, 1, &net))) {
      rc = dlca_net_save(net, p);
      dlca_net_free(net);
    }
  }
  fuzz_seed_done(rc, "net");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("net.json", data, size);
  char file[1100];
  snprintf(file, sizeof file, "%s", path); /* fuzz_write's buffer is reused */
  dlca_net *net = NULL;
  int rc = dlca_net_load(file, &net);
  fuzz_check_refusal(rc, file);
  if (!rc) {
    round_trip(net);
    dlca_net_free(net);
  }
  return 0;
}
