#!/usr/bin/env bash
# resolve names the config file setting that changed its answer (issue 19
# item 7): each [[index]], [sources] enable / disable / priority is judged
# again as if absent; only those whose absence changes the pick or the set of
# fitting wheels are named, with the file. Flags that override the config
# leave it without effect, and nothing is named then.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

PY=(--python "$TEST_PYTHON" --offline)
L4=("${PY[@]}" --python-version 3.12 --torch 2.9.1+cu128 --cxx11-abi TRUE --gpu 8.9)
CP311=("${PY[@]}" --python-version 3.11 --torch 2.9.1+cu128 --cxx11-abi TRUE --gpu 8.9)
effects() { json_field "$TMP/out" 'len(d["config_effects"])'; }

# An empty config: nothing named.
printf "# empty\n" >"$TMP/empty.toml"
FLASHFIT_CONFIG=$TMP/empty.toml ff resolve flash-attn "${L4[@]}" --json
expect_rc 0 "resolve with an empty config"
[[ $(effects) == 0 ]] || fail "an empty config is said to change the answer"

# Only the community source fits cp311 + torch 2.9: enabling it made a wheel fit.
printf '[sources]\nenable = ["community"]\n' >"$TMP/enable.toml"
FLASHFIT_CONFIG=$TMP/enable.toml ff resolve flash-attn "${CP311[@]}" --json
expect_rc 0 "cp311 + torch 2.9 with community enabled by the config"
[[ $(effects) == 1 ]] || fail "expected one config effect, got $(effects)"
[[ $(json_field "$TMP/out" 'd["config_effects"][0]["file"]') == "$TMP/enable.toml" ]] || fail "the config file is not named"
[[ $(json_field "$TMP/out" 'd["config_effects"][0]["setting"]') == '[sources] enable = "community"' ]] || fail "the setting is not named"
json_field "$TMP/out" 'd["config_effects"][0]["effect"]' | grep -q 'without it none would' || fail "the effect is not 'made a wheel fit'"
FLASHFIT_CONFIG=$TMP/enable.toml ff resolve flash-attn "${CP311[@]}"
expect_out_contains "your config changed this answer:"
expect_out_contains "  $TMP/enable.toml: [sources] enable = \"community\": it made a wheel fit"
# The flag overrides the config: the setting changed nothing, so nothing is named.
FLASHFIT_CONFIG=$TMP/enable.toml ff resolve flash-attn "${CP311[@]}" --no-source community --json
expect_rc 1 "cp311 + torch 2.9 with --no-source community"
[[ $(effects) == 0 ]] || fail "a setting the flags overrode is said to change the answer"
pass_note "[sources] enable: named with its file; not when a flag overrides it"

# Priority puts community first: the pick changes, and both settings are named.
printf '[sources]\nenable = ["community"]\npriority = ["community"]\n' >"$TMP/priority.toml"
FLASHFIT_CONFIG=$TMP/empty.toml ff resolve flash-attn "${L4[@]}" --json
plain=$(json_field "$TMP/out" 'd["selected"]["filename"]')
FLASHFIT_CONFIG=$TMP/priority.toml ff resolve flash-attn "${L4[@]}" --json
expect_rc 0 "L4 with community first"
[[ $(json_field "$TMP/out" 'd["selected"]["source"]') == community ]] || fail "priority did not put community first"
json_field "$TMP/out" '"\n".join(e["setting"] + " | " + e["effect"] for e in d["config_effects"])' >"$TMP/effects"
grep -qF "[sources] priority (in effect: community" "$TMP/effects" || fail "priority is not named: $(cat "$TMP/effects")"
grep -qF "without it $plain (from upstream) would be selected" "$TMP/effects" || fail "the pick without the config ($plain) is not said"
pass_note "[sources] priority: named, with the pick it displaced"

# A setting with no effect (community is off by default) is not named.
printf '[sources]\ndisable = ["community"]\n' >"$TMP/noop.toml"
FLASHFIT_CONFIG=$TMP/noop.toml ff resolve flash-attn "${L4[@]}" --json
[[ $(effects) == 0 ]] || fail "a setting without effect is named"
pass_note "a setting without effect is not named"

# A configured find-links directory offering the same file: preferred over
# upstream (index before upstream), so the [[index]] is named.
mkdir -p "$TMP/wheelhouse"
: >"$TMP/wheelhouse/$plain"
cat >"$TMP/index.toml" <<TOML
[[index]]
name = "wheelhouse"
kind = "find-links"
url = "$TMP/wheelhouse"
TOML
FLASHFIT_CONFIG=$TMP/index.toml ff resolve flash-attn "${L4[@]}" --json
expect_rc 0 "L4 with a configured wheelhouse"
[[ $(json_field "$TMP/out" 'd["selected"]["source"]') == wheelhouse ]] || fail "the wheelhouse's copy was not picked"
[[ $(json_field "$TMP/out" 'd["config_effects"][0]["setting"]') == '[[index]] name = "wheelhouse"' ]] || fail "the [[index]] is not named"
json_field "$TMP/out" 'd["config_effects"][0]["effect"]' | grep -qF "without it $plain (from upstream) would be selected" ||
  fail "the upstream pick it displaced is not said"
pass_note "[[index]]: named when its wheel is the pick"
