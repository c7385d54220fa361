# Case: the rtrs_client trace events (rtrs-trace.h) of our client under I/O. Enables every
# event of the system (filtered on the case's session name), maps /dev/nullb0 over link0
# (so the connect is traced too), runs a 5 s fio randrw (4k-128k, queue depth 8, direct)
# on the device, disables the events and checks the trace buffer on the host (trace.txt in
# the case folder):
#  - no event lost (ring buffer overruns 0), every event of the system was enabled;
#  - the path's connect (rtrs_path_connect err=0) and its CONNECTING -> CONNECTED;
#  - for every request, the events of its completion ID (sess, path, cid, id) from its
#    rtrs_req_post to the next post of that ID: one rtrs_rsp and then one rtrs_req_done
#    with the response's status and a latency, then the user's rtrs_clt_conf with that
#    status; a READ with data: its rtrs_mr_map (remote) before the post, and with the
#    default remote_invalidate its rtrs_mr_remoteinv before the response, which says w_inv=1;
#  - as many rtrs_req_post as rtrs_req_done and rtrs_clt_conf, and reads and writes among
#    them (none failed over, held or refused: nothing fails here).
# Then a second session over both bed links, with link1 cut under fio: the failed-over
# requests in its trace (failover_phase below).
# Enabling a tracepoint patches kernel text, which multi-threaded TCG does not survive
# (tests/README.md, Known issues): the case refuses to run unless the client VM runs on one
# host thread (suite ours-trace-c612-s612: BED_TCG_THREAD=single).
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
S=bed-trace
. "$BED_REPO/tests/vm/lib/mp.sh"

# trace_start <sess>: empty the client's trace buffer (16 MiB a CPU) and enable every event
# of the rtrs_client system for session <sess> alone
trace_start() {
	local out
	# shellcheck disable=SC2016 # expanded in the guest
	out=$(vm_run client 60 'set -e
		T=/sys/kernel/tracing; [ -e $T/trace ] || T=/sys/kernel/debug/tracing
		echo 0 > $T/tracing_on; echo global > $T/trace_clock; echo 16384 > $T/buffer_size_kb
		echo > $T/trace
		echo "sess == \"'"$1"'\"" > $T/events/rtrs_client/filter
		echo 1 > $T/events/rtrs_client/enable; echo 1 > $T/tracing_on
		n=$(ls -d $T/events/rtrs_client/rtrs_* | wc -l); on=$(cat $T/events/rtrs_client/rtrs_*/enable | grep -c 1)
		echo "$on of $n events enabled"; [ "$n" -gt 0 ] && [ "$on" = "$n" ]') ||
		fail "could not enable the events: $out"
	note "$out"
}
# trace_save <file>: disable the events, copy the trace to <file> on the host; fails the case
# if the ring buffer lost any event
trace_save() {
	local out
	# shellcheck disable=SC2016 # expanded in the guest
	out=$(vm_run client 120 'set -e
		T=/sys/kernel/tracing; [ -e $T/trace ] || T=/sys/kernel/debug/tracing
		echo 0 > $T/events/rtrs_client/enable; echo 0 > $T/tracing_on
		echo 0 > $T/events/rtrs_client/filter
		cat $T/trace > /tmp/bed/trace.txt
		grep -h "^overrun:" $T/per_cpu/cpu*/stats | awk "{s += \$2} END {print \"overruns \" s}"
		wc -l < /tmp/bed/trace.txt') || fail "could not save the trace: $out"
	note "$(echo "$out" | tr '\n' ' ')"
	echo "$out" | grep -qx 'overruns 0' || fail "the ring buffer lost events: $out"
	cp "$(vm_share client)/trace.txt" "$1" || fail "no trace.txt in the client share"
}

run() {
	local dev out chk tr
	grep -q 'thread=single' "$BED_DIR/client/qemu.cmd" ||
		fail "the client VM runs multi-threaded TCG: enabling tracepoints may crash it (run the suite ours-trace-c612-s612, BED_TCG_THREAD=single)"
	chk=$BED_CASE_DIR/trace-check.py
	tr=$BED_CASE_DIR/trace.txt
	cat > "$chk" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
sess = sys.argv[2]
bad = []
ev = []
pat = re.compile(r'\s([0-9]+\.[0-9]+): (rtrs_\w+): (.*)$')
for l in lines:
    m = pat.search(l)
    if not m:
        continue
    f = dict(kv.split('=', 1) for kv in m.group(3).split() if '=' in kv)
    if f.get('sess') != sess:
        continue
    f['_ev'], f['_line'] = m.group(2), l.strip()
    f['_dir'] = 'READ' if ' READ ' in m.group(3) else 'WRITE' if ' WRITE ' in m.group(3) else ''
    ev.append(f)
names = [e['_ev'] for e in ev]
count = {n: names.count(n) for n in set(names)}
print('events of %s: %d; %s' % (sess, len(ev), ', '.join('%s %d' % kv for kv in sorted(count.items()))))
if not any(e['_ev'] == 'rtrs_path_connect' and e.get('err') == '0' for e in ev):
    bad.append('no rtrs_path_connect err=0')
if not any(e['_ev'] == 'rtrs_path_state' and ' CONNECTING -> CONNECTED ' in e['_line'] for e in ev):
    bad.append('no rtrs_path_state CONNECTING -> CONNECTED')
for n in ('rtrs_req_post_err', 'rtrs_failover', 'rtrs_held', 'rtrs_unheld', 'rtrs_wc_err'):
    if count.get(n):
        bad.append('%d %s events: nothing should fail here' % (count[n], n))
npost, ndone, nconf = count.get('rtrs_req_post', 0), count.get('rtrs_req_done', 0), count.get('rtrs_clt_conf', 0)
if not npost or npost != ndone or npost != nconf:
    bad.append('rtrs_req_post %d, rtrs_req_done %d, rtrs_clt_conf %d: not equal' % (npost, ndone, nconf))
# group the request events by completion ID, each group from one post to the next
key = lambda e: (e.get('path'), e.get('cid'), e.get('id'))
reqs, cur, last_map = [], {}, {}
for i, e in enumerate(ev):
    if e['_ev'] == 'rtrs_mr_map':
        last_map[key(e)] = e
    elif e['_ev'] == 'rtrs_req_post':
        cur[key(e)] = r = {'post': i, 'evs': [], 'map': last_map.pop(key(e), None)}
        reqs.append(r)
    elif e['_ev'] in ('rtrs_rsp', 'rtrs_req_done', 'rtrs_mr_remoteinv', 'rtrs_mr_localinv'):
        if key(e) not in cur:
            bad.append('%s without a post before it: %s' % (e['_ev'], e['_line']))
            continue
        cur[key(e)]['evs'].append(i)
reads = writes = 0
example, fio_example = None, False   # shown: a 4 KiB READ, one of fio's if there is one
for r in reqs:
    p = ev[r['post']]
    seq = [ev[i]['_ev'] for i in r['evs']]
    what = 'request %s cid %s id %s posted at %s' % (p['path'], p['cid'], p['id'], p['_line'].split(':')[0].split()[-1])
    if seq.count('rtrs_rsp') != 1 or seq.count('rtrs_req_done') != 1 or \
       seq.index('rtrs_rsp') > seq.index('rtrs_req_done'):
        bad.append('%s: events %s, not one rtrs_rsp then one rtrs_req_done' % (what, seq))
        continue
    rsp = ev[r['evs'][seq.index('rtrs_rsp')]]
    done_i = r['evs'][seq.index('rtrs_req_done')]
    done = ev[done_i]
    if done['status'] != rsp['status'] or int(done['latency']) <= 0:
        bad.append('%s: done status %s latency %s, response status %s' % (what, done['status'], done['latency'], rsp['status']))
    conf = next((e for e in ev[done_i + 1:] if e['_ev'] == 'rtrs_clt_conf' and e['id'] == p['id']), None)
    if not conf or conf['err'] != done['status']:
        bad.append('%s: no rtrs_clt_conf with its status after its rtrs_req_done' % what)
    if p['_dir'] == 'READ':
        reads += 1
        if p['len'] != '0':
            mr = r['map']
            if not mr or mr.get('remote') != '1':
                bad.append('%s: a READ with data and no remote rtrs_mr_map before it' % what)
            if seq.count('rtrs_mr_remoteinv') != 1 or seq.index('rtrs_mr_remoteinv') > seq.index('rtrs_rsp') or \
               rsp['w_inv'] != '1':
                bad.append('%s: READ events %s, w_inv=%s: no remote invalidation before the response' % (what, seq, rsp['w_inv']))
            elif p['len'] == '4096' and (example is None or p['_line'].startswith('fio') > fio_example):
                fio_example = p['_line'].startswith('fio')
                example = [mr['_line'], p['_line']] + [ev[i]['_line'] for i in r['evs']] + [conf['_line']]
    else:
        writes += 1
print('requests followed: %d (%d READ, %d WRITE)' % (len(reqs), reads, writes))
if reads < 10 or writes < 10:
    bad.append('too few requests of a kind: %d READ, %d WRITE' % (reads, writes))
if example:
    print('one READ, end to end:')
    for l in example:
        print('  ' + l)
else:
    bad.append('no 4 KiB READ with data to show')
for b in bad[:20]:
    print('BAD: ' + b)
sys.exit(1 if bad else 0)
EOF
	step "load our client, enable every rtrs_client event"
	client_load || fail "client stack did not load"
	trace_start $S
	step "map /dev/nullb0 of 198.18.0.1, 5 s of fio randrw"
	dev=$(vm_run client 180 rnbd_map $S /dev/nullb0 path=ip:198.18.0.1) || fail "map failed: $dev"
	# pipefail: the pipeline's status is fio's, not cut's (a failed fio passed before)
	out=$(vm_run client 180 "set -o pipefail; fio --name=trace --filename=$dev --direct=1 --ioengine=libaio --rw=randrw \
		--bsrange=4k-128k --iodepth=8 --size=256M --runtime=5 --time_based --allow_file_create=0 \
		--output-format=terse --terse-version=3 | cut -d';' -f6,47") || fail "fio failed: $out"
	note "fio read/write KiB: $out"
	step "disable the events, save the trace"
	trace_save "$tr"
	step "check: every request's events in order, one completion ID each"
	out=$(python3 "$chk" "$tr" $S 2>&1); rc=$?
	echo "$out"
	[ $rc = 0 ] || fail "trace check failed"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
	failover_phase
}

# The second phase: a failover in the trace. Session $S2 maps /dev/nullb0 over both bed links
# (path 0 over link0, path 1 over link1), the events of $S2 are enabled, fio randrw runs for
# 20 s at queue depth 16 (no pause, so both paths always have requests in flight: the
# default policy, min-inflight, spreads them), and link1 is cut at the client's end while
# path 1 has requests in flight. Those stay on the dead link until the port event fails the
# path (1-4 s), whose teardown offers them to path 0. The trace (trace-failover.txt) must
# show, for session $S2:
#  - path 1 leaving CONNECTED (rtrs_path_state) before the first rtrs_failover;
#  - at least one rtrs_failover, every one from path 1 to path 0;
#  - for each failed-over id: its post on path 1 before the failover, its next post on path
#    0 after it, and from the first of these posts to the post of that id after the second
#    (or the end of the trace) exactly one rtrs_clt_conf, with err=0, after one
#    rtrs_req_done of path 0 (the request completes once, on the path that took it over);
#  - no event lost; fio ends without an error.
# Then link1 comes back and path 1 must reconnect before the unmap (~37 s after the cut:
# rnbd's 30 s reconnect delay, see mp-failover.sh).
S2=bed-trace-fo
failover_phase() {
	local dev out rc chk tr fid t0 t1 p0=198.18.0.2@198.18.0.1 p1=198.18.1.2@198.18.1.1
	chk=$BED_CASE_DIR/trace-failover-check.py
	tr=$BED_CASE_DIR/trace-failover.txt
	cat > "$chk" <<'EOF'
import re, sys
trace, sess, cut, other = sys.argv[1:5]
pat = re.compile(r'\s([0-9]+\.[0-9]+): (rtrs_\w+): (.*)$')
ev = []
for l in open(trace).read().splitlines():
    m = pat.search(l)
    if not m:
        continue
    f = dict(kv.split('=', 1) for kv in m.group(3).split() if '=' in kv)
    if f.get('sess') != sess:
        continue
    f['_t'], f['_ev'], f['_line'] = m.group(1), m.group(2), l.strip()
    ev.append(f)
names = [e['_ev'] for e in ev]
count = {n: names.count(n) for n in set(names)}
print('events of %s: %d; %s' % (sess, len(ev), ', '.join('%s %d' % kv for kv in sorted(count.items()))))
bad = []
fos = [i for i, e in enumerate(ev) if e['_ev'] == 'rtrs_failover']
if not fos:
    bad.append('no rtrs_failover event')
for i in fos:
    if ev[i]['path'] != cut or ev[i]['to'] != other:
        bad.append('rtrs_failover not from %s to %s: %s' % (cut, other, ev[i]['_line']))
down = [i for i, e in enumerate(ev) if e['_ev'] == 'rtrs_path_state' and e['path'] == cut and
        re.search(r' CONNECTED -> (?!CONNECTED )', e['_line'])]
if not down:
    bad.append('no rtrs_path_state of %s leaving CONNECTED' % cut)
elif fos and down[0] > fos[0]:
    bad.append('%s left CONNECTED only after the first rtrs_failover' % cut)
else:
    print('cut path down: ' + ev[down[0]]['_line'])
def posts(rid):
    return [j for j, e in enumerate(ev) if e['_ev'] == 'rtrs_req_post' and e['id'] == rid]
shown = 0
for i in fos:
    rid = ev[i]['id']
    p = posts(rid)
    before = [j for j in p if j < i]
    after = [j for j in p if j > i]
    what = 'id %s failed over at %s' % (rid, ev[i]['_t'])
    if not before or ev[before[-1]]['path'] != cut:
        bad.append('%s: its last post before the failover is not on %s' % (what, cut))
        continue
    if not after or ev[after[0]]['path'] != other:
        bad.append('%s: its next post is not on %s' % (what, other))
        continue
    end = after[1] if len(after) > 1 else len(ev)
    span = range(before[-1], end)
    confs = [j for j in span if ev[j]['_ev'] == 'rtrs_clt_conf' and ev[j]['id'] == rid]
    dones = [j for j in span if ev[j]['_ev'] == 'rtrs_req_done' and ev[j]['id'] == rid]
    if len(confs) != 1 or len(dones) != 1 or ev[dones[0]]['path'] != other or \
       not after[0] < dones[0] < confs[0] or ev[confs[0]]['err'] != '0':
        bad.append('%s: %d rtrs_clt_conf %s, %d rtrs_req_done %s between its post on %s and the next one: not one completion, err=0, on %s' %
                   (what, len(confs), [ev[j]['err'] for j in confs], len(dones),
                    [ev[j]['path'] for j in dones], cut, other))
        continue
    if shown < 1:
        shown += 1
        print('one failed-over request, end to end:')
        for j in [before[-1], i, after[0], dones[0], confs[0]]:
            print('  ' + ev[j]['_line'])
print('failed over: %d' % len(fos))
for b in bad[:20]:
    print('BAD: ' + b)
sys.exit(1 if bad else 0)
EOF
	step "failover: map /dev/nullb0 over link0 and link1, trace session $S2"
	dev=$(mp_map $S2 /dev/nullb0) || fail "map over two paths failed"
	trace_start $S2
	step "fio randrw 20 s; cut link1 (path 1) once it has requests in flight"
	fid=$(vm_spawn client 120 "fio --name=fo --filename=$dev --direct=1 --ioengine=libaio --rw=randrw \
		--bsrange=4k-128k --iodepth=16 --size=256M --runtime=20 --time_based --allow_file_create=0 \
		--output=/tmp/fo.out --output-format=terse --terse-version=3; rc=\$?; cut -d';' -f6,47 /tmp/fo.out; exit \$rc")
	out=$(mp_run 40 "wait_for 30 mp_inflight_gt $S2 1 0 && mp_inflight $S2 1") ||
		fail "path 1 had no request in flight for 30 s"
	t0=$(date +%s)
	link_set link1 off "$MP_CUT_ENDS" || fail "link_set failed"
	mp_run 120 "wait_for 90 mp_state_is $S2 1 disconnected" ||
		{ mp_run 30 "mp_summary $S2"; fail "path 1 still connected 90 s after link1 was cut"; }
	t1=$(date +%s)
	note "$out in flight on path 1 before the cut; path 1 down $((t1 - t0)) s after it"
	out=$(vm_wait client "$fid") || fail "fio failed: $out"
	note "fio read/write KiB: $out"
	step "disable the events, save the trace"
	trace_save "$tr"
	step "check: the failed-over requests, posted again on path 0, complete once"
	out=$(python3 "$chk" "$tr" $S2 $p1 $p0 2>&1); rc=$?
	echo "$out"
	[ $rc = 0 ] || fail "failover trace check failed"
	step "link1 back, path 1 reconnects; unmap + unload"
	link_set link1 on "$MP_CUT_ENDS" || fail "link_set failed"
	out=$(mp_run 200 "wait_for 180 mp_state_is $S2 1 connected; rc=\$?; mp_summary $S2; exit \$rc") ||
		{ echo "$out"; fail "path 1 not connected again 180 s after link1 came back"; }
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
