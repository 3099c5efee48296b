"""A randomized SVD (Halko, Martinsson and Tropp 2011) from Python: the
products with A on the device (dlca_cl.ops.gemm, CLBlast), the thin QR and
the small SVD on the host in float64 (numpy.linalg). The library's own
device rSVD (lib/ops/rsvd_cl.c) is internal; this composes the public ops,
with the same test vectors (shared/testdata/ops/rsvd_*.json) as its oracle."""
import numpy as np

from . import ops
from .tensor import Tensor


def _qr(t):
    q, _ = np.linalg.qr(t.numpy().astype(np.float64))
    return q


def rsvd(ctx, a, rank, oversample=10, power_iters=2, seed=0):
    """(U [m, k], S [k] descending, V [n, k]) with A ~ U diag(S) V^T, as
    float32 arrays; A a numpy [m, n] array or a Tensor of ctx."""
    A = a if isinstance(a, Tensor) else Tensor.from_numpy(ctx, a)
    if A.ndim != 2:
        raise ValueError(f"rsvd: A has shape {A.shape}, expected a matrix [m, n]")
    m, n = A.shape
    k = int(rank)
    if not 1 <= k <= min(m, n):
        raise ValueError(f"rsvd: rank {k}, expected 1 to min(m, n) = {min(m, n)} (A is {m} x {n})")
    l = min(k + int(oversample), m, n)
    omega = np.random.default_rng(seed).standard_normal((n, l)).astype(np.float32)
    q = _qr(ops.gemm(A, Tensor.from_numpy(ctx, omega)))
    for _ in range(int(power_iters)):
        z = _qr(ops.gemm(A, Tensor.from_numpy(ctx, q), trans_a=True))
        q = _qr(ops.gemm(A, Tensor.from_numpy(ctx, z)))
    bt = ops.gemm(A, Tensor.from_numpy(ctx, q), trans_a=True).numpy().astype(np.float64)  # (Q^T A)^T [n, l]
    ub, s, vt = np.linalg.svd(bt.T, full_matrices=False)
    u, v = q @ ub[:, :k], vt[:k].T
    return u.astype(np.float32), s[:k].astype(np.float32), v.astype(np.float32)
