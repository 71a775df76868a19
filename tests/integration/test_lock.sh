#!/usr/bin/env bash
# flashfit lock and lock --check, end to end and offline, in a real
# --system-site-packages venv (Debian's torch) with the machine's pip:
# - a requirements file (an index on 127.0.0.1, a pure package with a
#   dependency, a URL pin for "someone else's" variant of the recipe package
#   ffinst): the lock's header names this environment's key, ffinst is locked
#   as the fitting variant's URL with its sha256, pip's lines as pip resolves
#   them (URL + hash), and pip reads the lock back;
# - a find-links pick without a known sha256 (a directory, an HTTP page):
#   downloaded into the cache and hashed; a missing file fails the lock;
# - a line naming a local wheel that fits: locked as that file (install -r's);
#   --no-download leaves --hash out, said so;
# - what-if flags: the installer's lines are not locked (a note says why);
# - nothing fits (ffinst==1.3): exit 1, why; nothing written;
# - pip's resolution replaces torch (a dependency allows a torch 9.9): exit 2,
#   nothing written (the header would name a torch the lock does not install);
# - a recipe package (ffinst) only a dependency brings in: exit 2, naming the
#   line that requires it (pip's choice would be locked unchecked);
# - a local directory requirement (pip's dir_info): exit 2 naming it;
# - lock --check: 0 here, 1 with a --torch that differs (the fact named);
# - bad input: malformed lock headers, a missing file, bad requirements: exit 2.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
FF_TIMEOUT=120

# The ffinst wheels, the recipe config, and a served index of them with two
# pure packages (ffinst_lib.sh).
# shellcheck source=tests/integration/ffinst_lib.sh
source "$(dirname "$0")/ffinst_lib.sh"
ffinst_fixture
ffinst_index "$W11" "$W10"
cp "$W10" "$W11" "$TMP/links/"
OFFICIAL_URL="$HTTP_URL/files/${OFFICIAL_NAME//+/%2B}"

"$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" || fail "cannot create a venv"
PY=$TMP/venv/bin/python
TORCH=$("$PY" -c 'import torch; print(torch.__version__)') || fail "Debian's torch does not import in the venv"

# --- lock a project's file ------------------------------------------------------
cat >"$TMP/requirements.txt" <<EOF
--index-url $INDEX
ffpure>=1.0
# built for someone else's torch (CUDA 12):
ffinst @ $OFFICIAL_URL
EOF
ff lock -r "$TMP/requirements.txt" --python "$PY" -o "$TMP/lock.txt"
expect_rc 0 "lock"
expect_out_empty
LOCK=$TMP/lock.txt
[[ $(head -1 "$LOCK") == "# flashfit-lock: 1" ]] || fail "the lock's first line is $(head -1 "$LOCK")"
grep -qxF "# torch: $TORCH" "$LOCK" || fail "the header does not name torch $TORCH: $(head -8 "$LOCK")"
grep -qxF "# python: cp$("$PY" -c 'import sys; print("%d%d" % sys.version_info[:2])')" "$LOCK" ||
  fail "the header names another Python: $(head -8 "$LOCK")"
grep -qx "# cuda: cpu" "$LOCK" || fail "Debian's CPU torch is not cuda: cpu: $(head -8 "$LOCK")"
grep -qx "# cxx11-abi: \(true\|false\)" "$LOCK" || fail "the C++11 ABI is not named: $(head -8 "$LOCK")"
W10_NAME=$(basename "$W10")
want="ffinst @ $HTTP_URL/files/${W10_NAME//+/%2B} --hash=sha256:$(sha "$W10")"
grep -qxF "$want" "$LOCK" || fail "ffinst is not locked as the fitting 1.0 with its hash: $(grep -v '^#' "$LOCK")"
for w in ffpure-1.0 ffdep-1.2; do
  want="${w%-*} @ $HTTP_URL/files/$w-py3-none-any.whl --hash=sha256:$(sha "$TMP/links/$w-py3-none-any.whl")"
  grep -qxF "$want" "$LOCK" || fail "pip's $w is not locked with its URL and hash: $(grep -v '^#' "$LOCK")"
done
[[ $(grep -vc '^#\|^$' "$LOCK") == 3 ]] || fail "the lock has other lines than ffinst, ffpure, ffdep: $(grep -v '^#' "$LOCK")"
! grep -qF "$OFFICIAL_NAME" "$LOCK" || fail "the other environment's URL was locked"
# pip reads the lock back, hashes checked (--require-hashes: every line has one).
"$PY" -m pip install --dry-run --ignore-installed --require-hashes --no-deps -q -r "$LOCK" ||
  fail "pip does not accept the lock with --require-hashes"
[[ -z $("$PY" -m pip show ffpure 2>/dev/null) ]] || fail "lock installed something"
pass_note "lock: header with this environment's key, the fitting ffinst variant's URL + sha256, pip's lines with hashes; pip reads it"

ff lock -r "$TMP/requirements.txt" --python "$PY" --json
expect_rc 0 "lock --json"
[[ $(json_field "$TMP/out" 'd["environment"]["torch"]') == "$TORCH" ]] || fail "--json names another torch"
[[ $(json_field "$TMP/out" '[l["name"] for l in d["installer"]]') == "['ffpure', 'ffdep']" ]] ||
  fail "--json installer lines: $(json_field "$TMP/out" 'd["installer"]')"
[[ $(json_field "$TMP/out" 'd["text"]') == "$(cat "$LOCK")" ]] || fail "--json's text is not the lock written with -o"
pass_note "lock --json: the same lock, as values"

# --- a local wheel the line names, which fits: locked as named ----------------
# The file `install -r` installs (workflow::install_spec), not a re-pick: here
# the only source is an empty find-links, so a re-pick would find nothing.
mkdir -p "$TMP/own" "$TMP/empty"
cp "$W10" "$TMP/own/"
NAMED=$TMP/own/$(basename "$W10")
printf -- '--find-links %s\n--no-index\nffinst @ file://%s\n' "$TMP/empty" "$NAMED" >"$TMP/named.txt"
# (its own cache: the file read to hash it is cached from its path, which the
# find-links case below must not find)
FLASHFIT_CACHE_DIR=$TMP/cache-named ff lock -r "$TMP/named.txt" --python "$PY" --json
expect_rc 0 "lock of a fitting wheel the line names"
[[ $(json_field "$TMP/out" '[(l["url"], l["sha256"]) for l in d["flashfit"]]') == "[('file://${NAMED//+/%2B}', '$(sha "$W10")')]" ]] ||
  fail "the named wheel is not what is locked: $(json_field "$TMP/out" 'd["flashfit"]')"
[[ $(json_field "$TMP/out" 'd["flashfit"][0]["origin"]') == *"names, which fits here"* ]] ||
  fail "the origin does not say the line named it: $(json_field "$TMP/out" 'd["flashfit"][0]["origin"]')"
pass_note "lock: a fitting local wheel the line names is locked as named (file:// + its sha256)"

# --- a pick with no known sha256 (find-links): downloaded to hash ---------------
ff lock ffinst==1.0 --find-links "$TMP/links" --python "$PY"
expect_rc 0 "lock from find-links"
grep -qxF "ffinst @ file://$TMP/links/${W10_NAME//+/%2B} --hash=sha256:$(sha "$W10")" "$TMP/out" ||
  fail "the find-links pick is not locked with its file's sha256: $(cat "$TMP/out")"
expect_err_contains "downloading $W10_NAME to learn its sha256"
pass_note "a pick with no known sha256: fetched into the cache, locked with the sha256 of its bytes"

# A find-links page over HTTP without #sha256: the file is downloaded and hashed;
# a link to a file the server does not have fails the lock, naming the URL.
mkdir -p "$TMP/www/fl"
cp "$W10" "$TMP/www/fl/"
printf '<a href="%s">%s</a>\n' "${W10_NAME//+/%2B}" "$W10_NAME" >"$TMP/www/fl/index.html"
rm -rf "$FLASHFIT_CACHE_DIR/wheels"  # (else the cache, a source of its own, holds the bytes)
ff lock ffinst==1.0 --find-links "$HTTP_URL/fl/index.html" --python "$PY"
expect_rc 0 "lock from an HTTP find-links page"
grep -qxF "ffinst @ $HTTP_URL/fl/${W10_NAME//+/%2B} --hash=sha256:$(sha "$W10")" "$TMP/out" ||
  fail "the HTTP find-links pick is not locked with its sha256: $(cat "$TMP/out")"
rm "$TMP/www/fl/$W10_NAME"
rm -rf "$FLASHFIT_CACHE_DIR/wheels"
ff lock ffinst==1.0 --find-links "$HTTP_URL/fl/index.html" --python "$PY" -o "$TMP/gone.txt"
expect_rc 1 "lock of a pick whose file is gone"
expect_err_contains "$HTTP_URL/fl/${W10_NAME//+/%2B}"
[[ ! -e $TMP/gone.txt ]] || fail "a lock was written for a file that could not be hashed"
pass_note "an HTTP find-links pick is downloaded to hash; a missing file fails the lock, naming its URL"

# --no-download: --hash left out, said so
ff lock ffinst==1.0 --find-links "$TMP/links" --python "$PY" --no-download
expect_rc 0 "lock --no-download"
grep -qxF "ffinst @ file://$TMP/links/${W10_NAME//+/%2B}" "$TMP/out" || fail "--no-download still hashed: $(cat "$TMP/out")"
expect_out_contains "# no sha256 is known for this file"
expect_err_contains "no sha256 is known for $W10_NAME"
pass_note "lock --no-download: locked without --hash, a comment and a warning say so"

# --- what-if: the installer's lines are not resolved ----------------------------
ff lock -r "$TMP/requirements.txt" --python "$PY" --torch "$TORCH"
expect_rc 0 "lock under a what-if flag"
expect_err_contains "the installer's lines are not locked"
expect_out_contains "# note: the installer's lines are not locked"
! grep -q '^ffpure' "$TMP/out" || fail "pip's lines were locked under what-if flags"
grep -q '^ffinst @ ' "$TMP/out" || fail "ffinst is not locked under what-if flags"
pass_note "what-if flags: the compiled packages locked, the installer's lines not (a note says why)"

# --driver alone describes a machine whose GPUs are not given: the key's
# gpu-archs is unknown, which never matches; the lock is written and says so.
ff lock -r "$TMP/requirements.txt" --python "$PY" --torch "$TORCH" --driver 570.124.06
expect_rc 0 "lock with --driver and no --gpu"
expect_out_contains "# gpu-archs: unknown"
expect_err_contains "gpu-archs): an unknown fact never matches"
pass_note "a lock whose key has an unknown fact: written, with a warning that it matches nowhere"

# --- nothing fits: exit 1, why, nothing written ----------------------------------
ff lock ffinst==1.3 --index-url "$INDEX" --python "$PY" -o "$TMP/none.txt"
expect_rc 1 "no fitting ffinst 1.3"
expect_err_contains "no wheel fits"
[[ ! -e $TMP/none.txt ]] || fail "a lock was written though nothing fits"
pass_note "nothing fits: exit 1 with the resolver's why, no file"

# --- the installer's lines may not change torch: the header names this one ------------
# pip's own resolution (--ignore-installed) takes a torch 9.9 a dependency allows;
# the machine's find-links and configuration are left out, so that only these wheels count.
mkdir -p "$TMP/torchlinks"
"$TEST_PYTHON" "$SOURCE_DIR/tests/fixtures/pure_wheel.py" "$TMP/torchlinks" 'fftorchdep==1.0;torch>=1.0' 'torch==9.9' ||
  fail "cannot write the torch-replacing wheels"
# Torch is held at the installed distribution's version in the resolution, so a
# line that merely needs torch cannot take the index's newest: here the
# sources have no torch 1.13, and the resolution fails, saying why.
printf -- '--no-index\n--find-links %s\nfftorchdep\n' "$TMP/torchlinks" >"$TMP/torch-req.txt"
capture env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null "$FLASHFIT" lock -r "$TMP/torch-req.txt" \
  --resolver pip --python "$PY" -o "$TMP/torch.lock"
expect_clean_error 1 "a lock whose lines need a torch their sources do not have at the installed version"
expect_err_contains "torch was held at the installed torch=="
[[ ! -e $TMP/torch.lock ]] || fail "a lock was written that installs another torch than its header names"
# A line that names another torch itself is not held: the check refuses it.
printf -- '--no-index\n--find-links %s\ntorch==9.9\n' "$TMP/torchlinks" >"$TMP/torch-named.txt"
capture env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null "$FLASHFIT" lock -r "$TMP/torch-named.txt" \
  --resolver pip --python "$PY" -o "$TMP/torch.lock"
expect_clean_error 2 "a lock whose installer lines replace torch"
expect_err_contains "change torch ($TORCH -> 9.9)"
expect_err_contains "flashfit install -r $TMP/torch-named.txt"
[[ ! -e $TMP/torch.lock ]] || fail "a lock was written that installs another torch than its header names"
pass_note "torch held at the installed version (a line needing torch cannot replace it); a line naming another torch: exit 2, install first; nothing written"

# --- a recipe package only a dependency brings in: refused, not locked as pip's -------
mkdir -p "$TMP/recipelinks"
"$TEST_PYTHON" "$SOURCE_DIR/tests/fixtures/pure_wheel.py" "$TMP/recipelinks" 'ffneedsinst==1.0;ffinst>=0.1' 'ffinst==0.5' ||
  fail "cannot write the wheels that bring ffinst in"
printf -- '--no-index\n--find-links %s\nffneedsinst\n' "$TMP/recipelinks" >"$TMP/dep-req.txt"
capture env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null "$FLASHFIT" lock -r "$TMP/dep-req.txt" \
  --resolver pip --python "$PY" -o "$TMP/dep.lock"
expect_clean_error 2 "a recipe package only a dependency brings in"
expect_err_contains "$TMP/dep-req.txt:3: ffinst 0.5 comes in as a dependency of ffneedsinst"
expect_err_contains "list ffinst in the requirements"
[[ ! -e $TMP/dep.lock ]] || fail "a lock was written with pip's unchecked ffinst"
pass_note "a recipe package only a dependency brings in: exit 2 naming the line that requires it"

# --- a local directory (pip's dir_info) has no file to lock: refused, named ------------
# (setup.py only: pip 23 reads its metadata with the installed setuptools, offline)
mkdir -p "$TMP/localproj"
printf 'from setuptools import setup\nsetup(name="fflocal", version="0.1", py_modules=[])\n' >"$TMP/localproj/setup.py"
printf -- '--no-index\n%s\n' "$TMP/localproj" >"$TMP/dir-req.txt"
capture env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null "$FLASHFIT" lock -r "$TMP/dir-req.txt" \
  --resolver pip --python "$PY" -o "$TMP/dir.lock"
expect_clean_error 2 "a local directory in pip's resolution"
expect_err_contains "fflocal: pip resolved it from a local directory (file://$TMP/localproj)"
[[ ! -e $TMP/dir.lock ]] || fail "a lock was written with a directory's URL"
pass_note "a local directory pip resolves: exit 2 naming it, no lock"

# --- lock --check ------------------------------------------------------------------
ff lock --check "$LOCK" --python "$PY"
expect_rc 0 "lock --check here"
expect_out_contains "fits this environment"
ff lock --check "$LOCK" --python "$PY" --torch 2.9.1+cu128
expect_rc 1 "lock --check with another torch"
expect_out_contains "torch: locked $TORCH, here 2.9.1+cu128"
expect_out_contains "cuda: locked cpu, here 12.8"
ff lock --check "$LOCK" --python "$PY" --torch 2.9.1+cu128 --json
expect_rc 1 "lock --check --json"
[[ $(json_field "$TMP/out" '[x["fact"] for x in d["differences"]][:2]') == "['torch', 'cuda']" ]] ||
  fail "--json differences: $(json_field "$TMP/out" 'd["differences"]')"
pass_note "lock --check: 0 here; 1 naming each differing fact under another --torch"

# --- bad input ---------------------------------------------------------------------
bad_lock() { # bad_lock NAME TEXT EXPECTED...
  local name=$1 text=$2
  shift 2
  printf '%s' "$text" >"$TMP/$name.lock"
  ff lock --check "$TMP/$name.lock" --python "$PY"
  expect_clean_error 2 "$name"
  local want
  for want in "$@"; do expect_err_contains "$want"; done
}
header=$(sed -n 2,7p "$LOCK")
bad_lock plain $'numpy==1.0\n' "$TMP/plain.lock:1" "not a flashfit lock"
bad_lock version $'# flashfit-lock: 9\n' "unknown lock format"
bad_lock missing "# flashfit-lock: 1"$'\n'"$(grep -v '^# torch' <<<"$header")"$'\n' "does not name 'torch'"
bad_lock twice "# flashfit-lock: 1"$'\n'"$header"$'\n'"# torch: 2.0"$'\n' "named twice"
bad_lock hostile "# flashfit-lock: 1"$'\n'"$(sed $'s/^# torch: .*/# torch: 2.0\x1b[31m;rm/' <<<"$header")"$'\n' "malformed value"
printf '# flashfit-lock: 1\n\0\0' >"$TMP/binary.lock"
ff lock --check "$TMP/binary.lock" --python "$PY"
expect_clean_error 2 "NUL bytes"
ff lock --check "$TMP/nowhere.lock" --python "$PY"
expect_clean_error 2 "a missing lock"
expect_err_contains "$TMP/nowhere.lock"
printf 'ffpure\n--frobnicate\n' >"$TMP/unknown.txt"
ff lock -r "$TMP/unknown.txt" --python "$PY"
expect_clean_error 2 "an unknown option in the requirements"
expect_err_contains "$TMP/unknown.txt:2"
ff lock --python "$PY"
expect_clean_error 2 "nothing to lock"
ff lock --check "$LOCK" -r "$TMP/requirements.txt" --python "$PY"
expect_clean_error 2 "--check with -r"
pass_note "bad input: malformed lock headers, a missing lock, bad requirements, bad usage: exit 2, clean"
