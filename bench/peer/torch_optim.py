"""The optimizer suite's PyTorch peer (issue 32): one step of each
torch.optim optimizer at the sizes of bench/opsbench_optim.c, in 1 and 100
tensors, fused=True (where torch has it) and foreach=False, timed with CUDA
events over repeated steps after a warm-up; the same CSV columns as
bench/dlca-optbench. A row whose optimizer torch cannot run in that form
(fused RMSprop, say) carries torch's message instead of a time.
    python3 bench/peer/torch_optim.py [REPS [SIZE...]]"""
import sys

import torch

OPTIMS = [  # name, class, kwargs, bytes a parameter
    ("sgd", torch.optim.SGD, dict(lr=1e-3), 12),
    ("sgd_momentum", torch.optim.SGD, dict(lr=1e-3, momentum=0.9), 20),
    ("adam", torch.optim.Adam, dict(lr=1e-3), 28),
    ("adamw", torch.optim.AdamW, dict(lr=1e-3), 28),
    ("rmsprop", torch.optim.RMSprop, dict(lr=1e-2), 20),
    ("adagrad", torch.optim.Adagrad, dict(lr=1e-2), 20),
]


def tensors(n, t, dev):
    sizes = [n // t] * (t - 1) + [n - (t - 1) * (n // t)]
    ps = [torch.nn.Parameter(torch.rand(s, device=dev) * 2 - 1) for s in sizes]
    for p in ps:
        p.grad = (torch.rand_like(p) - 0.5) * 0.02
    return ps


def time_steps(opt, reps):
    for _ in range(3):
        opt.step()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        opt.step()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / reps


def optim_rows(out, sizes=(1000000, 10000000, 100000000), reps=20):
    dev = torch.device("cuda")
    name = '"%s"' % torch.cuda.get_device_name(0)
    for n in sizes:
        for oname, cls, kw, nbytes in OPTIMS:
            for t in (1, 100):
                for impl, extra in (("torch_fused", dict(fused=True)), ("torch_plain", dict(foreach=False))):
                    ps = tensors(n, t, dev)
                    try:
                        opt = cls(ps, **kw, **extra)
                        ms = time_steps(opt, reps)
                        out.write("optim,%s,%d,%d,%s,%.4f,%.1f,%s\n" % (oname, n, t, impl, ms, nbytes * n / (ms * 1e6), name))
                    except (RuntimeError, TypeError, ValueError) as e:
                        out.write("optim,%s,%d,%d,%s,,,%s: %s\n" % (oname, n, t, impl, name, str(e).splitlines()[0][:80]))
                    del ps
                    out.flush()


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    sizes = [int(s) for s in sys.argv[2:]] or (1000000, 10000000, 100000000)
    sys.stdout.write("suite,case,params,tensors,impl,ms,gbps,device\n")
    optim_rows(sys.stdout, sizes, reps)
