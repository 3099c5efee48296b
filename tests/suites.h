/* Every Check suite of tests/main, one line each: X(name). */
#define DLCA_TEST_SUITES(X) \
  X(vectors)
