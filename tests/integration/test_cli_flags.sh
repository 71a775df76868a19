#!/usr/bin/env bash
# Everyday flag habits: did-you-mean for mistyped options and subcommands,
# flashfit's own usage messages (not CLI11's), -V, -q and -v on every command,
# and GPU names for --gpu (several, repeated, or one unknown).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

# --- mistyped options and subcommands ---------------------------------------------
ff resolve --gpus 8.0 flash-attn
expect_clean_error 2 "resolve --gpus"
expect_err_contains "flashfit: resolve: unknown option '--gpus'"
expect_err_contains "did you mean '--gpu'?"
ff doctor --jsn
expect_clean_error 2 "doctor --jsn"
expect_err_contains "did you mean '--json'?"
ff install --dryrun flash-attn
expect_clean_error 2 "install --dryrun"
expect_err_contains "did you mean '--dry-run'?"
ff tags --pyton=/usr/bin/python3
expect_clean_error 2 "tags --pyton=..."
expect_err_contains "unknown option '--pyton'"
expect_err_contains "did you mean '--python'?"
ff doctor --verbos
expect_clean_error 2 "doctor --verbos (a global option, typed after the command)"
expect_err_contains "did you mean '--verbose'?"
ff doctor --zzzzzzzz
expect_clean_error 2 "doctor --zzzzzzzz"
expect_err_lacks "did you mean"
ff cache lst
expect_clean_error 2 "cache lst"
expect_err_contains "unknown command 'cache lst'"
expect_err_contains "did you mean 'cache list'?"
ff cache
expect_clean_error 2 "cache (no subcommand)"
expect_err_contains "missing command"
expect_err_contains "list, dir, add, remove, gc"
ff resolve
expect_clean_error 2 "resolve (no SPEC)"
expect_err_contains "flashfit: resolve: missing SPEC"
ff build --jobs many flash-attn
expect_clean_error 2 "build --jobs many"
expect_err_contains "flashfit: build:"
ff doctor --python
expect_clean_error 2 "doctor --python (no value)"
expect_err_contains "option '--python' needs a value"
# None of CLI11's own phrasing reaches the user.
for args in "resolve --gpus 8.0 flash-attn" "cache" "resolve" "doctor --python"; do
  # shellcheck disable=SC2086
  ff $args
  expect_err_lacks "The following argument"
  expect_err_lacks "Run with --help"
  expect_err_lacks "is required"
done
pass_note "typos get did-you-mean; usage errors in flashfit's words, exit 2"

# --- -V, -q, -v --------------------------------------------------------------------
ff -V
expect_rc 0 "flashfit -V"
[[ $(cat "$TMP/out") == "$("$FLASHFIT" --version)" ]] || fail "-V differs from --version"

# (Twice: the first run asks the interpreter, the next ones read its cached facts.)
ff doctor --python "$TEST_PYTHON" --json
ff doctor --python "$TEST_PYTHON" --json
expect_rc 0 "doctor --json"
cp "$TMP/out" "$TMP/plain.json"
ff -q doctor --python "$TEST_PYTHON" --json
expect_rc 0 "flashfit -q doctor"
expect_err_empty
# (The machine's free memory and disk change between two runs; the rest may not.)
"$TEST_PYTHON" -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); a.pop("machine"); b.pop("machine"); sys.exit(a != b)' \
  "$TMP/plain.json" "$TMP/out" || fail "-q changed doctor's answer"
# Progress notes go, the error stays (a build of an empty directory: notes, then an error).
mkdir -p "$TMP/empty-source"
ff build --python "$TEST_PYTHON" --torch 2.8.0+cu128 "$TMP/empty-source"
expect_clean_error 2 "build of an empty directory"
expect_err_contains "flashfit: --torch 2.8.0+cu128 describes another environment"
expect_err_contains "flashfit: getting the source"
ff build -q --python "$TEST_PYTHON" --torch 2.8.0+cu128 "$TMP/empty-source"
expect_clean_error 2 "build -q of an empty directory"
expect_err_lacks "what-if flags describe"
expect_err_lacks "getting the source"
expect_err_contains "neither setup.py nor pyproject.toml"
# A fresh cache: the interpreter is really run, so -v shows its command line.
FLASHFIT_CACHE_DIR=$TMP/fresh-cache ff doctor --verbose --python "$TEST_PYTHON"
expect_rc 0 "doctor --verbose"
expect_out_contains "findings"
for step in "probe: machine" "probe: python" "probe: NVIDIA driver and GPUs" "run: $TEST_PYTHON"; do
  grep -qE "^flashfit: \[ *[0-9]+\.[0-9]{3}s\] $step" "$TMP/err" || fail "-v does not trace '$step': $(head -n 5 "$TMP/err")"
done
grep -qE "^flashfit: \[ *[0-9.]+s\] probe: python: done \([0-9.]+ s\)" "$TMP/err" || fail "-v gives no time for the python probe"
grep -qE "^flashfit: \[ *[0-9.]+s\] run: .*: exited with status 0 \([0-9.]+ s\)" "$TMP/err" ||
  fail "-v gives no outcome for the interpreter run"
ff -v tags --python "$TEST_PYTHON"
expect_rc 0 "flashfit -v tags"
grep -q 'probe: python' "$TMP/err" || fail "-v before the command traces nothing"
grep -qvE '^flashfit: \[' "$TMP/out" || fail "the trace went to stdout"
pass_note "-V is --version; -q keeps the answer and silences stderr; -v traces steps and children with times"

# --- GPU names --------------------------------------------------------------------
gpus_of() { "$TEST_PYTHON" -c 'import json,sys; print(" ".join(g["compute_capability"]["value"] for g in json.load(sys.stdin)["gpu"]["gpus"]["value"]))' <"$TMP/out"; }
ff doctor --python "$TEST_PYTHON" --gpu L4 --json
expect_rc 0 "doctor --gpu L4"
[[ $(gpus_of) == "8.9" ]] || fail "--gpu L4 gave $(gpus_of)"
ff doctor --python "$TEST_PYTHON" --gpu H100 --gpu "RTX 5090" --gpu sm_75 --gpu 8.6,A100 --json
expect_rc 0 "doctor with a repeated --gpu"
[[ $(gpus_of) == "9.0 12.0 7.5 8.6 8.0" ]] || fail "a repeated --gpu gave $(gpus_of)"
ff resolve flash-attn --gpu H1000
expect_clean_error 2 "--gpu H1000"
expect_err_contains "unknown GPU 'H1000'"
expect_err_contains "did you mean H100"
ff doctor --gpu rtx4900
expect_clean_error 2 "--gpu rtx4900"
expect_err_contains "did you mean RTX-4090"
pass_note "--gpu takes names, sm_XY and X.Y, repeated; unknown names get did-you-mean"
