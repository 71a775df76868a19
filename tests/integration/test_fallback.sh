#!/usr/bin/env bash
# flashfit fallback: the text and --json answers name the wheel the build wrote; the embedded
# module is byte-identical to python/flashfit_attention.py; --vendor writes it (unchanged on a
# second run, refused over other content without --force); bad arguments are clean errors; the
# vendored file and the wheel installed by pip into a real venv both run attention on Debian's
# torch.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

module="$SOURCE_DIR/python/flashfit_attention.py"
version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$module")
[[ -n $version ]] || fail "no __version__ in $module"

ff fallback
expect_rc 0 "fallback"
expect_out_contains "flashfit_attention $version: flash-attn's attention call"
expect_out_contains "from flashfit_attention import attention, attention_varlen, backend"
wheel=$(sed -n 's/^  wheel:   \(.*\.whl\)$/\1/p' "$TMP/out")
[[ -f $wheel ]] || fail "the wheel named in the text answer does not exist: '$wheel'"
[[ $(basename "$wheel") == "flashfit_attention-$version-py3-none-any.whl" ]] ||
  fail "wheel name $(basename "$wheel") is not flashfit_attention-$version-py3-none-any.whl"
expect_out_contains "  install: python3 -m pip install $wheel"
pass_note "text answer names the built wheel"

ff fallback --json
expect_rc 0 "fallback --json"
[[ $(json_field "$TMP/out" 'd["version"]') == "$version" ]] || fail "--json version"
[[ $(json_field "$TMP/out" 'd["wheel"]') == "$wheel" ]] || fail "--json wheel"
[[ $(json_field "$TMP/out" 'd["vendored"]') == None ]] || fail "--json vendored without --vendor"
[[ $(json_field "$TMP/out" 'd["sha256"]') == $(sha256sum "$module" | cut -d' ' -f1) ]] ||
  fail "the embedded module differs from $module (rebuild flashfit)"
[[ $(json_field "$TMP/out" 'd["requires"]') == "['torch']" ]] || fail "--json requires"
pass_note "--json: version, wheel, sha256 of the embedded module"

# Installed as `cmake --install` lays it out: <prefix>/bin/flashfit, <prefix>/share/flashfit/*.whl
# (it looks there before the build tree it came from).
mkdir -p "$TMP/prefix/bin" "$TMP/prefix/share/flashfit"
cp "$FLASHFIT" "$TMP/prefix/bin/flashfit"
cp "$wheel" "$TMP/prefix/share/flashfit/"
capture "$TMP/prefix/bin/flashfit" fallback --json
expect_rc 0 "installed fallback --json"
[[ $(json_field "$TMP/out" 'd["wheel"]') == "$TMP/prefix/share/flashfit/$(basename "$wheel")" ]] ||
  fail "an installed flashfit does not find the wheel in <prefix>/share/flashfit"
pass_note "an installed flashfit finds <prefix>/share/flashfit"

# Under a prefix with a space, the install command is quoted: a shell given it
# passes the wheel's path as one argument (echoed here instead of installing).
mkdir -p "$TMP/my tools/bin" "$TMP/my tools/share/flashfit"
cp "$FLASHFIT" "$TMP/my tools/bin/flashfit"
cp "$wheel" "$TMP/my tools/share/flashfit/"
capture "$TMP/my tools/bin/flashfit" fallback --json
expect_rc 0 "fallback --json under a prefix with a space"
install_cmd=$(json_field "$TMP/out" 'd["install"]')
[[ $install_cmd == "python3 -m pip install "* ]] || fail "the install command is not python3 -m pip: $install_cmd"
python3() { printf '%s\n' "$@"; }
[[ $(eval "$install_cmd" | tail -n 1) == "$TMP/my tools/share/flashfit/$(basename "$wheel")" ]] ||
  fail "the install command does not pass the wheel's path as one argument: $install_cmd"
unset -f python3
pass_note "the install command is shell-quoted (a prefix with a space)"

ff fallback --help
expect_rc 0 "fallback --help"
expect_out_contains "--vendor"
expect_out_contains "--force"

# --vendor: written, unchanged, refused, replaced.
mkdir "$TMP/project"
ff fallback --vendor "$TMP/project"
expect_rc 0 "fallback --vendor"
expect_out_contains "Vendored: $TMP/project/flashfit_attention.py (written;"
cmp -s "$module" "$TMP/project/flashfit_attention.py" || fail "the vendored file differs from $module"
ff fallback --vendor "$TMP/project" --json
expect_rc 0 "fallback --vendor again"
[[ $(json_field "$TMP/out" 'd["vendored"]["action"]') == unchanged ]] || fail "second --vendor"
echo "# local edit" >>"$TMP/project/flashfit_attention.py"
ff fallback --vendor "$TMP/project"
expect_clean_error 2 "--vendor over other content"
expect_err_contains "flashfit_attention.py: exists with other content"
expect_err_contains "hint: pass --force to replace it"
grep -qF "# local edit" "$TMP/project/flashfit_attention.py" || fail "the refused --vendor changed the file"
ff fallback --vendor "$TMP/project" --force
expect_rc 0 "--vendor --force"
expect_out_contains "(replaced;"
cmp -s "$module" "$TMP/project/flashfit_attention.py" || fail "--force did not restore the file"
pass_note "--vendor writes, keeps, refuses and replaces"

ff fallback --vendor "$TMP/absent"
expect_clean_error 2 "--vendor into a missing directory"
expect_err_contains "$TMP/absent: no such directory"
touch "$TMP/a-file"
ff fallback --vendor "$TMP/a-file"
expect_clean_error 2 "--vendor into a file"
expect_err_contains "$TMP/a-file: not a directory"
ff fallback --force
expect_clean_error 2 "--force without --vendor"
expect_err_contains "--force requires --vendor"
ff fallback --vendor
expect_clean_error 2 "--vendor without DIR"
ff fallback extra
expect_clean_error 2 "an unexpected argument"
pass_note "bad arguments are clean errors"

smoke='
import torch, flashfit_attention as fa
q = torch.randn(2, 3, 8, 16, dtype=torch.float64)
k = torch.randn(2, 5, 2, 16, dtype=torch.float64)
out = fa.attention(q, k, k, causal=True, window=(2, 0))
assert out.shape == (2, 3, 8, 16), out.shape
print(fa.__file__)
print(fa.backend(q, k, k, causal=True))'

# The vendored file imports from the project directory.
capture env -C "$TMP/project" "$TEST_PYTHON" -c "$smoke"
expect_rc 0 "the vendored module"
expect_out_contains "$TMP/project/flashfit_attention.py"
expect_out_contains "(flash-attn needs CUDA)"
pass_note "the vendored module runs on Debian's torch"

# The wheel, installed by pip (offline, by path) into a venv that sees Debian's torch.
capture "$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv"
expect_rc 0 "python -m venv"
capture "$TMP/venv/bin/python" -m pip install --no-index --no-deps --disable-pip-version-check \
  "$wheel"
expect_rc 0 "pip install the wheel"
capture env -C / "$TMP/venv/bin/python" -c "$smoke"
expect_rc 0 "the installed module"
site=$("$TMP/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
expect_out_contains "$site/flashfit_attention.py"
cmp -s "$module" "$site/flashfit_attention.py" || fail "the installed module differs from $module"
capture "$TMP/venv/bin/python" -m pip show flashfit-attention
expect_rc 0 "pip show"
expect_out_contains "Version: $version"
expect_out_contains "Requires: torch"
pass_note "the wheel installs with pip and runs"
