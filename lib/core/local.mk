libdlca_cl_internal_la_SOURCES += lib/core/internal.h lib/core/grow.h lib/core/status.c lib/core/version.c \
	lib/core/rng.c lib/core/file.c \
	lib/core/json_util.h lib/core/json_util.c
