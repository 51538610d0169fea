"""Change points in a host's measurement history, found by Apache Otava's E-divisive detector.

Usage: python changes.py HISTORY_JSONL OUT_JSON

Reads results/<host>/history.jsonl (one record per figure of a run: kind, name, commit,
dirty, date, median_s), makes one series per (kind, name) of the runs from clean trees, oldest
first, and writes every change point Otava finds in a series of at least MIN_POINTS runs: the
run where the series moved, its commit and date, the mean wall time before and after, the
change in percent and Otava's p-value. Runs from dirty trees are never part of a series, so
they can never be a change point. Prints one line per change point.
"""

import json
import sys
from collections import defaultdict

from otava.analysis import compute_change_points

# A change needs runs on both sides; Otava's t-test needs a few on each.
MIN_POINTS = 6
# Otava's significance threshold for a change point.
MAX_PVALUE = 0.001


def series_of(records):
    """Clean runs per (kind, name), oldest first."""
    series = defaultdict(list)
    for record in records:
        if record.get("dirty") is False:
            series[(record["kind"], record["name"])].append(record)
    for runs in series.values():
        runs.sort(key=lambda r: r["date"])
    return series


def change_points(runs):
    """Otava's change points of one series, as dictionaries."""
    values = [r["median_s"] for r in runs]
    points, _ = compute_change_points(values, window_len=50, max_pvalue=MAX_PVALUE)
    found = []
    for point in points:
        stats = point.stats
        run = runs[point.index]
        found.append({
            "index": int(point.index),
            "commit": run["commit"],
            "date": run["date"],
            "before_s": float(stats.mean_before()),
            "after_s": float(stats.mean_after()),
            "change_percent": float(stats.forward_change_percent()),
            "pvalue": float(stats.pvalue),
        })
    return found


def main(history_path, out_path):
    with open(history_path, encoding="utf-8") as history:
        records = [json.loads(line) for line in history if line.strip()]
    results = []
    for (kind, name), runs in sorted(series_of(records).items()):
        if len(runs) < MIN_POINTS:
            continue
        for point in change_points(runs):
            results.append({"kind": kind, "name": name, **point})
            print(f"{kind} {name}: {point['change_percent']:+.1f}% at {point['commit']} "
                  f"({point['date']}), p={point['pvalue']:.2g}")
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump({"min_points": MIN_POINTS, "max_pvalue": MAX_PVALUE,
                   "detector": "Apache Otava compute_change_points (E-divisive means, t-test merge)",
                   "change_points": results}, out, indent=2)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: changes.py HISTORY_JSONL OUT_JSON")
    main(sys.argv[1], sys.argv[2])
