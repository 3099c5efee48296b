libdlca_cl_internal_la_SOURCES += lib/cl/runtime.h lib/cl/errors.c lib/cl/device.c \
	lib/cl/context.c lib/cl/loader.c lib/cl/cache.c lib/cl/tuning.c lib/cl/program.c lib/cl/memo.c lib/cl/ptx.c \
	lib/cl/launch.c lib/cl/profile.c
# The shipped tuning table, at $(pkgdatadir)/tuning/default.json as in the
# source tree, so that lib/cl/tuning.c looks in the same relative place in both.
tuningdir = $(pkgdatadir)/tuning
dist_tuning_DATA = tuning/default.json
libdlca_cl_internal_la_SOURCES += lib/cl/bank_order.c lib/cl/bank_order.h lib/cl/trainer_backend.h \
	lib/cl/trainer/cl_trainer.h lib/cl/trainer/shape.c lib/cl/trainer/footprint.c lib/cl/trainer/tunables.c lib/cl/trainer/plan.c \
	lib/cl/trainer/order.c lib/cl/trainer/build.c lib/cl/trainer/buffers.c lib/cl/trainer/upload.c \
	lib/cl/trainer/enqueue.c lib/cl/trainer/ops.c lib/cl/trainer/group.c lib/cl/trainer_group.h
# CLBlast: its status codes and the tuning table's CLBlast section.
libdlca_cl_internal_la_SOURCES += lib/cl/clblast.h lib/cl/clblast.c lib/cl/clblast_tuning.c
