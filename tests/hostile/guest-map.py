#!/usr/bin/python3
# guest-map.py <sessname> <server-ip>[,<server-ip>...] [map tokens...]: run in the client VM
# by the hostile-* cases. One write to rnbd-client's map_device for device_path=/dev/hostile0
# (the hostile peer serves any name), with one path=ip:<server-ip> per address given (one
# session over several paths), unless the tokens name the paths themselves. Prints one line:
# "ok /dev/rnbdN (<secs> s)" once the block device exists, or "errno <N> <NAME> (<secs> s)"
# with the errno the write returned to user space.
import errno
import os
import sys
import time

sess, addr = sys.argv[1], sys.argv[2]
toks = ' '.join(sys.argv[3:])
if ' path=' not in ' ' + toks:
    toks += ''.join(' path=ip:' + a for a in addr.split(','))
line = 'sessname=%s %s device_path=/dev/hostile0' % (sess, toks.strip())
t0 = time.time()
try:
    fd = os.open('/sys/class/rnbd-client/ctl/map_device', os.O_WRONLY)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
except OSError as e:
    print('errno %d %s (%.1f s)' % (e.errno, errno.errorcode.get(e.errno, '?'),
                                     time.time() - t0))
    sys.exit(0)
dev = ''
for _ in range(120):
    for b in os.listdir('/sys/block'):
        try:
            with open('/sys/block/%s/rnbd/session' % b) as f:
                if b.startswith('rnbd') and f.read().strip() == sess:
                    dev = '/dev/' + b
        except OSError:
            pass
    if dev and os.path.exists(dev):
        break
    time.sleep(0.5)
print('ok %s (%.1f s)' % (dev or '?', time.time() - t0))
