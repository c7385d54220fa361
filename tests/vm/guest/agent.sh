#!/bin/bash
# agent.sh: the test bed's guest agent (runs as root in the chroot, started by boot.sh).
# Brings up the data links and rxe devices, writes $BED_SHARE/ready, then serves the
# control channel: the host drops <id>.cmd files (first line "# timeout=<s>") into
# $BED_SHARE/mbox/; each runs in the background as `timeout <s> bash <id>.run` with lib.sh
# sourced, stdout in <id>.out, stderr in <id>.err, exit status in <id>.rc (written last, atomically).
# $BED_SHARE/heartbeat is rewritten every ~2 s so the host can see a hung guest.
set -u
. "$BED_REPO/tests/vm/guest/lib.sh"
S=$BED_SHARE; MB=$S/mbox; mkdir -p "$MB"
hostname "$BED_ROLE"
bed_log "agent up: kernel $(uname -r) repo $BED_REPO"
# An oops must end the VM at once (the host sees QEMU exit and the console keeps the oops).
sysctl -qw kernel.panic_on_oops=1
if out=$(bed_net_up 2>&1); then
	echo "$out"
	echo "ready uptime=$(bed_t)" > "$S/ready.tmp"
else
	echo "$out"
	echo "FAIL network/rxe setup: $(echo "$out" | tail -3 | tr '\n' ' ')" > "$S/ready.tmp"
fi
mv "$S/ready.tmp" "$S/ready"
bed_log "$(cat "$S/ready")"

run_one() { # <id>
	local id=$1 t=
	# the first line "# timeout=<s>", read without a fork (a sed per command cost TCG time)
	{ read -r t < "$MB/$id.run"; } 2>/dev/null
	t=${t#\# timeout=}; case $t in ''|*[!0-9]*) t=60 ;; esac
	# shellcheck disable=SC2016 # expanded by the command's own bash
	(cd /tmp && timeout -k 5 "$t" bash -c '. "$BED_REPO/tests/vm/guest/lib.sh"; . "$1"' bed "$MB/$id.run") \
		> "$MB/$id.out" 2> "$MB/$id.err" < /dev/null
	echo $? > "$MB/$id.rc.tmp"
	mv "$MB/$id.rc.tmp" "$MB/$id.rc"
	# wake the poll below: the host's next command follows this answer
	[ -n "${tick:-}" ] && echo ended >&"$tick"
}
# The poll's pause: a read with a timeout on a FIFO nobody writes is a bash builtin, where
# `sleep` would fork and exec five times a second (a few % of a vCPU under TCG, taken from
# every measurement). 0.2 s, but 0.05 s for 3 s after a command came or ended (run_one
# writes a line into the FIFO when it ends, which also ends the pause at once): the host
# sends a case's commands one after the other, each as soon as the last answered, and a
# command waited 0.1 s on average for the 0.2 s poll (hundreds per case); an idle guest,
# or one running a long command, polls at the old pace.
tick=
if mkfifo /run/agent.tick && exec {tick}<>/run/agent.tick; then
	pause() { if read -r -t "$1" -u "$tick" _; then busy=$SECONDS; fi; }
else
	tick=
	pause() { sleep "$1"; }
fi
last=0 busy=-10
while :; do
	now=$SECONDS
	if [ $((now - last)) -ge 2 ]; then echo "$now" > "$S/heartbeat"; last=$now; fi
	for f in "$MB"/*.cmd; do
		[ -e "$f" ] || continue
		id=${f##*/}; id=${id%.cmd}
		mv "$f" "$MB/$id.run" || continue
		run_one "$id" &
		busy=$now
	done
	[ -e "$S/poweroff" ] && break
	if [ $((now - busy)) -lt 3 ]; then pause 0.05; else pause 0.2; fi
done
bed_log "agent: poweroff requested"
sync
