/* The tuning table's CLBlast section (lib/cl/clblast.c): crafted tables. */
#include "blas_util.h"

TCase *tb_tcase_tuning(void) {
  TCase *tc = tcase_create("tuning");
  return tc;
}
