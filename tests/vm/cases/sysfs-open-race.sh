# Case: sysfs writes racing a session's open and close (issue 19, items 3 and 4), with OUR
# rtrs-client under rnbd-client. Parts (SYSFS_RACE_PARTS, in this order by default):
#
# open-fail  The hostile peer (tests/hostile/) accepts the first connection only after 35 s
#            (rep_late_over), past the client's 30 s connect step, so rtrs_clt_open() fails
#            with -ETIMEDOUT after ~31 s. The session's sysfs directory exists from the start
#            of the open; while the open is pending, add_path (a second path over link1) is
#            written once and three shells read every file of the directory in a loop. The
#            add_path write must wait for the open (path_op_mutex) and then fail with ENODEV
#            (the failed open marks the session closing before it destroys the paths; a
#            write that found it not closing would add a path to a session being torn down),
#            within SYSFS_RACE_ADD_LAG_S of the map's return; the map fails with ETIMEDOUT
#            (rtrs_clt_open's documented timeout); the directory is gone; a following map of
#            the same session name (peer restarted without a mutation) succeeds.
# open-ok    The same with rep_late (accepted after 29 s): the open succeeds, the add_path
#            written during it succeeds after it, and the session has two connected paths.
# remove     The upstream server again; SYSFS_RACE_N times: map nullb0 over link0 and link1,
#            then `1 > paths/<p>/remove_path` against rnbd's unmap_device, which closes the
#            session: odd iterations start the remove_path write first and the unmap 0..400 ms
#            later, even ones the other way round; each order with each path (pairs of
#            iterations alternate the first and the second). Both files are opened before either write starts. Each remove_path write
#            returns 1 (done) or ENODEV (the close had begun to remove the path: kernfs's
#            answer for a file being removed, or remove_path_store's own when it lost
#            sysfs_remove_file_self() to the close); the unmap succeeds; the session's
#            directory is gone; finally rnbd-client and rtrs-client unload.
#
# Any kernel report fails the case (the runner scans both logs). What it caught when the fix
# was reverted: tests/mutants/open-fail-not-closing.patch and remove-path-no-ref.patch.
# shellcheck disable=SC2034 # read by tests/vm/run-suite.sh
CASE_TIMEOUT=1200
SYSFS_RACE_PARTS=${SYSFS_RACE_PARTS:-"open-fail open-ok remove"}
SYSFS_RACE_N=${SYSFS_RACE_N:-30}
# The add_path write is released by the unlock that begins the failed open's teardown, and
# the map returns after that teardown (one connecting path destroyed, device_del(), which
# waits for the add_path write): 0.023 s apart in run h6-1; 3 s allows for a loaded host and
# the debug kernel, several times slower under TCG.
SYSFS_RACE_ADD_LAG_S=${SYSFS_RACE_ADD_LAG_S:-3}
. "$BED_REPO/tests/hostile/bed-hostile.sh"

# sw.py, run in the client VM: <file> <text> [--delay S] [--ready F --go G]: open <file> for
# writing (then touch F and wait for G to exist), sleep S, write <text> once. One line:
# "<start> <end> ok" or "<start> <end> errno <N> <NAME>" (epoch seconds of the write), or
# "open-errno <N> <NAME>".
sw_py() {
	cat <<'EOF'
import errno, os, sys, time
a = sys.argv[1:]
path, text = a[0], a[1]
opt = dict(zip(a[2::2], a[3::2]))
try:
    fd = os.open(path, os.O_WRONLY)
except OSError as e:
    print('open-errno %d %s' % (e.errno, errno.errorcode.get(e.errno, '?')))
    sys.exit(0)
if '--ready' in opt:
    open(opt['--ready'], 'w').close()
    while not os.path.exists(opt['--go']):
        time.sleep(0.001)
time.sleep(float(opt.get('--delay', 0)))
t0 = time.time()
try:
    os.write(fd, text.encode())
    res = 'ok'
except OSError as e:
    res = 'errno %d %s' % (e.errno, errno.errorcode.get(e.errno, '?'))
print('%.3f %.3f %s' % (t0, time.time(), res))
EOF
}

# open_race <tag> <mutation>: the map under <mutation> with add_path and readers during the
# open; prints the lines "map <sw.py line>", "add <sw.py line>", "reads <N>", "dir <gone|left>"
open_race() {
	local s=$1 m=$2
	hostile_start "$m" >&2 || { echo "the peer did not start"; return 1; }
	# shellcheck disable=SC2016 # expanded in the guest
	vm_run client 200 "s=$s sw=$SW"'
		d=/sys/class/rtrs-client/$s; rm -rf /tmp/or; mkdir /tmp/or
		python3 "$sw" /sys/class/rnbd-client/ctl/map_device \
			"sessname=$s path=ip:198.18.0.1 device_path=/dev/hostile0" > /tmp/or/map &
		mp=$!
		wait_for 20 test -e "$d/add_path" || { echo "no $d during the open"; exit 1; }
		for r in 1 2 3; do
			( renice -n 19 $BASHPID > /dev/null; n=0; while [ ! -e /tmp/or/stop ]; do
				for f in $(find "$d/" -type f 2>/dev/null); do
					cat "$f" > /dev/null 2>&1 && n=$((n + 1))
				done
			done; echo $n > /tmp/or/reads$r ) &
		done
		python3 "$sw" "$d/add_path" "ip:198.18.1.2@ip:198.18.1.1" > /tmp/or/add
		wait $mp
		touch /tmp/or/stop; wait
		echo "map $(cat /tmp/or/map)"
		echo "add $(cat /tmp/or/add)"
		echo "reads $(( $(cat /tmp/or/reads1) + $(cat /tmp/or/reads2) + $(cat /tmp/or/reads3) ))"
		if [ -e "$d" ]; then echo "dir left"; else echo "dir gone"; fi'
}

# field <output> <key> <n>: the n-th word after <key> on the line starting with <key>
field() { echo "$1" | awk -v k="$2" -v n="$3" '$1 == k { print $(n + 1) }'; }

part_open_fail() {
	local out map add lag dev
	step "open-fail: rep_late_over (accept after 35 s); add_path and readers during the open"
	out=$(open_race h6of rep_late_over) || fail "open race did not run: $out"
	echo "$out" | awk '{ print "        " $0 }'
	map=$(field "$out" map 3); add=$(field "$out" add 3)
	[ "$map $(field "$out" map 4)" = "errno 110" ] ||
		fail "map_device did not fail with ETIMEDOUT: $(field "$out" map 3) $(field "$out" map 4)"
	[ "$add $(field "$out" add 4)" = "errno 19" ] ||
		fail "add_path written during the failing open did not fail with ENODEV: $add $(field "$out" add 4)"
	# written at least 20 s before the open failed: it waited for the open, not after it
	awk -v a="$(field "$out" add 1)" -v m="$(field "$out" map 2)" 'BEGIN { exit !(m - a > 20) }' ||
		fail "add_path was not written during the open"
	lag=$(awk -v a="$(field "$out" add 2)" -v m="$(field "$out" map 2)" 'BEGIN { d = a - m; printf "%.3f", d < 0 ? -d : d }')
	note "add_path returned ${lag} s from the map's return (bound ${SYSFS_RACE_ADD_LAG_S} s)"
	awk -v l="$lag" -v b="$SYSFS_RACE_ADD_LAG_S" 'BEGIN { exit !(l <= b) }' ||
		fail "add_path returned ${lag} s from the failed open (bound ${SYSFS_RACE_ADD_LAG_S} s)"
	[ "$(field "$out" reads 1)" -gt 0 ] || fail "the readers read nothing during the open"
	[ "$(field "$out" dir 1)" = gone ] || fail "the session's sysfs directory outlived the failed open"
	step "open-fail: the same session name maps afterwards (peer without mutation)"
	hostile_start none >/dev/null || fail "the peer did not start"
	dev=$(vm_run client 120 rnbd_map h6of /dev/hostile0 path=ip:198.18.0.1) ||
		fail "a map of the same session name failed after the failed open: $dev"
	vm_run client 60 "rnbd_unmap $dev && wait_for 10 test ! -e /sys/class/rtrs-client/h6of" ||
		fail "unmap of $dev failed or left the session"
}

part_open_ok() {
	local out st dev
	step "open-ok: rep_late (accept after 29 s); add_path and readers during the open"
	out=$(open_race h6ok rep_late) || fail "open race did not run: $out"
	echo "$out" | awk '{ print "        " $0 }'
	[ "$(field "$out" map 3)" = ok ] || fail "map_device failed under rep_late"
	[ "$(field "$out" add 3)" = ok ] || fail "add_path written during the open failed after it succeeded"
	awk -v a="$(field "$out" add 1)" -v m="$(field "$out" map 2)" 'BEGIN { exit !(m - a > 20) }' ||
		fail "add_path was not written during the open"
	[ "$(field "$out" dir 1)" = left ] || fail "the opened session has no sysfs directory"
	st=$(vm_run client 60 'wait_for 30 path_state_is h6ok connected; path_states h6ok')
	note "paths: $(echo "$st" | tr '\n' ' ')"
	[ "$(echo "$st" | grep -c ' connected$')" = 2 ] || fail "not two connected paths: $st"
	echo "$st" | grep -q '^ip:198.18.1.2@ip:198.18.1.1 ' || fail "no path over link1: $st"
	dev=$(vm_run client 10 'rnbd_dev_of h6ok') || fail "no device of h6ok"
	vm_run client 60 "rnbd_unmap $dev && wait_for 10 test ! -e /sys/class/rtrs-client/h6ok" ||
		fail "unmap of $dev failed or left the session"
}

part_remove() {
	local i out rm um cnt_ok=0 cnt_nodev=0
	step "remove: upstream server; $SYSFS_RACE_N x remove_path against unmap (both orders)"
	hostile_stop remove >/dev/null
	vm_run server 120 bed_server_up >/dev/null || fail "the upstream server did not load"
	for i in $(seq "$SYSFS_RACE_N"); do
		# shellcheck disable=SC2016 # expanded in the guest
		out=$(vm_run client 120 "i=$i sw=$SW"'
			s=h6rm; d=/sys/class/rtrs-client/$s
			dev=$(rnbd_map $s /dev/nullb0 path=ip:198.18.0.1 path=ip:198.18.1.1) || exit 1
			wait_for 30 path_state_is $s connected || { path_states $s; exit 1; }
			p=$(ls "$d/paths" | sed -n "$(( (i + 1) / 2 % 2 + 1 ))p")
			[ "$(ls "$d/paths" | wc -l)" = 2 ] || { echo "paths: $(ls "$d/paths")"; exit 1; }
			r=$(( $(od -An -N2 -tu2 /dev/urandom) % 401 ))
			if [ $(( i % 2 )) = 1 ]; then dr=0; du=$(printf "0.%03d" $r); else du=0; dr=$(printf "0.%03d" $r); fi
			rm -f /tmp/rr*
			python3 "$sw" "$d/paths/$p/remove_path" 1 --ready /tmp/rr.r1 --go /tmp/rr.go --delay $dr > /tmp/rr.rm &
			python3 "$sw" "/sys/block/${dev#/dev/}/rnbd/unmap_device" normal --ready /tmp/rr.r2 --go /tmp/rr.go --delay $du > /tmp/rr.um &
			wait_for 30 test -e /tmp/rr.r1 -a -e /tmp/rr.r2 || exit 1
			touch /tmp/rr.go; wait
			echo "path $p delays remove ${dr} unmap ${du}"
			echo "rm $(cat /tmp/rr.rm)"; echo "um $(cat /tmp/rr.um)"
			if wait_for 10 test ! -e "$d"; then echo "dir gone"; else echo "dir left"; fi') ||
			fail "iteration $i: map, path setup or the race did not run: $out"
		rm=$(field "$out" rm 3); um=$(field "$out" um 3)
		note "#$i $(echo "$out" | grep '^path '): remove_path $rm $(field "$out" rm 4) in $(awk -v a="$(field "$out" rm 1)" -v b="$(field "$out" rm 2)" 'BEGIN { printf "%.3f", b - a }') s, unmap $um in $(awk -v a="$(field "$out" um 1)" -v b="$(field "$out" um 2)" 'BEGIN { printf "%.3f", b - a }') s"
		case "$rm $(field "$out" rm 4)" in
		"ok ") cnt_ok=$((cnt_ok + 1)) ;;
		"errno 19") cnt_nodev=$((cnt_nodev + 1)) ;;
		*) fail "iteration $i: remove_path returned neither success nor ENODEV: $out" ;;
		esac
		[ "$um" = ok ] || fail "iteration $i: unmap failed: $out"
		[ "$(field "$out" dir 1)" = gone ] || fail "iteration $i: the session outlived its unmap"
	done
	note "remove_path: $cnt_ok done, $cnt_nodev ENODEV in $SYSFS_RACE_N races"
	step "remove: the client stack unloads (and loads again for the parts after this one)"
	out=$(client_unload 2>&1) || fail "the client stack did not unload: $out"
	client_load >/dev/null || fail "the client stack did not load again"
}

run() {
	local p
	trap hostile_cleanup EXIT
	hostile_build || fail "make -C tests/hostile failed"
	sw_py > "$BED_CASE_DIR/sw.py"
	SW=$(vm_put client "$BED_CASE_DIR/sw.py" sw.py) || fail "cannot copy sw.py to the client"
	client_load >/dev/null || fail "the client stack did not load"
	for p in $SYSFS_RACE_PARTS; do
		case $p in
		open-fail) part_open_fail ;;
		open-ok) part_open_ok ;;
		remove) part_remove ;;
		*) fail "unknown part $p in SYSFS_RACE_PARTS" ;;
		esac
	done
	trap - EXIT
	hostile_cleanup
}
