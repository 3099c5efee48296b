/* What this process can still get of host memory, for the back ends whose
 * memory is the host's: the CPU reference and an OpenCL CPU device (PoCL
 * aborts in an assertion where an allocation fails, so such a trainer
 * refuses up front). Layering: train/epoch.h (the same level). */
#ifndef DLCA_TRAIN_HOST_MEMORY_H
#define DLCA_TRAIN_HOST_MEMORY_H

#include <stdint.h>

typedef struct dlca__host_memory {
  uint64_t available; /* the host's MemAvailable (/proc/meminfo); UINT64_MAX where unknown */
  uint64_t as_limit;  /* RLIMIT_AS (ulimit -v); UINT64_MAX where unlimited */
  uint64_t mapped;    /* this process's address space now (/proc/self/statm); 0 where unknown */
  uint64_t as_left;   /* as_limit - mapped (0 past the limit); UINT64_MAX where unlimited */
} dlca__host_memory;

/* Address space a back end leaves for what it does not count (thread
 * stacks, malloc arenas, the OpenCL runtime's own allocations). */
#define DLCA_HOST_HEADROOM ((uint64_t)256 << 20)

void dlca__host_memory_read(dlca__host_memory *h);
/* The most bytes a back end may count on: MemAvailable, and the address
 * space left less DLCA_HOST_HEADROOM, whichever is smaller. */
uint64_t dlca__host_memory_limit(const dlca__host_memory *h);
/* DLCA_EDEVMEM where need bytes of `what` ("training on the CPU reference")
 * do not fit what the process can get, naming need, MemAvailable, the
 * address-space limit and what is mapped, and the largest batch that would
 * fit (fit_batch, 0 for none); DLCA_OK otherwise. */
int dlca__host_memory_check(const dlca__host_memory *h, uint64_t need, const char *what, int fit_batch);

#endif
