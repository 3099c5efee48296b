/* Animated GIFs through giflib (gif.h). giflib compresses (LZW) into a
 * memory buffer, which outfile_write puts on the disk whole. Colours: the
 * frames' own when they have at most 256 (a hard rollout has a few), else a
 * 6x6x6 cube. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gif.h"

int gif_zoom(const gif_options *o, int H, int W) {
  if (o->zoom > 0) return o->zoom;
  int side = H > W ? H : W;
  return side >= 256 ? 1 : 256 / side;
}

#ifndef HAVE_GIF

int gif_available(void) { return 0; }

int gif_save(const strip *s, const char *path, const gif_options *o, char *err, size_t n) {
  snprintf(err, n, "this build lacks giflib (install libgif-dev and run configure again)");
  return -1;
}

#else

#include <gif_lib.h>
#include "cli.h"
#include "outfile.h"

int gif_available(void) { return 1; }

typedef struct membuf {
  unsigned char *p;
  size_t len, cap;
  int oom;
} membuf;

static int put_bytes(GifFileType *g, const GifByteType *b, int len) {
  membuf *m = g->UserData;
  unsigned char *p = dlca__grow(m->p, &m->cap, m->len + (size_t)len, 1, 1 << 16);
  if (!p) {
    m->oom = 1;
    return 0;
  }
  m->p = p;
  memcpy(m->p + m->len, b, (size_t)len);
  m->len += (size_t)len;
  return len;
}

/* The palette: the frames' distinct colours, or the 216-colour cube when
 * there are more than 256. Returns the colour count. */
static int build_palette(const strip *s, GifColorType *pal, int *cube) {
  const size_t cells = (size_t)s->n * s->height * s->width;
  int count = 0, last = -1;
  *cube = 0;
  for (size_t i = 0; i < cells; i++) {
    const unsigned char *c = s->cells + 3 * i;
    if (last >= 0 && pal[last].Red == c[0] && pal[last].Green == c[1] && pal[last].Blue == c[2]) continue;
    for (last = 0; last < count; last++)
      if (pal[last].Red == c[0] && pal[last].Green == c[1] && pal[last].Blue == c[2]) break;
    if (last < count) continue;
    if (count == 256) {
      *cube = 1;
      break;
    }
    pal[count].Red = c[0], pal[count].Green = c[1], pal[count].Blue = c[2];
    last = count++;
  }
  if (!*cube) return count;
  for (int i = 0; i < 216; i++) {
    pal[i].Red = (GifByteType)(i / 36 * 51);
    pal[i].Green = (GifByteType)(i / 6 % 6 * 51);
    pal[i].Blue = (GifByteType)(i % 6 * 51);
  }
  return 216;
}

static int colour_index(const unsigned char *c, const GifColorType *pal, int count, int cube) {
  if (cube) return (c[0] + 25) / 51 * 36 + (c[1] + 25) / 51 * 6 + (c[2] + 25) / 51;
  for (int i = 0; i < count; i++)
    if (pal[i].Red == c[0] && pal[i].Green == c[1] && pal[i].Blue == c[2]) return i;
  return 0;
}

/* NETSCAPE2.0: loop forever. */
static int put_loop(GifFileType *g) {
  static const GifByteType app[] = "NETSCAPE2.0", loop[] = {1, 0, 0};
  return EGifPutExtensionLeader(g, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
                 EGifPutExtensionBlock(g, 11, app) == GIF_OK && EGifPutExtensionBlock(g, 3, loop) == GIF_OK &&
                 EGifPutExtensionTrailer(g) == GIF_OK
             ? GIF_OK
             : GIF_ERROR;
}

/* Frame i: its delay, then its rows, each cell index repeated zoom times. */
static int put_frame(GifFileType *g, const strip *s, int i, int zoom, int delay_ms, const GifColorType *pal,
                     int count, int cube, GifPixelType *row, GifPixelType *line) {
  GraphicsControlBlock gcb = {DISPOSAL_UNSPECIFIED, false, (delay_ms + 5) / 10, NO_TRANSPARENT_COLOR};
  GifByteType ext[4];
  EGifGCBToExtension(&gcb, ext);
  const int W = s->width * zoom, H = s->height * zoom;
  if (EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, 4, ext) != GIF_OK ||
      EGifPutImageDesc(g, 0, 0, W, H, false, NULL) != GIF_OK)
    return GIF_ERROR;
  const unsigned char *f = s->cells + (size_t)i * s->height * s->width * 3;
  for (int y = 0; y < s->height; y++) {
    for (int x = 0; x < s->width; x++)
      row[x] = (GifPixelType)colour_index(f + ((size_t)y * s->width + x) * 3, pal, count, cube);
    for (int x = 0; x < W; x++) line[x] = row[x / zoom];
    for (int k = 0; k < zoom; k++)
      if (EGifPutLine(g, line, W) != GIF_OK) return GIF_ERROR;
  }
  return GIF_OK;
}

/* The screen, the loop and every frame into g. 0, or -1 with giflib's
 * code in *code. */
static int encode(GifFileType *g, const strip *s, const gif_options *o, int zoom, int *code) {
  GifColorType pal[256];
  memset(pal, 0, sizeof pal);
  int cube, count = build_palette(s, pal, &cube);
  ColorMapObject *map = GifMakeMapObject(1 << GifBitSize(count), pal);
  GifPixelType *row = malloc((size_t)s->width), *line = malloc((size_t)s->width * zoom);
  int ok = map && row && line;
  if (!ok) *code = E_GIF_ERR_NOT_ENOUGH_MEM;
  EGifSetGifVersion(g, true);
  if (ok) ok = EGifPutScreenDesc(g, s->width * zoom, s->height * zoom, GifBitSize(count), 0, map) == GIF_OK;
  if (ok) ok = put_loop(g) == GIF_OK;
  for (int i = 0; i < s->n && ok; i++) {
    int delay = i == s->n - 1 && o->hold_ms > o->delay_ms ? o->hold_ms : o->delay_ms;
    ok = put_frame(g, s, i, zoom, delay, pal, count, cube, row, line) == GIF_OK;
  }
  if (!ok && !*code) *code = g->Error;
  GifFreeMapObject(map);
  free(row), free(line);
  return ok ? 0 : -1;
}

int gif_save(const strip *s, const char *path, const gif_options *o, char *err, size_t n) {
  const int zoom = gif_zoom(o, s->height, s->width);
  if ((long)s->height * zoom > GIF_MAX_SIDE || (long)s->width * zoom > GIF_MAX_SIDE) {
    snprintf(err, n, "%dx%d cells at %d pixels a cell is larger than %d pixels a side", s->height, s->width, zoom,
             GIF_MAX_SIDE);
    return -1;
  }
  membuf m = {0};
  int code = 0;
  GifFileType *g = EGifOpen(&m, put_bytes, &code);
  if (!g) {
    snprintf(err, n, "giflib: %s", GifErrorString(code));
    return -1;
  }
  int rc = encode(g, s, o, zoom, &code), close_code = 0;
  if (EGifCloseFile(g, &close_code) != GIF_OK && !rc) rc = -1, code = close_code;
  if (m.oom) rc = -1, snprintf(err, n, "out of memory for the GIF");
  else if (rc) snprintf(err, n, "giflib: %s", GifErrorString(code));
  else rc = outfile_write(path, m.p, m.len, err, n);
  free(m.p);
  return rc;
}

#endif
