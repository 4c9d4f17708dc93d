#!/usr/bin/env python3
"""Writes the hand-made `ompscan run` directories the report tests read (docs/ompscan-formats.md).

Each application is simulated per execution the way the tool measures it: every thread's fork
delay, work, arrival at the region's barrier (imbalance = last arrival - own arrival), the
barrier's walkthrough and each thread's startup (late departure), lock acquisitions (fastest and
mean acquisition times), then summed over the measured executions. Deterministic (fixed seeds):
rerun after changing it and commit the output.

  mandel-static/   Mandelbrot rows, schedule(static): imbalance grows with threads; inputs 400 and
                   800, threads 1 2 4 8, 3 repetitions, plus a failed run and a run without profile
  mandel-dynamic/  the same application with schedule(dynamic,1), input 800
  mandel-loop/     mandel-static at input 800 whose loop is also recorded as a construct (its
                   threads' times and trip count: what a schedule change is priced from)
  locks/           two regions taking an OpenMP lock per iteration: private locks (uncontended)
                   and one shared lock (contended), threads 1 2 4 8, 2 repetitions
  stencil-inputs/  a balanced stencil over inputs 256 512 1024 2048, threads 1 2 4 8
  tasks/           a task tree (fib) with exact, hand-checkable numbers: input 30, threads 1 2,
                   2 repetitions; one region with tasks sampled 4, 5 or 8 of 10 executions, one
                   without tasks, a serial gap (numbers worked out in tests/regions/report_*)
"""

import heapq
import json
import math
import os
import random
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
NS = 1e9


def location(module, offset, file=None, line=None, function=None):
    loc = {"module": module, "build_id": "5c1e0a9b7d3f2e11a0c4b6d8e2f4a6c8b0d2e4f6",
           "offset": hex(offset)}
    if file is not None:
        loc.update({"file": file, "line": line, "function": function})
    return loc


class Run:
    """One run of an application: collects its regions and writes the run file."""

    def __init__(self, app, threads, input_value, input_index, repetition, seed):
        self.app = app
        self.threads = threads
        self.input = input_value
        self.input_index = input_index
        self.repetition = repetition
        self.rng = random.Random(seed)
        # ASLR: the same code lands at another address in every process.
        self.base = 0x55D0C0000000 + self.rng.randrange(1, 1 << 16) * 0x1000
        self.regions = []
        self.process_ns = 0.0

    def codeptr(self, offset):
        return hex(self.base + offset)

    def serial(self, rid, before_id, executions, wall_s):
        self.process_ns += wall_s * NS
        self.regions.append({
            "id": rid, "kind": "serial", "name": f"serial before {before_id}", "parent": None,
            "nesting_level": 0, "executions": executions, "executions_measured": executions,
            "team_size": {"min": 1, "max": 1}, "wall_ns": round(wall_s * NS)})

    def parallel(self, rid, offset, loc, executions, measured, work, schedule="static",
                 locks=None, iterations=None, loop_construct=False):
        """work(t) -> seconds of work of thread t in one execution; locks: list of dicts with
        per-thread acquisitions per execution, fastest and mean acquisition times (s);
        loop_construct: the work is one loop, recorded as the region's construct too (its trip
        count the sum of iterations(t))."""
        p = self.threads
        locks = locks or []
        fork = [1.5e-6 if t == 0 else 4e-6 + 0.8e-6 * t for t in range(p)]
        w = [work(t) for t in range(p)]
        lock_time = [sum(l["per_thread"] * l["mean"] for l in locks) for _ in range(p)]
        arrival = [fork[t] + w[t] + lock_time[t] for t in range(p)]
        last = max(arrival)
        walkthrough = 0.2e-6 if p == 1 else 0.6e-6 + 0.9e-6 * math.log2(p)
        startup = [0.0 if t == 0 else 0.35e-6 * t for t in range(p)]
        wall = last + walkthrough + startup[0] + 0.5e-6
        m = measured
        threads = []
        for t in range(p):
            acquisitions = sum(l["per_thread"] for l in locks) * m
            timed = sum(l["per_thread"] // l["sample"] for l in locks) * m
            wait = sum((l["per_thread"] // l["sample"]) * l["mean"] for l in locks) * m
            threads.append({
                "thread": t, "work_ns": round(w[t] * m * NS), "fork_ns": round(fork[t] * m * NS),
                "imbalance_ns": round((last - arrival[t]) * m * NS),
                "walkthrough_ns": round(walkthrough * m * NS),
                "startup_ns": round(startup[t] * m * NS), "barriers": m,
                "lock_wait_ns": round(wait * NS), "lock_acquisitions": acquisitions,
                "lock_timed": timed,
                "iterations": (iterations(t) if iterations else 0) * m})
        lock_records = []
        for l in locks:
            timed = (l["per_thread"] // l["sample"]) * p * m
            lock_records.append({
                "kind": l["kind"], "codeptr": self.codeptr(l["offset"]), "location": l["location"],
                "acquisitions": l["per_thread"] * p * m, "timed": timed,
                "wait_ns": round(timed * l["mean"] * NS), "fastest_ns": round(l["fastest"] * NS)})
        constructs = []
        if loop_construct:
            trip = sum(iterations(t) for t in range(p))
            constructs.append({
                "kind": "loop", "location": loc, "schedule": schedule,
                "threads": [{"thread": t, "executions": m, "iterations": trip * m,
                             "time_ns": round(w[t] * m * NS), "barriers": m,
                             "imbalance_ns": round((last - arrival[t]) * m * NS)}
                            for t in range(p)]})
        scaled_wall = wall * executions
        self.process_ns += scaled_wall * NS
        self.regions.append({
            "id": rid, "kind": "parallel", "name": "", "codeptr": self.codeptr(offset),
            "location": loc, "parent": None, "nesting_level": 0, "executions": executions,
            "executions_measured": m, "team_size": {"min": p, "max": p},
            "wall_ns": round(wall * m * NS), "threads": threads, "locks": lock_records,
            "loops": [{"schedule": schedule, "executions": m}] if schedule else [],
            "tasks": {"created": 0, "executed": 0}, **({"constructs": constructs} if constructs
                                                         else {})})

    def write(self, directory, command, template):
        run_id = f"t{self.threads}-in{self.input}-r{self.repetition}"
        self.process_ns += 0.4e-3 * NS
        profile = {
            "format": "ompscan-profile-1", "tool_version": "0.1.0 (git 000000000000)",
            "runtime_version": "LLVM OMP version: 5.0.20140926",
            "clock": {"source": "tsc", "ticks_per_second": 2100000000.0},
            "process_ns": round(self.process_ns), "max_threads": self.threads,
            "sampling": {"policy": "adaptive", "always_first": 16, "dropped_events": 0,
                         "buffer_full_events": 0},
            "regions": self.regions}
        write_run(directory, run_id, self, command, template, "ok", profile, "",
                  round(self.process_ns + 3e-3 * NS))


def write_run(directory, run_id, run, command, template, status, profile, profile_error,
              wall_ns, exit_status=0, signal=None):
    doc = {
        "format": "ompscan-run-1", "run_id": run_id, "command": command, "template": template,
        "threads": run.threads, "input": run.input, "input_index": run.input_index,
        "repetition": run.repetition, "bind": "spread", "places": "cores",
        "oversubscribed": False, "started": "2026-11-22T01:02:03Z", "status": status,
        "exit_status": exit_status, "signal": signal, "wall_ns": wall_ns,
        "runtime": {"library": "/usr/lib/llvm-14/lib/libomp.so.5", "gomp_abi": False},
        "energy": {"available": False, "reason": "no /sys/class/powercap/intel-rapl:*"},
        "counters": {"available": False, "reason": "perf_event_paranoid is 3"},
        "profile": profile, "profile_error": profile_error}
    with open(os.path.join(directory, run_id + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def fresh(name):
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


# --- Mandelbrot -------------------------------------------------------------------------------

MANDEL = "/home/user/apps/mandel"
EXECUTIONS, MEASURED = 40, 24


def row_costs(n):
    """Seconds per row in one frame: rows through the set's middle iterate longest."""
    c = [1.0 + 9.0 * math.exp(-(((y + 0.5) / n - 0.5) / 0.18) ** 2) for y in range(n)]
    frame = 0.30 * (n / 800.0) ** 2  # one frame at 1 thread, input 800: 0.3 s
    total = sum(c)
    return [frame * v / total for v in c]


def static_blocks(n, p):
    """libomp's schedule(static): contiguous blocks, the first n % p threads one row more."""
    q, r = divmod(n, p)
    blocks, start = [], 0
    for t in range(p):
        size = q + (1 if t < r else 0)
        blocks.append(range(start, start + size))
        start += size
    return blocks


def dynamic_work(costs, p, dispatch=0.15e-6):
    """schedule(dynamic,1): each free thread takes the next row; returns work per thread."""
    fork = [1.5e-6 if t == 0 else 4e-6 + 0.8e-6 * t for t in range(p)]
    heap = [(fork[t], t) for t in range(p)]
    heapq.heapify(heap)
    work = [0.0] * p
    rows = [0] * p
    for c in costs:
        now, t = heapq.heappop(heap)
        work[t] += c + dispatch
        rows[t] += 1
        heapq.heappush(heap, (now + c + dispatch, t))
    return work, rows


def mandel_run(directory, p, n, index, rep, schedule, ids, loop_construct=False):
    seed = (schedule == "static") * 100000 + 1000 * p + n + 7 * rep
    run = Run("mandel", p, str(n), index, rep, seed)
    costs = row_costs(n)
    memory = 1.0 + 0.004 * math.log2(p)  # a little bandwidth pressure with more threads
    noise = [1.0 + 0.003 * (run.rng.random() * 2 - 1) for _ in range(p)]
    if schedule == "static":
        blocks = static_blocks(n, p)
        work = [sum(costs[y] for y in blocks[t]) * memory * noise[t] for t in range(p)]
        rows = [len(blocks[t]) for t in range(p)]
    else:
        work, rows = dynamic_work(costs, p)
        # Rows dealt one at a time lose some cache locality against contiguous blocks.
        work = [w * memory * noise[t] * 1.02 for t, w in enumerate(work)]
    s_mandel, mandel, s_color, color = ids
    run.serial(s_mandel, mandel, EXECUTIONS, 0.030 * (n / 800.0) ** 2 + 39 * 0.15e-3)
    run.parallel(mandel, 0x1233, location(MANDEL, 0x1233, "/home/user/apps/mandel.c", 42, "main"),
                 EXECUTIONS, MEASURED, lambda t: work[t], schedule,
                 iterations=lambda t: rows[t], loop_construct=loop_construct)
    run.serial(s_color, color, EXECUTIONS, EXECUTIONS * 0.05e-3)
    frame = 0.02 * (n / 800.0) ** 2
    cnoise = [1.0 + 0.005 * (run.rng.random() * 2 - 1) for _ in range(p)]
    # Colouring is balanced but memory bound: each thread slows as more share the bandwidth.
    # Its location is unresolved (a stripped static function): module and offset only.
    run.parallel(color, 0x1A2F, location(MANDEL, 0x1A2F), EXECUTIONS, MEASURED,
                 lambda t: frame / p * (1.0 + 0.06 * math.log2(p)) * cnoise[t], "static",
                 iterations=lambda t: n // p)
    return run


def make_mandel(name, schedule, inputs, reps, extras, loop_construct=False):
    directory = fresh(name)
    template = ["./mandel", "{input}", "{threads}"]
    for index, n in enumerate(inputs):
        for p in (1, 2, 4, 8):
            for rep in range(reps):
                # Region ids follow first encounter; vary them across runs as a real tool might.
                ids = (1, 2, 3, 4) if rep != 1 else (5, 7, 2, 3)
                run = mandel_run(directory, p, n, index, rep, schedule, ids, loop_construct)
                run.write(directory, ["./mandel", str(n), str(p)], template)
    if extras:
        failed = Run("mandel", 8, "800", 1, 3, 1)
        write_run(directory, "t8-in800-r3", failed, ["./mandel", "800", "8"], template, "failed",
                  None, "the application was killed by signal 9 before finalize", 912345678,
                  exit_status=None, signal=9)
        quiet = Run("mandel", 2, "400", 0, 3, 2)
        write_run(directory, "t2-in400-r3", quiet, ["./mandel", "400", "2"], template, "ok", None,
                  "the tool wrote no profile: $OMPSCAN_OUTPUT does not exist", 1234567890)


# --- Locks ------------------------------------------------------------------------------------

LOCKBENCH = "/home/user/apps/lockbench"
ITERATIONS = 2_000_000
SHARED_MEAN = {1: 22e-9, 2: 70e-9, 4: 190e-9, 8: 480e-9}


def make_locks():
    directory = fresh("locks")
    template = ["./lockbench", "{input}"]
    for p in (1, 2, 4, 8):
        for rep in range(2):
            run = Run("lockbench", p, str(ITERATIONS), 0, rep, seed=1000 + 10 * p + rep)
            per_thread = ITERATIONS // p
            noise = [1.0 + 0.002 * (run.rng.random() * 2 - 1) for _ in range(p)]
            private = [{"kind": "lock", "offset": 0x2210, "per_thread": per_thread, "sample": 8,
                        "fastest": 18e-9, "mean": (21.5 + 0.3 * math.log2(p)) * 1e-9,
                        "location": location(LOCKBENCH, 0x2210, "/home/user/apps/lockbench.c",
                                             33, "private_locks")}]
            shared = [{"kind": "lock", "offset": 0x2410, "per_thread": per_thread, "sample": 8,
                       "fastest": 20e-9, "mean": SHARED_MEAN[p],
                       "location": location(LOCKBENCH, 0x2410, "/home/user/apps/lockbench.c",
                                            55, "shared_lock")}]
            run.serial(1, 2, 1, 2e-3)
            # Each iteration: acquire, 30 ns inside, release, then 200 ns of busy waiting.
            run.parallel(2, 0x2200, location(LOCKBENCH, 0x2200, "/home/user/apps/lockbench.c", 30,
                                             "private_locks"),
                         1, 1, lambda t: per_thread * 230e-9 * noise[t], None, locks=private)
            run.serial(3, 4, 1, 0.1e-3)
            run.parallel(4, 0x2400, location(LOCKBENCH, 0x2400, "/home/user/apps/lockbench.c", 52,
                                             "shared_lock"),
                         1, 1, lambda t: per_thread * 230e-9 * noise[t], None, locks=shared)
            run.write(directory, ["./lockbench", str(ITERATIONS)], template)


# --- Stencil over inputs ----------------------------------------------------------------------

STENCIL = "/home/user/apps/stencil"


def make_stencil():
    directory = fresh("stencil-inputs")
    template = ["./stencil", "{input}"]
    for index, n in enumerate((256, 512, 1024, 2048)):
        for p in (1, 2, 4, 8):
            for rep in range(2):
                run = Run("stencil", p, str(n), index, rep, seed=2000 + n + 10 * p + rep)
                noise = [1.0 + 0.005 * (run.rng.random() * 2 - 1) for _ in range(p)]
                sweep = 2e-8 * n * n
                run.serial(1, 2, 100, 100 * 1e-3)
                run.parallel(2, 0x3300, location(STENCIL, 0x3300, "/home/user/apps/stencil.c", 88,
                                                 "sweep"),
                             100, 40, lambda t: sweep / p * noise[t], "static",
                             iterations=lambda t: n // p)
                run.write(directory, ["./stencil", str(n)], template)


# --- Tasks (exact numbers, no simulation) ------------------------------------------------------

FIB = "/apps/fib"
# (threads, repetition, measured of 10 executions, wall ns, created, executed, task ns per thread),
# all sums over the measured executions. With s = 10 / measured:
#   1 thread:  time 10 ms in both repetitions; 1000 created and executed; time in tasks
#              2.5 * 2.0 ms = 5 ms and 2 * 2.8 ms = 5.6 ms, mean 5.3 ms.
#   2 threads: time 7.5 ms in both; 1000 created, 1000 and 990 executed (mean 995); time in tasks
#              per thread 2.5 * (1.2 + 0.8) / 2 = 2.5 ms and 1.25 * (2.0 + 2.4) / 2 = 2.75 ms,
#              mean 2.625 ms.
TASK_RUNS = [
    (1, 0, 4, 4.0e6, 400, 400, [2.0e6]),
    (1, 1, 5, 5.0e6, 500, 500, [2.8e6]),
    (2, 0, 4, 3.0e6, 400, 400, [1.2e6, 0.8e6]),
    (2, 1, 8, 6.0e6, 800, 792, [2.0e6, 2.4e6]),
]


def make_tasks():
    directory = fresh("tasks")
    for p, rep, measured, wall_ns, created, executed, task_ns in TASK_RUNS:
        run = Run("fib", p, "30", 0, rep, seed=3000 + 10 * p + rep)
        plain_wall = 2.0e6 if p == 1 else 1.1e6
        task_threads, plain_threads = [], []
        for t in range(p):
            task_threads.append({
                "thread": t, "executions": measured, "work_ns": round(0.9 * wall_ns),
                "fork_ns": 1000 * measured, "imbalance_ns": 0, "walkthrough_ns": 500 * measured,
                "startup_ns": 0, "barriers": measured, "lock_wait_ns": 0,
                "lock_acquisitions": 0, "lock_timed": 0, "task_ns": round(task_ns[t])})
            plain_threads.append({
                "thread": t, "executions": 1, "work_ns": round(0.9 * plain_wall), "fork_ns": 1000,
                "imbalance_ns": 0, "walkthrough_ns": 500, "startup_ns": 0, "barriers": 1,
                "task_ns": 0})
        run.regions = [
            {"id": 1, "kind": "serial", "name": "serial before 2", "parent": None,
             "nesting_level": 0, "executions": 1, "executions_measured": 1,
             "team_size": {"min": 1, "max": 1}, "wall_ns": 100000},
            {"id": 2, "kind": "parallel", "name": "", "codeptr": run.codeptr(0x1200),
             "location": location(FIB, 0x1200, "/src/fib.c", 20, "main"), "parent": None,
             "nesting_level": 0, "executions": 10, "executions_measured": measured,
             "team_size": {"min": p, "max": p}, "wall_ns": round(wall_ns),
             "threads": task_threads, "locks": [], "loops": [],
             "tasks": {"created": created, "executed": executed}},
            {"id": 3, "kind": "parallel", "name": "", "codeptr": run.codeptr(0x1400),
             "location": location(FIB, 0x1400, "/src/fib.c", 40, "main"), "parent": None,
             "nesting_level": 0, "executions": 1, "executions_measured": 1,
             "team_size": {"min": p, "max": p}, "wall_ns": round(plain_wall),
             "threads": plain_threads, "locks": [],
             "loops": [{"schedule": "static", "executions": 1}],
             "tasks": {"created": 0, "executed": 0}}]
        run.process_ns = 100000 + wall_ns * 10 / measured + plain_wall
        run.write(directory, ["./fib", "30"], ["./fib", "{input}"])


if __name__ == "__main__":
    make_mandel("mandel-static", "static", (400, 800), 3, True)
    make_mandel("mandel-dynamic", "dynamic", (800,), 3, False)
    make_mandel("mandel-loop", "static", (800,), 3, False, loop_construct=True)
    make_locks()
    make_stencil()
    make_tasks()
