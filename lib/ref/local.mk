libdlca_cl_internal_la_SOURCES += lib/ref/ref_impl.h lib/ref/gates.c lib/ref/forward.c \
	lib/ref/backward.c lib/ref/optim.c lib/ref/ref_trainer.h lib/ref/ref_trainer.c lib/ref/bits.c lib/ref/bits_fresh.c
