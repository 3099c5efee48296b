// The program of the optimizer suite on the device (issue 32): the name that
// the tuning table ("optim") and the binary cache know. lib/optim/cl_*.c
// build it with -cl-fp32-correctly-rounded-divide-sqrt, so that a step has
// the CPU twin's bits (lib/optim/rules.c).
#include "optim/rules.cl"
#include "optim/step.cl"
#include "optim/clip.cl"
