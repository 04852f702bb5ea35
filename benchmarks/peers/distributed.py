"""The distributed suite's peer: torch.distributed with the gloo backend on 2
processes (this script started again with --rank), the same workloads and
timing protocol as benchmarks/distributed.cpp (Note [Distributed bench
processes]). Writes "name median_s min_s reps" lines to --result."""
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

    for n, name in ((1 << 10, "all_reduce_1K"), (1 << 20, "all_reduce_1M"), (25 << 20, "all_reduce_25M")):
        t = torch.full((n,), float(rank + 1))
        dist.all_reduce(t)
        assert t[0].item() == 3.0 and t[-1].item() == 3.0, name
        t.zero_()
        record(name, time_collective(lambda: dist.all_reduce(t), args.target_s, dist, torch))
    t = torch.full((25 << 20,), float(rank))
    outs = [torch.empty(25 << 20) for _ in range(2)]
    dist.all_gather(outs, t)
    assert outs[0][0].item() == 0.0 and outs[1][-1].item() == 1.0
    record("all_gather_25M", time_collective(lambda: dist.all_gather(outs, t), args.target_s, dist, torch))
    t = torch.full((25 << 20,), 7.0 if rank == 0 else 0.0)
    dist.broadcast(t, 0)
    assert t[-1].item() == 7.0
    record("broadcast_25M", time_collective(lambda: dist.broadcast(t, 0), args.target_s, dist, torch))
    record("barrier", time_collective(lambda: dist.barrier(), args.target_s, dist, torch))
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--target-s", type=float, default=1.0)
    parser.add_argument("--result", required=True)
    parser.add_argument("--rank", type=int, default=-1)
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
                                       "--target-s", str(args.target_s), "--result", args.result], env=env))
    codes = [p.wait() for p in procs]
    sys.exit(0 if all(c == 0 for c in codes) else 1)


if __name__ == "__main__":
    main()
