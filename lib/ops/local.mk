# The general compute layer (issue 31): the ops-vector reader and the CPU
# twin (reference engine) of the ops.
libdlca_cl_internal_la_SOURCES += lib/ops/vector.h lib/ops/vector.c lib/ops/attrs.c
libdlca_cl_internal_la_SOURCES += lib/ops/ref.h lib/ops/ref_view.c lib/ops/ref_unary.c lib/ops/ref_binary.c \
	lib/ops/ref_reduce.c lib/ops/ref_movement.c lib/ops/ref_loss.c
libdlca_cl_internal_la_SOURCES += lib/ops/ref_case.h lib/ops/ref_case.c lib/ops/ref_ops.h lib/ops/ref_run.c \
	lib/ops/ref_run_move.c
# Device tensors (include/dlca_cl/tensor.h) and the launchers of kernels-cl/ops/.
libdlca_cl_internal_la_SOURCES += lib/ops/tensor.h lib/ops/tensor.c lib/ops/cl_elementwise.h lib/ops/cl_elementwise.c \
	lib/ops/cl_reduce.c lib/ops/cl_movement.c lib/ops/cl_loss.c lib/ops/cl_ops_cache.c
# GEMM (CLBlast) and dense: the twin, the launchers, the vector runners.
libdlca_cl_internal_la_SOURCES += lib/ops/ref_blas.h lib/ops/ref_blas.c lib/ops/cl_blas.h lib/ops/cl_blas.c \
	lib/ops/cl_dense.c lib/ops/cl_blas_cache.c lib/ops/run_blas.h lib/ops/run_blas.c lib/ops/cl_run_blas.c
# conv2d and 2-D pooling (issue 31): the CPU twin, its vector runner, the launchers of kernels-cl/ops/conv.cl.
libdlca_cl_internal_la_SOURCES += lib/ops/ref_conv.h lib/ops/ref_conv.c lib/ops/ref_pool.c lib/ops/ref_conv_run.c
libdlca_cl_internal_la_SOURCES += lib/ops/cl_conv.h lib/ops/cl_pool.c lib/ops/cl_conv.c lib/ops/cl_conv_run.c
# Tensor groups (issue 32): many tensors in one buffer, for the multi-tensor optimizer step.
libdlca_cl_internal_la_SOURCES += lib/ops/tensor_group.c
