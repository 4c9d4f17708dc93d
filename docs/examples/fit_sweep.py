"""Fit the barrier costs of an ompbench sweep with the ompscale Python module and draw them.

    PYTHONPATH=build/python python3 docs/examples/fit_sweep.py [SWEEP] [-o barrier.png]

SWEEP defaults to the 16-core Xeon sweep in data/xeon-emr-16 (1..16 threads, both runtimes).
One panel per runtime, one shared cost axis: the measured medians with their min-max spread, the
model and its 90% prediction interval up to 64 threads, and where the cost passes 4x its resolved
base (the budget crossing).
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")  # files, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy  # noqa: E402

import ompscale  # noqa: E402

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", nargs="?", default=REPOSITORY / "data/xeon-emr-16/sweep.csv.xz")
    parser.add_argument("-o", "--output", default="barrier.png")
    args = parser.parse_args()

    sweep = ompscale.read_results(args.sweep)
    barrier = sweep[(sweep.construct == "barrier") & (sweep.method == "direct")
                    & (sweep.metric == "avg_cost") & (sweep.bind == "close")]
    models = ompscale.fit(barrier, predict=[32, 64], budget="4x")

    figure, axes = plt.subplots(1, len(models), figsize=(5 * len(models), 4), sharey=True,
                                squeeze=False, constrained_layout=True)
    threads = numpy.geomspace(1, 64, 60)
    for axis, model in zip(axes[0], models):
        points = model.points
        x = [p["param"] for p in points]
        axis.errorbar(x, [p["value"] for p in points],
                      yerr=[[p["value"] - p["min"] for p in points],
                            [p["max"] - p["value"] for p in points]],
                      fmt="o", color="black", markersize=3, label="measured (median, min-max)")
        if model.has_model:
            predictions = [model.predict(t) for t in threads]
            axis.plot(threads, [p.value for p in predictions], label=model.formula)
            axis.fill_between(threads, [p.low for p in predictions],
                              [p.high for p in predictions], alpha=0.25, label="90% interval")
            crossing = model.budget("4x")
            if crossing is not None and crossing.threads is not None:
                axis.axvline(crossing.threads, linestyle=":", color="gray",
                             label=f"4x budget at {crossing.threads:g} threads")
        axis.set_xscale("log", base=2)
        axis.set_title(f"{model.key['runtime']} ({model.growth})", fontsize=10)
        axis.set_xlabel("threads")
        axis.legend(fontsize=7, loc="upper left")
    axes[0][0].set_ylabel(f"barrier avg_cost [{barrier.unit.iloc[0]}]")
    figure.savefig(args.output, dpi=100)
    for model in models:
        at64 = model.predict(64)
        print(f"{model.kernel}: {model.formula}; at 64 threads {at64.value:.3g} "
              f"[{at64.low:.3g}, {at64.high:.3g}] {barrier.unit.iloc[0]}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
