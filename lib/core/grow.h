/* The grow-by-doubling array of the library and the tools (header-only:
 * tools/cli.h includes it without linking anything of the library's). */
#ifndef DLCA_CORE_GROW_H
#define DLCA_CORE_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* An array of elem-byte items p (capacity *cap) with room for need: p
 * itself, or p grown by doubling from first; NULL when out of memory (or
 * past SIZE_MAX), p and *cap then unchanged. */
static inline void *dlca__grow(void *p, size_t *cap, size_t need, size_t elem, size_t first) {
  if (need <= *cap) return p;
  size_t c = *cap ? *cap : first;
  while (c < need)
    if (c > SIZE_MAX / 2) return NULL;
    else c *= 2;
  if (c > SIZE_MAX / elem) return NULL;
  void *q = realloc(p, c * elem);
  if (q) *cap = c;
  return q;
}

#endif
