"""Timing shared by the external peers (run from benchmarks/peers/, which is on
sys.path as the script's own folder)."""
import time


def time_runs(call, target_s, warmup=2, min_reps=5, max_s=2.0):
    """ember_bench's policy (benchmarks/measure.h), for one side: `warmup` calls,
    then calls until at least `min_reps` runs and `target_s` seconds, or 3 runs
    and `max_s` seconds for a slow call. Returns the run times and the last
    result."""
    result = None
    for _ in range(warmup):
        result = call()
    times = []
    while True:
        t0 = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - t0)
        total = sum(times)
        if len(times) >= min_reps and total >= target_s:
            break
        if len(times) >= 3 and total >= max_s:
            break
    return times, result
