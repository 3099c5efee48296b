/* Built-in target images (see builtin.h), as character art. */
#include <stdlib.h>
#include <string.h>
#include "recipe/builtin.h"

static const char *const lizard[20] = {
    "....................",
    ".........##.........",
    "........####........",
    "........####........",
    ".........##.........",
    "...#....####....#...",
    "....#..######..#....",
    ".....##########.....",
    "........####........",
    "........####........",
    "........####........",
    ".....##########.....",
    "....#..######..#....",
    "...#....####....#...",
    ".........##.........",
    ".........##.........",
    "..........##........",
    "...........##.......",
    "............###.....",
    "....................",
};

static const char *const mushroom[16] = {
    "................",
    ".....rrrrrr.....",
    "...rrwwrrrrrr...",
    "..rrwwwwrrwwrr..",
    ".rrrwwwwrrwwwrr.",
    ".rrrrwwrrrrwwrr.",
    "rrwwrrrrrrrrrrrr",
    "rwwwwrrrwwrrrwwr",
    "rrwwrrrwwwwrrrrr",
    ".rrrrrrrwwrrrrr.",
    ".....ssssss.....",
    ".....sksssk.....",
    ".....ssssss.....",
    "..g..ssssss..g..",
    ".ggg.ssssss.ggg.",
    "gggggggggggggggg",
};

typedef struct swatch {
  char key;
  float rgba[4];
} swatch;

static const swatch palette[] = {
    {'.', {0, 0, 0, 1}},          {'#', {1, 1, 1, 1}},          {'r', {0.86f, 0.08f, 0.10f, 1}},
    {'w', {1, 1, 1, 1}},          {'s', {0.96f, 0.87f, 0.70f, 1}}, {'k', {0.10f, 0.10f, 0.10f, 1}},
    {'g', {0.20f, 0.70f, 0.25f, 1}},
};

static int draw(const char *const *rows, int side, int transparent_background, dlca__image *out) {
  memset(out, 0, sizeof *out);
  out->rgba = calloc((size_t)side * side * 4, sizeof(float));
  if (!out->rgba) return -1;
  out->width = out->height = side;
  out->has_alpha = transparent_background;
  for (int r = 0; r < side; r++)
    for (int q = 0; q < side; q++) {
      float *px = out->rgba + ((size_t)r * side + q) * 4;
      char key = rows[r][q];
      for (size_t i = 0; i < sizeof palette / sizeof palette[0]; i++)
        if (palette[i].key == key) memcpy(px, palette[i].rgba, sizeof palette[i].rgba);
      if (transparent_background && key == '.') px[3] = 0;
    }
  return 0;
}

int dlca__builtin_lizard(dlca__image *out) { return draw(lizard, 20, 1, out); }
int dlca__builtin_mushroom(dlca__image *out) { return draw(mushroom, 16, 0, out); }
