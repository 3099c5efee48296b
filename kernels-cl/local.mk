# OpenCL C sources, read at run time and installed to $(pkgdatadir)/kernels.
dist_kernels_DATA += kernels-cl/rng.cl kernels-cl/selftest.cl
dist_kernels_DATA += kernels-cl/trainer.cl kernels-cl/trainer_cpu.cl kernels-cl/trainer_tile.cl \
	kernels-cl/grid.cl
