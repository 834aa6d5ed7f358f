#!/usr/bin/env python3
"""Prints the facts report.test checks about a JSON report of clang-maxcode,
one a line (the format is docs/JSONOutput.md's "Search report")."""
import json
import sqlite3
import sys

STATUSES = {"ok", "wrong-output", "timeout", "crash", "build-error", "rejected"}

d = json.load(open(sys.argv[1]))
print("version", d["version"], "kind", d["kind"])
c = d["config"]
print("measure", d["measure"], "policy", c["policy"], "strategy",
      c["strategy"], "budget", c["budget"])
print("targets:", ", ".join("%s %s %s" % (t["name"], t["kind"], t["searched"])
                            for t in sorted(d["targets"],
                                            key=lambda t: t["name"])))
b = d["baseline"]
print("baseline:", b["cost_unit"], b["cost"] > 0, "tests", b["tests"])
nodes = d["nodes"]
print("nodes = evaluations + 1:", len(nodes) == d["search"]["evaluations"] + 1)
r = nodes[0]
print("root:", r["id"], r["parent"], r["status"], float(r["ratio"]))
ids = {n["id"] for n in nodes}
print("parents known:", all(n["parent"] in ids for n in nodes[1:]))
print("statuses known:", all(n["status"] in STATUSES for n in nodes))
print("critique tags are lists:",
      all(isinstance(n["critique_tags"], list) for n in nodes))
print("outcome", d["outcome"], "output", d["output"])
w = d["winner"]
v = w["verification"]
print("winner verified:", w["verified"], v["status"], "speedup > 1:",
      v["speedup"] > 1)
print("winner diff:", w["diff"].splitlines()[0])
print("llm:", d["llm"]["calls"], d["llm"]["prompt_tokens"],
      d["llm"]["completion_tokens"])
run = sqlite3.connect(d["store"]).execute(
    "select count(*) from runs where id = ?", (d["run"],)).fetchone()[0]
print("run in store:", run == 1)
