# Builds the libFuzzer harnesses of tests/fuzz/ with clang, from the
# library's sources (the libtool objects are gcc's and carry no coverage).
# Run by scripts/run-fuzz.sh, which passes absolute paths:
#   make -f tests/fuzz/fuzz.mk TOP=SRCDIR BUILD=BUILDDIR OUT=build-fuzz
# BUILD is a configured build tree (for include/dlca_cl/version.h). The
# library is built without OpenMP: its pragmas only spread loops over
# threads, and one thread keeps a fuzzer run deterministic.
CC = clang
PKGS = OpenCL jansson libxxhash libpng clblast lapacke zlib
SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer $(SAN) -Wall -Wno-unused-parameter -Wno-unknown-pragmas
FUZZ_CPPFLAGS = -I$(TOP)/include -I$(BUILD)/include -I$(TOP)/lib -I$(TOP)/tests/fuzz \
	-DDLCA_BUILDING_LIB -DDLCA_PKGDATADIR='"$(OUT)/no-pkgdata"' -DDLCA_SRCDIR='"$(TOP)"' \
	$(shell pkg-config --cflags $(PKGS))
FUZZ_LIBS = $(shell pkg-config --libs $(PKGS)) -lm

LIB_OBJ = $(patsubst $(TOP)/%.c,$(OUT)/obj/%.o,$(wildcard $(TOP)/lib/*/*.c $(TOP)/lib/*/*/*.c))

HARNESSES = model tuning checkpoint checkpoint_sealed cache image annotations net
all: $(addprefix $(OUT)/fuzz_,$(HARNESSES))

$(OUT)/obj/%.o: $(TOP)/%.c
	@mkdir -p $(@D)
	$(CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(OUT)/fuzz_%: $(TOP)/tests/fuzz/fuzz_%.c $(TOP)/tests/fuzz/fuzz.h $(LIB_OBJ)
	$(CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(LIB_OBJ) $(FUZZ_LIBS) -o $@

$(OUT)/fuzz_checkpoint_sealed: $(TOP)/tests/fuzz/fuzz_checkpoint.c $(TOP)/tests/fuzz/fuzz.h $(LIB_OBJ)
	$(CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DFUZZ_RESEAL=1 $< $(LIB_OBJ) $(FUZZ_LIBS) -o $@

$(OUT)/fuzz_image: $(TOP)/tests/fuzz/fuzz_image.c $(TOP)/tests/fuzz/fuzz.h $(LIB_OBJ)
	$(CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(LIB_OBJ) $(FUZZ_LIBS) -o $@

-include $(LIB_OBJ:.o=.d)
.PHONY: all
