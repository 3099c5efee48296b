/* Helpers of the ops suite: the vector directory and its files. */
#ifndef DLCA_TESTS_OPS_UTIL_H
#define DLCA_TESTS_OPS_UTIL_H
#include <stddef.h>

/* DLCA_OPS_TESTDATA, else ../shared/testdata/ops; NULL (and a SKIP message)
 * where it is absent. */
const char *to_dir(void);
/* dir/name (static buffer, rotates 8). */
const char *to_path(const char *dir, const char *name);

/* The .json files of dir whose names start with prefix, sorted. */
typedef struct to_list {
  size_t n;
  char **path;
} to_list;
void to_list_files(const char *dir, const char *prefix, to_list *out);
void to_list_free(to_list *l);
#include <check.h>
/* The test cases of tests/test_ops_ref.c, test_ops_fd.c and test_ops_cl.c. */
TCase *to_tcase_ref(void);
TCase *to_tcase_fd(void);
TCase *to_tcase_cl(void);
#endif
