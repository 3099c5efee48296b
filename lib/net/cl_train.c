/* The trainer on an OpenCL device: placeholder until the device pieces land. */
#include "net/net_impl.h"

int dlca__net_cl_new(dlca_net_trainer *t) {
  return dlca__fail(DLCA_EUNSUPPORTED, "net trainer: the device backend is not built yet; use --backend ref");
}
void dlca__net_cl_free(dlca__net_cl *c) { (void)c; }
int dlca__net_cl_data(dlca_net_trainer *t, const float *x, const float *y) { return DLCA_EUNSUPPORTED; }
int dlca__net_cl_step(dlca_net_trainer *t, uint64_t seed, uint64_t epoch, size_t b) { return DLCA_EUNSUPPORTED; }
int dlca__net_cl_loss(dlca_net_trainer *t, double *loss) { return DLCA_EUNSUPPORTED; }
int dlca__net_cl_eval(dlca_net_trainer *t, size_t n, const float *x, const float *y, double *acc, double *loss) {
  return DLCA_EUNSUPPORTED;
}
int dlca__net_cl_sync(dlca_net_trainer *t) { return DLCA_EUNSUPPORTED; }
int dlca__net_cl_set_lr(dlca_net_trainer *t, double lr) { return DLCA_EUNSUPPORTED; }
