# The general compute layer (issue 31): the ops-vector reader and the CPU
# twin (reference engine) of the ops.
libdlca_cl_internal_la_SOURCES += lib/ops/vector.h lib/ops/vector.c lib/ops/attrs.c
