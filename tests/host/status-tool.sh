#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/host/status-tool.sh: scripts/rtrs-status against a FAKE sysfs/debugfs tree in a temp
# dir (RTRS_SYSFS_ROOT / RTRS_DEBUGFS_ROOT): 2 sessions, 3 paths, one disconnected, known
# counters. Checks the exact tables, every JSON value (python3), -s, the exit codes, the
# debugfs-less modes, values that cannot be read, paths and sessions that come and go
# while the tool reads, JSON string escaping, and `make install-tools` into a staging root.
# Touches nothing outside its temp dir.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
tool=$top/scripts/rtrs-status
tmp=$(mktemp -d /tmp/rtrs-status-test.XXXXXX)
churn=
cleanup() {
	[ -z "$churn" ] || kill "$churn" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to check the JSON"; exit 1; }

# ---- the fake tree --------------------------------------------------------------------
# mks <root> <session> <mpath_policy text> <max_reconnect_attempts>: a session as the kernel
# makes it (devices/virtual/rtrs-client/<s>/, linked from class/rtrs-client/<s>)
mks() {
	local d=$1/sys/devices/virtual/rtrs-client/$2
	mkdir -p "$d/paths" "$1/sys/class/rtrs-client"
	echo "$3" >"$d/mpath_policy"
	echo "$4" >"$d/max_reconnect_attempts"
	printf 'Usage: echo [<source addr>@]<destination addr> > add_path\n\n*addr ::= [ ip:<ipv4|ipv6> | gid:<gid> ]\n' >"$d/add_path"
	ln -s "../../devices/virtual/rtrs-client/$2" "$1/sys/class/rtrs-client/$2"
}
# mkp <root> <session> <src> <dst> <state> <hca> <port> <latency ns> <rdma> <reconnects>
#     <cpu_migration_from> <cpu_migration_to>
mkp() {
	local d=$1/sys/devices/virtual/rtrs-client/$2/paths/$3@$4 f
	mkdir -p "$d/stats"
	echo "$5" >"$d/state"
	echo "$6" >"$d/hca_name"
	echo "$7" >"$d/hca_port"
	echo "$3" >"$d/src_addr"
	echo "$4" >"$d/dst_addr"
	echo "$8 ns" >"$d/cur_latency"
	echo "$9" >"$d/stats/rdma"
	echo "${10}" >"$d/stats/reconnects"
	echo "${11}" >"$d/stats/cpu_migration_from"
	echo "${12}" >"$d/stats/cpu_migration_to"
	echo "echo 1 to reset all statistics" >"$d/stats/reset_all"
	for f in reconnect disconnect remove_path; do echo "Usage: echo 1 > $f" >"$d/$f"; done
}
# mktree <root>: the known state
mktree() {
	mks "$1" alpha "min-inflight (MI: 1)" -1
	mkp "$1" alpha ip:198.18.0.2 ip:198.18.0.1 connected rxe0 1 3512345 \
		"100 409600 50 33554432 2 0" "0 0" "1 2 " "0 4 "
	mkp "$1" alpha ip:198.18.1.2 ip:198.18.1.1 disconnected rxe1 2 4000000 \
		"7 28672 3 12288 0 5" "2 4" "0 0 " "0 0 "
	mks "$1" beta "round-robin (RR: 0)" 3
	mkp "$1" beta ip:fd18:0::2 ip:fd18:0::1 connected rxe0 1 812000 \
		"1 4096 2 1610612736 0 0" "0 1" "0 0 0 5 " "6 0 0 0 "
	# debugfs: our module's global fault-injection dir, alpha's poll counters; beta has
	# no directory (as if opened by upstream's module); another module's dir beside ours
	mkdir -p "$1/debug/rtrs-client/fail_post" "$1/debug/rtrs-client/alpha" "$1/debug/other"
	printf 'direct 12\nswept 3\n' >"$1/debug/rtrs-client/alpha/poll"
}
T=$tmp/t
mktree "$T"
export RTRS_SYSFS_ROOT=$T/sys/class/rtrs-client RTRS_DEBUGFS_ROOT=$T/debug/rtrs-client

# run <name> <args...>: the tool; OUT, ERR, RC
run() {
	local n=$1
	shift
	"$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	RC=$?
	OUT=$(cat "$tmp/$n.out")
	ERR=$(cat "$tmp/$n.err")
}
# same <what> <expected> <got>: exact text; shows a diff otherwise
same() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		bad "$1: differs (- expected, + got):"
		diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tail -n +3 | sed 's/^/     /'
	fi
}
# rc_is <what> <expected rc>
rc_is() { if [ "$RC" = "$2" ]; then ok "$1: exit $RC"; else bad "$1: exit $RC, expected $2 (stderr: $ERR)"; fi; }
# err_has <what> <text>
err_has() {
	case $ERR in *"$2"*) ok "$1: stderr says '$2'" ;; *) bad "$1: stderr '$ERR' lacks '$2'" ;; esac
}

# ---- 1. tables ------------------------------------------------------------------------
S_HDR='SESSION  POLICY        MAX_RECONNECT  PATHS  CONNECTED  DEBUGFS'
S_A='alpha    min-inflight             -1      2          1  poll.direct=12 poll.swept=3'
S_B='beta     round-robin               3      1          1  -'
P_HDR='SESSION  SRC            DST            STATE         HCA   PORT  LATENCY  READS  READ_BYTES  WRITES  WRITE_BYTES  INFLIGHT  FAILOVERS  RECONN_OK  RECONN_FAIL  MIGR_FROM  MIGR_TO'
P_A0='alpha    ip:198.18.0.2  ip:198.18.0.1  connected     rxe0     1  3.512ms    100    400.0KiB      50      32.0MiB         2          0          0            0          3        4'
P_A1='alpha    ip:198.18.1.2  ip:198.18.1.1  disconnected  rxe1     2  4.000ms      7     28.0KiB       3      12.0KiB         0          5          2            4          0        0'
P_B0='beta     ip:fd18:0::2   ip:fd18:0::1   connected     rxe0     1  0.812ms      1      4.0KiB       2       1.5GiB         0          0          0            1          5        6'
run table "$tool"
rc_is "table" 0
same "table: exact text" "$S_HDR
$S_A
$S_B

$P_HDR
$P_A0
$P_A1
$P_B0" "$OUT"
same "table: stderr empty" "" "$ERR"

run bytes "$tool" --bytes
rc_is "table --bytes" 0
same "table --bytes: exact text" "$S_HDR
$S_A
$S_B

$P_HDR
alpha    ip:198.18.0.2  ip:198.18.0.1  connected     rxe0     1  3512345    100      409600      50     33554432         2          0          0            0          3        4
alpha    ip:198.18.1.2  ip:198.18.1.1  disconnected  rxe1     2  4000000      7       28672       3        12288         0          5          2            4          0        0
beta     ip:fd18:0::2   ip:fd18:0::1   connected     rxe0     1   812000      1        4096       2   1610612736         0          0          0            1          5        6" "$OUT"

run one "$tool" -s beta
rc_is "-s beta" 0
same "-s beta: exact text" 'SESSION  POLICY       MAX_RECONNECT  PATHS  CONNECTED  DEBUGFS
beta     round-robin              3      1          1  -

SESSION  SRC           DST           STATE      HCA   PORT  LATENCY  READS  READ_BYTES  WRITES  WRITE_BYTES  INFLIGHT  FAILOVERS  RECONN_OK  RECONN_FAIL  MIGR_FROM  MIGR_TO
beta     ip:fd18:0::2  ip:fd18:0::1  connected  rxe0     1  0.812ms      1      4.0KiB       2       1.5GiB         0          0          0            1          5        6' "$OUT"

# ---- 2. JSON --------------------------------------------------------------------------
# jcheck <what> <json file> <python expression of the expected document>: whole-document
# equality, then each differing field is named
jcheck() {
	local out
	if out=$(python3 - "$2" "$3" <<'EOF'
import json, sys
got = json.load(open(sys.argv[1]))
exp = eval(sys.argv[2], {"null": None, "true": True, "false": False})
diffs = []
def cmp(e, g, where):
    if isinstance(e, dict) and isinstance(g, dict):
        for k in sorted(set(e) | set(g)):
            if k not in g:
                diffs.append("%s.%s: missing" % (where, k))
            elif k not in e:
                diffs.append("%s.%s: unexpected (%r)" % (where, k, g[k]))
            else:
                cmp(e[k], g[k], "%s.%s" % (where, k))
    elif isinstance(e, list) and isinstance(g, list) and len(e) == len(g):
        for i, (a, b) in enumerate(zip(e, g)):
            cmp(a, b, "%s[%d]" % (where, i))
    elif type(e) is not type(g) or e != g:
        diffs.append("%s: expected %r, got %r" % (where, e, g))
cmp(exp, got, "$")
for d in diffs:
    print(d)
sys.exit(1 if diffs else 0)
EOF
	); then
		ok "$1"
	else
		bad "$1:"
		printf '     %s\n' "$out"
	fi
}
PA0='{"name": "ip:198.18.0.2@ip:198.18.0.1", "state": "connected", "hca_name": "rxe0",
 "hca_port": 1, "src_addr": "ip:198.18.0.2", "dst_addr": "ip:198.18.0.1",
 "cur_latency_ns": 3512345,
 "stats": {"reads": 100, "read_bytes": 409600, "writes": 50, "write_bytes": 33554432,
  "inflight": 2, "failovers": 0, "reconnects_ok": 0, "reconnects_failed": 0,
  "cpu_migration_from": [1, 2], "cpu_migration_to": [0, 4]}}'
PA1='{"name": "ip:198.18.1.2@ip:198.18.1.1", "state": "disconnected", "hca_name": "rxe1",
 "hca_port": 2, "src_addr": "ip:198.18.1.2", "dst_addr": "ip:198.18.1.1",
 "cur_latency_ns": 4000000,
 "stats": {"reads": 7, "read_bytes": 28672, "writes": 3, "write_bytes": 12288,
  "inflight": 0, "failovers": 5, "reconnects_ok": 2, "reconnects_failed": 4,
  "cpu_migration_from": [0, 0], "cpu_migration_to": [0, 0]}}'
PB0='{"name": "ip:fd18:0::2@ip:fd18:0::1", "state": "connected", "hca_name": "rxe0",
 "hca_port": 1, "src_addr": "ip:fd18:0::2", "dst_addr": "ip:fd18:0::1",
 "cur_latency_ns": 812000,
 "stats": {"reads": 1, "read_bytes": 4096, "writes": 2, "write_bytes": 1610612736,
  "inflight": 0, "failovers": 0, "reconnects_ok": 0, "reconnects_failed": 1,
  "cpu_migration_from": [0, 0, 0, 5], "cpu_migration_to": [6, 0, 0, 0]}}'
# the sessions without and with their "debugfs" key
SA_='{"name": "alpha", "mpath_policy": "min-inflight", "mpath_policy_id": 1,
 "max_reconnect_attempts": -1, "paths": ['"$PA0, $PA1"']}'
SB_='{"name": "beta", "mpath_policy": "round-robin", "mpath_policy_id": 0,
 "max_reconnect_attempts": 3, "paths": ['"$PB0"']}'
SA="dict($SA_, debugfs={'poll': {'direct': 12, 'swept': 3}})"
SB="dict($SB_, debugfs=None)"
DBG_OK='"debugfs": {"available": true, "reason": null}'
ROOTS='"sysfs_root": "'$RTRS_SYSFS_ROOT'", "debugfs_root": "'$RTRS_DEBUGFS_ROOT'"'

run json "$tool" --json
rc_is "--json" 0
same "--json: stderr empty" "" "$ERR"
if python3 -m json.tool "$tmp/json.out" >/dev/null 2>&1; then
	ok "--json: python3 -m json.tool accepts it"
else
	bad "--json: not valid JSON: $OUT"
fi
jcheck "--json: every value" "$tmp/json.out" "{$ROOTS, $DBG_OK, \"sessions\": [$SA, $SB]}"

run json1 "$tool" -j -s alpha
rc_is "-j -s alpha" 0
jcheck "-j -s alpha: every value" "$tmp/json1.out" "{$ROOTS, $DBG_OK, \"sessions\": [$SA]}"

# the options win over the environment
run opts env RTRS_SYSFS_ROOT=/nonexistent RTRS_DEBUGFS_ROOT=/nonexistent \
	"$tool" --json --sysfs-root "$RTRS_SYSFS_ROOT" --debugfs-root="$RTRS_DEBUGFS_ROOT"
rc_is "--sysfs-root/--debugfs-root" 0
jcheck "--sysfs-root/--debugfs-root: every value" "$tmp/opts.out" "{$ROOTS, $DBG_OK, \"sessions\": [$SA, $SB]}"

# ---- 3. without debugfs ---------------------------------------------------------------
# not mounted: the parent directory is empty (as /sys/kernel/debug without debugfs)
mkdir -p "$tmp/nodebug/debug"
NODBG=$tmp/nodebug/debug/rtrs-client
run nodbg env RTRS_DEBUGFS_ROOT="$NODBG" "$tool"
rc_is "debugfs not mounted: table" 0
err_has "debugfs not mounted: table" "debugfs is not mounted at $tmp/nodebug/debug"
same "debugfs not mounted: table without the DEBUGFS column" "SESSION  POLICY        MAX_RECONNECT  PATHS  CONNECTED
alpha    min-inflight             -1      2          1
beta     round-robin               3      1          1

$P_HDR
$P_A0
$P_A1
$P_B0" "$OUT"
run nodbgj env RTRS_DEBUGFS_ROOT="$NODBG" "$tool" --json
rc_is "debugfs not mounted: --json" 0
jcheck "debugfs not mounted: --json without the sessions' debugfs" "$tmp/nodbgj.out" \
	"{\"sysfs_root\": \"$RTRS_SYSFS_ROOT\", \"debugfs_root\": \"$NODBG\",
	  \"debugfs\": {\"available\": false,
	   \"reason\": \"debugfs is not mounted at $tmp/nodebug/debug (mount -t debugfs none $tmp/nodebug/debug)\"},
	  \"sessions\": [$SA_, $SB_]}"
# mounted, but no rtrs-client directory in it (upstream's module)
run updbg env RTRS_DEBUGFS_ROOT="$T/debug/upstream" "$tool"
rc_is "no rtrs-client dir in debugfs" 0
err_has "no rtrs-client dir in debugfs" "upstream's rtrs-client has none"
case $OUT in *DEBUGFS*) bad "no rtrs-client dir in debugfs: the DEBUGFS column is there" ;;
*) ok "no rtrs-client dir in debugfs: no DEBUGFS column" ;; esac

# ---- 4. exit codes --------------------------------------------------------------------
run nosess "$tool" -s gamma
rc_is "-s gamma (no such session)" 1
err_has "-s gamma" "no session 'gamma'"
same "-s gamma: stdout empty" "" "$OUT"
run nosessj "$tool" --json -s gamma
rc_is "--json -s gamma" 1
jcheck "--json -s gamma: valid JSON, no sessions" "$tmp/nosessj.out" "{$ROOTS, $DBG_OK, \"sessions\": []}"
mkdir -p "$tmp/empty/sys/class/rtrs-client"
run empty env RTRS_SYSFS_ROOT="$tmp/empty/sys/class/rtrs-client" "$tool"
rc_is "class directory without sessions" 1
err_has "class directory without sessions" "no sessions in $tmp/empty/sys/class/rtrs-client"
run unloaded env RTRS_SYSFS_ROOT="$tmp/none/rtrs-client" "$tool"
rc_is "module not loaded" 1
err_has "module not loaded" "rtrs-client module is not loaded"
run unloadedj env RTRS_SYSFS_ROOT="$tmp/none/rtrs-client" "$tool" --json
rc_is "module not loaded, --json" 1
jcheck "module not loaded, --json: valid JSON, no sessions" "$tmp/unloadedj.out" \
	"{\"sysfs_root\": \"$tmp/none/rtrs-client\", \"debugfs_root\": \"$RTRS_DEBUGFS_ROOT\", $DBG_OK, \"sessions\": []}"
for args in "--bogus" "-s" "-s a/b" "-s .." "--sysfs-root" "-s alpha -s beta" "extra"; do
	# shellcheck disable=SC2086 # the argument lists are split on purpose
	run usage "$tool" $args
	rc_is "usage error '$args'" 2
	if [ -z "$ERR" ] || [ -n "$OUT" ]; then
		bad "usage error '$args': no message on stderr, or stdout not empty"
	fi
done
run help "$tool" --help
rc_is "--help" 0
missing=
for w in -s --json --bytes --sysfs-root --debugfs-root RTRS_SYSFS_ROOT RTRS_DEBUGFS_ROOT \
	SESSION POLICY MAX_RECONNECT PATHS CONNECTED DEBUGFS SRC DST STATE HCA PORT LATENCY \
	READS READ_BYTES WRITES WRITE_BYTES INFLIGHT FAILOVERS RECONN_OK RECONN_FAIL MIGR_FROM \
	MIGR_TO sysfs_root debugfs_root available reason sessions name mpath_policy \
	mpath_policy_id max_reconnect_attempts paths state hca_name hca_port src_addr dst_addr \
	cur_latency_ns stats reads read_bytes writes write_bytes inflight failovers \
	reconnects_ok reconnects_failed cpu_migration_from cpu_migration_to poll.direct \
	"Exit status" "0  at least one session" "1  no session" "2  usage error"; do
	grep -qF -e "$w" "$tmp/help.out" || missing+=" '$w'"
done
if [ -z "$missing" ]; then ok "--help names every option, column, JSON key and exit code"; else bad "--help lacks:$missing"; fi
run h "$tool" -h
same "-h is --help" "$(cat "$tmp/help.out")" "$OUT"

# ---- 5. values that cannot be read; a path gone while it is read -----------------------
G=$tmp/g
mktree "$G"
pdir=$G/sys/devices/virtual/rtrs-client/beta/paths
rm -rf "$pdir/ip:fd18:0::2@ip:fd18:0::1/stats" "$pdir/ip:fd18:0::2@ip:fd18:0::1/hca_port"
mkdir -p "$pdir/ip:fd18:1::2@ip:fd18:1::1" # its files already gone: the path went away
run gone env RTRS_SYSFS_ROOT="$G/sys/class/rtrs-client" RTRS_DEBUGFS_ROOT="$G/debug/rtrs-client" "$tool" -s beta
rc_is "unreadable files, a vanished path" 0
same "unreadable files, a vanished path: table" 'SESSION  POLICY       MAX_RECONNECT  PATHS  CONNECTED  DEBUGFS
beta     round-robin              3      1          1  -

SESSION  SRC           DST           STATE      HCA   PORT  LATENCY  READS  READ_BYTES  WRITES  WRITE_BYTES  INFLIGHT  FAILOVERS  RECONN_OK  RECONN_FAIL  MIGR_FROM  MIGR_TO
beta     ip:fd18:0::2  ip:fd18:0::1  connected  rxe0     -  0.812ms      -           -       -            -         -          -          -            -          -        -' "$OUT"
same "unreadable files, a vanished path: stderr empty" "" "$ERR"
run gonej env RTRS_SYSFS_ROOT="$G/sys/class/rtrs-client" RTRS_DEBUGFS_ROOT="$G/debug/rtrs-client" "$tool" -s beta --json
jcheck "unreadable files: null in JSON" "$tmp/gonej.out" \
	"{\"sysfs_root\": \"$G/sys/class/rtrs-client\", \"debugfs_root\": \"$G/debug/rtrs-client\", $DBG_OK,
	  \"sessions\": [{\"name\": \"beta\", \"mpath_policy\": \"round-robin\", \"mpath_policy_id\": 0,
	   \"max_reconnect_attempts\": 3, \"debugfs\": null, \"paths\": [
	   {\"name\": \"ip:fd18:0::2@ip:fd18:0::1\", \"state\": \"connected\", \"hca_name\": \"rxe0\",
	    \"hca_port\": null, \"src_addr\": \"ip:fd18:0::2\", \"dst_addr\": \"ip:fd18:0::1\",
	    \"cur_latency_ns\": 812000,
	    \"stats\": {\"reads\": null, \"read_bytes\": null, \"writes\": null, \"write_bytes\": null,
	     \"inflight\": null, \"failovers\": null, \"reconnects_ok\": null, \"reconnects_failed\": null,
	     \"cpu_migration_from\": null, \"cpu_migration_to\": null}}]}]}"

# ---- 6. paths and sessions that come and go while the tool reads ----------------------
C=$tmp/c
mktree "$C"
(
	n=0
	while :; do
		n=$((n + 1))
		mkp "$C" alpha ip:10.0.0.2 "ip:10.0.0.$((n % 7 + 1))" connected rxe0 1 1000 \
			"1 2 3 4 0 0" "0 0" "0 " "0 "
		mks "$C" "tmp$((n % 3))" "min-latency (ML: 2)" 0 2>/dev/null
		mkp "$C" "tmp$((n % 3))" ip:10.1.0.2 ip:10.1.0.1 connected rxe0 1 1000 \
			"1 2 3 4 0 0" "0 0" "0 " "0 "
		mkdir -p "$C/debug/rtrs-client/tmp$((n % 3))"
		echo "direct $n" >"$C/debug/rtrs-client/tmp$((n % 3))/poll"
		rm -rf "$C/sys/devices/virtual/rtrs-client/alpha/paths/ip:10.0.0.2@ip:10.0.0.$(((n + 3) % 7 + 1))"
		rm -rf "$C/sys/devices/virtual/rtrs-client/tmp$(((n + 1) % 3))" \
			"$C/sys/class/rtrs-client/tmp$(((n + 1) % 3))" "$C/debug/rtrs-client/tmp$(((n + 1) % 3))"
	done
) &
churn=$!
runs=0 fails=0
for i in $(seq 40); do
	if [ $((i % 2)) = 0 ]; then a=--json; else a=; fi
	# shellcheck disable=SC2086 # empty or one option
	RTRS_SYSFS_ROOT=$C/sys/class/rtrs-client RTRS_DEBUGFS_ROOT=$C/debug/rtrs-client \
		"$tool" $a >"$tmp/churn.out" 2>"$tmp/churn.err"
	rc=$?
	runs=$((runs + 1))
	if [ $rc != 0 ] || [ -s "$tmp/churn.err" ]; then
		fails=$((fails + 1)); echo "     run $i: exit $rc: $(cat "$tmp/churn.err")"
	elif [ -n "$a" ] && ! python3 -m json.tool "$tmp/churn.out" >/dev/null 2>&1; then
		fails=$((fails + 1)); echo "     run $i: invalid JSON: $(head -c 300 "$tmp/churn.out")"
	elif ! grep -q '^alpha .*  poll.direct=12 poll.swept=3$\|"name": "alpha"' "$tmp/churn.out"; then
		fails=$((fails + 1)); echo "     run $i: alpha missing or wrong: $(head -n 3 "$tmp/churn.out")"
	fi
done
kill "$churn" 2>/dev/null; wait "$churn" 2>/dev/null; churn=
if [ $fails = 0 ]; then ok "churn: $runs runs while paths and sessions come and go, all exit 0, no stderr, valid JSON"
else bad "churn: $fails of $runs runs failed"; fi

# ---- 7. JSON strings are escaped ------------------------------------------------------
E=$tmp/e
odd=$'we"ird\\name\twith\x01ctl'
mks "$E" "$odd" "Unknown (7)" 5
mkp "$E" "$odd" 'gid:fe80::1' 'gid:fe80::2' connected 'mlx"5_0' 1 10 "0 0 0 0 0 0" "0 0" "0 " "0 "
# debugfs files are read generically: a later counter file (here a made-up queue_depth)
# shows up by itself
mkdir -p "$E/debug/rtrs-client/$odd"
printf 'direct 1\nswept 2\n' >"$E/debug/rtrs-client/$odd/poll"
echo 64 >"$E/debug/rtrs-client/$odd/queue_depth"
run esc env RTRS_SYSFS_ROOT="$E/sys/class/rtrs-client" RTRS_DEBUGFS_ROOT="$E/debug/rtrs-client" "$tool" --json
rc_is "odd names" 0
if python3 - "$tmp/esc.out" "$odd" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sessions"][0]
assert s["debugfs"] == {"poll": {"direct": 1, "swept": 2}, "queue_depth": 64}, s["debugfs"]
assert s["name"] == sys.argv[2], s["name"]
assert s["mpath_policy"] == "Unknown" and s["mpath_policy_id"] == 7, s
assert s["paths"][0]["hca_name"] == 'mlx"5_0', s["paths"][0]
assert s["paths"][0]["src_addr"] == "gid:fe80::1", s["paths"][0]
EOF
then ok "odd names: quotes, backslash, tab, control characters round-trip through JSON"
else bad "odd names: JSON wrong: $OUT"; fi
run esct env RTRS_SYSFS_ROOT="$E/sys/class/rtrs-client" RTRS_DEBUGFS_ROOT="$E/debug/rtrs-client" "$tool"
same "odd names: table (a tab in a name is a blank; every debugfs file)" "SESSION               POLICY   MAX_RECONNECT  PATHS  CONNECTED  DEBUGFS
${odd//$'\t'/ }  Unknown              5      1          1  poll.direct=1 poll.swept=2 queue_depth=64

SESSION               SRC          DST          STATE      HCA      PORT  LATENCY  READS  READ_BYTES  WRITES  WRITE_BYTES  INFLIGHT  FAILOVERS  RECONN_OK  RECONN_FAIL  MIGR_FROM  MIGR_TO
${odd//$'\t'/ }  gid:fe80::1  gid:fe80::2  connected  mlx\"5_0     1  0.000ms      0          0B       0           0B         0          0          0            0          0        0" "$OUT"

# ---- 8. make install-tools into a staging root ----------------------------------------
if make -s install-tools INSTALL_MOD_PATH="$tmp/stage" >"$tmp/install.log" 2>&1 &&
	[ -x "$tmp/stage/usr/local/sbin/rtrs-status" ] &&
	cmp -s "$tool" "$tmp/stage/usr/local/sbin/rtrs-status"; then
	ok "make install-tools INSTALL_MOD_PATH=<stage>: <stage>/usr/local/sbin/rtrs-status"
else
	bad "make install-tools: $(cat "$tmp/install.log"; find "$tmp/stage" 2>&1 | head)"
fi

if [ $fail -ne 0 ]; then
	echo "status-tool.sh: FAILED"
	exit 1
fi
echo "status-tool.sh: PASSED"
