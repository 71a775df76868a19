#!/usr/bin/env bash
# Man pages and `flashfit help`, rendered from the same command tree as
# --help: every command has a page, man(1) reads each without a warning, and
# each page lists exactly the options --help lists.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
export MANWIDTH=100 LC_ALL=C.UTF-8

ff help --man-dir "$TMP/man"
expect_rc 0 "flashfit help --man-dir"
expect_out_empty

commands=$("$FLASHFIT" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NF && !/:$/ {print $1}')
[[ -n $commands ]] || fail "cannot read the commands from flashfit --help"
pages=(flashfit)
for command in $commands; do pages+=("flashfit-$command"); done
pages+=(flashfit-cache-list flashfit-cache-gc flashfit-catalog-update)
for page in "${pages[@]}"; do
  [[ -f $TMP/man/$page.1 ]] || fail "no man page $page.1 in $(ls "$TMP/man" | tr '\n' ' ')"
  man --warnings -l "$TMP/man/$page.1" >"$TMP/out" 2>"$TMP/err" || fail "man -l $page.1 failed: $(cat "$TMP/err")"
  [[ ! -s $TMP/err ]] || fail "man -l $page.1 warns: $(head -n 3 "$TMP/err")"
  grep -qE "^ +$page - " "$TMP/out" || fail "$page.1 has no NAME line '$page - ...'"
  grep -q '^EXIT STATUS' "$TMP/out" || fail "$page.1 has no EXIT STATUS section"
done
pass_note "${#pages[@]} pages, each read by man -l without a warning"

# Each command's page lists the options its --help lists, and no others.
for command in $commands; do
  "$FLASHFIT" "$command" --help | grep -oE '^ +(-[A-Za-z],)?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | sort -u >"$TMP/help-options"
  man -l "$TMP/man/flashfit-$command.1" 2>/dev/null | sed '/^GLOBAL OPTIONS/,$d' |
    grep -oE '^ +(-[A-Za-z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | sort -u >"$TMP/man-options"
  diff "$TMP/help-options" "$TMP/man-options" >"$TMP/diff" ||
    fail "flashfit-$command.1 and '$command --help' list different options: $(cat "$TMP/diff")"
done
man -l "$TMP/man/flashfit-resolve.1" | grep -q -- '--gpu GPU' || fail "flashfit-resolve.1 lacks '--gpu GPU'"
man -l "$TMP/man/flashfit-doctor.1" | grep -q -- '--verbose' || fail "flashfit-doctor.1 lacks the global --verbose"
pass_note "each page lists the options of --help"

# `help COMMAND` is `COMMAND --help`, byte for byte; --man prints one page.
for words in resolve doctor "cache list" ""; do
  # shellcheck disable=SC2086  # (words split on purpose)
  "$FLASHFIT" $words --help >"$TMP/want"
  # shellcheck disable=SC2086
  ff help $words
  expect_rc 0 "flashfit help $words"
  cmp -s "$TMP/want" "$TMP/out" || fail "'flashfit help $words' differs from '$words --help': $(diff "$TMP/want" "$TMP/out" | head)"
done
ff help --man cache gc
expect_rc 0 "flashfit help --man cache gc"
man -l "$TMP/out" | grep -qE '^ +flashfit-cache-gc - ' || fail "help --man cache gc is not that page"
pass_note "help COMMAND is COMMAND --help; help --man prints the page"

ff help cach
expect_clean_error 2 "flashfit help cach"
expect_err_contains "did you mean 'flashfit cache'"
ff help cache lst
expect_clean_error 2 "flashfit help cache lst"
expect_err_contains "did you mean 'flashfit cache list'"
ff help tags extra
expect_clean_error 2 "flashfit help tags extra"
expect_err_contains "has no subcommands"
ff help --man-dir /proc/version/nope
expect_clean_error 2 "flashfit help --man-dir into a file"
pass_note "unknown commands in help: did-you-mean; an unwritable --man-dir: a clean error"
