/* Helpers of the ops suite: the vector directory and its files. */
#include "ops_util.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *to_dir(void) {
  const char *dir = getenv("DLCA_OPS_TESTDATA");
  if (!dir) dir = "../shared/testdata/ops";
  if (access(dir, R_OK | X_OK) != 0) {
    fprintf(stderr, "SKIP: ops vectors %s not found (shared/ absent?)\n", dir);
    return NULL;
  }
  return dir;
}

const char *to_path(const char *dir, const char *name) {
  static char buf[8][1024];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, 1024, "%s/%s", dir, name);
  return p;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void to_list_files(const char *dir, const char *prefix, to_list *out) {
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "%s: cannot open", dir);
  out->n = 0;
  out->path = NULL;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 5, ".json") || strncmp(e->d_name, prefix, strlen(prefix))) continue;
    out->path = realloc(out->path, sizeof(char *) * (out->n + 1));
    ck_assert_ptr_nonnull(out->path);
    out->path[out->n] = malloc(strlen(dir) + len + 2);
    sprintf(out->path[out->n++], "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (out->n) qsort(out->path, out->n, sizeof(char *), cmp);
}

void to_list_free(to_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->path[i]);
  free(l->path);
}
