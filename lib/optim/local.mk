# The optimizer suite (dlca_cl/optim.h, issue 32): torch.optim's optimizers,
# clipping and lr schedules on host arrays, the CPU twin of the device step.
libdlca_cl_internal_la_SOURCES += lib/optim/internal.h lib/optim/config.c lib/optim/optimizer.c \
	lib/optim/rules.c lib/optim/state.c lib/optim/clip.c lib/optim/schedule.c
# The same on the device (kernels-cl/optim.cl) and the vectors' runner.
libdlca_cl_internal_la_SOURCES += lib/optim/cl_internal.h lib/optim/cl_optim.c lib/optim/cl_plan.c \
	lib/optim/cl_step.c lib/optim/cl_clip.c lib/optim/vector.h lib/optim/vector.c
