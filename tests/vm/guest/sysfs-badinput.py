#!/usr/bin/python3
"""sysfs-badinput.py <sessname> <stack>: malformed writes to every writable rtrs-client file.

Each row is (file, bytes written, accepted errnos, time bound in s). The bytes go out in one
write(2); the errno and the time it took are checked, and the whole session tree (every
readable file except cur_latency, plus the list of paths) must read the same afterwards.
Expected errnos are those of Documentation/ABI/testing/sysfs-class-rtrs-client; rows where
upstream's client answers differently carry an `up` override (the stack given as argv[2]).
Prints one line per row; exit status 1 if any row failed.
"""
import errno
import os
import sys
import time

SESS, STACK = sys.argv[1], sys.argv[2]
ROOT = f"/sys/class/rtrs-client/{SESS}"
P0 = "paths/ip:198.18.0.2@ip:198.18.0.1"
QUICK = 5          # every malformed write must answer within this
ADD_BOUND = 45     # an unreachable add_path: the ABI doc says 35 s; margin for TCG

BAD_INT = [b"", b"\n", b" ", b"\t\n", b" 1", b"1 ", b"1x", b"x1", b"1\n\n", b"1\nx",
           b"0x1", b"1.0", b"+", b"-", b"9" * 40, b"2147483648", b"-2147483649",
           b"4294967297", b"\x00", b"1\x00x"]
ONE_ONLY = [d for d in BAD_INT if d not in (b"", b"1\x00x")] + [b"0", b"2", b"-1", b"01", b"+1", b"true", b"yes", b"on", b"Y",
                      b"x" * 4000, b"1" * 4095]
# More than a page: kernfs hands the module the first PAGE_SIZE - 1 bytes (and the write
# fails with the module's errno for them). A write of zero bytes never reaches the module:
# kernfs returns 0 and nothing changes. "1\0x" is "1" to sysfs_streq() (the NUL ends the
# string), as in upstream, so it is no malformed write and is not in the tables.
TOO_BIG = b"1" * 5000

rows = []
def row(f, data, errs, bound=QUICK, up=None):
    rows.append((f, data, errs, bound, up))

# session: max_reconnect_attempts (kstrtoint, then -1..9999)
for d in [b"\n", b" ", b"\t\n", b" 1", b"1x", b"x1", b"1\n\n", b"1\nx", b"0x1",
          b"1.0", b"+", b"-", b"\x00", b"abc", b"-2", b"-9999", b"10000", b"99999",
          b"x" * 4000]:
    row("max_reconnect_attempts", d, {"EINVAL"})
for d in [b"9" * 40, b"2147483648", b"-2147483649", b"4294967297"]:
    row("max_reconnect_attempts", d, {"ERANGE"})
row("max_reconnect_attempts", TOO_BIG, {"ERANGE"})
# session: mpath_policy
for d in [b"\n", b" ", b"\t\n", b"3", b"-1", b"4294967296", b"2147483648", b"9" * 40,
          b"foo", b"r", b"rr2", b"rr x", b"rr\n\n", b" rr", b"mi ", b"round", b"round-robi",
          b"min-", b"min-inf", b"latency", b"\x00", b"x" * 4000, b"1x", b" 1"]:
    row("mpath_policy", d, {"EINVAL"})
row("mpath_policy", TOO_BIG, {"EINVAL"})
# session: add_path (address parsing)
for d in [b"\n", b" ", b"\t\n", b"foo", b"ip:", b"ip:\n", b"gid:", b"ip:1.2.3",
          b"ip:300.1.1.1", b"ip:1.2.3.4.5", b"ip:198.18.0.1x", b"ip:198.18.0.1 x",
          b" ip:198.18.0.1", b"ip:198.18.0.1@", b"@ip:198.18.0.1", b"ip:198.18.0.1,",
          b",ip:198.18.0.1", b"ip:198.18.0.2@ip:198.18.0.1@ip:198.18.0.1",
          b"tcp:198.18.0.1", b"IP:198.18.0.1", b"gid:zz::1", b"gid:1.2.3.4",
          b"ip:fd18:0::1::2", b"ip:-1", b"\x00", b"x" * 4000, b"ip:" + b"1" * 4000]:
    row("add_path", d, {"EINVAL", "EPROTONOSUPPORT"})
row("add_path", TOO_BIG, {"EINVAL"})
# add_path: duplicates of the existing link0 path (the server refuses them)
row("add_path", b"ip:198.18.0.1", {"EEXIST"}, 35)
row("add_path", b"ip:198.18.0.2@ip:198.18.0.1\n", {"EEXIST"}, 35)
row("add_path", b"ip:198.18.0.2,ip:198.18.0.1", {"EEXIST"}, 35)
# add_path: unreachable: no host on the link (no ARP answer), no route, no server there
row("add_path", b"ip:198.18.0.77", {"EHOSTUNREACH", "ETIMEDOUT"}, ADD_BOUND)
row("add_path", b"ip:10.255.255.1", {"EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT"}, ADD_BOUND)
row("add_path", b"ip:198.18.0.2", {"ECONNRESET", "ECONNREFUSED", "EHOSTUNREACH", "ETIMEDOUT"}, ADD_BOUND)
row("add_path", b"ip:198.18.1.2@ip:198.18.0.1", {"EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "EINVAL"}, ADD_BOUND)
# a zero-byte write: 0, no change, for every file
for f in ["max_reconnect_attempts", "mpath_policy", "add_path"] + \
        [f"{P0}/{f}" for f in ["reconnect", "disconnect", "remove_path"]] + \
        [f"{P0}/stats/{f}" for f in ["cpu_migration_from", "cpu_migration_to", "reconnects",
                                     "rdma", "reset_all"]]:
    row(f, b"", {"OK"})
# path: reconnect, disconnect, remove_path take exactly "1"
for f in ["reconnect", "disconnect", "remove_path"]:
    for d in ONE_ONLY:
        row(f"{P0}/{f}", d, {"EINVAL"})
    row(f"{P0}/{f}", TOO_BIG, {"EINVAL"})
# stats: every file takes exactly "1"
for f in ["cpu_migration_from", "cpu_migration_to", "reconnects", "rdma", "reset_all"]:
    for d in ONE_ONLY:
        row(f"{P0}/stats/{f}", d, {"EINVAL"})
    row(f"{P0}/stats/{f}", TOO_BIG, {"EINVAL"})


def snapshot():
    snap = {}
    for dirpath, dirs, files in os.walk(ROOT, followlinks=False):
        dirs[:] = [d for d in dirs if d not in ("power", "subsystem")]
        for f in files:
            p = os.path.join(dirpath, f)
            if f in ("cur_latency", "uevent"):
                continue
            try:
                with open(p, "rb") as fh:
                    snap[p] = fh.read()
            except OSError as e:
                snap[p] = "read error %s" % errno.errorcode.get(e.errno, e.errno)
    return snap


def show(data):
    if len(data) > 24:
        return "%r...(%d bytes)" % (data[:12], len(data))
    return repr(data)


def write(path, data):
    t = time.monotonic()
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return "open:" + errno.errorcode.get(e.errno, str(e.errno)), 0.0
    try:
        n = os.write(fd, data)
        res = "OK" if n == len(data) else "SHORT(%d)" % n
    except OSError as e:
        res = errno.errorcode.get(e.errno, str(e.errno))
    finally:
        os.close(fd)
    return res, time.monotonic() - t


bad = 0
before = snapshot()
for f, data, errs, bound, up in rows:
    want = up if (STACK == "upstream" and up) else errs
    got, dt = write(os.path.join(ROOT, f), data)
    after = snapshot()
    changed = sorted(p[len(ROOT) + 1:] for p in set(before) | set(after)
                     if before.get(p) != after.get(p))
    ok = got in want and dt <= bound and not changed
    bad += not ok
    print("%s %-40s %-28s -> %-14s %6.2fs (want %s, <= %ds)%s" %
          ("ok  " if ok else "FAIL", f, show(data), got, dt, "|".join(sorted(want)), bound,
           "; CHANGED: " + " ".join(changed) if changed else ""))
    if changed:
        before = after
print("%d rows, %d failed" % (len(rows), bad))
sys.exit(1 if bad else 0)
