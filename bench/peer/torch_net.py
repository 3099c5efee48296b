"""The net suite of bench/peer/torch_ops.py: one training step of the digits
MLP (64-128-10, relu) and CNN (conv 3x3x16, relu, conv 3x3x32, relu, maxpool
2, dense 10), batch 64, in PyTorch eager as dlca-opsbench's net suite times
lib/net: the batch gathered on the GPU by an index tensor, forward, softmax
cross-entropy, backward and torch.optim.AdamW (lr 3e-3, torch's defaults
otherwise), on random data of the digits' shape (1438 samples)."""
import torch

SAMPLES, BATCH = 1438, 64


def model(name):
    nn = torch.nn
    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(512, 10))


def floors(net, name):
    """The same floors as bench/opsbench_net.c."""
    macs, first = 0.0, 0.0
    for m in net.modules():
        if isinstance(m, torch.nn.Linear):
            k = float(m.weight.numel())
        elif isinstance(m, torch.nn.Conv2d):
            k = float(m.weight.numel() * 64)  # 8x8 outputs, padding 1
        else:
            continue
        first = first or k
        macs += k
    params = sum(p.numel() for p in net.parameters())
    return BATCH * (6.0 * macs - 2.0 * first), 4.0 * (9.0 * params + BATCH * 65)


def suite_net(args, dev, timed):
    rows = []
    g = torch.Generator(device=dev).manual_seed(7)
    x_all = torch.rand(SAMPLES, 1, 8, 8, device=dev, generator=g)
    y_all = torch.randint(0, 10, (SAMPLES,), device=dev, generator=g)
    for name in ("mlp", "cnn"):
        torch.manual_seed(1)
        net = model(name).to(dev)
        opt = torch.optim.AdamW(net.parameters(), lr=3e-3)
        perm = torch.randperm(SAMPLES, device=dev, generator=g)
        state = {"b": 0}

        def step():
            b = state["b"] % (SAMPLES // BATCH)
            state["b"] += 1
            idx = perm[b * BATCH:(b + 1) * BATCH]
            loss = torch.nn.functional.cross_entropy(net(x_all[idx]), y_all[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        med, mn = timed(step, args.warmup, args.repeats)
        flops, nbytes = floors(net, name)
        rows.append(("net", "%s_digits_b%d_step" % (name, BATCH), med, mn, flops, nbytes))
    return rows
