/* Every Check suite of tests/main, one line each: X(name). */
#define DLCA_TEST_SUITES(X) \
  X(vectors) \
  X(device) \
  X(cache) \
  X(banks) \
  X(tuning) \
  X(wiring) \
  X(model) \
  X(loader) \
  X(gradcheck) \
  X(trainer) \
  X(trainer_optim) \
  X(schedule) \
  X(relax) \
  X(iwp) \
  X(bits) \
  X(export) \
  X(jobs) \
  X(recipe) \
  X(population) \
  X(population_sel) \
  X(mutations) \
  X(files) \
  X(ops) \
  X(ops_api) \
  X(optim) \
  X(blas) \
  X(conv) \
  X(optim_cl) \
  X(gru) \
  X(net) \
  X(net_cl)
