#!/usr/bin/env python3
"""Checks a metrics-pass report of libmaxcode-cupti.so.

Usage: check-metrics-report.py REPORT KERNEL LAUNCHES

Either the metrics were collected, and each of the LAUNCHES launches of
KERNEL has every default metric with a plausible value; or the counters were
denied, and the report says so and every launch has GPU times instead.
Prints a one-line verdict; exits non-zero on anything else.
"""

import json
import sys

DEFAULT_METRICS = [
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
]


def fail(message):
    sys.exit("check-metrics-report.py: " + message)


def main():
    path, kernel, launches = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path) as f:
        report = json.load(f)
    if report["version"] != 1 or report["pass"] != "metrics":
        fail("not a version 1 metrics report")
    mine = [k for k in report["kernels"] if k["name"].startswith(kernel + "(")]
    if len(mine) != launches:
        fail("%d launches of %s, expected %d" % (len(mine), kernel, launches))
    status = report["metrics_status"]
    if status == "collected":
        if report["metric_names"] != DEFAULT_METRICS:
            fail("metric names %s" % report["metric_names"])
        for k in mine:
            metrics = k.get("metrics", {})
            if sorted(metrics) != sorted(DEFAULT_METRICS):
                fail("launch %d has metrics %s" % (k["correlation_id"],
                                                   sorted(metrics)))
            if not metrics["gpu__time_duration.sum"] > 0:
                fail("no kernel duration")
            for name in DEFAULT_METRICS[1:]:
                value = metrics[name]
                if value is not None and not 0 <= value <= 100.5:
                    fail("%s = %s is not a percentage" % (name, value))
        print("collected: %d launches with %d metrics" % (len(mine),
                                                          len(DEFAULT_METRICS)))
        return 0
    if status == "insufficient-privileges":
        if not any("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" in n or
                   "PRIVILEGES" in n for n in report["notes"]):
            fail("no note about privileges")
        if not all(k.get("end_ns", 0) > k.get("start_ns", 0) > 0
                   for k in mine):
            fail("launches without times")
        print("insufficient-privileges: %d launches with times" % len(mine))
        return 0
    fail("metrics status %s; notes: %s" % (status, report["notes"]))


if __name__ == "__main__":
    sys.exit(main())
