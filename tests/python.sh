#!/bin/sh
# The Python binding's pytest suite (python/tests) against the build tree's
# library, with the Python that configure chose ($PYTHON: the first python3
# with numpy). Skips (77) when it lacks numpy or pytest.
top=${DLCA_TOP_BUILDDIR:-.}
src=${DLCA_SRCDIR:-$top/..}
py=${DLCA_PYTHON:-/usr/bin/python3}
lib=$top/.libs/libdlca_cl.so
if [ ! -f "$lib" ]; then
  echo "SKIP: $lib not built"
  exit 77
fi
# a sanitizer build's library needs the ASan runtime loaded before python3
# itself (and LeakSanitizer would report the interpreter's own allocations)
if [ -n "${DLCA_SANITIZER_FLAGS:-}" ] || ldd "$lib" 2>/dev/null | grep -q libasan; then
  echo "SKIP: $lib is a sanitizer build; the binding is tested in the plain make check"
  exit 77
fi
if ! "$py" -c 'import numpy, pytest' >/dev/null 2>&1; then
  echo "SKIP: $py lacks numpy or pytest (Debian: apt-get install python3-numpy python3-pytest)"
  exit 77
fi
DLCA_CL_LIBRARY=$lib PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1
export DLCA_CL_LIBRARY PYTHONPATH PYTHONDONTWRITEBYTECODE
exec "$py" -m pytest "$src/python/tests" -q -p no:cacheprovider
