"""A GPU-machine check's loop, shared by scripts/card_check.py and
scripts/cuda_vs_sim.py: run one check per item a few at a time, start
none after a deadline (the machine's call is short), and count the
results by status. Standard library only.
"""
import concurrent.futures
import time


class Deadline:
    """A limit in seconds from when it was made."""

    def __init__(self, seconds):
        self.start, self.seconds = time.monotonic(), seconds

    def elapsed(self):
        return time.monotonic() - self.start

    def passed(self):
        return self.elapsed() > self.seconds


def run_all(items, check, jobs, deadline, late, caught=(), failed=None):
    """check(item) for each of items, jobs at a time in threads; the
    results in items' order. An item whose turn comes after deadline has
    passed gets late(item) instead, and one whose check raised an
    exception of the classes caught gets failed(item, exception); any
    other exception is raised."""

    def one(item):
        if deadline.passed():
            return late(item)
        try:
            return check(item)
        except caught as e:
            return failed(item, e)

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(one, items))


def counts(results):
    """How many of results (dicts) have each "status", in the order first
    met."""
    out = {}
    for r in results:
        out[r["status"]] = out.get(r["status"], 0) + 1
    return out
