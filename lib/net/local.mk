# The network trainer (issue 31): sequential networks, their JSON format,
# the digits data set, and the trainer's CPU twin and device backend.
libdlca_cl_internal_la_SOURCES += lib/net/net_impl.h lib/net/spec.c lib/net/init.c lib/net/json.c \
	lib/net/digits.c lib/net/ref_layers.c lib/net/ref_train.c lib/net/trainer.c lib/net/cl_train.c \
	lib/net/cl_net.h lib/net/cl_net.c lib/net/footprint.c
libdlca_cl_internal_la_LIBADD += $(ZLIB_LIBS)
libdlca_cl_internal_la_CPPFLAGS += $(ZLIB_CFLAGS)
# The data sets, installed as $(pkgdatadir)/data/NAME.
data_digitsdir = $(pkgdatadir)/data/digits
dist_data_digits_DATA = data/digits/digits.csv.gz data/digits/README.md
