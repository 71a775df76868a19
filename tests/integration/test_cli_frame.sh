#!/usr/bin/env bash
# The command-line frame: --help, --version, "did you mean", usage errors and
# their exit codes, and the rule that data goes to stdout and diagnostics to
# stderr (so stdout stays empty on every error).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

EXIT_FOOTER='Exit codes: 0 ok, 1 the task failed, 2 bad usage or unreadable input, 130 interrupted.'
VERSION=$(sed -n 's/^project(flashfit VERSION \([0-9][0-9.]*\).*/\1/p' "$SOURCE_DIR/CMakeLists.txt")
[[ -n $VERSION ]] || fail "cannot read the project version from $SOURCE_DIR/CMakeLists.txt"

# --- help and version: exit 0, on stdout ----------------------------------
for help in --help -h; do
  ff "$help"
  expect_rc 0 "flashfit $help"
  expect_err_empty
  grep -qE '^ +tags +List the wheel tags' "$TMP/out" || fail "flashfit $help does not list the tags command"
  expect_out_contains 'Usage: flashfit'
  expect_out_contains "$EXIT_FOOTER"
done
pass_note "--help and -h list the commands and the exit codes"

ff --version
expect_rc 0 "flashfit --version"
expect_err_empty
printf 'flashfit %s\n' "$VERSION" | cmp -s - "$TMP/out" ||
  fail "flashfit --version printed '$(cat "$TMP/out")', expected 'flashfit $VERSION'"
[[ $VERSION == 0.1.0 ]] || fail "expected version 0.1.0 in CMakeLists.txt, found $VERSION"
pass_note "--version prints 'flashfit $VERSION'"

for help in --help -h; do
  ff tags "$help"
  expect_rc 0 "flashfit tags $help"
  expect_err_empty
  for option in --python --json --sys-tags "$EXIT_FOOTER"; do expect_out_contains "$option"; done
done
pass_note "tags --help lists its options"

# --- usage errors: exit 2, nothing on stdout --------------------------------
ff
expect_rc 2 "no command"
expect_out_empty
expect_err_contains 'Usage: flashfit'
expect_err_contains 'tags'
pass_note "no command: exit 2, usage on stderr"

ff tgas
expect_clean_error 2 "flashfit tgas"
expect_err_contains "unknown command 'tgas'"
expect_err_contains "did you mean 'tags'"

for typo in tag tagss tasg ta; do
  ff "$typo"
  expect_clean_error 2 "flashfit $typo"
  expect_err_contains "did you mean 'tags'"
done

for far in zzzzzz t xyz install-everything; do
  ff "$far"
  expect_clean_error 2 "flashfit $far"
  expect_err_contains "unknown command '$far'"
  expect_err_lacks 'did you mean'
  expect_err_contains 'flashfit --help'
done

# Options before the command do not hide an unknown command.
ff --bogus-global tgas
expect_rc 2 "flashfit --bogus-global tgas"
expect_out_empty

# A command name with terminal escapes is quoted, not replayed.
ff $'\e[31mtgas\e[0m'
expect_clean_error 2 "unknown command with escape bytes"
expect_err_contains '\x1b[31m'
pass_note "unknown commands: exit 2, 'did you mean' only when close"

ff tags --bogus
expect_clean_error 2 "flashfit tags --bogus"
expect_err_contains '--bogus'

ff --bogus
expect_clean_error 2 "flashfit --bogus"
expect_err_contains '--bogus'

ff tags unexpected-positional
expect_clean_error 2 "flashfit tags unexpected-positional"
expect_err_contains 'unexpected-positional'

ff tags --python ''
expect_clean_error 2 "flashfit tags --python ''"
expect_err_contains '--python'

ff tags --python=
expect_clean_error 2 "flashfit tags --python="
expect_err_contains '--python'

ff tags --python
expect_clean_error 2 "flashfit tags --python (no value)"
expect_err_contains '--python'

pass_note "bad options: exit 2, stdout empty"

# --- stdout carries data only -------------------------------------------------
ff tags --python "$TEST_PYTHON"
expect_rc 0 "flashfit tags"
expect_err_empty
! grep -qvE '^[a-z0-9_.]+-[a-z0-9_.]+-[a-z0-9_.]+$' "$TMP/out" ||
  fail "stdout of 'flashfit tags' holds a line that is not a tag: $(grep -vE '^[a-z0-9_.]+-[a-z0-9_.]+-[a-z0-9_.]+$' "$TMP/out" | head -n 1)"
pass_note "a successful command writes tags only to stdout and nothing to stderr"
