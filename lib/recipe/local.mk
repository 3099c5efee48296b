# The working recipe (dlca_cl/recipe.h): preset targets and images, the
# recommended recipes, the training loop and the repair of the hard circuit.
libdlca_cl_internal_la_SOURCES += lib/recipe/targets.c lib/recipe/image.c lib/recipe/image.h \
	lib/recipe/builtin.c lib/recipe/builtin.h lib/recipe/recipes.c lib/recipe/repair.c lib/recipe/repair.h \
	lib/recipe/loop_impl.h lib/recipe/loop.c lib/recipe/loop_polish.c lib/recipe/train_preset.c lib/recipe/lr_chain.c \
	lib/recipe/population.c lib/recipe/population_step.c lib/recipe/population_impl.h \
	lib/recipe/population_hyper.c lib/recipe/population_pbt.c lib/recipe/population_repair.c
