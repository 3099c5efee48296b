/* The run-time version query. */
#include "core/internal.h"

const char *dlca_version_string(void) { return DLCA_VERSION_STRING; }

void dlca_version(int *major, int *minor, int *patch) {
  if (major) *major = DLCA_VERSION_MAJOR;
  if (minor) *minor = DLCA_VERSION_MINOR;
  if (patch) *patch = DLCA_VERSION_PATCH;
}
