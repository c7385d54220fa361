#!/usr/bin/python3
# qmp.py <unix-socket> <json-command>...: send QMP commands to one QEMU, print each reply
# as one JSON line; exit 1 if any reply is an error. Used by tests/vm/lib/bed.sh.
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(15)
s.connect(sys.argv[1])
f = s.makefile("rw")
def reply():
    while True:
        m = json.loads(f.readline())
        if "event" not in m:
            return m
reply()  # greeting
rc = 0
for c in ['{"execute":"qmp_capabilities"}'] + sys.argv[2:]:
    f.write(c + "\n"); f.flush()
    r = reply()
    if "error" in r:
        rc = 1
    if c != '{"execute":"qmp_capabilities"}':
        print(json.dumps(r))
sys.exit(rc)
