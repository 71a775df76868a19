#!/usr/bin/env bash
# Broken and hostile interpreters, as small executables in a temp dir: each
# must give the documented exit code and a clear one-message error, never a
# crash, a hang or a bare what(); an interpreter that never answers is
# stopped by Ctrl-C (or SIGTERM) with exit 130 and leaves no process behind.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

BIN=$TMP/bin
mkdir -p "$BIN"

# fake NAME BODY: an executable /bin/sh script $BIN/NAME.
fake() {
  printf '#!/bin/sh\n%s\n' "$2" >"$BIN/$1"
  chmod +x "$BIN/$1"
}

# try NAME: runs flashfit tags against $BIN/NAME (or a path).
try() {
  local python=$1
  [[ $python == /* ]] || python=$BIN/$python
  ff tags --python "$python"
}

# --- Not an interpreter at all: bad input, exit 2 ---------------------------
try "$TMP/does-not-exist/python3"
expect_clean_error 2 "nonexistent path"
expect_err_contains "no executable interpreter at '$TMP/does-not-exist/python3'"

mkdir -p "$BIN/a-directory"
try "$BIN/a-directory"
expect_clean_error 2 "a directory"
expect_err_contains 'no executable interpreter'

printf '#!/bin/sh\necho hi\n' >"$BIN/not-executable"
chmod 644 "$BIN/not-executable"
try not-executable
expect_clean_error 2 "a non-executable file"
expect_err_contains 'no executable interpreter'

ln -s loop "$BIN/loop"
try loop
expect_clean_error 2 "a symlink loop"

ln -s "$TMP/nowhere" "$BIN/dangling"
try dangling
expect_clean_error 2 "a dangling symlink"

printf '#!/nonexistent/interpreter\n' >"$BIN/bad-shebang"
chmod +x "$BIN/bad-shebang"
try bad-shebang
expect_clean_error 2 "a script whose #! names a missing program"
expect_err_contains 'cannot run'
expect_err_contains 'No such file or directory'

printf '\x7fELF\x02\x01garbage' >"$BIN/not-a-program"
chmod +x "$BIN/not-a-program"
try not-a-program
expect_clean_error 1 "an executable that is not a program"
expect_err_contains 'cannot run'
pass_note "missing, directory, non-executable, loops, bad #!: clean errors"

# --- Every command that works for an interpreter refuses one it cannot ask --
# (issue 13 item 3: `resolve` used to reject every wheel with "torch is not
# installed" and `inspect` to print "compatible" for a missing interpreter.)
export FLASHFIT_CONFIG="$TMP/no-config.toml"
printf '# empty\n' >"$FLASHFIT_CONFIG"
# each_command RC WHAT PYTHON_ARGS...: every command with those interpreter flags.
each_command() {
  local want=$1 what=$2
  shift 2
  local -a cmd
  for cmd in "doctor" "doctor --json" "inspect /usr/bin/ls" "inspect pip" "resolve flash-attn" \
             "resolve flash-attn --json" "install flash-attn" "install flash-attn --dry-run" \
             "build flash-attn --dry-run" "tags" "tags --json"; do
    # shellcheck disable=SC2086  # (the command is a word list)
    ff $cmd "$@"
    expect_clean_error "$want" "$cmd with $what"
  done
}
each_command 2 "a nonexistent --python" --python "$TMP/does-not-exist/python3"
expect_err_contains "no executable interpreter at '$TMP/does-not-exist/python3'"
expect_err_contains 'hint: pass --python'
each_command 2 "a --python whose #! names a missing program" --python "$BIN/bad-shebang"
expect_err_contains 'cannot run'
each_command 1 "a --python that exits 1" --python /bin/false
expect_err_contains 'exited with status 1'
# A what-if --python-version never stands in for the interpreter the user named.
each_command 2 "a nonexistent --python and --python-version" --python "$TMP/does-not-exist/python3" \
  --python-version 3.12
VIRTUAL_ENV=$TMP/stale-venv each_command 2 "a stale \$VIRTUAL_ENV"
expect_err_contains 'VIRTUAL_ENV'

# No python3 on PATH: the same, except resolve and tags with --python-version,
# which answer for that CPython and say that no interpreter was asked.
mkdir -p "$TMP/no-python-bin"
ff_no_python() { capture env PATH="$TMP/no-python-bin" "$FLASHFIT" "$@"; }
for cmd in "doctor" "inspect /usr/bin/ls" "resolve flash-attn" "install flash-attn --dry-run" \
           "build flash-attn --dry-run" "tags"; do
  # shellcheck disable=SC2086
  ff_no_python $cmd
  expect_clean_error 2 "$cmd without python3 on PATH"
  expect_err_contains "'python3' is not on PATH"
done
ff_no_python tags
expect_err_contains 'or --python-version X.Y'
ff_no_python install flash-attn --dry-run --python-version 3.12
expect_clean_error 2 "install --python-version without an interpreter"
ff_no_python tags --python-version 3.12 --json
expect_rc 0 "tags --python-version without an interpreter"
expect_err_contains 'no interpreter could be asked'
expect_err_contains 'CPython 3.12'
json_field "$TMP/out" 'd["interpreter"] is None and d["python_version"] == "3.12" and d["tags"][0].startswith("cp312-cp312-")' |
  grep -qx True || fail "tags --python-version without an interpreter: $(head -c 300 "$TMP/out")"
ff_no_python resolve flash-attn --python-version 3.12 --json
[[ $RC == 0 || $RC == 1 ]] || fail "resolve --python-version without an interpreter: exit $RC"
expect_err_contains 'no interpreter could be asked'
expect_err_contains 'no torch was looked for'
json_field "$TMP/out" 'd["requirement"]' >/dev/null || fail "resolve --json printed no report"
pass_note "every command: missing, unrunnable, stale-venv and absent interpreters are errors; --python-version answers say so"

# --- It runs, and fails: exit 1 ---------------------------------------------
try /bin/false
expect_clean_error 1 "/bin/false"
expect_err_contains 'exited with status 1'

fake segv 'kill -SEGV $$'
try segv
expect_clean_error 1 "killed by a signal"
expect_err_contains 'killed by signal 11'

# Python 2 cannot even parse the query: SyntaxError on stderr, exit 1.
fake python2-syntax 'cat >&2 <<EOF
  File "<string>", line 42
    print(f"{x}")
              ^
SyntaxError: invalid syntax
EOF
exit 1'
try python2-syntax
expect_clean_error 1 "a Python 2 SyntaxError"
expect_err_contains 'exited with status 1'
expect_err_contains 'SyntaxError: invalid syntax'
expect_err_contains 'Python 3.6+'

# Terminal escapes and floods on its stderr are quoted and cut.
fake escapes 'printf "\033[2J\033[31mboom\007\n" >&2; exit 3'
try escapes
expect_clean_error 1 "escape sequences on stderr"
expect_err_contains 'exited with status 3'
expect_err_contains '\x1b[2J\x1b[31mboom\x07'

fake stderr-flood 'head -c 10485760 /dev/zero | tr "\0" e >&2; exit 1'
try stderr-flood
expect_clean_error 1 "10 MB on stderr"
pass_note "/bin/false, signals, Python 2 SyntaxError, hostile stderr"

# --- It answers, but not with facts: exit 1 ---------------------------------
# answer TEXT: an interpreter that prints TEXT (exactly) and exits 0.
answer() {
  printf '%s' "$1" >"$TMP/answer.txt"
  ff tags --python "$BIN/answer"
}
printf '#!/bin/sh\ncat "%s"\n' "$TMP/answer.txt" >"$BIN/answer"
chmod +x "$BIN/answer"

for text in '' 'hello, I am not python' '[]' 'null' '42' '"a string"' 'true' \
            '{"version_info": [3, 11, 2, "fin' '{"version_info": [3, 11' '{' \
            $'{"executable": "\xff\xfe"}' '{"executable": "\udcff"}'; do
  answer "$text"
  expect_clean_error 1 "answer '$text'"
  expect_err_contains 'not a JSON object'
done
answer 'I am garbage, not JSON'
expect_err_contains "'I am garbage, not JSON'"
answer $'\e]0;pwned\a{}'
expect_clean_error 1 "an answer with terminal escapes"
expect_err_contains '\x1b]0;pwned\x07'

for text in '{}' '{"version_info": "3.11.2"}' '{"version_info": ["3", "11", "2", "final", 0]}' \
            '{"version_info": [3, 11]}' '{"version_info": [3.0, 11, 2, "final", 0]}' \
            '{"version_info": [[3], [11], [2], "final", 0]}' '{"version_info": {"major": 3}}' \
            '{"version_info": null}' '{"version_info": [99999999999999999999999, 11, 2, "final", 0]}'; do
  answer "$text"
  expect_clean_error 1 "answer '$text'"
  expect_err_contains 'no usable version_info'
done

# Out of range: an int that would wrap to 3 when narrowed, negatives, Python 2.
for info in '[4294967299, 11, 2, "final", 0]' '[3, 4294967307, 2, "final", 0]' \
            '[18446744073709551615, 11, 2, "final", 0]' '[-3, 11, 2, "final", 0]' \
            '[3, -1, 0, "final", 0]' '[2, 7, 18, "final", 0]' '[4, 0, 0, "final", 0]'; do
  answer '{"version_info": '"$info"', "implementation": "cpython", "sysconfig_platform": "linux-x86_64"}'
  expect_clean_error 1 "version_info $info"
  expect_err_contains 'is not supported'
done
answer '{"version_info": [2, 7, 18, "final", 0], "implementation": "cpython", "sysconfig_platform": "linux-x86_64"}'
expect_err_contains 'Python 2.7.18 is not supported'

for text in '{"version_info": [3, 11, 2, "final", 0]}' \
            '{"version_info": [3, 11, 2, "final", 0], "implementation": 3, "sysconfig_platform": "linux-x86_64"}' \
            '{"version_info": [3, 11, 2, "final", 0], "implementation": "cpython", "sysconfig_platform": ["linux"]}'; do
  answer "$text"
  expect_clean_error 1 "answer '$text'"
  expect_err_contains 'lacks the implementation or platform'
done
pass_note "garbage, truncated and wrongly shaped answers: exit 1, precise messages"

# --- Floods and deep nesting: bounded ---------------------------------------
fake flood 'head -c 10485760 /dev/zero | tr "\0" x'
try flood
expect_clean_error 1 "10 MB of x on stdout"
expect_err_contains 'larger than 4 MiB'

# fake_py NAME CODE: an executable Python script (it ignores the -c query it is given).
fake_py() {
  printf '#!%s\n%s\n' "$TEST_PYTHON" "$2" >"$BIN/$1"
  chmod +x "$BIN/$1"
}

fake_py big-json 'import json; print(json.dumps({"version_info": [3, 11, 2, "final", 0], "pad": "x" * 10000000}))'
try big-json
expect_clean_error 1 "a 10 MB JSON answer"
expect_err_contains 'larger than 4 MiB'

fake_py deep 'import sys; sys.stdout.write("[" * 2000000 + "]" * 2000000)'
try deep
expect_clean_error 1 "2 million nested arrays"
expect_err_contains 'not a JSON object'

fake_py deep-open 'import sys; sys.stdout.write("{\"a\":[" * 400000)'
try deep-open
expect_clean_error 1 "400 thousand unclosed nested objects"
pass_note "10 MB of output and deep nesting: bounded, exit 1"

# --- A real interpreter whose answer is edited --------------------------------
# $BIN/edited runs the real query, then applies $FAKE_EDIT (Python statements
# on the parsed answer `d`) before printing it; the environment passes through.
cat >"$BIN/edited" <<EOF
#!/bin/sh
'$TEST_PYTHON' "\$@" | '$TEST_PYTHON' -c '
import json, os, sys
d = json.load(sys.stdin)
exec(os.environ["FAKE_EDIT"])
sys.stdout.write(json.dumps(d))'
EOF
chmod +x "$BIN/edited"
edited() {
  capture env FAKE_EDIT="$1" "$FLASHFIT" tags "${@:2}" --python "$BIN/edited"
}

edited 'pass'
expect_rc 0 "an unedited answer through the wrapper"
cp "$TMP/out" "$TMP/real-tags"
[[ $(wc -l <"$TMP/real-tags") -gt 100 ]] || fail "the wrapper lost the tag list"

edited 'd["version_info"] = [2, 7, 18, "final", 0]'
expect_clean_error 1 "a Python 2.7 answer"
expect_err_contains 'Python 2.7.18 is not supported'
expect_err_contains 'Python 3'

# Implausible libc versions read as "not glibc": no manylinux tags, bounded time
# (a glibc of 999.0 would otherwise mean 1.2 million tags).
for glibc in '999.0' '2.9999' '99999999999.1' 'x.y' '' '2' '-2.36'; do
  edited "d['glibc'] = '$glibc'"
  expect_rc 0 "glibc '$glibc'"
  ! grep -q manylinux "$TMP/out" || fail "glibc '$glibc' still gave manylinux tags"
  [[ $(wc -l <"$TMP/out") -lt 200 ]] || fail "glibc '$glibc' gave $(wc -l <"$TMP/out") tags"
done
edited "d['glibc'] = '2.36.1'"
expect_rc 0 "glibc '2.36.1'"
cmp -s "$TMP/out" "$TMP/real-tags" || fail "glibc '2.36.1' should read as 2.36 (the real list)"

# Junk in every optional fact: the answer still works (facts read as absent).
edited '
junk = [None, True, -1, 18446744073709551615, 1e300, "", "x", [], {}, [[[]]], {"a": {"b": [1]}}]
for i, key in enumerate(k for k in list(d) if k not in ("version_info", "implementation", "sysconfig_platform")):
    d[key] = junk[i % len(junk)]'
expect_rc 0 "junk in every optional fact"
[[ -s $TMP/out ]] || fail "junk in the optional facts: no tags"
edited '
for key in ("config_vars", "markers", "paths", "elf"):
    d[key] = {k: [[{"x": None}]] for k in (d.get(key) or {})}' --json
expect_rc 0 "junk inside the nested facts"
json_field "$TMP/out" 'len(d["tags"])' >/dev/null || fail "--json output is not JSON"
# [2, 4294967312] must not narrow to [2, 16].
edited 'd["manylinux_vetoed"] = [[2], "x", [2, "17"], [2, 4294967312], [2, 17], None, [[2, 5]], [2, 5, 1]]'
expect_rc 0 "junk in manylinux_vetoed"
! grep -q 'manylinux_2_17_x86_64' "$TMP/out" || fail "the [2, 17] veto was ignored"
grep -q 'manylinux2014_x86_64' "$TMP/out" && fail "the [2, 17] veto kept manylinux2014"
for kept in manylinux_2_16_x86_64 manylinux_2_5_x86_64 manylinux1_x86_64; do
  grep -q "$kept" "$TMP/out" || fail "a junk veto removed $kept"
done

# Control bytes and odd text in the strings that --json echoes.
edited 'd["executable"] = "/tmp/\u001b[31mred\u0000nul\u2603"' --json
expect_rc 0 "an executable name with control bytes"
[[ $(json_field "$TMP/out" 'd["interpreter"]["executable"] == "/tmp/\u001b[31mred\u0000nul\u2603"') == True ]] ||
  fail "--json did not carry the executable name through exactly"
! LC_ALL=C grep -q $'\e' "$TMP/out" || fail "--json wrote a raw ESC byte"

# Valid answer, but the interpreter exits non-zero.
edited 'sys.stdout.write(json.dumps(d)); sys.stdout.flush(); os._exit(4)'
expect_clean_error 1 "a full answer with exit status 4"
expect_err_contains 'exited with status 4'
pass_note "edited real answers: Python 2, libc versions, junk facts, odd strings"

# --- A launcher: an ELF that execs the interpreter something else picks -------
# (as mise's shims do: a symlink to mise, which reads version files and
# variables at each call). Its stamp does not change when its pick does, so an
# answer from the picked interpreter must never be cached under it.
LAUNCHER=$BIN/launcher-python3
printf '%s\n' '#include <stdlib.h>' '#include <unistd.h>' \
  'int main(int argc, char** argv) { (void)argc; const char* t = getenv("FAKE_SHIM_TARGET");' \
  '  if (!t) return 99; argv[0] = (char*)t; execv(t, argv); return 98; }' |
  cc -x c -o "$LAUNCHER" - || fail "cannot compile the launcher with cc"
"$TEST_PYTHON" -m venv --without-pip --copies "$TMP/copied-venv" || fail "cannot make a venv"
COPIED=$TMP/copied-venv/bin/python3
for target in /usr/bin/python3 "$COPIED" /usr/bin/python3; do
  capture env FAKE_SHIM_TARGET="$target" "$FLASHFIT" tags --python "$LAUNCHER" --json
  expect_rc 0 "tags through the launcher picking $target"
  got=$(json_field "$TMP/out" 'd["interpreter"]["executable"]')
  [[ $got == "$target" ]] || fail "through the launcher picking $target, flashfit answered for $got (a stale cached answer)"
done
# The interpreter itself is still cached: its second query runs nothing.
capture "$FLASHFIT" -v tags --python "$COPIED"
capture "$FLASHFIT" -v tags --python "$COPIED"
expect_rc 0 "tags --python the copied venv's interpreter, again"
grep -q ' -c ' "$TMP/err" && fail "the interpreter's answer was not cached: $(head -c 600 "$TMP/err")"
pass_note "an ELF launcher picking another interpreter at each call: answered for its pick every time, never from a cache; a real interpreter still cached"

# --- It never answers: Ctrl-C and SIGTERM stop it -----------------------------
# interrupt SIGNAL NAME: starts flashfit against $BIN/NAME (which writes its
# pid to $TMP/NAME.pid), sends SIGNAL a second after the child is up, and
# expects exit 130 within 10 s and the child's whole process group gone.
# shellcheck disable=SC2034  # LAST_CMD and RC are read by fail and expect_*
interrupt() {
  local signal=$1 name=$2 pidfile=$TMP/$2.pid child ff_pid i
  rm -f "$pidfile"
  LAST_CMD="$FLASHFIT tags --python $BIN/$name (then SIG$signal)"
  "$FLASHFIT" tags --python "$BIN/$name" >"$TMP/out" 2>"$TMP/err" &
  ff_pid=$!
  BACKGROUND_PIDS+=("$ff_pid")
  for ((i = 0; i < 100; i++)); do
    [[ -s $pidfile ]] && break
    sleep 0.1
  done
  [[ -s $pidfile ]] || fail "$name never started"
  child=$(<"$pidfile")
  BACKGROUND_PIDS+=("-$child")  # its group (flashfit made it a leader)
  sleep 1
  process_running "$child" || fail "$name (pid $child) died before the signal"
  kill -s "$signal" "$ff_pid"
  for ((i = 0; i < 100; i++)); do
    process_running "$ff_pid" || break
    sleep 0.1
  done
  process_running "$ff_pid" && fail "flashfit still runs 10 s after SIG$signal"
  RC=0
  wait "$ff_pid" || RC=$?
  expect_clean_error 130 "SIG$signal while $name runs"
  expect_err_contains 'interrupted'
  # flashfit reaps its child before it exits; allow the kernel a moment.
  for ((i = 0; i < 50; i++)); do
    process_running "$child" || break
    sleep 0.1
  done
  ! process_running "$child" || fail "the interpreter (pid $child) survived flashfit's exit"
  local left
  left=$(group_members "$child")
  [[ -z $left ]] || fail "processes of the interpreter's group survived: $left"
  forget_background "$ff_pid"
  forget_background "-$child"
}

fake sleeper "echo \$\$ >'$TMP/sleeper.pid'; exec sleep 600"
interrupt INT sleeper
interrupt TERM sleeper
# One that ignores SIGTERM, with a child of its own: SIGKILL after the grace period.
fake stubborn "trap '' TERM INT; echo \$\$ >'$TMP/stubborn.pid'; while :; do sleep 0.2; done"
interrupt INT stubborn
pass_note "SIGINT and SIGTERM: exit 130, no process left behind"
