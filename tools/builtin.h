/* The target images dlca-train uses when --target is not given, drawn in
 * source so that the tool works with no data files. */
#ifndef DLCA_TOOLS_BUILTIN_H
#define DLCA_TOOLS_BUILTIN_H

#include "image.h"

/* A 20x20 lizard seen from above, for the growth preset: ink opaque white,
 * background transparent. Returns -1 only when out of memory. */
int builtin_lizard(image *out);
/* A 16x16 red-and-white mushroom on grass, for the colour preset: opaque,
 * black background (the colour preset starts from all zeros). */
int builtin_mushroom(image *out);

#endif
