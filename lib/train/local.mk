libdlca_cl_internal_la_SOURCES += lib/train/epoch.h lib/train/epoch.c lib/train/host_memory.h lib/train/host_memory.c lib/train/trainer_impl.h lib/train/trainer.c lib/train/checkpoint.c \
	lib/train/vector.h lib/train/vector.c lib/train/parity.c lib/train/relax.c lib/train/optim.c
