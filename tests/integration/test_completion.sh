#!/usr/bin/env bash
# Shell completions (flashfit completion bash|zsh|fish), rendered from the
# command table: bash's completion function is driven on real command lines;
# the zsh and fish scripts must at least parse in those shells.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

ff completion bash
expect_rc 0 "flashfit completion bash"
expect_err_empty
cp "$TMP/out" "$TMP/flashfit.bash"

# complete WORD...: what bash offers for the last word, sorted, one line.
complete_words() {
  bash --norc --noprofile -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()
    _flashfit flashfit "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$TMP/flashfit.bash" flashfit "$@"
}
expect_completion() {  # EXPECTED WORD...
  local want=$1 got
  shift
  got=$(complete_words "$@")
  [[ $got == "$want" ]] || fail "completing 'flashfit $*': expected '$want', got '$got'"
}

# Every command of --help, and nothing else, at the first word.
commands=$("$FLASHFIT" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NF && !/:$/ {print $1}' | sort | tr '\n' ' ')
[[ -n $commands ]] || fail "cannot read the commands from flashfit --help"
expect_completion "$commands" ""
expect_completion "resolve " re
expect_completion "--glibc --gpu " resolve --g
expect_completion "--gpu " install --gp
# Global options are offered after a command too (they fall through to flashfit).
expect_completion "--quiet " doctor --qu
# Recipe names for SPEC, source names for --source, GPU names for --gpu.
expect_completion "flash-attn flash-attn-3 " resolve fl
expect_completion "community upstream " resolve --source ""
expect_completion "community upstream " install --no-source ""
expect_completion "RTX-4060 RTX-4070 RTX-4080 RTX-4090 " resolve --gpu RTX-40
expect_completion "H100 " doctor --gpu H10
expect_completion "H100 " doctor --gpu = H10
# Choices, subcommands, an option's value skipped when finding the command.
expect_completion "FALSE TRUE " doctor --cxx11-abi ""
expect_completion "add dir gc list remove " cache ""
expect_completion "list " catalog l
expect_completion "uninstall " unin
expect_completion "--undo " install --und
expect_completion "aarch64 x86_64 " tags --python /usr/bin/python3 --arch ""
expect_completion "bash fish zsh " completion ""
expect_completion "cache catalog " help ca
# A file where a file belongs.
touch "$TMP/some.whl"
expect_completion "$TMP/some.whl " inspect "$TMP/some."
pass_note "bash completion: commands, options, recipes, sources, GPU names, choices, files"

# The script works when installed the usual way (complete -F registered).
bash --norc --noprofile -c 'source "$1"; complete -p flashfit' _ "$TMP/flashfit.bash" >"$TMP/spec" ||
  fail "the bash script does not register a completion for flashfit"
grep -qF -- '-F _flashfit flashfit' "$TMP/spec" || fail "unexpected completion spec: $(cat "$TMP/spec")"

for shell in zsh fish; do
  ff completion "$shell"
  expect_rc 0 "flashfit completion $shell"
  expect_out_contains "flash-attn"
  expect_out_contains "RTX-4090"
  cp "$TMP/out" "$TMP/flashfit.$shell"
  if command -v "$shell" >/dev/null; then
    "$shell" -n "$TMP/flashfit.$shell" 2>"$TMP/err" || fail "$shell cannot parse the script: $(cat "$TMP/err")"
    pass_note "$shell parses its completion script"
  else
    skip_note "$shell is not installed (scripts/install-deps.sh installs it): syntax not checked"
  fi
done
if command -v fish >/dev/null; then
  # fish runs the script: every `complete` line must be accepted.
  HOME=$TMP fish --no-config -c "source $TMP/flashfit.fish; complete -C'flashfit resolve --sou'" >"$TMP/out" 2>"$TMP/err" ||
    fail "fish cannot load the completions: $(cat "$TMP/err")"
  grep -q -- '--source' "$TMP/out" || fail "fish offers no --source for 'flashfit resolve --sou': $(cat "$TMP/out")"
  HOME=$TMP fish --no-config -c "source $TMP/flashfit.fish; complete -C'flashfit resolve --gpu RTX-409'" >"$TMP/out"
  grep -q 'RTX-4090' "$TMP/out" || fail "fish offers no RTX-4090 for --gpu: $(cat "$TMP/out")"
  pass_note "fish completes options and GPU names"
fi

ff completion tcsh
expect_clean_error 2 "flashfit completion tcsh"
expect_err_contains "bash, zsh or fish"
ff completion
expect_clean_error 2 "flashfit completion (no shell)"
pass_note "an unknown or missing shell is a usage error"
