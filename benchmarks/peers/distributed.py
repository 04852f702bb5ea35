"""The distributed suite's peer: torch.distributed with the gloo backend on 2
processes (this script started again with --rank), the same workloads and
timing protocol as benchmarks/distributed.cpp (Note [Distributed bench
processes]), and the DDP workloads of benchmarks/distributed_ddp.cpp with
torch.nn.parallel.DistributedDataParallel and torchvision's resnet18. Writes
"name median_s min_s reps" lines to --result."""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import time


def time_collective(call, target_s, dist, torch):
    for _ in range(2):
        call()
    times = []
    go = torch.zeros(1)
    while True:
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
        total = sum(times)
        done = (len(times) >= 5 and total >= target_s) or (len(times) >= 3 and total >= 2.0)
        go.fill_(1.0 if dist.get_rank() == 0 and not done else 0.0)
        dist.all_reduce(go, op=dist.ReduceOp.MAX)
        if go.item() == 0:
            break
    return statistics.median(times), min(times), len(times)


def run_rank(args):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(args.threads)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    out = open(args.result, "w") if rank == 0 else None

    def record(name, timing):
        if out:
            out.write("%s %.9g %.9g %d\n" % (name, *timing))
            out.flush()

    def wanted(name):
        return not args.filter or args.filter in name

    for n, name in ((1 << 10, "all_reduce_1K"), (1 << 20, "all_reduce_1M"), (25 << 20, "all_reduce_25M")):
        if not wanted(name):
            continue
        t = torch.full((n,), float(rank + 1))
        dist.all_reduce(t)
        assert t[0].item() == 3.0 and t[-1].item() == 3.0, name
        t.zero_()
        record(name, time_collective(lambda: dist.all_reduce(t), args.target_s, dist, torch))
    if wanted("all_gather_25M"):
        t = torch.full((25 << 20,), float(rank))
        outs = [torch.empty(25 << 20) for _ in range(2)]
        dist.all_gather(outs, t)
        assert outs[0][0].item() == 0.0 and outs[1][-1].item() == 1.0
        record("all_gather_25M", time_collective(lambda: dist.all_gather(outs, t), args.target_s, dist, torch))
    if wanted("broadcast_25M"):
        t = torch.full((25 << 20,), 7.0 if rank == 0 else 0.0)
        dist.broadcast(t, 0)
        assert t[-1].item() == 7.0
        record("broadcast_25M", time_collective(lambda: dist.broadcast(t, 0), args.target_s, dist, torch))
    if wanted("barrier"):
        record("barrier", time_collective(lambda: dist.barrier(), args.target_s, dist, torch))
    run_ddp(args, wanted, record, dist, torch)
    dist.destroy_process_group()


def small_cnn(torch):
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 5))


def run_ddp(args, wanted, record, dist, torch):
    """ddp_step_<model>, compute_<model>, allreduce_<model>: as distributed_ddp.cpp."""
    batch = 32
    for name in ("cnn", "resnet18"):
        if not any(wanted(w + name) for w in ("ddp_step_", "compute_", "allreduce_")):
            continue
        torch.manual_seed(0)
        if name == "cnn":
            model, x, y = small_cnn(torch), torch.randn(batch, 1, 28, 28), torch.randint(0, 5, (batch,))
        else:
            import torchvision
            model = torchvision.models.resnet18()
            x, y = torch.randn(batch, 3, 224, 224), torch.randint(0, 1000, (batch,))
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = torch.nn.functional.cross_entropy

        def ddp_step():
            opt.zero_grad()
            loss_fn(ddp(x), y).backward()
            opt.step()

        def compute_step():  # the module itself: DDP's hooks see no DDP forward and do nothing
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()

        if wanted("ddp_step_" + name):
            record("ddp_step_" + name, time_collective(ddp_step, args.target_s, dist, torch))
        if wanted("compute_" + name):
            record("compute_" + name, time_collective(compute_step, args.target_s, dist, torch))
        if wanted("allreduce_" + name):
            grads = torch.zeros(sum(p.numel() for p in model.parameters()))
            record("allreduce_" + name, time_collective(lambda: dist.all_reduce(grads), args.target_s, dist, torch))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--target-s", type=float, default=1.0)
    parser.add_argument("--result", required=True)
    parser.add_argument("--rank", type=int, default=-1)
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    if args.rank >= 0:
        run_rank(args)
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   OMP_NUM_THREADS=str(args.threads))
        procs.append(subprocess.Popen([sys.executable, __file__, "--rank", str(rank), "--threads", str(args.threads),
                                       "--target-s", str(args.target_s), "--result", args.result,
                                       "--filter", args.filter], env=env))
    codes = [p.wait() for p in procs]
    sys.exit(0 if all(c == 0 for c in codes) else 1)


if __name__ == "__main__":
    main()
