# The optimizer suite (dlca_cl/optim.h, issue 32): torch.optim's optimizers,
# clipping and lr schedules on host arrays, the CPU twin of the device step.
libdlca_cl_internal_la_SOURCES += lib/optim/internal.h lib/optim/config.c lib/optim/optimizer.c \
	lib/optim/rules.c lib/optim/state.c lib/optim/clip.c lib/optim/schedule.c
# The trainer's glue (h-dlopt): the per-step scalars for the DiffLogic CA trainer.
libdlca_cl_internal_la_SOURCES += lib/optim/trainer_glue.h lib/optim/trainer_glue.c
