/* Register caps for devices whose program binaries are PTX (NVIDIA).
 *
 * NVIDIA's OpenCL ignores -cl-nv-maxrregcount (driver 580: ptxas reports
 * the same register counts with it; doc/performance.md, "Ruled out"), so
 * ptxas gives a kernel every register it wants, and one register too many
 * can cost a third of the groups an SM holds. PTX has its own directive for
 * it: `.maxnreg N` between an entry's parameter list and its body. A kernel
 * file asks for one with
 *
 *     // @ptx-maxnreg <kernel> <MACRO>
 *
 * and the value of MACRO (0: no cap; a -DMACRO=v build option, else the
 * tuned #define of a tunable) is written into the PTX that
 * the driver compiled from the source, which is then built again from that
 * binary (program.c). Devices whose binaries are not PTX are untouched. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl/runtime.h"

static const char *line_end(const char *p, const char *end) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  return nl ? nl : end;
}

static int ident_char(int c) { return isalnum(c) || c == '_'; }

/* The value of the last "-DNAME=v" of opts, else of "#define NAME v" in
 * the tuned preamble (before the first #line), or -1. */
static int macro_value(const char *src, const char *opts, const char *name, size_t nl) {
  long v = -1;
  for (const char *o = opts ? strstr(opts, "-D") : NULL; o; o = strstr(o + 2, "-D"))
    if ((o == opts || o[-1] == ' ') && !strncmp(o + 2, name, nl) && o[2 + nl] == '=') {
      char *x;
      long w = strtol(o + 3 + nl, &x, 10);
      v = (x != o + 3 + nl && (*x == 0 || *x == ' ') && w >= 0 && w < 1000000) ? w : -2;
    }
  if (v != -1) return v < 0 ? -1 : (int)v;
  for (const char *p = src; p && *p && strncmp(p, "#line", 5) != 0;) {
    const char *e = strchr(p, '\n');
    if (!strncmp(p, "#define ", 8) && !strncmp(p + 8, name, nl) && p[8 + nl] == ' ') {
      char *x;
      long v = strtol(p + 9 + nl, &x, 10);
      return (x != p + 9 + nl && v >= 0 && v < 1000000) ? (int)v : -1;
    }
    p = e ? e + 1 : NULL;
  }
  return -1;
}

int dlca__ptx_caps(const char *where, const char *src, const char *opts, dlca__ptx_cap *caps, int max, int *n) {
  *n = 0;
  const char *end = src + strlen(src);
  for (const char *p = src; p < end;) {
    const char *e = line_end(p, end), *args = dlca__annotation(p, e, "@ptx-maxnreg");
    if (args) {
      char kname[64], macro[64], extra[2];
      char buf[256];
      size_t l = (size_t)(e - args);
      if (l >= sizeof buf) l = sizeof buf - 1;
      memcpy(buf, args, l);
      buf[l] = 0;
      if (sscanf(buf, "%63s %63s %1s", kname, macro, extra) != 2)
        return dlca__fail(DLCA_EBUILD, "%s: malformed annotation \"@ptx-maxnreg%s\": expected a kernel "
                          "and a tunable", where, buf);
      int v = macro_value(src, opts, macro, strlen(macro));
      if (v < 0)
        return dlca__fail(DLCA_EBUILD, "%s: @ptx-maxnreg %s names %s, which is neither a tunable of the file "
                          "nor a -D%s=<registers> option",
                          where, kname, macro, macro);
      if (v != 0 && (v < 16 || v > 255))
        return dlca__fail(DLCA_EBUILD, "%s: @ptx-maxnreg %s: %s = %d is not 0 (no cap) or in [16, 255] (registers)",
                          where, kname, macro, v);
      if (*n == max)
        return dlca__fail(DLCA_EBUILD, "%s: more than %d @ptx-maxnreg annotations", where, max);
      snprintf(caps[*n].kernel, sizeof caps[*n].kernel, "%s", kname);
      caps[*n].maxnreg = v;
      (*n)++;
    }
    p = e + 1;
  }
  return DLCA_OK;
}

int dlca__ptx_is(const unsigned char *bin, size_t len) {
  /* NVVM's PTX: text with a .version and a .target line, then NULs (the
   * 580 driver's binaries end in two) */
  const char *s = (const char *)bin;
  while (len && !bin[len - 1]) len--;
  if (len < 16 || memchr(bin, 0, len)) return 0;
  int version = 0, target = 0;
  for (const char *p = s, *end = s + len; p < end;) {
    const char *e = line_end(p, end);
    version |= e - p >= 9 && !strncmp(p, ".version ", 9);
    target |= e - p >= 8 && !strncmp(p, ".target ", 8);
    p = e + 1;
  }
  return version && target;
}

int dlca__ptx_maxnreg(const char *ptx, size_t len, const char *kernel, int maxnreg, char **out,
                      size_t *outlen) {
  size_t kl = strlen(kernel);
  const char *end = ptx + len, *open = NULL;
  /* ".entry NAME(" or ".entry NAME (", at the start of a line after optional
   * .visible: NAME must end there (dlca_backward is not dlca_backward_perc) */
  for (const char *p = ptx; p < end && !open;) {
    const char *e = line_end(p, end), *q = p;
    while (q < e && (*q == ' ' || *q == '\t')) q++;
    if (e - q > 8 && !strncmp(q, ".visible", 8)) {
      q += 8;
      while (q < e && (*q == ' ' || *q == '\t')) q++;
    }
    if ((size_t)(e - q) >= 7 + kl && !strncmp(q, ".entry", 6) && (q[6] == ' ' || q[6] == '\t')) {
      q += 7;
      while (q < e && (*q == ' ' || *q == '\t')) q++;
      if ((size_t)(e - q) >= kl && !strncmp(q, kernel, kl) && (q + kl == e || !ident_char((unsigned char)q[kl])))
        open = q + kl;
    }
    p = e + 1;
  }
  if (!open) return 1;
  const char *paren = open;
  while (paren < end && isspace((unsigned char)*paren)) paren++;
  if (paren == end || *paren != '(') return 2;
  const char *close = memchr(paren, ')', (size_t)(end - paren));
  if (!close) return 2;
  /* The directives between ')' and '{': one .maxnreg there already is
   * replaced. */
  const char *body = memchr(close, '{', (size_t)(end - close));
  if (!body) return 2;
  const char *old = NULL, *old_end = NULL;
  for (const char *p = close + 1; p + 8 <= body; p++)
    if (!memcmp(p, ".maxnreg", 8)) {
      old = p;
      old_end = line_end(p, body);
      break;
    }
  char dir[32];
  int dl = snprintf(dir, sizeof dir, "\n.maxnreg %d", maxnreg);
  size_t cut_from = old ? (size_t)(old - ptx) : (size_t)(close + 1 - ptx);
  size_t cut_to = old ? (size_t)(old_end - ptx) : cut_from;
  const char *ins = old ? dir + 1 : dir;
  size_t il = old ? (size_t)dl - 1 : (size_t)dl;
  size_t n = len - (cut_to - cut_from) + il;
  char *o = malloc(n + 1);
  if (!o) return -1;
  memcpy(o, ptx, cut_from);
  memcpy(o + cut_from, ins, il);
  memcpy(o + cut_from + il, ptx + cut_to, len - cut_to);
  o[n] = 0;
  *out = o;
  *outlen = n;
  return 0;
}
