"""Compares an uninterrupted search with a killed-and-resumed one.

Arguments: the uninterrupted run's JSON, the resumed run's JSON, the store
of the killed run, and how many evaluations it had stored when killed.
Prints whether the winners match, how many runs the store holds (a resumed
run continues the killed one), and how many of the stored evaluations the
resumed run computed again instead of reading them from the store.
"""
import json
import sqlite3
import sys

whole = json.load(open(sys.argv[1]))
resumed = json.load(open(sys.argv[2]))
store = sqlite3.connect(sys.argv[3])
stored = int(sys.argv[4])
same = (whole["status"] == resumed["status"] and
        whole.get("winner", {}).get("text") == resumed.get("winner", {}).get("text"))
print("same winner:", "yes" if same else "no")
print("runs in the store:", store.execute("select count(*) from runs").fetchone()[0])
print("stored before the kill and run again:", max(0, stored - resumed["from_store"]))
