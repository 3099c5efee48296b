/* What this process can still get of host memory (train/host_memory.h):
 * MemAvailable, and the address space that RLIMIT_AS leaves past what is
 * already mapped. Linux files; elsewhere both read as unknown. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "core/internal.h"
#include "train/host_memory.h"

#define MIB(x) ((double)(x) / 1048576.0)

static uint64_t mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  unsigned long long kb;
  uint64_t r = UINT64_MAX;
  if (!f) return r;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
      r = (uint64_t)kb * 1024;
      break;
    }
  fclose(f);
  return r;
}

static uint64_t mapped_now(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  long page = sysconf(_SC_PAGESIZE);
  if (!f) return 0;
  if (fscanf(f, "%llu", &pages) != 1) pages = 0;
  fclose(f);
  return (uint64_t)pages * (uint64_t)(page > 0 ? page : 4096);
}

void dlca__host_memory_read(dlca__host_memory *h) {
  struct rlimit rl;
  h->available = mem_available();
  h->as_limit = getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (uint64_t)rl.rlim_cur : UINT64_MAX;
  h->mapped = mapped_now();
  h->as_left = h->as_limit == UINT64_MAX ? UINT64_MAX : h->as_limit > h->mapped ? h->as_limit - h->mapped : 0;
}

uint64_t dlca__host_memory_limit(const dlca__host_memory *h) {
  uint64_t as = h->as_left == UINT64_MAX         ? UINT64_MAX
                : h->as_left > DLCA_HOST_HEADROOM ? h->as_left - DLCA_HOST_HEADROOM
                                                  : 0;
  return as < h->available ? as : h->available;
}

int dlca__host_memory_check(const dlca__host_memory *h, uint64_t need, const char *what, int fit_batch) {
  if (need <= dlca__host_memory_limit(h)) return DLCA_OK;
  char avail[64], as[160], fit[64] = "";
  if (h->available == UINT64_MAX) snprintf(avail, sizeof avail, "unknown");
  else snprintf(avail, sizeof avail, "%.1f MiB", MIB(h->available));
  if (h->as_limit == UINT64_MAX) snprintf(as, sizeof as, "none");
  else
    snprintf(as, sizeof as,
             "%.1f MiB, of which %.1f MiB are mapped already, leaving %.1f MiB less %.0f MiB of headroom",
             MIB(h->as_limit), MIB(h->mapped), MIB(h->as_left), MIB(DLCA_HOST_HEADROOM));
  if (fit_batch > 0) snprintf(fit, sizeof fit, "; a batch of %d would fit", fit_batch);
  return dlca__fail(DLCA_EDEVMEM,
                    "%s needs %.1f MiB of host memory: the host has %s available (MemAvailable), and the "
                    "address-space limit (RLIMIT_AS, ulimit -v) is %s%s",
                    what, MIB(need), avail, as, fit);
}
