#!/usr/bin/env bash
# fuzz.run_selfcheck: tests/fuzz/run.sh against fake harnesses (no clang
# needed), since what it asks of libFuzzer decides whether the suite fuzzes
# at all: with SECONDS > 0 one run of (corpus inputs + 1 + 200 per second)
# runs; a failure after libFuzzer's INITED line is a fuzzing failure, before
# it a replay failure; SECONDS 0 replays alone (-runs=0).
set -euo pipefail
run_sh="$(cd "$(dirname "$0")" && pwd)/run.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$tmp/src/corpus/fake" "$tmp/seeds/fake" "$tmp/bin"
for i in 1 2 3; do echo "c$i" >"$tmp/src/corpus/fake/$i"; done
echo s1 >"$tmp/seeds/fake/1"
# A fake harness: records its arguments, prints libFuzzer's INITED line
# unless told to fail before it, and exits as told.
cat >"$tmp/bin/fuzz_fake" <<'FAKE'
#!/usr/bin/env bash
printf '%s\n' "$@" >>"$FAKE_ARGS"
[ "${FAKE_MODE:-pass}" = replay ] && { echo "==1==ERROR: a crash while replaying"; exit 70; }
printf '#5\tINITED cov: 1 ft: 1 corp: 4/8b\n'
[ "${FAKE_MODE:-pass}" = fuzz ] && { echo "==1==ERROR: a crash while fuzzing"; exit 71; }
exit 0
FAKE
chmod +x "$tmp/bin/fuzz_fake"
export FLASHFIT_FUZZ_ARTIFACTS="$tmp/artifacts" FAKE_ARGS="$tmp/args"

: >"$FAKE_ARGS"
out=$(FAKE_MODE=pass bash "$run_sh" "$tmp/bin/fuzz_fake" "$tmp/src" "$tmp/seeds" 5) ||
  fail "a passing harness failed: $out"
grep -qx -- "-runs=1005" "$FAKE_ARGS" || fail "4 inputs + 1 + 1000 mutations: $(tr '\n' ' ' <"$FAKE_ARGS")"
[ "$(grep -c -- '^-runs=' "$FAKE_ARGS")" = 1 ] || fail "the corpus must be run once, not replayed again"
grep -qx -- "-seed=1" "$FAKE_ARGS" || fail "the fixed seed is missing"
[[ $out == *"fuzz.fake passed"* ]] || fail "no pass line: $out"

rc=0
out=$(FAKE_MODE=fuzz bash "$run_sh" "$tmp/bin/fuzz_fake" "$tmp/src" "$tmp/seeds" 5) || rc=$?
[ "$rc" -ne 0 ] || fail "a crash while fuzzing passed"
[[ $out == *"fuzzing FAILED (exit 71)"* ]] || fail "a fuzzing crash not named as one: $out"

rc=0
out=$(FAKE_MODE=replay bash "$run_sh" "$tmp/bin/fuzz_fake" "$tmp/src" "$tmp/seeds" 5) || rc=$?
[ "$rc" -ne 0 ] || fail "a crash while replaying passed"
[[ $out == *"replaying the corpus FAILED (exit 70)"* ]] || fail "a replay crash not named as one: $out"

: >"$FAKE_ARGS"
out=$(FAKE_MODE=pass bash "$run_sh" "$tmp/bin/fuzz_fake" "$tmp/src" "$tmp/seeds" 0) ||
  fail "a replay-only run failed: $out"
grep -qx -- "-runs=0" "$FAKE_ARGS" || fail "SECONDS 0 must replay only: $(tr '\n' ' ' <"$FAKE_ARGS")"
echo "fuzz.run_selfcheck passed"
