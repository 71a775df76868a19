#!/usr/bin/env bash
# flashfit install -r, end to end and offline, in real --system-site-packages
# venvs (Debian's torch) with the machine's pip:
# - a project's requirements file (comments, a continuation with a marker, an
#   include, --find-links / --no-index lines) with a pure package that has a
#   dependency and a URL pin for "someone else's" variant of the recipe
#   package ffinst (upstream-style +cu12torch...cxx11abiTRUE): --dry-run shows
#   the plan and changes nothing; the run installs pip's lines first, then the
#   variant that fits (1.0+pt...cpu), which imports; the URL is reported as not
#   fitting, with why; pip's lines and that wheel go in one pip run (torch held
#   by a constraint);
# - a bare `ffinst` from a local index on 127.0.0.1: the ABI-mismatched 1.1 is
#   refused by inspection, 1.0 installed;
# - a compiled package that fails after pip's run: rolled back, the report
#   names pip's changes that remain;
# - the installer's run fails (a line no source has): reported with its
#   output, no compiled package attempted, nothing installed;
# - a compiled package whose Requires-Dist the environment does not satisfy:
#   exit 1, the unmet dependency and a fix that pins torch;
# - the one shared run fails for the wheel's sake (that unmet dependency): the
#   lines by themselves, then the wheel by itself, as with two runs;
# - a line that needs another torch (the pinned shared run fails; the lines
#   by themselves replace torch): the package is picked again, the stale pick
#   is never installed on top of the new torch;
# - bad input (unknown option, bad marker, unterminated continuation, missing
#   -r file and include, include loop, two pins): exit 2 naming file and line,
#   nothing installed.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
FF_TIMEOUT=120

# The ffinst wheels, the recipe config, and a served index of them with two
# pure packages (ffinst_lib.sh).
# shellcheck source=tests/integration/ffinst_lib.sh
source "$(dirname "$0")/ffinst_lib.sh"
ffinst_fixture
W12=$(wheel 'ffinst-1.2+pt1*cpu-*.whl')
ffinst_index "$W11" "$W10"
cp "$W10" "$W11" "$W12" "$TMP/links/"
OFFICIAL_URL="$HTTP_URL/files/${OFFICIAL_NAME//+/%2B}"

new_venv() {
  rm -rf "$TMP/venv"
  "$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" || fail "cannot create a venv"
  PY=$TMP/venv/bin/python
}
version_of() { "$PY" -m pip show "$1" 2>/dev/null | sed -n 's/^Version: //p'; }

# --- a project's file: pure lines to pip, the URL pin taken and re-resolved ----
mkdir -p "$TMP/project/reqs"
cat >"$TMP/project/reqs/base.txt" <<'EOF'
ffdep==1.2   # pinned by the team
EOF
cat >"$TMP/project/requirements.txt" <<EOF
# the project's requirements, as pip reads them
--find-links $TMP/links
--no-index
-r reqs/base.txt

ffpure>=1.0 \\
    ; python_version >= "3"
# built for someone else's torch (CUDA 12, another torch):
ffinst @ $OFFICIAL_URL
EOF
new_venv
ff install -r "$TMP/project/requirements.txt" --python "$PY" --dry-run --json
expect_rc 0 "--dry-run"
[[ $(json_field "$TMP/out" '[l["text"] for l in d["installer"]["lines"]]') == "['ffdep==1.2', 'ffpure>=1.0 ; python_version >= \"3\"']" ]] ||
  fail "pip's lines are not the file's: $(json_field "$TMP/out" 'd["installer"]["lines"]')"
[[ $(json_field "$TMP/out" '[(t["name"], t["spec"], t["where"]) for t in d["flashfit"]]') == "[('ffinst', 'ffinst==1.0', '$TMP/project/requirements.txt:9')]" ]] ||
  fail "flashfit's line is wrong: $(json_field "$TMP/out" 'd["flashfit"]')"
[[ $(json_field "$TMP/out" 'd["flashfit"][0]["url_fits"]') == False ]] || fail "the other environment's URL is said to fit"
[[ $(json_field "$TMP/out" 'str(d["flashfit"][0]["url_reasons"]).lower()') == *cuda* ]] || fail "why the URL does not fit names no CUDA: $(json_field "$TMP/out" 'd["flashfit"][0]["url_reasons"]')"
[[ $(json_field "$TMP/out" 'd["packages"][0]["report"]["dry_run"]') == True ]] || fail "the pick was not a dry run"
[[ $(json_field "$TMP/out" 'd["installer"]["ran"]') == False ]] || fail "the dry run ran the installer"
[[ -z $(version_of ffpure) && -z $(version_of ffinst) ]] || fail "--dry-run installed something"
ff install -r "$TMP/project/requirements.txt" --python "$PY" --dry-run
expect_rc 0 "--dry-run (text)"
expect_out_contains "flashfit install ffinst==1.0"
expect_out_contains "it does not fit here"
# A wheel the file names by path that fits here is installed as named, not
# re-picked from the sources (here there are none: an empty find-links, --no-index).
mkdir -p "$TMP/own" "$TMP/empty"
cp "$W10" "$TMP/own/"
NAMED=$TMP/own/$(basename "$W10")
printf -- '--find-links %s
--no-index
%s
' "$TMP/empty" "$NAMED" >"$TMP/named.txt"
ff install -r "$TMP/named.txt" --python "$PY" --dry-run --json
expect_rc 0 "--dry-run of a fitting wheel named by path"
[[ $(json_field "$TMP/out" '(d["flashfit"][0]["url_fits"], d["packages"][0]["spec"], d["packages"][0]["exit_code"])') == "(True, '$NAMED', 0)" ]] ||
  fail "the fitting named wheel is not what flashfit installs: $(json_field "$TMP/out" 'd["flashfit"], d["packages"]')"
ff install -r "$TMP/named.txt" --python "$PY" --dry-run
expect_out_contains "flashfit install $NAMED"
expect_out_contains "installed as named, once inspected"
# Its bytes are held to the line's --hash, as pip holds them: refused before anything runs.
printf -- '--find-links %s\n--no-index\n%s --hash=sha256:%s\n' "$TMP/empty" "$NAMED" "$(printf '0%.0s' {1..64})" >"$TMP/named-hash.txt"
ff install -r "$TMP/named-hash.txt" --python "$PY"
expect_rc 2 "a named wheel whose bytes are not the line's --hash"
expect_err_contains "$TMP/named-hash.txt:3"
expect_err_contains "$(sha "$W10")"
[[ -z $(version_of ffinst) ]] || fail "a wheel with the wrong hash was installed"
printf -- '--find-links %s\n--no-index\n%s --hash=sha256:%s\n' "$TMP/empty" "$NAMED" "$(sha "$W10")" >"$TMP/named-hash.txt"
ff install -r "$TMP/named-hash.txt" --python "$PY" --dry-run
expect_rc 0 "a named wheel with its own --hash"
# That hash puts pip's run of the lines left to it in hash-checking mode, as
# pip given the whole file would be: an unhashed line there is refused by pip.
printf -- '--find-links %s\n--no-index\nffpure>=1.0\n%s --hash=sha256:%s\n' "$TMP/links" "$NAMED" "$(sha "$W10")" >"$TMP/named-hash.txt"
ff install -r "$TMP/named-hash.txt" --python "$PY"
expect_rc 1 "an unhashed line beside a hashed one flashfit takes"
grep -q "require-hashes\|Hashes are required" "$TMP/out" "$TMP/err" || fail "pip's hash-checking mode did not apply: $(cat "$TMP/out")"
[[ -z $(version_of ffpure) && -z $(version_of ffinst) ]] || fail "the hash-checking run installed something"
pass_note "--dry-run: pip's lines, flashfit's pin from the URL's public version, why the URL does not fit; nothing installed"

# --- --dry-run: what-if markers, a torch line, every package planned -----------
printf -- '--find-links %s\n--no-index\nffinst==1.0 ; python_version < "3.11"\n' "$TMP/links" >"$TMP/marker.txt"
ff install -r "$TMP/marker.txt" --python "$PY" --dry-run --json
expect_rc 0 "--dry-run with a marker false for this Python"
[[ $(json_field "$TMP/out" 'len(d["skipped"]), len(d["flashfit"])') == "(1, 0)" ]] ||
  fail "the marker was not read for this interpreter: $(json_field "$TMP/out" 'd["skipped"]')"
ff install -r "$TMP/marker.txt" --python "$PY" --dry-run --json --python-version 3.10
[[ $(json_field "$TMP/out" 'len(d["skipped"]), [t["name"] for t in d["flashfit"]]') == "(0, ['ffinst'])" ]] ||
  fail "--python-version 3.10 did not make the marker true: $(json_field "$TMP/out" 'd["skipped"], d["flashfit"]')"
printf -- '--find-links %s\n--no-index\ntorch==1.13.1\nflash-attn\nffinst==1.0\n-e %s\n' "$TMP/links" "$TMP/project" >"$TMP/plan.txt"
ff install -r "$TMP/plan.txt" --python "$PY" --dry-run --json --offline
expect_rc 1 "--dry-run where flash-attn has no wheel (a CPU torch)"
[[ $(json_field "$TMP/out" 'd["torch_line"]') == "$TMP/plan.txt:3" ]] ||
  fail "the torch line is not said: $(json_field "$TMP/out" 'd["torch_line"]')"
[[ $(json_field "$TMP/out" '[(p["name"], p["exit_code"]) for p in d["packages"]]') == "[('flash-attn', 1), ('ffinst', 0)]" ]] ||
  fail "the dry run did not plan every package: $(json_field "$TMP/out" '[(p["name"], p["exit_code"]) for p in d["packages"]]')"
[[ $(json_field "$TMP/out" '[o["text"] for o in d["installer"]["options"]]') == "['--editable=$TMP/project']" ]] ||
  fail "the -e line is not in the plan: $(json_field "$TMP/out" 'd["installer"]')"
ff install -r "$TMP/plan.txt" --python "$PY" --dry-run --offline
expect_out_contains "names torch: the installer's run may change it"
expect_out_contains "--editable=$TMP/project  (option, for the installer)"
# The file's --no-index holds for flashfit's own pick too: no release catalog (GitHub).
expect_err_contains "--no-index: upstream not consulted"
pass_note "--dry-run: markers for --python-version, a torch line said, every package planned, -e lines shown"

ff install -r "$TMP/project/requirements.txt" --python "$PY" --json
expect_rc 0 "install -r"
[[ $(version_of ffpure) == 1.0 && $(version_of ffdep) == 1.2 ]] || fail "pip's lines are not installed"
[[ $(json_field "$TMP/out" 'd["packages"][0]["report"]["installed"]["filename"]') == "$(basename "$W10")" ]] ||
  fail "the fitting variant was not installed: $(json_field "$TMP/out" 'd["packages"][0]')"
[[ $(version_of ffinst) == 1.0+pt* ]] || fail "pip does not show the fitting ffinst 1.0"
"$PY" -c 'import torch, ffinst, ffpure, ffdep' || fail "an installed package does not import"
[[ $(json_field "$TMP/out" 'sorted(c["name"] for c in d["installer"]["changes"])') == "['ffdep', 'ffpure']" ]] ||
  fail "pip's changes are misreported: $(json_field "$TMP/out" 'd["installer"]["changes"]')"
[[ $(json_field "$TMP/out" 'd["unmet_dependencies"]') == "[]" ]] || fail "unmet dependencies reported"
[[ $(json_field "$TMP/out" 'd["installer"]["shared_with"]') == ffinst ]] ||
  fail "pip's lines and ffinst's wheel did not go in one run: $(json_field "$TMP/out" 'd["installer"]')"
pass_note "install -r: pip's lines and the fitting variant for the URL pin in one pip run, imported"

# --- a compiled package that fails after pip's run: rolled back -----------------
new_venv
# (1.2 passes inspection and fails its import; only find-links has it.)
printf -- '--index-url %s\n--find-links %s\nffpure\nffinst==1.2\n' "$INDEX" "$TMP/links" >"$TMP/broken.txt"
ff install -r "$TMP/broken.txt" --python "$PY" --no-build
expect_rc 1 "a compiled package that does not import"
[[ -z $(version_of ffinst) ]] || fail "the broken ffinst was not rolled back"
[[ $(version_of ffpure) == 1.0 ]] || fail "pip's ffpure is gone"
expect_out_contains "ffinst is not installed (its report above says what was tried and what was put back)"
expect_out_contains "the installer's changes remain:"
expect_out_contains "ffpure 1.0 (new)"
pass_note "a failing compiled package after pip's run: rolled back; pip's changes named as remaining"

# --- a later compiled package fails: the earlier one is rolled back too -----------
# ffdep made a (pure, CUDA-less) recipe package for this case: flashfit takes it.
write_ffdep_recipe
new_venv
printf -- '--find-links %s\n--no-index\nffdep==1.2\nffinst==1.2\n' "$TMP/links" >"$TMP/two.txt"
ff install -r "$TMP/two.txt" --python "$PY" --no-build --json
expect_rc 1 "the second compiled package does not import"
[[ -z $(version_of ffdep) && -z $(version_of ffinst) ]] ||
  fail "a compiled package of the failed run is left: ffdep '$(version_of ffdep)', ffinst '$(version_of ffinst)'"
[[ $(json_field "$TMP/out" '[(p["name"], p["exit_code"]) for p in d["packages"]]') == "[('ffdep', 0), ('ffinst', 1)]" ]] ||
  fail "the packages ran otherwise: $(json_field "$TMP/out" 'd["packages"]')"
[[ $(json_field "$TMP/out" '[(r["name"], r["ok"]) for r in d["rolled_back"]]') == "[('ffdep', True)]" ]] ||
  fail "ffdep's rollback is not reported: $(json_field "$TMP/out" 'd["rolled_back"]')"
ff install -r "$TMP/two.txt" --python "$PY" --no-build
expect_out_contains "rolled back: ffdep: removed ffdep 1.2 (it was not installed before)"
# The same two that both install: the last one is what install --undo knows.
printf -- '--find-links %s\n--no-index\nffdep==1.2\nffinst==1.0\n' "$TMP/links" >"$TMP/two-ok.txt"
ff install -r "$TMP/two-ok.txt" --python "$PY" --no-build
expect_rc 0 "two compiled packages that both install"
[[ $(version_of ffdep) == 1.2 && $(version_of ffinst) == 1.0* ]] || fail "the two packages are not installed"
[[ $("$TEST_PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["package"])' "$FLASHFIT_CACHE_DIR/backups/last-install.json") == ffinst ]] ||
  fail "install --undo's record is not the last package's"
rm "$TMP/config/recipes/ffdep.toml"
pass_note "a later compiled package fails: the earlier one rolled back (removed, it was new); when both install, --undo knows the last"

# --- bad input: exit 2, file and line named, nothing installed -----------------
bad() { # bad NAME TEXT EXPECTED...
  local name=$1 text=$2
  shift 2
  printf '%s' "$text" >"$TMP/$name.txt"
  ff install -r "$TMP/$name.txt" --python "$PY"
  expect_clean_error 2 "$name"
  local want
  for want in "$@"; do expect_err_contains "$want"; done
}
new_venv
bad unknown $'ffpure\n--frobnicate\n' "$TMP/unknown.txt:2" "unknown option"
bad marker $'ffpure ; python_version >>> "3"\n' "$TMP/marker.txt:1"
bad continuation $'ffpure \\\n' "$TMP/continuation.txt:1" "continuation"
bad include $'ffpure\n-r missing.txt\n' "$TMP/include.txt:2" "missing.txt"
printf -- '-r loop.txt\n' >"$TMP/loop2.txt"
bad loop $'ffpure\n-r loop2.txt\n' "include loop"
bad pins $'ffinst==1.0\nffinst==1.1\n' "$TMP/pins.txt:2" "named twice"
ff install -r "$TMP/nowhere.txt" --python "$PY"
expect_clean_error 2 "a missing -r file"
expect_err_contains "$TMP/nowhere.txt"
[[ -z $(version_of ffpure) && -z $(version_of ffinst) ]] || fail "bad input installed something"
pass_note "bad requirements files: exit 2 naming file and line, nothing installed"

# --- the installer's run fails: flashfit installs nothing -----------------------
printf -- '--no-index\n--find-links %s\nffpure\nffnowhere==9\nffinst\n' "$TMP/links" >"$TMP/pipfails.txt"
ff install -r "$TMP/pipfails.txt" --python "$PY" --json
expect_rc 1 "the installer's run fails"
[[ $(json_field "$TMP/out" 'd["installer"]["ok"]') == False ]] || fail "the installer's failure is not reported"
[[ $(json_field "$TMP/out" 'd["installer"]["failure"]') == *ffnowhere* ]] || fail "the failure does not name what pip could not find"
[[ $(json_field "$TMP/out" 'd["packages"][0]["exit_code"]') == None ]] || fail "ffinst was attempted after the installer failed"
[[ -z $(version_of ffpure) && -z $(version_of ffinst) ]] || fail "something was installed after the installer failed"
pass_note "the installer's run fails: reported with its output, flashfit installs nothing"

# --- the user's pip configuration applies to the lines pip gets (as `pip install -r`) ---
# Only the user's pip settings (environment variables: they beat any pip.conf)
# say where ffpure and ffdep are; the file names no source.
new_venv
printf 'ffpure\n' >"$TMP/userconf.txt"
saved_find_links=${PIP_FIND_LINKS-}
export PIP_FIND_LINKS=$TMP/links PIP_NO_INDEX=1
ff install -r "$TMP/userconf.txt" --python "$PY" --json
unset PIP_NO_INDEX
if [[ -n $saved_find_links ]]; then export PIP_FIND_LINKS=$saved_find_links; else unset PIP_FIND_LINKS; fi
expect_rc 0 "install -r with the user's pip configuration"
[[ $(version_of ffpure) == 1.0 && $(version_of ffdep) == 1.2 ]] ||
  fail "pip did not read the user's configuration for the file's lines: $(cat "$TMP/err")"
new_venv # the next case starts from a venv without them
pass_note "the user's pip configuration (PIP_CONFIG_FILE) applies to the lines pip installs"

# --- a bare recipe name from a local index: the mismatched build refused --------
export FLASHFIT_CACHE_DIR=$TMP/cache-bare  # (the cache above holds 1.2, a source of its own)
printf -- '--index-url %s\nffinst\n' "$INDEX" >"$TMP/bare.txt"
ff install -r "$TMP/bare.txt" ffpure --python "$PY" --json
expect_rc 0 "a bare ffinst from the index"
[[ $(json_field "$TMP/out" 'd["packages"][0]["report"]["attempts"][0]["stage"]') == inspect ]] ||
  fail "the ABI-mismatched 1.1 was not stopped at inspection"
[[ $(version_of ffinst) == 1.0+pt* ]] || fail "ffinst 1.0 is not installed"
[[ $(version_of ffpure) == 1.0 ]] || fail "the SPEC beside -r did not go to pip"
"$PY" -c 'import torch, ffinst' || fail "ffinst does not import"
grep -q "GET /simple/ffpure/" "$HTTP_LOG" || fail "pip did not use the file's index"
pass_note "a bare recipe name from a local index: the fitting build installed; a SPEC beside -r went to pip"

# --- the compiled package's own dependencies, pip check-style -------------------
# ffinst 1.0 whose METADATA asks for ffdep>=2.0 (RECORD rewritten to match);
# the venv has ffdep 1.2 from the case above.
needy_wheel "$W10" "$TMP/needy"
export FLASHFIT_CACHE_DIR=$TMP/cache-needy
printf -- '--find-links %s\n--no-index\nffinst\n' "$TMP/needy" >"$TMP/needy.txt"
ff install -r "$TMP/needy.txt" --python "$PY" --json
expect_rc 1 "an unmet dependency of the compiled package"
[[ $(json_field "$TMP/out" '[(u["package"], u["name"], u["installed"]) for u in d["unmet_dependencies"]]') == "[('ffinst', 'ffdep', '1.2')]" ]] ||
  fail "the unmet ffdep>=2.0 is not reported: $(json_field "$TMP/out" 'd["unmet_dependencies"]')"
[[ $(json_field "$TMP/out" 'd["fix_command"]') == *"ffdep>=2.0"*torch==* ]] || fail "the fix does not keep torch: $(json_field "$TMP/out" 'd["fix_command"]')"
[[ $(version_of ffdep) == 1.2 ]] || fail "flashfit changed ffdep itself"
"$PY" -c 'import torch, ffinst' || fail "ffinst does not import"
pass_note "an unmet dependency of a compiled package is reported with a fix that keeps torch"

# --- the one shared run fails for the wheel's sake: the lines, then the wheel ---
# The needy ffinst (ffdep>=2.0, which no source has) with a pure line: the
# shared run cannot resolve; the lines by themselves install, the wheel by
# itself (--no-deps) installs and imports, its unmet dependency is reported.
new_venv
export FLASHFIT_CACHE_DIR=$TMP/cache-needy-shared
cp "$TMP"/links/ffpure-* "$TMP"/links/ffdep-* "$TMP/needy/"
printf -- '--find-links %s\n--no-index\nffpure\nffinst\n' "$TMP/needy" >"$TMP/needy-shared.txt"
ff install -r "$TMP/needy-shared.txt" --python "$PY" --json
expect_rc 1 "a shared run that fails for the wheel's sake"
[[ $(json_field "$TMP/out" 'd["installer"]["ok"]') == True ]] || fail "the lines were said to fail: $(json_field "$TMP/out" 'd["installer"]')"
[[ $(json_field "$TMP/out" 'd["installer"]["shared_with"]') == None ]] || fail "a failed shared run is reported as shared"
[[ $(version_of ffpure) == 1.0 && $(version_of ffdep) == 1.2 ]] || fail "the lines by themselves were not installed"
[[ $(version_of ffinst) == 1.0+pt* ]] || fail "the wheel by itself was not installed"
[[ $(json_field "$TMP/out" '[u["name"] for u in d["unmet_dependencies"]]') == "['ffdep']" ]] ||
  fail "the unmet ffdep>=2.0 is not reported: $(json_field "$TMP/out" 'd["unmet_dependencies"]')"
"$PY" -c 'import torch, ffinst, ffpure' || fail "an installed package does not import"
pass_note "a shared run that fails for the wheel: the lines alone, then the wheel alone; the unmet dependency reported"

# --- a recipe package only a line's dependency brings in -----------------------
# ffneedsinst requires ffinst (the test recipe's package): pip installs its own
# choice of ffinst as a dependency; flashfit did not pick or verify it, says so
# with the command that does, and exits 1.
new_venv
export FLASHFIT_CACHE_DIR=$TMP/cache-depinst
mkdir -p "$TMP/depinst"
"$TEST_PYTHON" "$SOURCE_DIR/tests/fixtures/pure_wheel.py" "$TMP/depinst" 'ffneedsinst==1.0;ffinst>=0.1' 'ffinst==0.5' ||
  fail "cannot make ffneedsinst"
printf -- '--no-index\n--find-links %s\nffneedsinst\n' "$TMP/depinst" >"$TMP/depinst.txt"
ff install -r "$TMP/depinst.txt" --python "$PY" --json
expect_rc 1 "a recipe package brought in as a dependency"
[[ $(version_of ffinst) == 0.5 && $(version_of ffneedsinst) == 1.0 ]] || fail "pip's run did not install the lines: $(cat "$TMP/err")"
[[ $(json_field "$TMP/out" '[c["name"] + " " + c["after"] for c in d["unchecked_compiled"]]') == "['ffinst 0.5']" ]] ||
  fail "ffinst, pip's choice, is not said to be unchecked: $(json_field "$TMP/out" 'd["unchecked_compiled"]')"
[[ $(json_field "$TMP/out" 'd["unchecked_command"]') == "flashfit install ffinst --python $PY" ]] ||
  fail "the command that checks it: $(json_field "$TMP/out" 'd["unchecked_command"]')"
[[ $(json_field "$TMP/out" 'd["ok"]') == False ]] || fail "an unchecked compiled package was reported ok"
new_venv
ff install -r "$TMP/depinst.txt" --python "$PY"
expect_rc 1 "the same, text"
expect_out_contains "compiled packages the installer put in as dependencies of the lines"
expect_out_contains "check or replace them: flashfit install ffinst --python $PY"
pass_note "a recipe package a line's dependency brings in: said unchecked, with the command, exit 1"

# --- a line that needs another torch: the package is picked again -------------
# fftorchneed needs torch==2.0 (a pure stand-in, installed in front of Debian's
# torch): the shared run, torch held at Debian's version, cannot resolve; the
# lines by themselves replace torch, and ffinst's pick for the old torch is
# stale: picked again (the stand-in has no library for the probe to read, so
# the same file is picked, and its import proves it wrong: rolled back), the
# stale pick never installed on top of the new torch.
new_venv
export FLASHFIT_CACHE_DIR=$TMP/cache-newtorch
mkdir -p "$TMP/newtorch"
"$TEST_PYTHON" "$SOURCE_DIR/tests/fixtures/pure_wheel.py" "$TMP/newtorch" 'torch==2.0' 'fftorchneed==1.0;torch==2.0' ||
  fail "cannot make the torch 2.0 stand-in"
cp "$W10" "$TMP/newtorch/"
printf -- '--find-links %s\n--no-index\nfftorchneed\nffinst\n' "$TMP/newtorch" >"$TMP/newtorch.txt"
ff install -r "$TMP/newtorch.txt" --python "$PY" --json --no-build
expect_rc 1 "a line that needs another torch"
[[ $(version_of torch) == 2.0 && $(version_of fftorchneed) == 1.0 ]] || fail "the lines did not install torch 2.0: $(cat "$TMP/err")"
[[ -z $(version_of ffinst) ]] || fail "ffinst picked for the torch before the lines was installed: $(version_of ffinst)"
[[ $(json_field "$TMP/out" 'd["installer"]["ok"]') == True ]] || fail "the lines were said to fail"
[[ $(json_field "$TMP/out" 'd["packages"][0]["exit_code"]') == 1 ]] || fail "ffinst's new pick was not tried: $(json_field "$TMP/out" 'd["packages"][0]')"
expect_err_contains "is picked again"
pass_note "a line that needs another torch: the stale pick dropped, ffinst picked again for the new torch"

# The same, when the package's flow never reaches an installer run (no
# ffinst 1.1 among these files, --no-build): the lines run after it, by
# themselves, and the torch they brought still makes the package be picked again.
new_venv
printf -- '--find-links %s\n--no-index\nfftorchneed\nffinst==1.1\n' "$TMP/newtorch" >"$TMP/newtorch-nopick.txt"
ff install -r "$TMP/newtorch-nopick.txt" --python "$PY" --json --no-build
expect_rc 1 "a line that needs another torch, the package never reaching the installer"
[[ $(version_of torch) == 2.0 && $(version_of fftorchneed) == 1.0 ]] || fail "the lines were not installed after the package: $(cat "$TMP/err")"
[[ $(json_field "$TMP/out" 'd["installer"]["ok"]') == True ]] || fail "the lines were said to fail"
expect_err_contains "is picked again"
[[ -z $(version_of ffinst) ]] || fail "ffinst was installed"
pass_note "the lines after a package that reached no installer run: torch's change still noticed, the package picked again"
