#!/usr/bin/env python3
"""The rows of dlca-opsbench (bench/dlca-opsbench.c) measured with PyTorch on
a CUDA GPU: fp32 with TF32 off, each case one call followed by
torch.cuda.synchronize(), timed by the wall clock, --warmup untimed then
--repeats timed, median and minimum. The same suites, case names and CSV/JSON
columns, so that the two run in the same call on the same GPU:

    bench/dlca-opsbench --suite gemm,dense --csv ours.csv
    python3 bench/peer/torch_ops.py --suite gemm,dense --csv torch.csv

A suite's row may carry its own impl (the optim suite: fused or foreach=False).
"""
import argparse
import csv
import datetime
import json
import statistics
import sys
import time

import torch

SIZES = [512, 1024, 2048, 4096, 8192]

def timed(fn, warmup, repeats):
    """Median and minimum wall-clock ms of fn() followed by a synchronize."""
    for _ in range(warmup):
        fn()
        torch.cuda.synchronize()
    t = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t), min(t)

def suite_gemm(args, dev):
    rows = []
    for n in args.sizes:
        g = torch.Generator(device=dev).manual_seed(1)
        a = torch.rand(n, n, device=dev, generator=g) * 2 - 1
        b = torch.rand(n, n, device=dev, generator=g) * 2 - 1
        c = torch.empty(n, n, device=dev)
        med, mn = timed(lambda: torch.mm(a, b, out=c), args.warmup, args.repeats)
        rows.append(("gemm", "sgemm_%d" % n, med, mn, 2.0 * n ** 3, 12.0 * n * n))
        del a, b, c
    return rows

def suite_dense(args, dev):
    N, fin, fout = 32, 64, 128
    g = torch.Generator(device=dev).manual_seed(3)
    x = (torch.rand(N, fin, device=dev, generator=g) * 2 - 1).requires_grad_()
    w = (torch.rand(fout, fin, device=dev, generator=g) * 2 - 1).requires_grad_()
    b = (torch.rand(fout, device=dev, generator=g) * 2 - 1).requires_grad_()
    dy = torch.rand(N, fout, device=dev, generator=g) * 2 - 1
    mac = N * fin * fout
    fb = 4.0 * (N * fin + fout * fin + fout + N * fout)
    bb = 4.0 * (3 * N * fout + 2 * N * fin + 2 * fout * fin + fout)

    def fwd():
        with torch.no_grad():
            return torch.relu(torch.nn.functional.linear(x, w, b))

    def fwd_bwd():
        y = torch.relu(torch.nn.functional.linear(x, w, b))
        return torch.autograd.grad(y, (x, w, b), dy)

    med, mn = timed(fwd, args.warmup, args.repeats)
    rows = [("dense", "dense_64x128_relu_b32_fwd", med, mn, 2.0 * mac + 2.0 * N * fout, fb)]
    med, mn = timed(fwd_bwd, args.warmup, args.repeats)
    rows.append(("dense", "dense_64x128_relu_b32_fwd_bwd", med, mn, 6.0 * mac + 4.0 * N * fout, fb + bb))
    return rows

def suite_conv(args, dev):
    """conv2d 3x3, stride 1, padding 1, with bias (cuDNN, TF32 off): the rows of bench/opsbench_conv.c."""
    rows = []
    for N, C, H, O in [(64, 16, 8, 32), (64, 32, 32, 64)]:
        g = torch.Generator(device=dev).manual_seed(10)
        x = (torch.rand(N, C, H, H, device=dev, generator=g) * 2 - 1).requires_grad_()
        w = (torch.rand(O, C, 3, 3, device=dev, generator=g) * 2 - 1).requires_grad_()
        b = (torch.rand(O, device=dev, generator=g) * 2 - 1).requires_grad_()
        dy = torch.rand(N, O, H, H, device=dev, generator=g) * 2 - 1
        mac, ny = N * O * H * H * C * 9.0, N * O * H * H * 1.0
        fb = 4.0 * (N * C * H * H + O * C * 9 + O + ny)

        def fwd():
            with torch.no_grad():
                return torch.nn.functional.conv2d(x, w, b, padding=1)

        def fwd_bwd():
            y = torch.nn.functional.conv2d(x, w, b, padding=1)
            return torch.autograd.grad(y, (x, w, b), dy)

        name = "conv2d_n%d_c%d_%dx%d_o%d_k3_" % (N, C, H, H, O)
        med, mn = timed(fwd, args.warmup, args.repeats)
        rows.append(("conv", name + "fwd", med, mn, 2.0 * mac + ny, fb))
        med, mn = timed(fwd_bwd, args.warmup, args.repeats)
        rows.append(("conv", name + "fwd_bwd", med, mn, 6.0 * mac + 2.0 * ny, 2.0 * fb))
    return rows

# The optim suite (bench/opsbench_optim.c): name, class, kwargs, bytes a parameter.
OPTIMS = [
    ("sgd", torch.optim.SGD, dict(lr=1e-3), 12),
    ("sgd_momentum", torch.optim.SGD, dict(lr=1e-3, momentum=0.9), 20),
    ("adam", torch.optim.Adam, dict(lr=1e-3), 28),
    ("adamw", torch.optim.AdamW, dict(lr=1e-3), 28),
    ("rmsprop", torch.optim.RMSprop, dict(lr=1e-2), 20),
    ("adagrad", torch.optim.Adagrad, dict(lr=1e-2), 20),
]

def optim_params(n, t, dev):
    """n parameters in t tensors (the last takes the rest), with gradients."""
    g = torch.Generator(device=dev).manual_seed(7)
    sizes = [n // t] * (t - 1) + [n - (t - 1) * (n // t)]
    ps = [torch.nn.Parameter(torch.rand(s, device=dev, generator=g) * 2 - 1) for s in sizes]
    for p in ps:
        p.grad = (torch.rand(p.shape, device=dev, generator=g) - 0.5) * 0.02
    return ps

def suite_optim(args, dev):
    """One optimizer.step() in 1 and 100 tensors, fused=True and foreach=False
    (the impl column says which); a form torch lacks (fused RMSprop) is
    reported on stderr and skipped. Case names as dlca-opsbench's (its
    100t_own has no torch twin: torch's tensors are always their own)."""
    rows, ver = [], torch.__version__.split("+")[0]
    for n in (1000000, 10000000, 100000000):
        sz = "%dM" % (n // 1000000)
        a, b = torch.empty(n, device=dev), torch.empty(n, device=dev)
        if n == 100000000:
            med, mn = timed(lambda: b.copy_(a), args.warmup, args.repeats)
            rows.append(("optim", "copy_" + sz, med, mn, 0.0, 8.0 * n, "torch %s" % ver))
        del a, b
        for name, cls, kw, nbytes in OPTIMS:
            for t, lay in ((1, "1t"), (100, "100t")):
                for impl, extra in (("fused", dict(fused=True)), ("foreach=False", dict(foreach=False))):
                    ps = optim_params(n, t, dev)
                    try:
                        opt = cls(ps, **kw, **extra)
                        med, mn = timed(opt.step, args.warmup, args.repeats)
                    except (RuntimeError, TypeError, ValueError) as e:
                        print("torch_ops.py: %s %s: %s" % (name, impl, str(e).splitlines()[0]), file=sys.stderr)
                        continue
                    finally:
                        del ps
                    rows.append(("optim", "%s_%s_%s" % (name, sz, lay), med, mn, 0.0, float(nbytes * n),
                                 "torch %s %s" % (ver, impl)))
    return rows

def suite_gru(args, dev):
    """cuDNN's GRU (torch.nn.GRU), the 5-GRU ensemble one model after another, GRUCell in a Python loop."""
    B, T, D, H = 32, 10, 128, 256
    G = 3 * H
    torch.manual_seed(4)
    gru = torch.nn.GRU(D, H, batch_first=True).to(dev)
    ens = [torch.nn.GRU(D, H, batch_first=True).to(dev) for _ in range(5)]
    cell = torch.nn.GRUCell(D, H).to(dev)
    x = torch.randn(B, T, D, device=dev, requires_grad=True)
    h0 = torch.randn(1, B, H, device=dev)
    dy = torch.randn(B, T, H, device=dev)
    fwd = 2.0 * B * T * D * G + T * 2.0 * B * H * G
    w = 4.0 * (G * D + G * H + 2 * G)
    io = 4.0 * (B * T * D + B * H + B * T * H)

    def f():
        with torch.no_grad():
            return gru(x, h0)

    def fb():
        y, _ = gru(x, h0)
        return torch.autograd.grad(y, [x] + list(gru.parameters()), dy)

    def e():
        with torch.no_grad():
            return [g(x, h0) for g in ens]

    def efb():
        ys = [g(x, h0)[0] for g in ens]
        return torch.autograd.grad(ys, [x] + [p for g in ens for p in g.parameters()], [dy] * 5)

    def c():
        with torch.no_grad():
            h = h0[0]
            for t in range(T):
                h = cell(x[:, t], h)
            return h

    rows = []
    for case, fn, fl, by in (("gru_b32_d128_h256_t10_fwd", f, fwd, w + io),
                             ("gru_b32_d128_h256_t10_fwd_bwd", fb, 3 * fwd, 3 * (w + io)),
                             ("gru_ens5_b32_d128_h256_t10_fwd", e, 5 * fwd, 5 * w + io),
                             ("gru_ens5_b32_d128_h256_t10_fwd_bwd", efb, 15 * fwd, 15 * w + 3 * io),
                             ("grucell_b32_d128_h256_x10_host", c, fwd, 10 * w + io)):
        med, mn = timed(fn, args.warmup, args.repeats)
        rows.append(("gru", case, med, mn, fl, by))
    return rows

def suite_rsvd(args, dev):
    """torch.svd_lowrank with q = rank + 10 columns (our sketch) and niter 2; also q = rank (issue 33's figure)."""
    rows = []
    for m, n, k in ((1024, 1024, 32), (4096, 4096, 32), (8192, 2048, 64)):
        g = torch.Generator(device=dev).manual_seed(7)
        a = torch.rand(m, n, device=dev, generator=g) * 2 - 1
        for q, tag in ((k + 10, ""), (k, "_torchq%d" % k)):
            med, mn = timed(lambda: torch.svd_lowrank(a, q=q, niter=2), args.warmup, args.repeats)
            rows.append(("rsvd", "rsvd_%dx%d_k%d_p10_q2%s" % (m, n, k, tag), med, mn, 12.0 * m * n * q, 24.0 * m * n))
        del a
    return rows

SUITES = {
    "gemm": suite_gemm, "dense": suite_dense, "conv": suite_conv, "optim": suite_optim,
    "gru": suite_gru, "rsvd": suite_rsvd,
}
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from torch_net import suite_net  # noqa: E402  (bench/peer/torch_net.py)
SUITES["net"] = lambda args, dev: suite_net(args, dev, timed)

def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", default="all", help="comma-separated: " + ", ".join(SUITES) + ", or all")
    p.add_argument("--sizes", default=",".join(map(str, SIZES)), help="the gemm suite's n")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--csv")
    p.add_argument("--json")
    args = p.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    names = list(SUITES) if args.suite == "all" else args.suite.split(",")
    bad = [n for n in names if n not in SUITES]
    if bad:
        sys.exit("torch_ops.py: --suite: %s: not one of %s" % (", ".join(bad), ", ".join(SUITES)))
    if not torch.cuda.is_available():
        sys.exit("torch_ops.py: no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(dev)
    impl = "torch %s (cuBLAS)" % torch.__version__.split("+")[0]
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    print("torch_ops.py: %s on %s, %d repeats after %d warm-up calls, TF32 off" % (impl, name, args.repeats, args.warmup))
    out = []
    for n in names:
        for r in SUITES[n](args, dev):
            suite, case, med, mn, flops, nbytes = r[:6]
            row = {"suite": suite, "case": case, "impl": r[6] if len(r) > 6 else impl, "device": name,
                   "median_ms": med, "min_ms": mn,
                   "tflops": flops / (med * 1e9), "gbs": nbytes / (med * 1e6), "flops": flops, "bytes": nbytes,
                   "date": date}
            out.append(row)
            print("%-8s %-30s %10.4f %10.4f %9.3f %9.1f  %s" % (suite, case, med, mn, row["tflops"], row["gbs"],
                                                               row["impl"]))
    cols = ["suite", "case", "impl", "device", "median_ms", "min_ms", "tflops", "gbs", "flops", "bytes", "date"]
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            w.writerows(out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)

if __name__ == "__main__":
    main()
