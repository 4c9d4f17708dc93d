"""The Python module against the command-line tools it stands beside: the same models, predictions,
budgets and error messages as `modeler`, ompbench results and ompdash histories as data frames, and
the example in docs/ run as a user runs it.

CTest runs this with PYTHONPATH at the built package and OMPSCALE_MODELER_BIN, OMPSCALE_OMPDASH_BIN
and OMPSCALE_SOURCE_DIR set (tests/CMakeLists.txt)."""

import json
import math
import os
import pathlib
import subprocess
import sys

import pandas
import pytest

import ompscale

SOURCE = pathlib.Path(os.environ.get("OMPSCALE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
MODELER = os.environ.get("OMPSCALE_MODELER_BIN", "modeler")
OMPDASH = os.environ.get("OMPSCALE_OMPDASH_BIN", "ompdash")
EXAMPLE = SOURCE / "data/examples/barrier-algorithms-intel-16t.csv"
GENERIC = ["--param", "threads", "--value", "value", "--key", "construct,unit"]


def modeler(*args, cwd=None):
    return subprocess.run([MODELER, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def cli_models(tmp_path, *args):
    """The models `modeler fit ARGS --format json` writes, read back."""
    out = tmp_path / "cli.json"
    run = modeler("fit", *args, "--format", "json", "-o", out)
    assert run.returncode == 0, run.stderr
    return ompscale.read_models(out)


def ompbench_csv(rows):
    """An ompbench results table: rows of (construct, threads, rep, value, valid)."""
    header = ("construct,method,metric,threads,thread_class,bind,places,runtime,runtime_version,"
              "compiler,platform,param,param_value,rep,value,unit,valid,canary_ns,run_id,"
              "timestamp,oversubscribed\n")
    lines = [f"{c},direct,avg_cost,{t},,spread,cores,libgomp,12.2.0,gcc-12.2.0,vm,,,{r},{v},us,"
             f"{ok},400,r1,2026-11-20T10:00:{t:02d}Z,0\n" for c, t, r, v, ok in rows]
    return header + "".join(lines)


def test_fit_of_a_data_frame_gives_the_cli_models(tmp_path):
    frame = pandas.read_csv(EXAMPLE)
    models = ompscale.fit(frame, param="threads", value="value", key=["construct", "unit"],
                          classes="auto", predict=[64, 128], budget="4x")
    cli = cli_models(tmp_path, EXAMPLE, *GENERIC, "--classes", "auto", "--predict", "64,128",
                     "--budget", "4x")
    assert len(models) == len(cli) >= 8
    for ours, theirs in zip(models, cli):
        assert ours.key == theirs.key and ours.thread_class == theirs.thread_class
        assert ours.formula == theirs.formula
        assert ours.growth == theirs.growth
        assert [p.at for p in ours.predictions] == [64, 128]
        for p, q in zip(ours.predictions, theirs.predictions):
            assert p.value == pytest.approx(q.value, rel=1e-9)
            assert (p.low, p.high) == pytest.approx((q.low, q.high), rel=1e-9)
        if theirs.budget_crossing is not None:
            assert ours.budget_crossing.threads == theirs.budget_crossing.threads


def test_a_model_has_terms_statistics_intervals_and_warnings():
    models = ompscale.fit(EXAMPLE, param="threads", value="value", key="construct,unit")
    model = next(m for m in models if m.key["construct"] == "SpinningDisseminationBarrier")
    assert model.has_model and model.no_model is None
    assert model.parameter == "threads"
    assert set(model.statistics) == {"points", "rss", "tss", "adjusted_r2", "smape", "cv_error"}
    assert model.statistics["points"] == len(model.points) >= 10
    assert len(model.coefficient_intervals) == 1 + len(model.terms)
    low, high = model.coefficient_intervals[0]
    assert low <= model.constant <= high
    for term, (low, high) in zip(model.terms, model.coefficient_intervals[1:]):
        assert low <= term.coefficient <= high
        assert term.exponent_text in model.formula
    assert isinstance(model.warnings, list)
    assert all(set(p) == {"param", "value", "min", "max", "cv", "repetitions"} for p in model.points)
    # The model's own value at a measured point is what predict gives there (no extrapolation).
    at8 = model.predict(8)
    assert at8.low <= at8.value <= at8.high and at8.level == pytest.approx(0.9)
    assert model.predict(8, confidence=0.5).high < at8.high


def test_predict_and_budget_are_what_the_cli_computes(tmp_path):
    models = ompscale.fit(EXAMPLE, param="threads", value="value", key=["construct", "unit"])
    json_path = tmp_path / "m.json"
    assert modeler("fit", EXAMPLE, *GENERIC, "--format", "json", "-o", json_path).returncode == 0
    run = modeler("predict", json_path, "--at", "256", "--budget", "4x", "--format", "json")
    assert run.returncode == 0, run.stderr
    predicted = json.loads(run.stdout)
    for ours, kernel in zip(models, predicted["kernels"]):
        theirs = kernel["models"][0]
        if not ours.has_model:
            continue
        prediction = ours.predict(256)
        assert prediction.value == pytest.approx(theirs["predictions"][0]["value"], rel=1e-9)
        budget = ours.budget("4x")
        if theirs.get("budget") and theirs["budget"].get("threads") is not None:
            assert budget.threads == pytest.approx(theirs["budget"]["threads"])
            assert budget.threads_early <= budget.threads <= budget.threads_late


def test_a_budget_that_cannot_be_had_warns_as_the_cli_does():
    rows = "construct,threads,value\n" + "".join(
        f"tick,{t},{1 + r % 2}\n" for t in (1, 2, 4, 8, 16) for r in range(3))
    frame = pandas.read_csv(__import__("io").StringIO(rows))
    (model,) = ompscale.fit(frame, param="threads", value="value", key="construct")
    with pytest.warns(UserWarning, match="no budget 4x: no thread count costs 10 times"):
        assert model.budget("4x") is None


def test_errors_are_exceptions_with_the_clis_one_line_message(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("construct,threads,value\nbarrier,2,fast\n")
    cases = [
        ([EXAMPLE], dict(param="threads", value="value", confidence=1.5)),
        ([EXAMPLE], dict(param="threads", value="value", classes="po3")),
        ([EXAMPLE], dict(param="threads", value="value", jobs=-1)),
        ([EXAMPLE], dict(param="threads", value="value", confidense=0.5)),
        ([EXAMPLE], dict(param="threads", value="value", where={"nothing": "here"})),
        ([bad], dict(param="threads", value="value", key="construct")),
        ([tmp_path / "missing.csv"], dict()),
    ]
    for inputs, options in cases:
        args = [str(p) for p in inputs]
        for name, value in options.items():
            args += ompscale._option_words(name, value)
        run = modeler("fit", *args)
        assert run.returncode == 2
        line = run.stderr.removeprefix("modeler: ").rstrip("\n")
        assert "\n" not in line
        with pytest.raises(ValueError) as raised:
            ompscale.fit(inputs if len(inputs) > 1 else inputs[0], **options)
        assert str(raised.value) == line
    assert isinstance(raised.value, ompscale.InputError)
    with pytest.raises(ompscale.UsageError, match="did you mean --confidence"):
        ompscale.fit(EXAMPLE, param="threads", value="value", confidense=0.5)


def test_notes_about_the_inputs_are_warnings():
    text = ompbench_csv([("barrier", t, r, 1.0 + t + 0.01 * r, int(r != 2))
                         for t in (1, 2, 4, 8) for r in range(4)])
    frame = pandas.read_csv(__import__("io").StringIO(text), dtype=str, keep_default_na=False)
    with pytest.warns(UserWarning, match="4 value.s. of these kernels marked valid=0"):
        models = ompscale.fit(frame)
    assert len(models) == 1 and models[0].key["construct"] == "barrier"


def test_read_models_reads_what_fit_wrote(tmp_path):
    cli = cli_models(tmp_path, EXAMPLE, *GENERIC, "--predict", "64")
    assert cli.parameter == "threads"
    assert cli.key_columns == ["construct", "unit"]
    assert "0.1.0" in cli.ompscale_version
    assert [m.predictions[0].at for m in cli if m.has_model] == [64] * sum(m.has_model for m in cli)
    not_models = tmp_path / "x.json"
    not_models.write_text("construct,threads\n")
    with pytest.raises(ompscale.UsageError, match="not a models.json"):
        ompscale.read_models(not_models)


def test_read_results_gives_typed_rows_and_the_sidecar():
    frame = ompscale.read_results(SOURCE / "data/vm-2core/sweep.csv.xz")
    assert frame.threads.dtype == "int64" and frame.value.dtype == "float64"
    assert set(frame.valid.unique()) <= {0, 1}
    assert frame.param_value.dtype == object  # "static,4" is a value too
    runs = frame.attrs["sidecar"]
    assert isinstance(runs, list) and runs and "host" in json.dumps(runs[0])
    assert set(frame.run_id.unique()) <= {run.get("run_id") for run in runs} | {None}


def test_read_results_names_the_line_of_a_bad_value(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(ompbench_csv([("barrier", 1, 0, 1.0, 1), ("barrier", 2, 0, "fast", 1)]))
    with pytest.raises(ompscale.InputError, match=r"r.csv:3: value 'fast' is not a number"):
        ompscale.read_results(path)
    other = tmp_path / "o.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(ompscale.InputError, match="no 'construct' column"):
        ompscale.read_results(other)


def test_history_gives_the_ompdash_tables(tmp_path):
    results = tmp_path / "night1.csv"
    results.write_text(ompbench_csv([("barrier", t, r, 0.5 * t + 0.01 * r, 1)
                                     for t in (1, 2, 4, 8) for r in range(5)]))
    models = tmp_path / "night1.json"
    assert modeler("fit", results, "--format", "json", "-o", models).returncode == 0
    db = tmp_path / "history.sqlite"
    ingest = subprocess.run([OMPDASH, "ingest", results, models, "--db", db, "--label", "night1"],
                            capture_output=True, text=True)
    assert ingest.returncode == 0, ingest.stderr
    tables = ompscale.history(db)
    assert {"runs", "series", "summaries", "models"} <= set(tables)
    assert len(tables["runs"]) == 1
    summaries = tables["summaries"]
    assert len(summaries) == 4
    assert sorted(len(s) for s in summaries.samples) == [5, 5, 5, 5]
    assert all(math.isclose(s.mean(), m, rel_tol=0.05) for s, m in
               zip(summaries.samples, summaries["mean"]))
    assert len(tables["models"]) == 1
    with pytest.raises(ompscale.InputError, match="not an ompdash history"):
        empty = tmp_path / "empty.sqlite"
        __import__("sqlite3").connect(empty).close()
        ompscale.history(empty)


def test_the_example_in_docs_fits_and_draws_a_sweep(tmp_path):
    image = tmp_path / "barrier.png"
    run = subprocess.run([sys.executable, SOURCE / "docs/examples/fit_sweep.py", "-o", image],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "at 64 threads" in run.stdout
    import matplotlib.image
    pixels = matplotlib.image.imread(image)
    assert pixels.shape[0] >= 300 and pixels.shape[1] >= 800


def test_the_readmes_python_runs(tmp_path):
    readme = (SOURCE / "README.md").read_text()
    blocks = readme.split("```python\n")[1:]
    assert blocks, "README.md has no python block"
    for block in blocks:
        code = block.split("```", 1)[0]
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             cwd=SOURCE)
        assert run.returncode == 0, run.stderr
        assert "threads" in run.stdout and "Prediction(at=64" in run.stdout
