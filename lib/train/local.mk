libdlca_cl_internal_la_SOURCES += lib/train/vector.h lib/train/vector.c
