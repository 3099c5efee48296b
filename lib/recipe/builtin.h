/* The target images of growth and colour when none is given, drawn in
 * source so that the library works with no data files. Internal. */
#ifndef DLCA_RECIPE_BUILTIN_H
#define DLCA_RECIPE_BUILTIN_H

#include "recipe/image.h"

/* A 20x20 lizard seen from above, for the growth preset: ink opaque white,
 * background transparent. Returns -1 only when out of memory. */
int dlca__builtin_lizard(dlca__image *out);
/* A 16x16 red-and-white mushroom on grass, for the colour preset: opaque,
 * black background (the colour preset starts from all zeros). */
int dlca__builtin_mushroom(dlca__image *out);

#endif
