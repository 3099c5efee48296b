/* libFuzzer: the target image reader (dlca__image_load, lib/recipe/image.c: PNG
 * through libpng, PBM P1/P4 parsed by hand) on a file of the fuzzer's
 * bytes. A refusal must give a reason; an image must be in range. Seed
 * mode writes dlca-train's built-in targets (lib/recipe/builtin.c) as PBM P1
 * and P4 (ink where alpha is set) and as PNG, RGBA and RGB. */
#include <png.h>
#include "fuzz.h"
#include "recipe/builtin.h"

static int write_pbm(const char *path, const dlca__image *im, int binary) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  fprintf(f, "P%c\n# dlca fuzz seed\n%d %d\n", binary ? '4' : '1', im->width, im->height);
  for (int r = 0; r < im->height; r++) {
    unsigned char bits[64] = {0};
    for (int q = 0; q < im->width; q++) {
      int v = im->rgba[((size_t)r * (size_t)im->width + (size_t)q) * 4 + 3] > 0.5f;
      if (binary) bits[q / 8] |= (unsigned char)(v << (7 - q % 8));
      else fprintf(f, "%d%c", v, q + 1 < im->width ? ' ' : '\n');
    }
    if (binary) fwrite(bits, 1, ((size_t)im->width + 7) / 8, f);
  }
  return fclose(f);
}

static int write_png(const char *path, const dlca__image *im, int alpha) {
  size_t ch = alpha ? 4 : 3, n = (size_t)im->width * (size_t)im->height;
  unsigned char *px = malloc(n * ch);
  if (!px) return -1;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < ch; k++) px[i * ch + k] = (unsigned char)(im->rgba[i * 4 + k] * 255.0f + 0.5f);
  png_image png;
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = (png_uint_32)im->width, png.height = (png_uint_32)im->height;
  png.format = alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
  int ok = png_image_write_to_file(&png, path, 0, px, 0, NULL);
  free(px);
  return ok ? 0 : -1;
}

static int write_seeds(const char *dir, const char *name, int (*draw)(dlca__image *)) {
  dlca__image im;
  char p[1024];
  if (draw(&im)) return -1;
  int rc = 0;
  snprintf(p, sizeof p, "%s/%s-p1.pbm", dir, name), rc |= write_pbm(p, &im, 0);
  snprintf(p, sizeof p, "%s/%s-p4.pbm", dir, name), rc |= write_pbm(p, &im, 1);
  snprintf(p, sizeof p, "%s/%s-rgba.png", dir, name), rc |= write_png(p, &im, 1);
  snprintf(p, sizeof p, "%s/%s-rgb.png", dir, name), rc |= write_png(p, &im, 0);
  dlca__image_free(&im);
  return rc;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *dir = fuzz_seed_dir();
  if (!dir) return 0;
  if (write_seeds(dir, "lizard", dlca__builtin_lizard) || write_seeds(dir, "mushroom", dlca__builtin_mushroom)) {
    fprintf(stderr, "fuzz: cannot write the image seeds into %s\n", dir);
    exit(1);
  }
  exit(0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("target.img", data, size);
  dlca__image img;
  memset(&img, 0, sizeof img);
  int rc = dlca__image_load(path, &img);
  if (rc != 0) { /* a refusal names the file and says why */
    if (rc != DLCA_EIO && rc != DLCA_EPARSE && rc != DLCA_ENOMEM) abort();
    if (!strstr(dlca_last_error(), path)) abort();
    return 0;
  }
  if (img.width < 1 || img.height < 1 || !img.rgba) abort();
  for (size_t i = 0; i < (size_t)img.width * (size_t)img.height * 4; i++)
    if (!(img.rgba[i] >= 0.0f && img.rgba[i] <= 1.0f)) abort();
  dlca__image_free(&img);
  return 0;
}
