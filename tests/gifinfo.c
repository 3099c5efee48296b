/* tests/dlca-eval-gif.sh's reader: reads a GIF whole through giflib
 * (DGifSlurp, so every frame is decoded and checked) and prints one line:
 *   frames N size WxH delays D0,D1,... (hundredths of a second) loop yes|no
 * Exit 0, or 1 with giflib's reason when the file is not a valid GIF. */
#include <stdio.h>
#include <string.h>
#include <gif_lib.h>

/* NETSCAPE2.0, the application extension that makes an animation loop. */
static int has_loop(const ExtensionBlock *b, int n) {
  for (int i = 0; i < n; i++)
    if (b[i].Function == APPLICATION_EXT_FUNC_CODE && b[i].ByteCount == 11 && !memcmp(b[i].Bytes, "NETSCAPE2.0", 11))
      return 1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gifinfo FILE.gif\n");
    return 2;
  }
  int err = 0;
  GifFileType *g = DGifOpenFileName(argv[1], &err);
  if (!g || DGifSlurp(g) != GIF_OK) {
    fprintf(stderr, "gifinfo: %s: %s\n", argv[1], GifErrorString(g ? g->Error : err));
    if (g) DGifCloseFile(g, &err);
    return 1;
  }
  int loop = has_loop(g->ExtensionBlocks, g->ExtensionBlockCount);
  printf("frames %d size %dx%d delays ", g->ImageCount, g->SWidth, g->SHeight);
  for (int i = 0; i < g->ImageCount; i++) {
    GraphicsControlBlock gcb = {0};
    DGifSavedExtensionToGCB(g, i, &gcb);
    printf("%s%d", i ? "," : "", gcb.DelayTime);
    loop |= has_loop(g->SavedImages[i].ExtensionBlocks, g->SavedImages[i].ExtensionBlockCount);
  }
  printf(" loop %s\n", loop ? "yes" : "no");
  DGifCloseFile(g, &err);
  return 0;
}
