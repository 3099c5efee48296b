/* Small jansson helpers shared by every JSON reader (models, vectors, tuning tables). */
#ifndef DLCA_CORE_JSON_UTIL_H
#define DLCA_CORE_JSON_UTIL_H
#include <jansson.h>

/* "an object", "an array", "a string", ...: for "expected X, found Y" messages. */
const char *dlca__json_type(const json_t *j);

#endif
