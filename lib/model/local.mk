libdlca_cl_internal_la_SOURCES += lib/model/model_impl.h lib/model/model.c lib/model/wiring.c \
	lib/model/presets.c lib/model/json.c lib/model/export.c
