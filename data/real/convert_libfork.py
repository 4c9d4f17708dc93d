#!/usr/bin/env python3
"""Converts libfork's published benchmark JSON (github.com/ConorWilliams/libfork, MPL-2.0) into the
CSV columns of the real measurement sets: construct,runtime,machine,threads,rep,value,unit.

Usage: convert_libfork.py LIBFORK_CHECKOUT > task-runtimes-strong-scaling.csv
The files read are listed in FILES below (paths in the libfork repository history; the commit
that added each is named in README.md).
"""
import csv
import json
import re
import sys

# nanobench output (one object per thread count, "measurements" hold the epochs, seconds)
NANOBENCH = [
    ("bench/data/graviton/arm-fork-{}.json", "libfork", "graviton"),
    ("benchmark/data/fork-{}.json", "libfork", "xeon-e5-2670"),
    ("benchmark/data/tbb-{}.json", "tbb", "xeon-e5-2670"),
]
KERNELS = ["dfs-7,7", "fib-30", "matmul-n=1024", "reduce-100_000_000"]
# Google Benchmark output (repetitions as "iteration" runs, milliseconds)
GBENCH = ("bench/data/lovelace.json", "lovelace")


def nanobench_rows(path, runtime, machine):
    for result in json.load(open(path))["results"]:
        construct = result["title"].split("-", 1)[1].replace(",", "_")
        threads = int(re.search(r"(\d+) threads", result["name"]).group(1))
        for rep, m in enumerate(result["measurements"]):
            yield [construct, runtime, machine, threads, rep, repr(m["elapsed"]), "s"]


def gbench_rows(path, machine):
    reps = {}
    for b in json.load(open(path))["benchmarks"]:
        parts = b["name"].split("/")
        if b.get("run_type") != "iteration" or len(parts) != 3 or parts[0] == "fib_omp":
            continue  # fib_omp is in openmp-tasks-strong-scaling.csv already
        name = parts[0]
        runtime = re.sub(r"[<>:, ]+", "-", name.removeprefix("fib_")).strip("-")
        threads = int(parts[1])
        rep = reps.setdefault((runtime, threads), 0)
        reps[(runtime, threads)] = rep + 1
        yield ["fib", runtime, machine, threads, rep, repr(b["real_time"]), b["time_unit"]]


def main():
    root = sys.argv[1]
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["construct", "runtime", "machine", "threads", "rep", "value", "unit"])
    for pattern, runtime, machine in NANOBENCH:
        for kernel in KERNELS:
            try:
                rows = list(nanobench_rows(f"{root}/{pattern.format(kernel)}", runtime, machine))
            except FileNotFoundError:
                continue  # tbb has no matmul
            out.writerows(rows)
    out.writerows(gbench_rows(f"{root}/{GBENCH[0]}", GBENCH[1]))


if __name__ == "__main__":
    main()
