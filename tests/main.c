/* The one Check runner: every suite of tests/suites.h. `tests/main SUITE...`
 * runs only the named suites. */
#include <stdlib.h>
#include <string.h>
#include "cl_util.h"
#include "suites.h"
#include "util.h"

#define DECLARE(name) Suite *suite_##name(void);
DLCA_TEST_SUITES(DECLARE)

int main(int argc, char **argv) {
  tcl_save_env();
  SRunner *sr = srunner_create(NULL);
#define ADD(name)                                                 \
  {                                                               \
    int want = argc < 2;                                          \
    for (int i = 1; i < argc; i++) want |= !strcmp(argv[i], #name); \
    if (want) srunner_add_suite(sr, suite_##name());              \
  }
  DLCA_TEST_SUITES(ADD)
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
