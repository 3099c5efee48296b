# The Python binding (python/, issue 36): shipped in the tarball, tested by
# tests/python.sh (pytest against the build tree's library) and, with
# ./configure --enable-python, installed by `make install` through pip.
EXTRA_DIST += python
TESTS += tests/python.sh
EXTRA_DIST += tests/python.sh
AM_TESTS_ENVIRONMENT += DLCA_PYTHON='$(PYTHON)'; export DLCA_PYTHON;

# Byte code, pytest's cache and pip's build files stay out of the tarball.
dist-hook:
	-rm -rf `find $(distdir)/python -name __pycache__ -o -name '*.egg-info' -o -name .pytest_cache` \
	  $(distdir)/python/build

if ENABLE_PYTHON
# The binding goes where $(PYTHON) looks for a prefix's packages: on
# Debian's python3, prefix /usr/local gives /usr/local/lib/python3.X/
# dist-packages (its posix_local scheme), elsewhere the posix_prefix one.
# pip builds in a copy, so that a read-only source tree (distcheck) works.
dlca_py_sitedir = $(PYTHON) -c 'import sys, sysconfig as s; p = sys.argv[1]; \
	deb = "posix_local" in s.get_scheme_names() and p.endswith("/local"); \
	print(s.get_path("purelib", "posix_local", {"base": p[:-6]}) if deb else \
	s.get_path("purelib", "posix_prefix", {"base": p, "platbase": p}))' '$(prefix)'
install-data-local:
	rm -rf python-build && cp -R $(srcdir)/python python-build && chmod -R u+w python-build
	dir=`$(dlca_py_sitedir)` && $(MKDIR_P) "$(DESTDIR)$$dir" && \
	$(PYTHON) -m pip install --no-deps --no-build-isolation --upgrade --target "$(DESTDIR)$$dir" ./python-build
	rm -rf python-build
uninstall-local:
	dir=`$(dlca_py_sitedir)` && rm -rf "$(DESTDIR)$$dir/dlca_cl" "$(DESTDIR)$$dir"/dlca_cl-*.dist-info
endif
