/* Where a perception stack's gate q reads its inputs x[PXA_(q)] and
 * x[PXB_(q)]. By default the wires are compiled in (P_XA, P_XB: constant
 * indices, so that a stack unrolls into registers). With P_WIRES_ARG they
 * come from the wires buffer, which starts with each perception layer's
 * wa then wb (lib/cl/trainer/upload.c): gate q reads layer-input offset
 * P_XO[q] plus wires[P_WO[q]] and wires[P_WO[q] + P_GN[q]]. Nothing
 * seed-dependent is then left in the build options, so every seed of a
 * shape shares one program (a population builds once); the functions on
 * the way take the buffer as `pwires` (PW_DECL, PW_PASS). */
#if P_WIRES_ARG
__constant int PXO[PG1] = {P_XO}, PWO[PG1] = {P_WO}, PGN[PG1] = {P_GN};
#define PW_DECL , __global const int *pwires
#define PW_PASS(w) , (w)
#define PXA_(q) (PXO[q] + pwires[PWO[q]])
#define PXB_(q) (PXO[q] + pwires[PWO[q] + PGN[q]])
#else
__constant int PXA[PG1] = {P_XA}, PXB[PG1] = {P_XB};
#define PW_DECL
#define PW_PASS(w)
#define PXA_(q) PXA[q]
#define PXB_(q) PXB[q]
#endif
