"""``hbnlab sweep``: tune and test HBN classifiers on many categories as background jobs.

    hbnlab sweep [--corpus reuters|synthetic|PATH] [--reuters-dir DIR]
                 [--categories all|top10|a,b,c] [--clusterings avg,or,dep]
                 [--B 3,5,7,9] [--alpha 0.03,0.06 | --alpha avg:0,0.05 --alpha dep:100,170]
                 [--n-features 30] [--hidden-states 2,3] [--choose per-category|global]
                 [--n-restarts 64] [--tol 1e-4] [--stop-words none|thesis|english|PATH]
                 [--final-only] [--baselines NB|none] [--seed 0]
                 [--dask [ADDRESS] | env HBNLAB_DASK_SCHEDULER | --local] [--workers N]
                 [--registry PATH] [--sweep-id ID] [--out DIR] [--no-report]
    hbnlab sweep --sweep-id ID --cancel | --status [--registry PATH]

Backend: the local process pool (``--workers`` processes) unless ``--dask`` is given or
``$HBNLAB_DASK_SCHEDULER`` is set; ``--dask`` without an address (and no environment variable)
starts a Dask ``LocalCluster`` of ``--workers`` single-threaded worker processes.

The sweep id groups the jobs in the run registry (default ``$HBNLAB_DATA_HOME/runs``, shared with
the workbench).  Without ``--sweep-id`` it is derived from the settings and the data, so running
the same command again resumes: finished cells are reused.  Ctrl-C stops the workers and leaves
the unfinished cells ``interrupted``; ``--cancel`` (from another terminal) cancels the sweep.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
import time
from pathlib import Path

from hbnlab.bounds import N_RESTARTS
from hbnlab.cli.common import (
    CLIError,
    add_corpus_options,
    add_indexing_options,
    add_validation_options,
    corpus_from_args,
    indexing_from_args,
    parse_list,
)

__all__ = ["register", "cmd_sweep", "TerminalProgress", "parse_alpha", "parse_states"]


# =========================================================================== argument parsing
def parse_alpha(values, clusterings) -> dict | None:
    """``--alpha`` values -> {clustering: [alphas]}.  A bare list applies to every clustering of
    the sweep; ``CLUSTERING:LIST`` sets one clustering's grid; the others keep the thesis's."""
    from hbnlab.models.catalog import CLUSTERINGS

    if not values:
        return None
    out: dict = {}
    for v in values:
        if ":" in v:
            k, lst = v.split(":", 1)
            k = k.strip().lower()
            if k not in CLUSTERINGS:
                raise CLIError(f"--alpha {v!r}: unknown clustering {k!r} (expected avg, or or dep)")
            out[k] = parse_list(lst, float, f"--alpha {k}")
        else:
            grid = parse_list(v, float, "--alpha")
            for k in clusterings:
                out[k] = grid
    return out


def parse_states(text: str) -> tuple:
    """``--hidden-states`` -> the numbers of states: ``"2,3,auto"`` -> ``(2, 3, "auto")``."""
    from hbnlab.models.hbn import parse_hidden_states

    try:
        return tuple(parse_hidden_states(t) for t in parse_list(text, str, "--hidden-states"))
    except ValueError as e:
        raise CLIError(f"--hidden-states: {e}") from None


def _categories_arg(text: str):
    text = text.strip()
    if text == "all" or (text.startswith("top") and text[3:].isdigit()):
        return text
    return tuple(parse_list(text, str, "--categories"))


# =========================================================================== progress bar
class TerminalProgress:
    """A plain-text progress bar: ``validation [#####-----] 120/340 done, 2 running, 0 failed,
    41 s, ~75 s left``.  On a terminal it redraws one line; otherwise it prints a line at most
    every ``interval`` seconds (and when a phase ends)."""

    def __init__(self, stream=None, width: int = 30, interval: float = 10.0):
        self.stream = stream or sys.stderr
        self.width = width
        self.interval = interval
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._phase = None
        self._t0 = 0.0
        self._last_print = 0.0
        self._last_line = ""

    def line(self, phase: str, counts: dict, total: int, elapsed: float) -> str:
        finished = sum(counts.get(s, 0) for s in ("done", "failed", "cancelled", "interrupted"))
        frac = finished / total if total else 1.0
        fill = int(round(frac * self.width))
        bar = "#" * fill + "-" * (self.width - fill)
        eta = ""
        if 0 < finished < total:
            eta = f", ~{elapsed * (total - finished) / finished:.0f} s left"
        extra = "".join(f", {counts[s]} {s}" for s in ("failed", "cancelled", "interrupted") if counts.get(s))
        return (f"{phase:<10} [{bar}] {counts.get('done', 0)}/{total} done, {counts.get('running', 0)} running"
                f"{extra}, {elapsed:.0f} s{eta}")

    def __call__(self, phase: str, counts: dict, total: int) -> None:
        now = time.monotonic()
        if phase != self._phase:
            if self._phase is not None and self.tty:
                self.stream.write("\n")
            self._phase, self._t0, self._last_print = phase, now, float("-inf")
        text = self.line(phase, counts, total, now - self._t0)
        finished = sum(counts.get(s, 0) for s in ("done", "failed", "cancelled", "interrupted")) >= total
        if self.tty:
            self.stream.write("\r" + text.ljust(len(self._last_line)))
            if finished:
                self.stream.write("\n")
                self._phase = None
        elif text != self._last_line and (finished or now - self._last_print >= self.interval):
            self.stream.write(text + "\n")
            self._last_print = now
        self._last_line = text
        self.stream.flush()


# =========================================================================== the command
def _config(args):
    from hbnlab.experiments import sweep as sw

    N_RESTARTS.check(args.n_restarts, name="--n-restarts")
    clusterings = parse_list(args.clusterings, str, "--clusterings")
    baselines = [] if args.baselines.strip().lower() in ("", "none") else parse_list(args.baselines, str, "--baselines")
    try:
        return sw.SweepConfig(
            categories=_categories_arg(args.categories), clusterings=tuple(clusterings),
            B=tuple(parse_list(args.B, int, "--B")), alpha=parse_alpha(args.alpha, [c.lower() for c in clusterings]),
            n_features=tuple(parse_list(args.n_features, int, "--n-features")),
            hidden_states=parse_states(args.hidden_states), choose=args.choose,
            n_restarts=args.n_restarts, tol=args.tol, final_only=args.final_only, direction=args.direction,
            baselines=tuple(baselines), random_state=args.seed, validation=args.validation, cv=args.cv)
    except sw.SweepError as e:
        raise CLIError(str(e)) from None


def resume_command(args, sweep_id: str) -> str:
    """The command line that resumes this sweep: the one given, with ``--sweep-id`` made explicit."""
    argv = list(getattr(args, "argv", None) or ["sweep"])
    if "--sweep-id" not in argv and not any(a.startswith("--sweep-id=") for a in argv):
        argv += ["--sweep-id", sweep_id]
    return "hbnlab " + shlex.join(argv)


def default_sweep_id(config, data) -> str:
    """``sweep-`` + a hash of the settings and the data: the same command resumes the same sweep.
    Binary hidden nodes leave the hash as it was before ``--hidden-states``, so a command of an
    earlier version resumes its sweep."""
    settings = config.to_dict()
    if settings["hidden_states"] == [2]:
        del settings["hidden_states"]
    h = hashlib.sha256(json.dumps([settings, data.fingerprint], sort_keys=True).encode()).hexdigest()
    return f"sweep-{h[:10]}"


def _runner(args, registry):
    from hbnlab.jobs import RunnerError, get_runner
    from hbnlab.jobs.malloc import unset_dask_malloc_trim

    address = args.dask if args.dask not in (None, "") else os.environ.get("HBNLAB_DASK_SCHEDULER") or None
    use_dask = not args.local and (args.dask is not None or address is not None)
    try:
        if use_dask:
            unset_dask_malloc_trim()  # a LocalCluster's workers: glibc's dynamic malloc thresholds
            runner = get_runner(registry, backend="dask", address=address, n_workers=args.workers,
                                threads_per_worker=1)
            where = f"Dask scheduler {runner.address}" + ("" if address else f" (LocalCluster, {args.workers} workers)")
        else:
            runner = get_runner(registry, backend="local", max_workers=args.workers)
            where = f"local pool, {args.workers} worker processes"
    except RunnerError as e:
        raise CLIError(str(e)) from None
    return runner, where


def cmd_sweep(args) -> int:
    from hbnlab.experiments import sweep as sw
    from hbnlab.jobs import RegistryError, RunRegistry
    from hbnlab.jobs.locks import GroupLockedError
    from hbnlab.pipeline.corpus_spec import data_home

    # one BLAS thread per worker process: N workers = N cores (workers inherit the environment)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    if args.workers < 1:
        raise CLIError(f"--workers must be >= 1, got {args.workers}")
    if (args.cancel or args.status) and not args.sweep_id:
        raise CLIError("--cancel and --status need --sweep-id")
    try:
        # --status only reads: it works on a read-only registry and never waits for the sweep's lock
        registry = RunRegistry(args.registry or data_home() / "runs",
                               read_only=args.status and not args.cancel)
    except RegistryError as e:
        raise CLIError(str(e)) from None

    if args.cancel or args.status:
        if args.cancel:
            ids = sw.cancel_sweep(registry, args.sweep_id)
            print(f"sweep {args.sweep_id}: cancel requested for {len(ids)} job(s)")
        status = sw.sweep_status(registry, args.sweep_id)
        for stage, counts in status.items():
            print(f"{stage:<10} " + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no cells"))
        registry.close()
        return 0

    config = _config(args)
    indexing = indexing_from_args(args)
    t0 = time.perf_counter()
    corpus = corpus_from_args(args, log=print)
    try:
        data = sw.prepare_sweep_data(corpus, config, indexing=indexing)
    except sw.SweepError as e:
        raise CLIError(str(e)) from None
    t_data = time.perf_counter() - t0
    sweep_id = args.sweep_id or default_sweep_id(config, data)
    out_dir = Path(args.out) if args.out else Path("sweeps") / sweep_id
    n_val = config.n_validation_cells(len(data.categories))
    n_test = len(data.categories) * (len(config.clusterings) + len(config.baselines))
    states = "" if config.hidden_states == (2,) else f", hidden states {', '.join(map(str, config.hidden_states))}"
    print(f"sweep {sweep_id}: {len(data.categories)} categories, clusterings {', '.join(config.clusterings)}{states}, "
          f"{n_val} validation + {n_test} test cells, {config.n_restarts} EM restarts "
          f"(data ready in {t_data:.1f} s, {len(data.names)} terms kept)")
    try:
        with sw.sweep_lock(registry, sweep_id):
            paths, result = _run_and_write(args, config, data, registry, sweep_id, out_dir, t_data)
    except GroupLockedError as e:
        raise CLIError(str(e)) from None
    if paths is None:
        return 130
    for stage, stats in result.job_stats.items():
        print(f"{stage}: " + ", ".join(f"{n} {k}" for k, n in stats.items()))
    if result.state != "done":
        print(f"sweep {sweep_id} {result.state}:", file=sys.stderr)
        for e in result.errors:
            print(f"  {e}", file=sys.stderr)
        print(f"resume with: {resume_command(args, sweep_id)}", file=sys.stderr)
        return 1
    print()
    print(sw.format_table_markdown(result.table))
    print(f"wrote {', '.join(str(p) for k, p in paths.items() if not k.startswith('report:csv'))}")
    return 0


def _run_and_write(args, config, data, registry, sweep_id, out_dir, t_data):
    """Run the sweep and write its folder (the caller owns the sweep's lock); ``(None, None)``
    when interrupted."""
    from hbnlab.experiments import sweep as sw
    from hbnlab.jobs.runner import SystemFailureError

    runner, where = _runner(args, registry)
    print(f"running on the {where}; registry {registry.path}")
    bar = TerminalProgress(interval=args.progress_interval)
    try:
        result = sw.run_sweep(config, data, runner, sweep_id=sweep_id, progress=bar, timeout=args.timeout,
                              log=lambda m: print(m, flush=True))
    except KeyboardInterrupt:
        runner.shutdown(wait=False, interrupt=True)
        print(f"\ninterrupted: unfinished cells are marked interrupted; run the same command with "
              f"--sweep-id {sweep_id} to resume", file=sys.stderr)
        return None, None
    except TimeoutError as e:
        runner.shutdown(wait=False, interrupt=True)
        raise CLIError(f"{e}; resume with --sweep-id {sweep_id}") from None
    except SystemFailureError as e:
        runner.shutdown(wait=False, interrupt=True)
        raise CLIError(f"sweep {sweep_id} stopped: {e}. Finished cells are kept; free the space (or fix the "
                       f"mount), then resume with: {resume_command(args, sweep_id)}") from None
    runner.shutdown(wait=True)
    result.timings["data_seconds"] = t_data
    result.timings["backend"] = where
    if result.table:
        result.table["timings"] = dict(result.timings)
    paths = result.write(out_dir, report=not args.no_report)
    return paths, result


def register(subparsers) -> None:
    """Add ``hbnlab sweep`` to the hbnlab parser."""
    p = subparsers.add_parser("sweep", help="tune and test HBN classifiers on many categories as jobs "
                                            "(local pool or Dask)")
    add_corpus_options(p, default="reuters", seed_flag="--corpus-seed")
    add_indexing_options(p)
    add_validation_options(p)
    p.add_argument("--categories", default="all", help="all | topK (e.g. top10) | comma list of names")
    p.add_argument("--clusterings", default="avg,or,dep")
    p.add_argument("--B", default="3,5,7,9", help="branching factors (thesis: 3,5,7,9)")
    p.add_argument("--alpha", action="append", default=None,
                   help="alpha grid: a comma list for every clustering, or CLUSTERING:LIST (repeatable); "
                        "default the thesis's Tables 4.2-4.4 grids")
    p.add_argument("--n-features", default="30", help="numbers of selected terms (comma list)")
    p.add_argument("--hidden-states", default="2", metavar="K,K,...",
                   help="the hidden nodes' numbers of states to tune over (comma list of integers >= 2, auto, "
                        "auto-holdout; default 2). An HBN whose tables would be larger than the binary grid's "
                        "largest (k ** B above 2 ** max B) is not fitted")
    p.add_argument("--choose", default="per-category", choices=["per-category", "global"])
    p.add_argument("--n-restarts", type=int, default=64)
    p.add_argument("--tol", type=float, default=1e-4)
    p.add_argument("--direction", default="hbn", choices=["hbn", "hnb"])
    p.add_argument("--baselines", default="NB", help="untuned learners tested beside (comma list, or none)")
    p.add_argument("--final-only", action="store_true", help="skip tuning: Table 4.1's final B and alpha "
                                                                         "(the first --n-features and --hidden-states)")
    p.add_argument("--seed", type=int, default=0, help="sweep seed (every cell's EM seed derives from it)")
    p.add_argument("--dask", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run on Dask: scheduler address (default $HBNLAB_DASK_SCHEDULER, else a LocalCluster)")
    p.add_argument("--local", action="store_true", help="use the local pool even if $HBNLAB_DASK_SCHEDULER is set")
    p.add_argument("--workers", type=int, default=2, help="local pool / LocalCluster worker processes (default 2)")
    p.add_argument("--registry", default=None, help="run registry directory (default $HBNLAB_DATA_HOME/runs)")
    p.add_argument("--sweep-id", default=None, help="group of the sweep's jobs; rerun an id to resume it")
    p.add_argument("--out", default=None, help="output directory (default sweeps/<sweep id>): sweep.json, "
                                               "table.json / table.md, cells.csv, test_scores.csv (each test "
                                               "document's score per category), the HTML report")
    p.add_argument("--no-report", action="store_true", help="skip the HTML report")
    p.add_argument("--timeout", type=float, default=None, help="seconds to wait per phase")
    p.add_argument("--progress-interval", type=float, default=10.0,
                   help="seconds between progress lines when stderr is not a terminal")
    p.add_argument("--cancel", action="store_true", help="cancel the sweep --sweep-id and exit")
    p.add_argument("--status", action="store_true", help="print the cell counts of --sweep-id and exit")
    p.set_defaults(func=cmd_sweep)
