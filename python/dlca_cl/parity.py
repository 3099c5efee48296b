"""Parity: a JAX reference vector (shared/testdata/reference) or a PyTorch
ops vector (shared/testdata/ops) through the library, as dlca-parity runs it."""
import ctypes as C
import os

from ._lib import lib, check
from ._decl import ParityReport, OpsParityReport
from .device import resolve
from .model import _str

__all__ = ["parity"]


def _jax(ctx, path):
    r = ParityReport()
    check(lib.dlca_parity_vector(ctx, path, C.byref(r)), "parity")
    out = {"case": r.case_name.decode(), "errors": {}, "relative": {}, "tolerances": {}, "pass": bool(r.all_pass)}
    for q in range(len(r.max_abs)):
        if r.tolerance[q] >= 0:
            name = lib.dlca_quantity_name(q).decode()
            out["errors"][name], out["relative"][name] = r.max_abs[q], r.max_rel[q]
            out["tolerances"][name] = r.tolerance[q]
    return out


def _ops(ctx, path):
    r = OpsParityReport()
    check(lib.dlca_parity_ops_vector(ctx, path, C.byref(r)), "parity")
    e = [r.entry[i] for i in range(r.n)]
    return {"case": r.case_name.decode(), "op": r.op.decode(), "tolerance": {"abs": r.tol_abs, "rel": r.tol_rel},
            "errors": {x.name.decode(): x.max_abs for x in e},
            "ratios": {x.name.decode(): x.worst_ratio for x in e}, "pass": bool(r.all_pass)}


def parity(vector_path, backend="cl", device=None):
    """Runs one vector file on a device (backend "cl": device a Context, a
    spec, or None for the default) or on the CPU reference ("ref"), and
    returns what dlca-parity prints as a dict: case, errors (max |error|
    per quantity or result), tolerances, pass; ops vectors add op and
    ratios (error / tolerance). Failing comparisons are in "pass", not
    raised; an unreadable file raises DlcaError naming it."""
    if backend not in ("cl", "ref"):
        raise ValueError(f"backend must be 'cl' or 'ref', not {backend!r}")
    if backend == "ref" and device is not None:
        raise ValueError("backend 'ref' takes no device")
    path = _str(vector_path, "vector_path")
    kind = C.c_int()
    check(lib.dlca_parity_vector_kind(path, C.byref(kind)), f"parity({os.fsdecode(path)!r})")
    ctx, cptr = resolve("ref" if backend == "ref" else device)
    out = (_ops if kind.value == 1 else _jax)(cptr, path)
    out["backend"] = backend
    out["device"] = ctx.device["name"] if ctx is not None else "CPU reference"
    out["kind"] = "ops" if kind.value == 1 else "jax"
    return out
