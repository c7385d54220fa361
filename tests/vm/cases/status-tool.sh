# Case: scripts/rtrs-status on a live session of the suite's client stack. Map /dev/nullb0
# over link0 and link1, reset the counters, write and read 8 MiB (dd, direct I/O), then
# check that the tool's --json matches what sysfs says (read/write counts and bytes, in
# flight, failovers, reconnects, per-CPU migrations, states, HCA, addresses, policy,
# max_reconnect_attempts) and that the bytes cover the I/O done; disconnect the link1 path
# and check the states again (and the table's CONNECTED column); reconnect it. Then remove
# and add the link1 path twice while the tool runs in a loop: every run exits 0 with valid
# JSON. After the unmap the tool exits 1 (no sessions), after the unload too (not loaded).
# Our stack: debugfs is mounted in the guest, so the session's poll counters must be there.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=900
S=bed-status
# the tool as the guest runs it: $BED_REPO is expanded in the guest
# shellcheck disable=SC2016
T='"$BED_REPO/scripts/rtrs-status"'

indent() { local l; while IFS= read -r l; do echo "    $l"; done <<< "$1"; }

# st_check <label> <expected "path-index=state ..."> [min bytes]: the tool's JSON against a
# sysfs dump taken right after it, with no I/O in between
st_check() {
	local out
	out=$(vm_run client 60 "set -e
		for p in /sys/class/rtrs-client/$S/paths/*/; do n=\${p%/}; echo \"\${n##*/} \$(cat \$p/cur_latency)\"; done > /tmp/st.lat0
		$T --json > /tmp/st.json
		for p in /sys/class/rtrs-client/$S/paths/*/; do
			n=\${p%/}; n=\${n##*/}
			printf '%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n' \"\$n\" \"\$(cat \$p/state)\" \
				\"\$(cat \$p/stats/rdma)\" \"\$(cat \$p/stats/reconnects)\" \"\$(cat \$p/hca_name)\" \
				\"\$(cat \$p/hca_port)\" \"\$(cat \$p/src_addr)\" \"\$(cat \$p/dst_addr)\" \
				\"\$(cat \$p/stats/cpu_migration_from)\" \"\$(cat \$p/stats/cpu_migration_to)\" \
				\"\$(cat \$p/cur_latency)\"
		done > /tmp/st.raw
		cat /sys/class/rtrs-client/$S/mpath_policy /sys/class/rtrs-client/$S/max_reconnect_attempts > /tmp/st.sess
		python3 $CHK /tmp/st.json /tmp/st.raw /tmp/st.sess $S $CLIENT_STACK '$2' ${3:-0} /tmp/st.lat0") ||
		{ echo "$out"; fail "$1: the tool's JSON does not match sysfs"; }
	indent "$out"
}

run() {
	local dev out chk n
	chk=$BED_CASE_DIR/st-check.py
	cat > "$chk" <<'EOF'
import json, sys
jf, rawf, sessf, name, stack, expect, minb, latf = sys.argv[1:9]
# cur_latency before the tool ran; the dump after it is the raw file's last column
lat0 = {l.split()[0]: int(l.split()[1]) for l in open(latf).read().splitlines()}
doc = json.load(open(jf))
bad = []
def want(cond, what):
    if not cond:
        bad.append(what)
ss = [s for s in doc["sessions"] if s["name"] == name]
want(len(ss) == 1, "session %s not in JSON once" % name)
s = ss[0]
pol, mra = open(sessf).read().split("\n")[:2]
want(s["mpath_policy"] == pol.split(" (")[0], "mpath_policy %r vs %r" % (s["mpath_policy"], pol))
want(s["mpath_policy_id"] == int(pol.rstrip(")").split(": ")[1]), "mpath_policy_id")
want(s["max_reconnect_attempts"] == int(mra), "max_reconnect_attempts %r vs %r" % (s["max_reconnect_attempts"], mra))
if stack == "ours":
    want(doc["debugfs"]["available"] is True, "debugfs not available: %r" % doc["debugfs"])
    d = s.get("debugfs") or {}
    want(isinstance(d.get("poll", {}).get("direct"), int) and isinstance(d["poll"].get("swept"), int),
         "debugfs poll counters missing: %r" % d)
raw = [l.split("|") for l in open(rawf).read().splitlines()]
paths = {p["name"]: p for p in s["paths"]}
want(sorted(paths) == sorted(r[0] for r in raw), "path names %r vs %r" % (sorted(paths), [r[0] for r in raw]))
tot_rb = tot_wb = 0
for r in raw:
    p = paths.get(r[0])
    if p is None:
        continue
    st = p["stats"]
    rd = [int(x) for x in r[2].split()]
    rc = [int(x) for x in r[3].split()]
    got = [st["reads"], st["read_bytes"], st["writes"], st["write_bytes"], st["inflight"], st["failovers"]]
    want(got == rd, "%s: rdma %r vs sysfs %r" % (r[0], got, rd))
    want([st["reconnects_ok"], st["reconnects_failed"]] == rc, "%s: reconnects" % r[0])
    want(p["state"] == r[1], "%s: state %r vs %r" % (r[0], p["state"], r[1]))
    want(p["hca_name"] == r[4] and p["hca_port"] == int(r[5]), "%s: hca" % r[0])
    want(p["src_addr"] == r[6] and p["dst_addr"] == r[7], "%s: addresses" % r[0])
    # a heartbeat's completion may count a migration between the two reads: not fewer
    for k, col in (("cpu_migration_from", 8), ("cpu_migration_to", 9)):
        sv = [int(x) for x in r[col].split()]
        want(len(st[k]) == len(sv) and all(a <= b <= a + 2 for a, b in zip(st[k], sv)),
             "%s: %s %r vs sysfs %r" % (r[0], k, st[k], sv))
    # a heartbeat may land between the reads: the tool shows the value before or after it
    want(p["cur_latency_ns"] in (lat0.get(r[0]), int(r[10].split()[0])),
         "%s: cur_latency_ns %r vs sysfs %r / %r" % (r[0], p["cur_latency_ns"], lat0.get(r[0]), r[10]))
    tot_rb += st["read_bytes"]; tot_wb += st["write_bytes"]
    print("%s %s reads %d (%d B) writes %d (%d B) inflight %d failovers %d" %
          (r[0], p["state"], st["reads"], st["read_bytes"], st["writes"], st["write_bytes"],
           st["inflight"], st["failovers"]))
for e in expect.split():
    link, state = e.split("=")
    m = [p for p in s["paths"] if p["dst_addr"] == "ip:198.18.%s.1" % link]
    want(len(m) == 1 and m[0]["state"] == state, "link%s path: state %r, expected %s" %
         (link, m[0]["state"] if m else None, state))
want(tot_rb >= int(minb) and tot_wb >= int(minb), "bytes read %d / written %d < %s" % (tot_rb, tot_wb, minb))
for b in bad:
    print("MISMATCH:", b)
sys.exit(1 if bad else 0)
EOF
	CHK=$(vm_put client "$chk" st-check.py) || fail "vm_put failed"

	step "load $CLIENT_STACK, map /dev/nullb0 over link0 and link1"
	client_load || fail "client stack $CLIENT_STACK did not load"
	dev=$(vm_run client 180 rnbd_map $S /dev/nullb0 path=ip:198.18.0.1 path=ip:198.18.1.1) ||
		fail "map failed: $dev"
	vm_run client 90 "wait_for 60 path_state_is $S connected; rc=\$?; path_states $S; exit \$rc" ||
		fail "both paths are not connected"
	n=$(vm_run client 10 "ls /sys/class/rtrs-client/$S/paths | wc -l")
	[ "$n" = 2 ] || fail "$n paths, expected 2"

	step "reset counters, write and read 8 MiB, compare the tool with sysfs"
	vm_run client 120 "set -e
		for p in /sys/class/rtrs-client/$S/paths/*/; do echo 1 > \$p/stats/reset_all; done
		dd if=/dev/urandom of=/tmp/pat bs=1M count=8 status=none
		dd if=/tmp/pat of=$dev bs=1M oflag=direct status=none
		dd if=$dev of=/tmp/back bs=1M count=8 iflag=direct status=none
		cmp /tmp/pat /tmp/back" || fail "I/O failed"
	st_check "after I/O" "0=connected 1=connected" $((8 << 20))
	out=$(vm_run client 30 "$T") || fail "the table failed: $out"
	indent "$out"
	echo "$out" | grep -Eq "^$S +[a-z-]+ +-?[0-9]+ +2 +2( |\$)" ||
		fail "the session row does not say 2 paths, 2 connected"

	step "disconnect the link1 path: states"
	vm_run client 60 "echo 1 > /sys/class/rtrs-client/$S/paths/ip:198.18.1.2@ip:198.18.1.1/disconnect" ||
		fail "disconnect failed"
	st_check "after disconnect" "0=connected 1=disconnected"
	out=$(vm_run client 30 "$T -s $S") || fail "the table failed: $out"
	indent "$out"
	echo "$out" | grep -Eq "^$S +[a-z-]+ +-?[0-9]+ +2 +1( |\$)" ||
		fail "the session row does not say 2 paths, 1 connected"
	echo "$out" | grep -Eq "^$S +ip:198\.18\.1\.2 +ip:198\.18\.1\.1 +disconnected " ||
		fail "the path row of link1 does not say disconnected"
	vm_run client 150 "echo 1 > /sys/class/rtrs-client/$S/paths/ip:198.18.1.2@ip:198.18.1.1/reconnect" ||
		fail "reconnect failed"
	st_check "after reconnect" "0=connected 1=connected"

	step "remove_path/add_path of link1 twice while the tool runs in a loop"
	out=$(vm_run client 400 "p=/sys/class/rtrs-client/$S/paths/ip:198.18.1.2@ip:198.18.1.1
		( for i in 1 2; do
			echo 1 > \$p/remove_path || exit 1
			sleep 1
			echo ip:198.18.1.1 > /sys/class/rtrs-client/$S/add_path || exit 1
		  done ) & bg=\$!
		runs=0 bad=0
		while kill -0 \$bg 2>/dev/null; do
			if ! $T --json > /tmp/loop.json 2>/tmp/loop.err; then bad=\$((bad + 1)); cat /tmp/loop.err; fi
			python3 -m json.tool /tmp/loop.json > /dev/null || { bad=\$((bad + 1)); echo bad JSON; cat /tmp/loop.json; }
			$T > /dev/null 2>/tmp/loop.err || { bad=\$((bad + 1)); cat /tmp/loop.err; }
			runs=\$((runs + 1))
		done
		wait \$bg; rc=\$?
		echo \"churn rc \$rc, \$runs tool runs, \$bad failed\"
		[ \$rc = 0 ] && [ \$bad = 0 ] && [ \$runs -gt 0 ]") || { echo "$out"; fail "the tool failed under path churn: $out"; }
	note "$out"
	vm_run client 90 "wait_for 60 path_state_is $S connected; rc=\$?; path_states $S; exit \$rc" ||
		fail "paths not connected after the churn"
	st_check "after the churn" "0=connected 1=connected"

	step "unmap: exit 1 (no sessions); unload: exit 1 (not loaded); bad option: exit 2"
	vm_run client 120 "rnbd_unmap $dev" || fail "unmap failed"
	out=$(vm_run client 30 "wait_for 20 test ! -e /sys/class/rtrs-client/$S; $T 2>&1; echo rc=\$?" 2>&1)
	note "$out"
	# the exit status is the guest's whole "rc=N" line: *"rc=1"* also matched rc=1x, rc=1xx
	case $out in *"no sessions"*) echo "$out" | grep -qx 'rc=1' ;; *) false ;; esac ||
		fail "after the unmap: $out"
	client_unload || fail "client stack did not unload"
	out=$(vm_run client 30 "$T --json | python3 -m json.tool >/dev/null && { $T 2>&1; echo rc=\$?; }" 2>&1)
	note "$out"
	case $out in *"not loaded"*) echo "$out" | grep -qx 'rc=1' ;; *) false ;; esac ||
		fail "after the unload: $out"
	out=$(vm_run client 30 "$T --bogus 2>&1; echo rc=\$?" 2>&1)
	echo "$out" | grep -qx 'rc=2' || fail "bad option: $out"
}
