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
# pip builds in a copy, so that a read-only source tree (distcheck) works;
# --prefix keeps a system Python's own packages untouched.
install-data-local:
	rm -rf python-build && cp -R $(srcdir)/python python-build && chmod -R u+w python-build
	$(PYTHON) -m pip install --no-deps --no-build-isolation --no-warn-script-location \
	  $${DESTDIR:+--root "$(DESTDIR)"} --prefix '$(prefix)' ./python-build
	rm -rf python-build
uninstall-local:
	-$(PYTHON) -m pip uninstall -y dlca_cl
endif
