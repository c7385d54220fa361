#!/bin/bash
# sysfs-dump.sh <sessname>: the session's sysfs tree, one line per entry, sorted:
#   <relative path> <type d|f|l> <mode> <content of a readable file, digits masked, \n as |>
# Symlinks are listed, not followed. Used by tests/vm/cases/sysfs-compare.sh.
root=/sys/class/rtrs-client/$1
cd "$(readlink -f "$root")" || exit 1
find . -mindepth 1 \( -name power -prune -o -print \) | sort | while read -r p; do
	if [ -L "$p" ]; then echo "$p l"; continue; fi
	if [ -d "$p" ]; then echo "$p d $(stat -c %a "$p")"; continue; fi
	# shellcheck disable=SC2002 # cat's own error text (unreadable files) is part of the dump
	c=$(cat "$p" 2>&1 | head -c 400 | sed 's/[0-9]\+/N/g' | sed ':a;N;$!ba;s/\n/|/g') || true
	# shellcheck disable=SC2001 # a regex: a bash pattern cannot say "up to the next |"
	case $p in */uevent) c=$(echo "$c" | sed 's/=[^|]*/=X/g') ;; esac
	echo "$p f $(stat -c %a "$p") $c"
done
