#!/usr/bin/env bash
# Colour only on a terminal (cli/colour): flashfit run under a real pseudo-
# terminal (python3's pty module) colours doctor's finding severities and
# answer lines; the same command in a pipe, with NO_COLOR, or with TERM=dumb
# has no escape sequence; CLICOLOR_FORCE colours a pipe; --json never.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
unset NO_COLOR CLICOLOR_FORCE
export TERM=xterm-256color

# on_pty ARGS...: flashfit on a pty's slave side; its output (stdout and
# stderr together, as a terminal shows them) in $TMP/out.
on_pty() {
  LAST_CMD="(pty) $*"
  RC=0
  timeout "$FF_TIMEOUT" "$TEST_PYTHON" -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))' "$FLASHFIT" "$@" >"$TMP/out" 2>"$TMP/err" || RC=$?
}
has_escape() { LC_ALL=C grep -q $'\x1b\\[' "$TMP/out"; }

ARGS=(doctor flash-attn --python "$TEST_PYTHON" --offline)

on_pty "${ARGS[@]}"
expect_rc 0 "doctor on a pty"
has_escape || fail "no colour on a terminal"
LC_ALL=C grep -q $'\x1b\\[31mflash-attn\x1b\\[0m: ' "$TMP/out" || fail "the answer line's package is not coloured as 'none fits'"
pass_note "a terminal gets colour"

ff "${ARGS[@]}"
expect_rc 0 "doctor in a pipe"
! has_escape || fail "colour escaped into a pipe"
grep -q '^  flash-attn: not installed' "$TMP/out" || fail "the plain answer line is missing in a pipe"
pass_note "a pipe gets none"

NO_COLOR=1 on_pty "${ARGS[@]}"
expect_rc 0 "doctor on a pty with NO_COLOR"
! has_escape || fail "NO_COLOR was not honoured"
TERM=dumb on_pty "${ARGS[@]}"
expect_rc 0 "doctor on a pty with TERM=dumb"
! has_escape || fail "TERM=dumb was not honoured"
pass_note "NO_COLOR and TERM=dumb: none on a terminal"

CLICOLOR_FORCE=1 ff "${ARGS[@]}"
has_escape || fail "CLICOLOR_FORCE did not colour a pipe"
NO_COLOR=1 CLICOLOR_FORCE=1 ff "${ARGS[@]}"
! has_escape || fail "NO_COLOR must win over CLICOLOR_FORCE"
on_pty "${ARGS[@]}" --json
expect_rc 0 "doctor --json on a pty"
! has_escape || fail "JSON got colour"
pass_note "CLICOLOR_FORCE colours a pipe; NO_COLOR wins; JSON never"
