#!/usr/bin/env bash
# flashfit config: the settings in effect and where each came from, with no
# config, with one found in the user config directory, in ./flashfit.toml and
# through $FLASHFIT_CONFIG, and with a broken one.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/xdg
unset FLASHFIT_CONFIG XDG_CACHE_HOME
mkdir -p "$HOME" "$TMP/work"
cd "$TMP/work"

ff config
expect_rc 0 "config without a config file"
expect_out_contains "config file   none: the defaults apply (looked for $TMP/work/flashfit.toml, $TMP/xdg/flashfit/config.toml"
expect_out_contains "recipe dir    $TMP/xdg/flashfit/recipes  (from the user config directory; does not exist)"
expect_out_contains "recipe        flash-attn  (built-in)"
grep -qE '^  source +upstream +on ' "$TMP/out" || fail "upstream is not on by default"
grep -qE '^  source +community +off .*recipe default: off; --source community turns it on' "$TMP/out" || fail "community is not off by default"
expect_out_contains "priority      cache, index, upstream, community  (default)"
expect_out_contains "cache         $FLASHFIT_CACHE_DIR  (from \$FLASHFIT_CACHE_DIR)"
pass_note "no config: the defaults, and where flashfit looked"

mkdir -p "$TMP/xdg/flashfit/recipes" "$TMP/wheels"
cat >"$TMP/xdg/flashfit/config.toml" <<TOML
[[index]]
name = "wheelhouse"
kind = "find-links"
url = "$TMP/wheels"

[sources]
enable = ["community"]
disable = ["upstream"]
TOML
ff config
expect_rc 0 "config from the user config directory"
expect_out_contains "config file   $TMP/xdg/flashfit/config.toml  (found by the user config directory)"
grep -qE "^  source +wheelhouse +on +$TMP/wheels  \(the config file's \[\[index\]\]\)" "$TMP/out" ||
  fail "the wheelhouse index is missing"
grep -qE '^  source +community +on .*enabled by the config file' "$TMP/out" || fail "community is not enabled"
grep -qE '^  source +upstream +off .*disabled by the config file' "$TMP/out" || fail "upstream is not disabled"
ff config --json
expect_rc 0 "config --json"
"$TEST_PYTHON" - "$TMP/out" <<'PY' || fail "config --json does not say the same"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["config_file"]["found_by"] == "the user config directory", doc["config_file"]
rows = {row["name"]: row for row in doc["sources"]["flash-attn"]}
assert rows["community"]["enabled"] and not rows["upstream"]["enabled"], rows
assert rows["wheelhouse"]["kind"] == "find-links", rows["wheelhouse"]
assert doc["cache"]["from"] == "$FLASHFIT_CACHE_DIR", doc["cache"]
# The team's config enables flash-attn's community source; causal-conv1d has
# none and its sources must still plan (they did not: "no source named").
conv = doc["sources"]["causal-conv1d"]
assert isinstance(conv, list), conv
assert "community" not in {row["name"] for row in conv}, conv
PY
pass_note "a user config: each source says which setting turned it on or off"

printf 'recipe_dirs = ["team-recipes"]\n[sources]\npriority = ["upstream", "cache"]\n' >"$TMP/work/flashfit.toml"
ff config
expect_rc 0 "config from ./flashfit.toml"
expect_out_contains "config file   $TMP/work/flashfit.toml  (found by ./flashfit.toml)"
expect_out_contains "recipe dir    $TMP/work/team-recipes  (from the config file; does not exist)"
expect_out_contains "priority      upstream, cache, index, community  (from the config file)"

FLASHFIT_CONFIG=$TMP/xdg/flashfit/config.toml ff config
expect_out_contains "(found by \$FLASHFIT_CONFIG)"
FLASHFIT_CACHE_DIR='' XDG_CACHE_HOME=$TMP/xdgcache ff config
expect_out_contains "cache         $TMP/xdgcache/flashfit  (from \$XDG_CACHE_HOME)"
pass_note "./flashfit.toml, \$FLASHFIT_CONFIG and \$XDG_CACHE_HOME are named as the origin"

printf '[sources]\nenable = ["comunity"]\n' >"$TMP/work/flashfit.toml"
ff config
expect_clean_error 2 "config enabling a misspelt source"
expect_err_contains "comunity"
printf 'not toml [' >"$TMP/work/flashfit.toml"
ff config
expect_clean_error 2 "a broken config file"
expect_err_contains "flashfit.toml"
FLASHFIT_CONFIG=$TMP/missing.toml ff config
expect_clean_error 2 "a missing \$FLASHFIT_CONFIG"
pass_note "a misspelt source, a broken file and a missing \$FLASHFIT_CONFIG are clean errors"
