#!/usr/bin/env python3
"""Every rule under both scopes, on the fixtures of its own test.

usage: both-scopes.py CLANG-MAXCODE SPLIT-FILE RULES-TEST-DIR SCRATCH

For each rule that `--list-rules` names, test/Rules/RULE.test is split into
SCRATCH/RULE, and each of its `--list-variants --rules=...` RUN lines is run
again for every target of its source, once under --scope=file and once
under --scope=target, with -debug-only=maxcode-rules. A rule must propose
only what the scope accepts: the proposer never drops one of its proposals
because it breaks the scope (under --scope=target that is an edit outside
the target's definition, the declarations before it and the #include lines).
A rule must also be exercised: it proposes at least one edit under
--scope=file on its own fixtures.

Prints one line per rule, then a summary; exits 1 when a rule fails."""
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys

TOOL, SPLIT, TESTS, SCRATCH = sys.argv[1:5]


def run(args):
    P = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return P.returncode, P.stdout, P.stderr


def invocations(rule, folder):
    """The rule's own --list-variants runs: (source, arguments) pairs."""
    Found = []
    with open(os.path.join(TESTS, rule + ".test")) as F:
        for Line in F:
            M = re.match(r"\s*(?://|#)?\s*RUN:\s*(.*)", Line)
            if not M or "--list-variants" not in M.group(1):
                continue
            Cmd = M.group(1).split("|")[0].split(">")[0]
            Cmd = Cmd.replace("%t", folder).replace("%S", TESTS)
            Words = shlex.split(Cmd)
            if not Words or Words[0] != "%clang-maxcode":
                continue
            if not any(W == "--rules=" + rule for W in Words):
                continue
            Keep, Source = [], None
            for W in Words[1:]:
                if W.startswith(("--target=", "--scope=", "--write-variants=",
                                 "-debug-only=")):
                    continue
                if Source is None and W.startswith(folder):
                    Source = W
                Keep.append(W)
            if Source and os.path.exists(Source):
                Found.append((Source, Keep))
    return Found


def targets(args):
    Code, Out, _ = run([TOOL, "--list-targets"] +
                       [W for W in args if W not in ("--list-variants",)
                        and not W.startswith("--rules=")])
    if Code != 0:
        return []
    return [L.split()[0] for L in Out.splitlines()[1:] if L.strip()]


def check(rule):
    Folder = os.path.join(SCRATCH, rule)
    os.makedirs(Folder, exist_ok=True)
    subprocess.run([SPLIT, os.path.join(TESTS, rule + ".test"), Folder],
                   capture_output=True)
    Edits = {"file": 0, "target": 0}
    Refused, Runs = [], 0
    Seen = set()
    for Source, Args in invocations(rule, Folder):
        for Target in targets(Args):
            for Scope in ("file", "target"):
                Key = (tuple(Args), Target, Scope)
                if Key in Seen:
                    continue
                Seen.add(Key)
                Runs += 1
                _, _, Err = run([TOOL, "--target=" + Target, "--scope=" + Scope,
                                 "-debug-only=maxcode-rules"] + Args)
                for L in Err.splitlines():
                    M = re.match(r"maxcode-rules: %s: (\d+) edit" %
                                 re.escape(rule), L)
                    if M:
                        Edits[Scope] += int(M.group(1))
                    if "breaks the scope" in L:
                        Refused.append("%s %s --scope=%s: %s" % (
                            os.path.basename(Source), Target, Scope, L))
    return rule, Runs, Edits, Refused


def main():
    Code, Out, Err = run([TOOL, "--list-rules"])
    if Code != 0:
        sys.exit("cannot list the rules: " + Err)
    Rules = [L.split()[0] for L in Out.splitlines() if L.strip()]
    Failed = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as Pool:
        for rule, Runs, Edits, Refused in Pool.map(check, Rules):
            Bad = Refused or not Runs or Edits["file"] == 0
            Failed += bool(Bad)
            print("%s %s: %d runs, %d edits under --scope=file, %d under "
                  "--scope=target, %d refused by the scope" %
                  ("FAIL" if Bad else "ok", rule, Runs, Edits["file"],
                   Edits["target"], len(Refused)))
            for R in Refused:
                print("  " + R)
    print("%d rules, %d failing" % (len(Rules), Failed))
    sys.exit(1 if Failed else 0)


main()
