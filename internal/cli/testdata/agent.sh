#!/bin/sh
# A fake agent CLI for the same-context tests. It streams like Codex does:
#   agent.sh run [ID]   prints "session id: ID" (none when ID is -), streams
#                       part of its answer on stdout, then fails with Codex's
#                       real stream-disconnect text.
#   agent.sh resume ID  continues session ID and finishes the answer; any
#                       other ID is "no such session" (exit 2).
# Each run appends "$0 $*" to $AGENT_LOG, so tests see what ran.
[ -n "$AGENT_LOG" ] && printf '%s\n' "$*" >> "$AGENT_LOG"
case "$1" in
run)
	id=${2:-sess-0199a3f2}
	[ "$id" != - ] && echo "session id: $id" >&2
	echo "answer: part 1 of 2"
	echo "thinking..." >&2
	echo " stream disconnected before completion: An error occurred while processing your request. You can retry your request, or contact us through our help center at" >&2
	echo "help.openai.com if the error persists. Please include the request ID 9533aa9c-0b12-47f6-bf85-773edc1f24fa in your message." >&2
	exit 1
	;;
resume)
	if [ "$2" != "${AGENT_EXPECT:-sess-0199a3f2}" ]; then
		echo "error: no session $2" >&2
		exit 2
	fi
	echo "resumed session $2" >&2
	echo "answer: part 1 of 2"
	echo "answer: part 2 of 2"
	exit 0
	;;
esac
echo "usage: agent.sh run [ID] | resume ID" >&2
exit 64
