# The general compute layer (issue 31): the ops-vector reader and the CPU
# twin (reference engine) of the ops.
libdlca_cl_internal_la_SOURCES += lib/ops/vector.h lib/ops/vector.c lib/ops/attrs.c
libdlca_cl_internal_la_SOURCES += lib/ops/ref.h lib/ops/ref_view.c lib/ops/ref_unary.c lib/ops/ref_binary.c \
	lib/ops/ref_reduce.c lib/ops/ref_movement.c lib/ops/ref_loss.c
libdlca_cl_internal_la_SOURCES += lib/ops/ref_case.h lib/ops/ref_case.c lib/ops/ref_ops.h lib/ops/ref_run.c \
	lib/ops/ref_run_move.c
# Device tensors (include/dlca_cl/tensor.h) and the launchers of kernels-cl/ops/.
libdlca_cl_internal_la_SOURCES += lib/ops/tensor.h lib/ops/tensor.c lib/ops/cl_elementwise.h lib/ops/cl_elementwise.c \
	lib/ops/cl_reduce.c lib/ops/cl_movement.c lib/ops/cl_loss.c
# GRU and randomized SVD (issue 33): the CPU twins and their vector runners.
libdlca_cl_internal_la_SOURCES += lib/ops/ref_gru.h lib/ops/ref_gru.c lib/ops/ref_gru_ens.c lib/ops/ref_gru_case.c \
	lib/ops/ref_rsvd.c lib/ops/rsvd_case.h lib/ops/rsvd_case.c lib/ops/ref_norm.c
# GEMM (CLBlast) and dense: the twin, the launchers, the vector runners.
libdlca_cl_internal_la_SOURCES += lib/ops/ref_blas.h lib/ops/ref_blas.c lib/ops/cl_blas.h lib/ops/cl_blas.c \
	lib/ops/cl_dense.c lib/ops/cl_blas_cache.c lib/ops/run_blas.h lib/ops/run_blas.c lib/ops/cl_run_blas.c
# conv2d and 2-D pooling (issue 31): the CPU twin, its vector runner, the launchers of kernels-cl/ops/conv.cl.
libdlca_cl_internal_la_SOURCES += lib/ops/ref_conv.h lib/ops/ref_conv.c lib/ops/ref_pool.c lib/ops/ref_conv_run.c
libdlca_cl_internal_la_SOURCES += lib/ops/cl_conv.h lib/ops/cl_pool.c lib/ops/cl_conv.c lib/ops/cl_conv_run.c
# Tensor groups (issue 32): many tensors in one buffer, for the multi-tensor optimizer step.
libdlca_cl_internal_la_SOURCES += lib/ops/tensor_group.c
# The GRU and the randomized SVD on the device (kernels-cl/ops/gru.cl, rsvd.cl).
libdlca_cl_internal_la_SOURCES += lib/ops/cl_gru.h lib/ops/cl_gru_int.h lib/ops/cl_gru.c lib/ops/cl_gru_back.c \
	lib/ops/cl_gru_case.c lib/ops/rsvd_int.h lib/ops/rsvd_orth.c lib/ops/rsvd_dev.c lib/ops/rsvd_cl.c lib/ops/cl_norm.h lib/ops/cl_norm.c
# h-api: vector cases on the device, their public parity, the public ops API and its tape.
libdlca_cl_internal_la_SOURCES += lib/ops/cl_case.h lib/ops/cl_case.c lib/ops/parity.c lib/ops/api.h lib/ops/api.c \
	lib/ops/api_more.c lib/ops/api_blas.c lib/ops/api_conv.c lib/ops/tape.c \
	lib/ops/api_gru.c
