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
# Enabling a tracepoint patches kernel text, which multi-threaded TCG does not survive
# (tests/README.md, Known issues): the case refuses to run unless the client VM runs on one
# host thread (suite ours-trace-c612-s612: BED_TCG_THREAD=single).
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=600
S=bed-trace

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
	# shellcheck disable=SC2016 # expanded in the guest
	out=$(vm_run client 60 'set -e
		T=/sys/kernel/tracing; [ -e $T/trace ] || T=/sys/kernel/debug/tracing
		echo 0 > $T/tracing_on; echo global > $T/trace_clock; echo 8192 > $T/buffer_size_kb
		echo > $T/trace
		echo "sess == \"bed-trace\"" > $T/events/rtrs_client/filter
		echo 1 > $T/events/rtrs_client/enable; echo 1 > $T/tracing_on
		n=$(ls -d $T/events/rtrs_client/rtrs_* | wc -l); on=$(cat $T/events/rtrs_client/rtrs_*/enable | grep -c 1)
		echo "$on of $n events enabled"; [ "$n" -gt 0 ] && [ "$on" = "$n" ]') ||
		fail "could not enable the events: $out"
	note "$out"
	step "map /dev/nullb0 of 198.18.0.1, 5 s of fio randrw"
	dev=$(vm_run client 180 rnbd_map $S /dev/nullb0 path=ip:198.18.0.1) || fail "map failed: $dev"
	out=$(vm_run client 180 "fio --name=trace --filename=$dev --direct=1 --ioengine=libaio --rw=randrw \
		--bsrange=4k-128k --iodepth=8 --size=256M --runtime=5 --time_based --allow_file_create=0 \
		--output-format=terse --terse-version=3 | cut -d';' -f6,47") || fail "fio failed: $out"
	note "fio read/write KiB: $out"
	step "disable the events, save the trace"
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
	cp "$(vm_share client)/trace.txt" "$tr" || fail "no trace.txt in the client share"
	step "check: every request's events in order, one completion ID each"
	out=$(python3 "$chk" "$tr" $S 2>&1); rc=$?
	echo "$out"
	[ $rc = 0 ] || fail "trace check failed"
	step "unmap + unload"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	client_unload || fail "client stack did not unload"
}
