"""Waits until a table of the store holds at least N rows, or fails."""
import sqlite3
import sys
import time

path, table, want, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
deadline = time.time() + limit
while time.time() < deadline:
    try:
        c = sqlite3.connect(path, timeout=1)
        n = c.execute("select count(*) from %s" % table).fetchone()[0]
        c.close()
        if n >= want:
            sys.exit(0)
    except sqlite3.Error:
        pass
    time.sleep(0.05)
sys.exit("the store never held %d rows in %s" % (want, table))
