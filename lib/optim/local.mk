# The optimizer suite (dlca_cl/optim.h, issue 32): torch.optim's optimizers,
# clipping and lr schedules on host arrays, the CPU twin of the device step.
libdlca_cl_internal_la_SOURCES += lib/optim/internal.h lib/optim/config.c lib/optim/optimizer.c \
	lib/optim/rules.c lib/optim/state.c lib/optim/clip.c lib/optim/schedule.c
