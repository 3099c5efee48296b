/* Small jansson helpers shared by every JSON reader. */
#include "core/json_util.h"

const char *dlca__json_type(const json_t *j) {
  if (!j) return "nothing";
  switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
  }
  return "?";
}
