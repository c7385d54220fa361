#!/usr/bin/python3
"""sysfs-outage.py <sessname>: the session's sysfs while its only path cannot reconnect.

Run by tests/vm/cases/reconnect-attempts.sh while the server host runs no RTRS server (its
connects are rejected at once). Reads every file of the session and of its path (except the
device core's power/ directory), then writes every writable file of the ABI document
(Documentation/ABI/testing/sysfs-class-rtrs-client) and checks the documented result and
that it came within the bound given per row: max_reconnect_attempts, mpath_policy,
io_hold_sec, stats/reset_all, add_path of a second path (the server host rejects it:
ECONNRESET), reconnect (ENOTCONN once the rejected attempts stop), disconnect, reconnect of
the closed path, disconnect, remove_path (the path directory goes). Every file is read again
after each write. Prints one line per check; exit status 1 if any failed.
"""
import errno
import os
import sys
import time

SESS = sys.argv[1]
ROOT = f"/sys/class/rtrs-client/{SESS}"
READ_BOUND = 2.0       # a read never waits for the network
QUICK = 5.0            # writes that do not connect
REJECT_BOUND = 10.0    # add_path rejected by a host without a server: "at once" in the doc
# reconnect: attempts the server rejects are repeated for 10 s (RTRS_RECONNECT_SETTLE_MS),
# plus 1 s before the first; 20 s leaves a TCG guest its margin
RECONNECT_BOUND = 20.0
SESS_FILES = {"add_path", "max_reconnect_attempts", "io_hold_sec", "mpath_policy"}
PATH_FILES = {"state", "reconnect", "disconnect", "remove_path", "hca_name", "hca_port",
              "src_addr", "dst_addr", "cur_latency", "stats/cpu_migration_from",
              "stats/cpu_migration_to", "stats/reconnects", "stats/rdma", "stats/reset_all"}
failed = 0


def report(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failed += 1


def path_dir():
    paths = sorted(os.listdir(f"{ROOT}/paths"))
    return f"{ROOT}/paths/{paths[0]}" if paths else None


def read_all(when):
    """Read every file under the session; each must answer within READ_BOUND."""
    seen = set()
    top = os.path.realpath(ROOT)
    for d, dirs, files in os.walk(top):
        if "power" in dirs:
            dirs.remove("power")
        for f in files:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, top)
            t0 = time.monotonic()
            try:
                with open(p, "rb") as fh:
                    fh.read()
                err = None
            except OSError as e:
                err = errno.errorcode.get(e.errno, str(e.errno))
            dt = time.monotonic() - t0
            if err or dt > READ_BOUND:
                report(False, f"{when}: read {rel}: {err or 'ok'} in {dt:.2f}s")
            seen.add(rel.split("/", 2)[2] if rel.startswith("paths/") else rel)
    want = SESS_FILES | (PATH_FILES if path_dir() else set())
    missing = want - seen
    report(not missing, f"{when}: read {len(seen)} files in {top}, each within {READ_BOUND}s"
           + (f"; missing {sorted(missing)}" if missing else ""))


def cat(f):
    with open(f) as fh:
        return fh.read()


def write(f, data, want, bound):
    """One write(2) of data to f: want is 'ok' or an errno name, within bound seconds."""
    t0 = time.monotonic()
    try:
        fd = os.open(f, os.O_WRONLY)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        got = "ok"
    except OSError as e:
        got = errno.errorcode.get(e.errno, str(e.errno))
    dt = time.monotonic() - t0
    report(got == want and dt <= bound,
           f"write {data!r} > {os.path.relpath(f, ROOT)}: {got} in {dt:.1f}s (want {want} within {bound:.0f}s)")
    read_all(f"after {os.path.basename(f)} {data!r}")


def expect(what, got, want):
    report(got == want, f"{what}: {got!r} (want {want!r})")


p = path_dir()
if not p:
    report(False, "the session has no path")
    sys.exit(1)
expect("state at the start", cat(f"{p}/state"), "disconnected\n")
read_all("at the start")
write(f"{ROOT}/max_reconnect_attempts", b"5\n", "ok", QUICK)
expect("max_reconnect_attempts", cat(f"{ROOT}/max_reconnect_attempts"), "5\n")
write(f"{ROOT}/max_reconnect_attempts", b"-1\n", "ok", QUICK)
expect("max_reconnect_attempts", cat(f"{ROOT}/max_reconnect_attempts"), "-1\n")
write(f"{ROOT}/mpath_policy", b"round-robin\n", "ok", QUICK)
expect("mpath_policy", cat(f"{ROOT}/mpath_policy"), "round-robin (RR: 0)\n")
write(f"{ROOT}/mpath_policy", b"min-inflight\n", "ok", QUICK)
expect("mpath_policy", cat(f"{ROOT}/mpath_policy"), "min-inflight (MI: 1)\n")
write(f"{ROOT}/io_hold_sec", b"0\n", "ok", QUICK)
write(f"{p}/stats/reset_all", b"1\n", "ok", QUICK)
expect("stats/reconnects after reset_all", cat(f"{p}/stats/reconnects"), "0 0\n")
write(f"{ROOT}/add_path", b"ip:198.18.1.1\n", "ECONNRESET", REJECT_BOUND)
expect("paths after the rejected add_path", sorted(os.listdir(f"{ROOT}/paths")), [os.path.basename(p)])
write(f"{p}/reconnect", b"1\n", "ENOTCONN", RECONNECT_BOUND)
expect("state after the failed reconnect", cat(f"{p}/state"), "disconnected\n")
write(f"{p}/disconnect", b"1\n", "ok", QUICK)
expect("state after disconnect", cat(f"{p}/state"), "disconnected\n")
write(f"{p}/reconnect", b"1\n", "ENOTCONN", RECONNECT_BOUND)
write(f"{p}/disconnect", b"1\n", "ok", QUICK)
write(f"{p}/remove_path", b"1\n", "ok", QUICK)
expect("paths after remove_path", os.listdir(f"{ROOT}/paths"), [])
print(f"{failed} failed", flush=True)
sys.exit(1 if failed else 0)
