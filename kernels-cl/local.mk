# OpenCL C sources, read at run time and installed to $(pkgdatadir)/kernels.
# The program files (trainer.cl, trainer_cpu.cl, trainer_tile.cl: the names
# the tuning table and the cache know) #include their pieces from trainer/,
# installed beside them as $(pkgdatadir)/kernels/trainer.
dist_kernels_DATA += kernels-cl/rng.cl kernels-cl/selftest.cl kernels-cl/ops.cl kernels-cl/optim.cl
dist_kernels_DATA += kernels-cl/trainer.cl kernels-cl/trainer_cpu.cl kernels-cl/trainer_tile.cl \
	kernels-cl/grid.cl

dist_kernels_trainer_DATA += kernels-cl/trainer/common.cl kernels-cl/trainer/coef.cl kernels-cl/trainer/start.cl \
	kernels-cl/trainer/forward.cl kernels-cl/trainer/backward.cl kernels-cl/trainer/backward_perc.cl \
	kernels-cl/trainer/adamw.cl kernels-cl/trainer/eval.cl kernels-cl/trainer/pwires.cl kernels-cl/trainer/pop.cl \
	kernels-cl/trainer/tile_common.cl kernels-cl/trainer/tile_forward.cl kernels-cl/trainer/tile_backward.cl \
	kernels-cl/trainer/cpu_common.cl kernels-cl/trainer/cpu_forward.cl kernels-cl/trainer/cpu_backward.cl
# The compute layer's ops (issue 31), installed as $(pkgdatadir)/kernels/ops.
dist_kernels_ops_DATA += kernels-cl/ops/elementwise.cl kernels-cl/ops/reduce.cl \
	kernels-cl/ops/movement.cl kernels-cl/ops/loss.cl
dist_kernels_ops_DATA += kernels-cl/ops/dense.cl
dist_kernels_ops_DATA += kernels-cl/ops/conv.cl
# The optimizer suite on the device (issue 32), installed as $(pkgdatadir)/kernels/optim.
dist_kernels_optim_DATA += kernels-cl/optim/rules.cl kernels-cl/optim/step.cl kernels-cl/optim/clip.cl
# GRU and randomized SVD (issue 33).
dist_kernels_ops_DATA += kernels-cl/ops/gru.cl kernels-cl/ops/rsvd.cl kernels-cl/ops/norm.cl
dist_kernels_ops_DATA += kernels-cl/ops/net.cl
