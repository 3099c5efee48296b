/* The kernel loader: finds .cl files on the search path, resolves
 * #include "x.cl" textually (so the cache key sees the whole source), reads
 * the `// @tunable` annotations, and injects the tuned #define lines. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cl/runtime.h"

#define MAX_INCLUDE_DEPTH 16

typedef struct sbuf {
  char *p;
  size_t len, cap;
} sbuf;

static int sb_add(sbuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) return dlca__fail(DLCA_ENOMEM, "out of memory reading kernel sources");
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
  return DLCA_OK;
}

static int sb_printf(sbuf *b, const char *fmt, ...) DLCA_PRINTF(2, 3);
static int sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[1200];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return dlca__fail(DLCA_EINVAL, "bad format");
  return sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static int readable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

void dlca__kernel_stem(const char *file, char *out, size_t n) {
  const char *b = strrchr(file, '/');
  b = b ? b + 1 : file;
  size_t len = strlen(b);
  if (len > 3 && !strcmp(b + len - 3, ".cl")) len -= 3;
  if (len >= n) len = n - 1;
  memcpy(out, b, len);
  out[len] = 0;
}

/* Tries dir/file; on success leaves the path in path. */
static int try_dir(const char *dir, size_t dlen, const char *file, char *path, size_t n) {
  if (dlen == 0) return 0;
  int w = snprintf(path, n, "%.*s/%s", (int)dlen, dir, file);
  return w > 0 && (size_t)w < n && readable_file(path);
}

/* The search path, tried in order. `from` is the directory of the including
 * file: a quoted include looks there first, as in C. */
static int find_from(const char *from, const char *file, char *path, size_t n) {
  if (!file || !*file) return dlca__fail(DLCA_EINVAL, "kernel file name is empty");
  if (file[0] == '/') {
    if (readable_file(file) && strlen(file) < n) {
      snprintf(path, n, "%s", file);
      return DLCA_OK;
    }
    return dlca__fail(DLCA_ENOKERNEL, "%s: kernel source not found or not readable", file);
  }
  if (from && try_dir(from, strlen(from), file, path, n)) return DLCA_OK;
  const char *env = getenv("DLCA_CL_KERNEL_PATH");
  if (env) {
    for (const char *s = env; *s;) {
      const char *e = strchr(s, ':');
      size_t l = e ? (size_t)(e - s) : strlen(s);
      if (try_dir(s, l, file, path, n)) return DLCA_OK;
      s += l;
      if (*s == ':') s++;
    }
  }
  /* The installed kernels only: a library never reads its build tree. */
  if (try_dir(DLCA_PKGDATADIR "/kernels", strlen(DLCA_PKGDATADIR "/kernels"), file, path, n))
    return DLCA_OK;
  char kp[600] = "";
  if (env && *env) snprintf(kp, sizeof kp, " %.560s (DLCA_CL_KERNEL_PATH),", env);
  return dlca__fail(DLCA_ENOKERNEL,
                    "%s: kernel source not found; searched%s%s%s%s %s/kernels "
                    "(set DLCA_CL_KERNEL_PATH to a directory that holds it, such as the source "
                    "tree's kernels-cl)",
                    file, from ? " " : "", from ? from : "", from ? "," : "", kp, DLCA_PKGDATADIR);
}

int dlca__kernel_find(const char *file, char *path, size_t n) { return find_from(NULL, file, path, n); }

/* If line is `#include "name"`, copies name and returns 1. */
static int include_name(const char *line, size_t len, char *name, size_t n) {
  const char *p = line, *end = line + len;
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  if (p >= end || *p != '#') return 0;
  p++;
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  if ((size_t)(end - p) < 7 || strncmp(p, "include", 7) != 0) return 0;
  p += 7;
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  if (p >= end || *p != '"') return 0;
  const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
  if (!q || (size_t)(q - p - 1) >= n || q == p + 1) return 0;
  memcpy(name, p + 1, (size_t)(q - p - 1));
  name[q - p - 1] = 0;
  return 1;
}

typedef struct frame {
  char path[1024];
  char name[256];
} frame;

static int resolve(const char *from, const char *file, frame *stack, int depth, sbuf *out,
                   char *top_path, size_t top_n) {
  if (depth >= MAX_INCLUDE_DEPTH)
    return dlca__fail(DLCA_EBUILD, "%s: #include nested deeper than %d files (%s includes it)",
                      file, MAX_INCLUDE_DEPTH, stack[depth - 1].name);
  frame *f = &stack[depth];
  int rc = find_from(from, file, f->path, sizeof f->path);
  if (rc) {
    if (depth > 0 && rc == DLCA_ENOKERNEL) {
      char msg[1400];
      snprintf(msg, sizeof msg, "%s", dlca_last_error());
      return dlca__fail(DLCA_ENOKERNEL, "%s includes %s", stack[depth - 1].path, msg);
    }
    return rc;
  }
  snprintf(f->name, sizeof f->name, "%s", file);
  if (top_path) snprintf(top_path, top_n, "%s", f->path);
  for (int i = 0; i < depth; i++) {
    if (strcmp(stack[i].path, f->path) != 0) continue;
    dlca__fail(DLCA_EBUILD, "%s: #include cycle: ", stack[0].path);
    for (int j = i; j <= depth; j++) {
      dlca__append_error(stack[j].name);
      if (j < depth) dlca__append_error(" -> ");
    }
    return DLCA_EBUILD;
  }
  char *text;
  size_t len;
  if ((rc = dlca__read_file(f->path, &text, &len))) return rc;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", f->path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  /* #line keeps build-log positions in the files people edit. The base name
   * of the top file and the name an #include gives (trainer/forward.cl), not
   * the path, so that one source installed in two places has one key. */
  const char *base = depth > 0 || !strrchr(file, '/') ? file : strrchr(file, '/') + 1;
  rc = sb_printf(out, "#line 1 \"%s\"\n", base);
  int lineno = 0;
  for (size_t i = 0; !rc && i < len;) {
    const char *ln = text + i;
    const char *nl = memchr(ln, '\n', len - i);
    size_t l = nl ? (size_t)(nl - ln) : len - i;
    i += l + (nl ? 1 : 0);
    lineno++;
    char name[256];
    if (include_name(ln, l, name, sizeof name)) {
      rc = resolve(dir, name, stack, depth + 1, out, NULL, 0);
      if (!rc) rc = sb_printf(out, "#line %d \"%s\"\n", lineno + 1, base);
    } else {
      rc = sb_add(out, ln, l);
      if (!rc) rc = sb_add(out, "\n", 1);
    }
  }
  free(text);
  return rc;
}

int dlca__kernel_resolve(const char *file, char **src, size_t *len, char *path, size_t pathn) {
  frame *stack = calloc(MAX_INCLUDE_DEPTH, sizeof *stack);
  if (!stack) return dlca__fail(DLCA_ENOMEM, "out of memory");
  sbuf b = {0};
  int rc = resolve(NULL, file, stack, 0, &b, path, pathn);
  free(stack);
  if (!rc && !b.p) rc = sb_add(&b, "", 0);
  if (rc) {
    free(b.p);
    return rc;
  }
  *src = b.p;
  if (len) *len = b.len;
  return DLCA_OK;
}

static int ident_ok(const char *s) {
  if (!isalpha((unsigned char)*s) && *s != '_') return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

static int parse_int(const char *tok, int *v) {
  char *e;
  errno = 0;
  long x = strtol(tok, &e, 0);
  if (!*tok || *e || errno || x < -2147483647L || x > 2147483647L) return 0;
  *v = (int)x;
  return 1;
}

int dlca__tunable_allowed(const dlca_tunable *t, int v) {
  if (!t->declared_allowed) {
    for (int i = 0; i < t->n_values; i++)
      if (t->values[i] == v) return 1;
    return 0;
  }
  for (int i = 0; i < t->n_allowed; i++) {
    const dlca_tunable_range *r = &t->allowed[i];
    if (v < r->lo || v > r->hi || ((long long)v - r->lo) % r->step) continue;
    if (!r->pow2 || (v > 0 && (v & (v - 1)) == 0)) return 1;
  }
  return 0;
}

void dlca__tunable_allowed_text(const dlca_tunable *t, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  if (!t->declared_allowed) {
    for (int i = 0; i < t->n_values && len < n; i++)
      len += (size_t)snprintf(buf + len, n - len, "%s%d", i ? ", " : "", t->values[i]);
    return;
  }
  for (int i = 0; i < t->n_allowed && len < n; i++) {
    const dlca_tunable_range *r = &t->allowed[i];
    if (r->lo == r->hi) len += (size_t)snprintf(buf + len, n - len, "%s%d", i ? ", " : "", r->lo);
    else
      len += (size_t)snprintf(buf + len, n - len, "%s%d..%d%s", i ? ", " : "", r->lo, r->hi,
                              r->pow2 ? " pow2" : "");
    if (r->step > 1 && len < n) len += (size_t)snprintf(buf + len, n - len, " step %d", r->step);
  }
}

/* One term of the allowed values: "N", "A..B", "A..B pow2" or "A..B step S". */
static int parse_range(char *term, dlca_tunable_range *r) {
  char *save = NULL, *tok = strtok_r(term, " \t\r", &save);
  if (!tok) return 0;
  char *dots = strstr(tok, "..");
  memset(r, 0, sizeof *r);
  r->step = 1;
  if (!dots) {
    if (!parse_int(tok, &r->lo)) return 0;
    r->hi = r->lo;
    return strtok_r(NULL, " \t\r", &save) == NULL;
  }
  *dots = 0;
  if (!parse_int(tok, &r->lo) || !parse_int(dots + 2, &r->hi) || r->lo >= r->hi) return 0;
  if (!(tok = strtok_r(NULL, " \t\r", &save))) return 1;
  if (!strcmp(tok, "pow2")) r->pow2 = 1;
  else if (strcmp(tok, "step") || !(tok = strtok_r(NULL, " \t\r", &save)) || !parse_int(tok, &r->step) ||
           r->step < 1)
    return 0;
  return strtok_r(NULL, " \t\r", &save) == NULL;
}

/* `// @tunable NAME DEFAULT CANDIDATES... | ALLOWED` (doc/tuning-table.md):
 * the values the tuner tries, the first being the value the kernel's
 * #ifndef fallback also uses, then the values a table may set: terms
 * separated by commas, each N, A..B, A..B pow2 or A..B step S. `where` names
 * the file and line in messages. */
static int parse_one(const char *where, const char *ln, size_t l, dlca_tunable *t) {
  char buf[512];
  if (l >= sizeof buf) l = sizeof buf - 1;
  memcpy(buf, ln, l);
  buf[l] = 0;
  memset(t, 0, sizeof *t);
  char *bar = strchr(buf, '|');
  if (bar) *bar = 0;
  char *save = NULL, *tok = strtok_r(buf, " \t\r", &save);
  if (!tok || strlen(tok) >= sizeof t->name || !ident_ok(tok))
    return dlca__fail(DLCA_EBUILD, "%s: malformed annotation \"@tunable%.*s\": expected a macro name",
                      where, (int)l, ln);
  snprintf(t->name, sizeof t->name, "%s", tok);
  while ((tok = strtok_r(NULL, " \t\r", &save))) {
    if (t->n_values == 16)
      return dlca__fail(DLCA_EBUILD, "%s: @tunable %s lists more than 16 values", where, t->name);
    if (!parse_int(tok, &t->values[t->n_values]))
      return dlca__fail(DLCA_EBUILD, "%s: @tunable %s: \"%s\" is not an integer", where, t->name, tok);
    t->n_values++;
  }
  if (t->n_values == 0)
    return dlca__fail(DLCA_EBUILD, "%s: @tunable %s lists no value (the first is the default)",
                      where, t->name);
  if (!bar) return DLCA_OK;
  t->declared_allowed = 1;
  for (char *term = bar + 1, *next; term; term = next) {
    next = strchr(term, ',');
    if (next) *next++ = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", term + strspn(term, " \t"));
    if (t->n_allowed == 8)
      return dlca__fail(DLCA_EBUILD, "%s: @tunable %s: more than 8 terms of allowed values", where, t->name);
    if (!parse_range(term, &t->allowed[t->n_allowed]))
      return dlca__fail(DLCA_EBUILD,
                        "%s: @tunable %s: allowed values \"%s\" are not N, A..B, A..B pow2 or A..B step S "
                        "(A < B)",
                        where, t->name, copy);
    t->n_allowed++;
  }
  for (int i = 0; i < t->n_values; i++)
    if (!dlca__tunable_allowed(t, t->values[i])) {
      char a[256];
      dlca__tunable_allowed_text(t, a, sizeof a);
      return dlca__fail(DLCA_EBUILD, "%s: @tunable %s: candidate %d is not among its allowed values %s", where,
                        t->name, t->values[i], a);
    }
  return DLCA_OK;
}

/* If line is `#line N "name"` (as resolve() writes them), the position it sets. */
static int line_marker(const char *p, size_t l, int *line, char *name, size_t n) {
  if (l < 6 || strncmp(p, "#line ", 6) != 0) return 0;
  char buf[600];
  if (l >= sizeof buf) return 0;
  memcpy(buf, p, l);
  buf[l] = 0;
  char *q, *e;
  long v = strtol(buf + 6, &e, 10);
  if (e == buf + 6 || v < 1 || v > 1000000000L) return 0;
  *line = (int)v - 1;
  if ((q = strchr(e, '"')) && (e = strchr(q + 1, '"')) && (size_t)(e - q - 1) < n) {
    memcpy(name, q + 1, (size_t)(e - q - 1));
    name[e - q - 1] = 0;
  }
  return 1;
}

const char *dlca__annotation(const char *p, const char *end, const char *word) {
  const size_t wl = strlen(word);
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  if (end - p <= 2 || p[0] != '/' || p[1] != '/') return NULL;
  p += 2;
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  if ((size_t)(end - p) < wl + 1 || strncmp(p, word, wl) != 0 || (p[wl] != ' ' && p[wl] != '\t')) return NULL;
  return p + wl;
}

int dlca__tunables_parse(const char *where, const char *src, dlca_tunable **out, size_t *n) {
  dlca_tunable *ts = NULL;
  size_t nt = 0;
  char file[256] = "", at[1400];
  int line = 0;
  for (const char *p = src; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t l = nl ? (size_t)(nl - p) : strlen(p);
    const int marker = line_marker(p, l, &line, file, sizeof file);
    const char *end = p + l, *args = marker ? NULL : dlca__annotation(p, end, "@tunable");
    if (!marker) line++;
    if (args) {
      dlca_tunable t;
      /* the line in the file that declares it (an included one: its name) */
      const char *wb = strrchr(where, '/') ? strrchr(where, '/') + 1 : where;
      if (*file && strcmp(file, wb) != 0)
        snprintf(at, sizeof at, "%s: %s:%d", where, file, line);
      else
        snprintf(at, sizeof at, "%s:%d", where, line);
      int rc = parse_one(at, args, (size_t)(end - args), &t);
      if (rc) {
        free(ts);
        return rc;
      }
      int dup = 0;
      for (size_t i = 0; i < nt; i++) dup |= !strcmp(ts[i].name, t.name);
      if (!dup) { /* a file included twice declares its tunables twice */
        dlca_tunable *nts = realloc(ts, (nt + 1) * sizeof *ts);
        if (!nts) {
          free(ts);
          return dlca__fail(DLCA_ENOMEM, "out of memory");
        }
        ts = nts;
        ts[nt++] = t;
      }
    }
    p = nl ? nl + 1 : NULL;
  }
  *out = ts;
  *n = nt;
  return DLCA_OK;
}

int dlca__kernel_tunables(dlca_context *ctx, const char *file, dlca_tunable **out, size_t *n) {
  (void)ctx;
  if (!file || !out || !n) return dlca__fail(DLCA_EINVAL, "dlca__kernel_tunables: NULL argument");
  char *src, path[1024];
  int rc = dlca__kernel_resolve(file, &src, NULL, path, sizeof path);
  if (rc) return rc;
  rc = dlca__tunables_parse(path, src, out, n);
  free(src);
  return rc;
}

int dlca__kernel_source(dlca_context *ctx, const char *file, char **src, size_t *len, char *path,
                        size_t pathn) {
  char *body, found[1024];
  size_t blen;
  int rc = dlca__kernel_resolve(file, &body, &blen, found, sizeof found);
  if (rc) return rc;
  if (path && pathn) snprintf(path, pathn, "%s", found);
  dlca_tunable *ts = NULL;
  size_t nt = 0;
  if ((rc = dlca__tunables_parse(found, body, &ts, &nt))) {
    free(body);
    return rc;
  }
  char stem[64];
  dlca__kernel_stem(file, stem, sizeof stem);
  sbuf b = {0};
  rc = sb_printf(&b, "/* dlca_cl %s: tuned parameters of %s */\n", DLCA_VERSION_STRING, stem);
  for (size_t i = 0; !rc && i < nt; i++) {
    int v;
    if (!(rc = dlca__tunable_value(ctx, stem, &ts[i], &v)))
      rc = sb_printf(&b, "#define %s %d\n", ts[i].name, v);
  }
  if (!rc) rc = sb_add(&b, body, blen);
  free(ts);
  free(body);
  if (rc) {
    free(b.p);
    return rc;
  }
  *src = b.p;
  if (len) *len = b.len;
  return DLCA_OK;
}
