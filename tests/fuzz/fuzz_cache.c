/* libFuzzer: the binary cache's entry reader (dlca__cache_load,
 * lib/cl/cache.c) on a file of the fuzzer's bytes. The key asked for is a
 * hash key (dlca__cache_key_hash: its key text is the 8-byte hash) whose
 * hash is the one in the bytes' header (offset 16), so that the fuzzer is
 * not stopped by a key it cannot guess; a refused entry is deleted, and the
 * file is written again for every run. */
#include "fuzz.h"
#include "cl/runtime.h"

/* Seed mode: small entries, as dlca__cache_store writes them. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *dir = fuzz_seed_dir();
  if (!dir) return 0;
  static const unsigned char bin[] = "\x7f" "ELF not really a program binary";
  char p[1024];
  snprintf(p, sizeof p, "%s/small.clbin", dir);
  static const uint64_t h1 = 0x40125c70b224c7a1ull, h2 = 1;
  dlca__cache_id k1, k2;
  dlca__cache_key_hash(&k1, &h1);
  dlca__cache_key_hash(&k2, &h2);
  int rc = dlca__cache_store(p, &k1, bin, sizeof bin);
  snprintf(p, sizeof p, "%s/one-byte.clbin", dir);
  if (!rc) rc = dlca__cache_store(p, &k2, bin, 1);
  fuzz_seed_done(rc, "cache");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("entry.clbin", data, size);
  uint64_t key = 0;
  if (size >= 24) memcpy(&key, data + 16, 8);
  unsigned char *bin = NULL;
  size_t len = 0;
  dlca__cache_id k;
  dlca__cache_key_hash(&k, &key);
  if (dlca__cache_load(path, &k, &bin, &len) == 0) {
    if (len == 0 || len >= size) abort(); /* a payload, behind its header */
    if (memcmp(bin, data + (size - len), len) != 0) abort();
    free(bin);
  }
  return 0;
}
