/* Status codes, their messages, and the per-thread last error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"

const char *dlca_strerror(int status) {
  switch (status) {
#define DLCA__MSG(name, value, msg) case value: return msg;
    DLCA_STATUS_MAP(DLCA__MSG)
#undef DLCA__MSG
  }
  return "unknown status";
}

const char *dlca_strerror_name(int status) {
  switch (status) {
#define DLCA__NAME(name, value, msg) case value: return #name;
    DLCA_STATUS_MAP(DLCA__NAME)
#undef DLCA__NAME
  }
  return "UNKNOWN";
}

/* One message per thread; grown as needed so that full build logs fit. */
static _Thread_local char *tls_msg;
static _Thread_local size_t tls_cap;
static _Thread_local int tls_cl_err;

static void set_message(const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  if (n < 0) n = 0;
  if ((size_t)n + 1 > tls_cap) {
    char *p = realloc(tls_msg, (size_t)n + 1);
    if (!p) return; /* keep the old message rather than crash */
    tls_msg = p;
    tls_cap = (size_t)n + 1;
  }
  vsnprintf(tls_msg, tls_cap, fmt, ap);
}

int dlca__fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set_message(fmt, ap);
  va_end(ap);
  tls_cl_err = 0;
  return status;
}

int dlca__fail_cl(int err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set_message(fmt, ap);
  va_end(ap);
  tls_cl_err = err;
  return err == -4 /* CL_MEM_OBJECT_ALLOCATION_FAILURE */ || err == -5 /* CL_OUT_OF_RESOURCES */
                 || err == -6 /* CL_OUT_OF_HOST_MEMORY */ || err == -61 /* CL_INVALID_BUFFER_SIZE */
             ? DLCA_EDEVMEM
             : DLCA_ECL;
}

void dlca__clear_error(void) {
  if (tls_msg) tls_msg[0] = 0;
  tls_cl_err = 0;
}

void dlca__append_error(const char *text) {
  size_t have = tls_msg ? strlen(tls_msg) : 0, add = strlen(text);
  if (have + add + 1 > tls_cap) {
    char *p = realloc(tls_msg, have + add + 1);
    if (!p) return;
    tls_msg = p;
    tls_cap = have + add + 1;
  }
  memcpy(tls_msg + have, text, add + 1);
}

const char *dlca_last_error(void) { return tls_msg ? tls_msg : ""; }
int dlca_last_cl_error(void) { return tls_cl_err; }
