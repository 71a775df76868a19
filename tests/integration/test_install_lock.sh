#!/usr/bin/env bash
# flashfit lock --dir and install --lock, end to end and offline, in real
# --system-site-packages venvs (Debian's torch) with the machine's pip and an
# index on 127.0.0.1 (sha256 fragments):
# - a project's requirements (a pure package with a dependency, a URL pin for
#   "someone else's" variant of the recipe package ffinst) installed with
#   `install -r` in venv A, then locked into a directory: one
#   requirements-<key>.txt and the index flashfit-locks.json;
# - a second environment (a what-if --gpu) locked into the same directory:
#   two files, two index entries, the first kept; four runs at once lose none;
# - a fresh venv B: `install --lock DIR` picks this environment's file and
#   installs byte-identical files (the sha256 of every file each dist's RECORD
#   lists, read from disk, equal between A and B), imports work;
# - a lock for another environment (a FILE, and a DIR where nothing fits):
#   exit 1 naming each fact that differs, nothing installed;
# - a tampered hash (a compiled line, an installer line) and a file replaced
#   upstream: exit 1, nothing installed; with the locked bytes in the cache the
#   cache's copy is installed;
# - a later compiled package fails: the earlier one rolled back; a compiled
#   package's own dependency locked (pip resolves it with the lines) and
#   installed; a lock without it: reported, exit 1; one that does not resolve:
#   pip's error, no lock;
# - bad input: no such path, no index, a malformed index or lock line, an
#   installer line without a hash or with another torch than the header's, a
#   compiled line whose URL is another project's wheel, an index that
#   disagrees with its file,
#   --lock with a SPEC or a source flag: exit 2, clean, nothing installed.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
FF_TIMEOUT=180

# pip reads only what the test gives it (not the machine's find-links or constraints).
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONNOUSERSITE=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_CONSTRAINT

# The ffinst wheels, the recipe config, and a served index of them with two
# pure packages (ffinst_lib.sh).
# shellcheck source=tests/integration/ffinst_lib.sh
source "$(dirname "$0")/ffinst_lib.sh"
ffinst_fixture
ffinst_index "$W10"
W10_NAME=$(basename "$W10")

PYA=$(venv a)
TORCH=$("$PYA" -c 'import torch; print(torch.__version__)') || fail "Debian's torch does not import in the venv"
installed() { "$1" -m pip show "$2" >/dev/null 2>&1; }
nothing_installed() { # nothing_installed PY WHAT
  local d
  for d in ffinst ffpure ffdep; do
    ! installed "$1" "$d" || fail "$2: $d was installed"
  done
}

cat >"$TMP/requirements.txt" <<EOF
--index-url $INDEX
ffpure>=1.0
# built for someone else's torch (CUDA 12):
ffinst @ $HTTP_URL/files/${OFFICIAL_NAME//+/%2B}
EOF

# --- venv A: install -r, then lock into a directory ---------------------------------
ff install -r "$TMP/requirements.txt" --python "$PYA"
expect_rc 0 "install -r in venv A"
ff lock -r "$TMP/requirements.txt" --python "$PYA" --dir "$TMP/locks"
expect_rc 0 "lock --dir"
expect_out_empty
expect_err_contains "flashfit-locks.json"
mapfile -t files < <(cd "$TMP/locks" && ls requirements-*.txt)
[[ ${#files[@]} == 1 ]] || fail "lock --dir wrote ${#files[@]} files: ${files[*]}"
HERE_FILE=${files[0]}
PYTAG=cp$("$PYA" -c 'import sys; print("%d%d" % sys.version_info[:2])')
[[ $HERE_FILE == requirements-$PYTAG-*-torch${TORCH//+/_}-cudacpu-abi*-gpu*.txt ]] ||
  fail "the lock's name does not render this environment's key: $HERE_FILE"
[[ $HERE_FILE =~ ^[A-Za-z0-9._-]+$ ]] || fail "the lock's name is not filename-safe: $HERE_FILE"
grep -qxF "# torch: $TORCH" "$TMP/locks/$HERE_FILE" || fail "the file's header does not name torch $TORCH"
grep -qxF "ffinst @ $HTTP_URL/files/${W10_NAME//+/%2B} --hash=sha256:$(sha "$W10")" "$TMP/locks/$HERE_FILE" ||
  fail "ffinst is not locked as the fitting 1.0: $(grep -v '^#' "$TMP/locks/$HERE_FILE")"
[[ $(json_field "$TMP/locks/flashfit-locks.json" '[(e["file"], e["key"]["torch"]) for e in d["locks"]]') == "[('$HERE_FILE', '$TORCH')]" ]] ||
  fail "the index does not map this key to its file: $(cat "$TMP/locks/flashfit-locks.json")"
pass_note "lock --dir: requirements-<key>.txt (readable, filename-safe) and an index entry for it"

# The same environment again: the same file, still one entry.
ff lock -r "$TMP/requirements.txt" --python "$PYA" --dir "$TMP/locks"
expect_rc 0 "lock --dir again"
[[ $(json_field "$TMP/locks/flashfit-locks.json" 'len(d["locks"])') == 1 ]] || fail "a second lock of one key added an entry"

# --- a second environment in the same directory (what-if: an A100) -----------------
ff lock -r "$TMP/requirements.txt" --python "$PYA" --gpu 8.0 --dir "$TMP/locks"
expect_rc 0 "lock --dir for a described environment"
mapfile -t files < <(cd "$TMP/locks" && ls requirements-*.txt)
[[ ${#files[@]} == 2 ]] || fail "two environments gave ${#files[@]} files: ${files[*]}"
OTHER_FILE=$(cd "$TMP/locks" && ls requirements-*-gpusm_80.txt) || fail "no file for the sm_80 key: ${files[*]}"
[[ $(json_field "$TMP/locks/flashfit-locks.json" '[e["file"] for e in d["locks"]]') == "['$HERE_FILE', '$OTHER_FILE']" ]] ||
  fail "the index lost or misnamed an environment: $(cat "$TMP/locks/flashfit-locks.json")"
[[ $(json_field "$TMP/locks/flashfit-locks.json" 'd["locks"][1]["key"]["gpu-archs"]') == sm_80 ]] ||
  fail "the second entry's key is not the described GPU's"
pass_note "two environments in one directory: two files, the index maps each key to its file"

# Four environments locked into one directory at the same moment: none lost.
pids=()
for gpu in 7.0 7.5 8.6 8.9; do
  timeout 120 "$FLASHFIT" lock ffinst==1.0 --index-url "$INDEX" --python "$PYA" --gpu "$gpu" \
    --dir "$TMP/together" >"$TMP/together-$gpu.out" 2>&1 &
  pids+=("$!")
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a concurrent lock --dir failed: $(cat "$TMP"/together-*.out)"; done
[[ $(json_field "$TMP/together/flashfit-locks.json" 'sorted(e["key"]["gpu-archs"] for e in d["locks"])') == "['sm_70', 'sm_75', 'sm_86', 'sm_89']" ]] ||
  fail "concurrent lock --dir runs lost an entry: $(cat "$TMP/together/flashfit-locks.json")"
[[ $(find "$TMP/together" -name 'requirements-*.txt' | wc -l) == 4 ]] || fail "concurrent lock --dir runs lost a file"
pass_note "four lock --dir runs at once into one directory: four files, four index entries"

# --- a fresh venv B: install --lock DIR gives byte-identical files ------------------
PYB=$(venv b)
ff install --lock "$TMP/locks" --python "$PYB"
expect_rc 0 "install --lock DIR in a fresh venv"
expect_out_contains "lock: $TMP/locks/$HERE_FILE (fits this environment)"
expect_out_contains "installed exactly the locked files"
"$PYB" -c 'import ffinst, ffpure, ffdep' || fail "the locked packages do not import in venv B"
# Every file each dist's RECORD lists, hashed from disk; the installer's own
# records (INSTALLER, REQUESTED, direct_url.json, RECORD) and bytecode compiled
# on install are the installer's, not the locked bytes.
record_hashes() { # record_hashes PY: "dist path sha256" lines
  "$1" - <<'PY'
import csv, hashlib, importlib.metadata as md, os, sys
skip = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}
for name in ("ffinst", "ffpure", "ffdep"):
    dist = md.distribution(name)
    files = [f for f in dist.files if os.path.basename(str(f)) not in skip and not str(f).endswith(".pyc")]
    if not files:
        sys.exit(f"{name}: its RECORD lists no file")
    for f in files:
        with open(dist.locate_file(f), "rb") as data:
            print(name, f, hashlib.sha256(data.read()).hexdigest())
PY
}
record_hashes "$PYA" | sort >"$TMP/a.hashes" || fail "cannot hash venv A's files"
record_hashes "$PYB" | sort >"$TMP/b.hashes" || fail "cannot hash venv B's files"
(($(wc -l <"$TMP/a.hashes") >= 6)) || fail "venv A's RECORDs list too few files: $(cat "$TMP/a.hashes")"
diff "$TMP/a.hashes" "$TMP/b.hashes" >&2 || fail "venv B's files are not venv A's"
grep -q '^ffinst .*\.so ' "$TMP/b.hashes" || fail "ffinst's extension is not among the compared files"
pass_note "install --lock DIR in a fresh venv: the sha256 of every RECORD file equals install -r's ($(wc -l <"$TMP/b.hashes") files)"

ff install --lock "$TMP/locks" --python "$PYB" --gpu 8.0
expect_rc 0 "install --lock under a what-if --gpu"
expect_err_contains "a dry run"
expect_out_contains "lock: $TMP/locks/$OTHER_FILE (fits this environment)"
expect_out_contains "dry run: nothing was fetched or installed"
expect_err_contains "the lock notes: the installer's lines are not locked"
pass_note "a what-if flag picks the described environment's file, as a dry run"

# --- a lock for another environment is refused, fact by fact ------------------------
PYC=$(venv c)
ff install --lock "$TMP/locks" --python "$PYC" --dry-run --json
expect_rc 0 "install --lock --dry-run --json"
[[ $(json_field "$TMP/out" '(d["lock"], d["dry_run"], d["installer"]["lines"], d["installer"]["ok"], [(p["name"], p["ok"]) for p in d["packages"]])') == \
  "('$TMP/locks/$HERE_FILE', True, 2, None, [('ffinst', True)])" ]] || fail "install --lock --dry-run --json: $(cat "$TMP/out")"
nothing_installed "$PYC" "install --lock --dry-run"
ff install --lock "$TMP/locks" --python "$PYC" --gpu 9.0 --json
expect_rc 1 "install --lock DIR where nothing fits"
[[ $(json_field "$TMP/out" '[(m["file"], [(x["fact"], x["locked"], x["here"]) for x in m["differences"]]) for m in d["mismatches"]]') == \
  "[('$HERE_FILE', [('gpu-archs', '$(sed -n 's/^# gpu-archs: //p' "$TMP/locks/$HERE_FILE")', 'sm_90')]), ('$OTHER_FILE', [('gpu-archs', 'sm_80', 'sm_90')])]" ]] ||
  fail "the refusal does not name each file's differing fact: $(cat "$TMP/out")"
ff install --lock "$TMP/locks/$HERE_FILE" --python "$PYC" --torch 2.9.1+cu128
expect_rc 1 "install --lock FILE of another torch"
expect_out_contains "locked for another environment"
expect_out_contains "torch: locked $TORCH, here 2.9.1+cu128"
expect_out_contains "cuda: locked cpu, here 12.8"
expect_out_contains "nothing installed"
nothing_installed "$PYC" "a lock for another environment"
pass_note "a lock for another environment: exit 1, each differing fact named, nothing installed"

# --- tampered hashes, a file replaced upstream ------------------------------------
tampered() { # tampered NAME SED: a copy of this environment's lock, edited
  sed "$2" "$TMP/locks/$HERE_FILE" >"$TMP/$1.txt"
  ! cmp -s "$TMP/$1.txt" "$TMP/locks/$HERE_FILE" || fail "$1: the edit changed nothing"
}
tampered bad-ffinst "s/^\(ffinst @ .*--hash=sha256:\).*/\1$(sha "$W11")/"
ff install --lock "$TMP/bad-ffinst.txt" --python "$PYC"
expect_rc 1 "a tampered compiled hash"
expect_out_contains "refused: ffinst:"
expect_out_contains "nothing installed"
grep -qi "sha256" "$TMP/out" || fail "the refusal does not say the sha256 differs: $(cat "$TMP/out")"
nothing_installed "$PYC" "a tampered compiled hash"
tampered bad-ffdep "s/^\(ffdep @ .*--hash=sha256:\).*/\1$(sha "$W11")/"
ff install --lock "$TMP/bad-ffdep.txt" --python "$PYC"
expect_rc 1 "a tampered installer hash"
expect_out_contains "failed: pip"
expect_out_contains "no compiled package was installed"
grep -q "HASHES\|hash" "$TMP/out" || fail "pip's hash refusal is not shown: $(cat "$TMP/out")"
nothing_installed "$PYC" "a tampered installer hash"

# ffinst's file replaced on the server: the cache still holds the locked bytes
# (installed from there); an empty cache has to download, and refuses.
cp "$W11" "$TMP/www/files/$W10_NAME"
FLASHFIT_CACHE_DIR=$TMP/cache2 ff install --lock "$TMP/locks" --python "$PYC"
expect_rc 1 "a file replaced upstream, nothing cached"
expect_out_contains "refused: ffinst:"
nothing_installed "$PYC" "a file replaced upstream"
ff install --lock "$TMP/locks" --python "$PYC"
expect_rc 0 "a file replaced upstream, the locked bytes cached"
[[ $(record_hashes "$PYC" | sort) == "$(cat "$TMP/a.hashes")" ]] || fail "venv C did not get the locked (cached) bytes"
cp "$W10" "$TMP/www/files/$W10_NAME"
pass_note "a tampered hash or a file replaced upstream: exit 1, nothing installed; the cache's locked copy is used"

# --- a later compiled package fails: the earlier one is rolled back ---------------------
# ffdep made a (pure) recipe package for this case, locked before ffinst 1.2,
# whose import fails by design.
write_ffdep_recipe
mkdir -p "$TMP/rb"
cp "$TMP/links/ffdep-1.2-py3-none-any.whl" "$(wheel 'ffinst-1.2+pt1*cpu-*.whl')" "$TMP/rb/"
PYE=$(venv e)
ff lock ffdep==1.2 ffinst==1.2 --find-links "$TMP/rb" --python "$PYE" -o "$TMP/rb.lock"
expect_rc 0 "lock of two compiled packages"
ff install --lock "$TMP/rb.lock" --python "$PYE" --json
expect_rc 1 "install --lock whose second compiled package does not import"
[[ $(json_field "$TMP/out" '[(p["name"], p["ok"]) for p in d["packages"]]') == "[('ffdep', True), ('ffinst', False)]" ]] ||
  fail "the packages ran otherwise: $(json_field "$TMP/out" 'd["packages"]')"
[[ $(json_field "$TMP/out" '[(r["name"], r["ok"]) for r in d["rolled_back"]]') == "[('ffdep', True)]" ]] ||
  fail "ffdep's rollback is not reported: $(json_field "$TMP/out" 'd["rolled_back"]')"
nothing_installed "$PYE" "a failed install --lock"
rm "$TMP/config/recipes/ffdep.toml"
pass_note "install --lock: a later compiled package fails, the earlier one is rolled back (it was new)"

# --- a compiled package's own dependencies ---------------------------------------------
# ffinst 1.0 whose METADATA asks for ffdep>=1.0 (RECORD rewritten to match; the
# index has ffdep 1.2): installed --no-deps, so the lock holds ffdep, resolved by
# pip beside the lines, and a fresh venv's install --lock installs it.
needy_wheel "$W10" "$TMP/needy" "ffdep>=1.0"
PYF=$(venv f)
# Its own cache: the cache holds the original ffinst 1.0 under the same file name.
KEPT_CACHE=$FLASHFIT_CACHE_DIR
export FLASHFIT_CACHE_DIR=$TMP/cache-needy
ff lock ffinst==1.0 --find-links "$TMP/needy" --index-url "$INDEX" --python "$PYF" -o "$TMP/needy.lock"
expect_rc 0 "lock of an ffinst that requires ffdep>=1.0"
grep -qxF "ffdep @ $HTTP_URL/files/ffdep-1.2-py3-none-any.whl --hash=sha256:$(sha "$TMP/links/ffdep-1.2-py3-none-any.whl")" "$TMP/needy.lock" ||
  fail "ffinst's dependency ffdep is not locked: $(grep -v '^#' "$TMP/needy.lock")"
ff install --lock "$TMP/needy.lock" --python "$PYF"
expect_rc 0 "install --lock of ffinst and its locked dependency"
installed "$PYF" ffinst && installed "$PYF" ffdep || fail "ffinst and ffdep are not both installed"
pass_note "lock: a compiled package's own dependency is locked, and install --lock installs it"

# A lock without that line (an older flashfit's, or edited): install --lock
# reports the dependency unmet, exit 1, the locked ffinst installed.
grep -v '^ffdep @ ' "$TMP/needy.lock" >"$TMP/lacking.lock"
PYG=$(venv g)
ff install --lock "$TMP/lacking.lock" --python "$PYG" --json
expect_rc 1 "install --lock of a compiled package whose dependency the lock does not hold"
[[ $(json_field "$TMP/out" '[(u["package"], u["name"], u["installed"]) for u in d["unmet_dependencies"]]') == "[('ffinst', 'ffdep', None)]" ]] ||
  fail "the unmet ffdep>=1.0 is not reported: $(json_field "$TMP/out" 'd["unmet_dependencies"]')"
installed "$PYG" ffinst || fail "the locked ffinst itself was not installed"
ff install --lock "$TMP/lacking.lock" --python "$PYG"
expect_rc 1 "the same, text"
expect_out_contains "ffinst requires ffdep>=1.0 (not installed)"
expect_out_contains "add those to the requirements and lock again"
pass_note "install --lock: a compiled package's unmet dependency is reported, exit 1"

# A dependency no source has: pip cannot resolve it, so nothing is locked
# (another cache again: this one holds the first needy ffinst, the same name).
needy_wheel "$W10" "$TMP/needier" "ffdep>=2.0"
export FLASHFIT_CACHE_DIR=$TMP/cache-needier
ff lock ffinst==1.0 --find-links "$TMP/needier" --index-url "$INDEX" --python "$PYF" -o "$TMP/needier.lock"
expect_clean_error 1 "lock of an ffinst whose dependency no source has"
expect_err_contains "ffdep>=2.0 (ffinst's Requires-Dist)"
[[ ! -e $TMP/needier.lock ]] || fail "a lock was written although its dependency did not resolve"
export FLASHFIT_CACHE_DIR=$KEPT_CACHE
pass_note "lock: a compiled package's dependency that does not resolve is pip's error, no lock"

# A requirement on torch that the torch here (Debian's, whose metadata says
# 1.13.0a0+gitunknown) does not meet: the lock says so and writes nothing
# (`install --lock` would report it unmet).
needy_wheel "$W10" "$TMP/torchy" "torch>=99"
export FLASHFIT_CACHE_DIR=$TMP/cache-torchy
ff lock ffinst==1.0 --find-links "$TMP/torchy" --index-url "$INDEX" --python "$PYF" -o "$TMP/torchy.lock"
expect_clean_error 2 "lock of an ffinst whose wheel requires a newer torch"
expect_err_contains "wheel requires torch>=99, and this environment has torch 1.13"
expect_err_contains "a lock is for the torch installed here"
[[ ! -e $TMP/torchy.lock ]] || fail "a lock was written although torch does not meet its wheel"
export FLASHFIT_CACHE_DIR=$KEPT_CACHE
pass_note "lock: a pick's requirement on torch that the torch here does not meet fails it, no lock"

# An index that serves the METADATA beside each wheel (PEP 658, as publish
# writes it): the pick's dependencies come from it, and the wheel itself is
# never fetched (it is not even on the server).
needy_wheel "$W10" "$TMP/needy658" "ffdep>=1.0"
N658=$(basename "$TMP"/needy658/*.whl)
mkdir -p "$TMP/www/simple658/ffinst" "$TMP/www/files658"
cp -r "$TMP/www/simple/ffdep" "$TMP/www/simple658/"
"$TEST_PYTHON" - "$TMP/needy658/$N658" "$TMP/www/files658/$N658.metadata" <<'PY' ||
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
open(sys.argv[2], "wb").write(z.read(meta))
PY
  fail "cannot write the .metadata file"
page658() { # page658: the ffinst page, its metadata hash as the file is now
  printf '<a href="../../files658/%s#sha256=%s" data-core-metadata="sha256=%s">%s</a>\n' \
    "${N658//+/%2B}" "$(sha "$TMP/needy658/$N658")" "$(sha "$TMP/www/files658/$N658.metadata")" \
    "$N658" >"$TMP/www/simple658/ffinst/index.html"
}
page658
export FLASHFIT_CACHE_DIR=$TMP/cache-658
ff lock ffinst==1.0 --index-url "$HTTP_URL/simple658" --python "$PYF" -o "$TMP/658.lock"
expect_rc 0 "lock through an index serving the METADATA"
expect_err_lacks "to read its dependencies"
grep -q '^ffdep @ .*ffdep-1.2-py3-none-any.whl' "$TMP/658.lock" ||
  fail "the dependency read from the served METADATA is not locked: $(cat "$TMP/658.lock")"
# The served file changed after the page was written: refused, no lock.
printf 'Requires-Dist: ffdep>=9\n' >>"$TMP/www/files658/$N658.metadata"
ff lock ffinst==1.0 --index-url "$HTTP_URL/simple658" --python "$PYF" -o "$TMP/658b.lock"
expect_clean_error 1 "lock through an index whose METADATA does not match its page"
expect_err_contains "does not match the sha256 its page gives"
[[ ! -e $TMP/658b.lock ]] || fail "a lock was written from METADATA that does not match its hash"
export FLASHFIT_CACHE_DIR=$KEPT_CACHE
pass_note "lock: a pick's dependencies from the index's METADATA file (PEP 658), the wheel not fetched"

# The same index without the METADATA offered: the wheel's last bytes are
# read (an HTTP range request: this small wheel comes whole in it) into the
# cache's tmp/, removed after (the cache gains no entry); once the cache holds
# the wheel, it is read there and nothing is fetched.
printf '<a href="../../files658/%s#sha256=%s">%s</a>\n' "${N658//+/%2B}" \
  "$(sha "$TMP/needy658/$N658")" "$N658" >"$TMP/www/simple658/ffinst/index.html"
cp "$TMP/needy658/$N658" "$TMP/www/files658/"
export FLASHFIT_CACHE_DIR=$TMP/cache-658c
: >"$HTTP_LOG"
ff lock ffinst==1.0 --index-url "$HTTP_URL/simple658" --python "$PYF" -o "$TMP/658c.lock"
expect_rc 0 "lock through an index without the METADATA offered"
expect_err_contains "reading $N658's dependencies from its last 64 KiB (HTTP range requests)"
expect_err_lacks "downloading"
grep -qxF "GET /files658/${N658//+/%2B} bytes=-65536" "$HTTP_LOG" ||
  fail "the wheel's tail was not asked for: $(grep files658 "$HTTP_LOG")"
grep -q "^GET /files658/.* -$" "$HTTP_LOG" && fail "the wheel was fetched without a range"
grep -q '^ffdep @ ' "$TMP/658c.lock" || fail "the dependency read from the wheel's tail is not locked"
[[ -z $(ls -A "$FLASHFIT_CACHE_DIR/tmp" 2>/dev/null) ]] || fail "the tail read was left in tmp/"
ff cache list --json
grep -qF "$N658" "$TMP/out" && fail "the read for its dependencies became a cache entry"
ff cache add "$TMP/needy658/$N658"
expect_rc 0 "cache add of the needy wheel"
ff cache list --json
grep -qF "$N658" "$TMP/out" || fail "cache list does not name an entry it holds (the check above means nothing)"
: >"$HTTP_LOG"
ff lock ffinst==1.0 --index-url "$HTTP_URL/simple658" --python "$PYF" -o "$TMP/658d.lock"
expect_rc 0 "lock with the pick in the cache"
expect_err_lacks "to read its dependencies"
grep -q "^GET /files658/" "$HTTP_LOG" && fail "the cached pick was fetched: $(cat "$HTTP_LOG")"
grep -q '^ffdep @ ' "$TMP/658d.lock" || fail "the cached wheel's dependency is not locked"
pass_note "lock: without PEP 658 the wheel's tail is read by range into tmp/ and removed; a cached one is read in place"

# A wheel whose dist-info comes first, before 4.5 MiB of code (not in the
# last 4 MiB that is read by range): downloaded whole into tmp/, read, removed.
"$TEST_PYTHON" - "$TMP/needy658/$N658" "$TMP/www/files658/$N658" <<'PY' ||
import base64, hashlib, os, sys, zipfile
zin = zipfile.ZipFile(sys.argv[1])
members = [(i.filename, zin.read(i.filename)) for i in zin.infolist()]
pad = ("ffinst/_pad.bin", os.urandom(4608 * 1024))
digest = base64.urlsafe_b64encode(hashlib.sha256(pad[1]).digest()).rstrip(b"=").decode()
record = next(n for n, _ in members if n.endswith(".dist-info/RECORD"))
members = [(n, d + f"{pad[0]},sha256={digest},{len(pad[1])}\n".encode() if n == record else d)
           for n, d in members]
first = [m for m in members if ".dist-info/" in m[0]]
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in first + [m for m in members if m not in first]:
        z.writestr(name, data)
    z.writestr(zipfile.ZipInfo(pad[0]), pad[1], zipfile.ZIP_STORED)
PY
  fail "cannot write the wheel with its dist-info first"
printf '<a href="../../files658/%s#sha256=%s">%s</a>\n' "${N658//+/%2B}" \
  "$(sha "$TMP/www/files658/$N658")" "$N658" >"$TMP/www/simple658/ffinst/index.html"
export FLASHFIT_CACHE_DIR=$TMP/cache-658e
: >"$HTTP_LOG"
ff lock ffinst==1.0 --index-url "$HTTP_URL/simple658" --python "$PYF" -o "$TMP/658e.lock"
expect_rc 0 "lock of a wheel whose dist-info is not at its end"
expect_err_contains "downloading $N658 to read its dependencies, since its dist-info is not readable from its last 4 MiB"
[[ $(grep -c "^GET /files658/" "$HTTP_LOG") == 3 ]] ||
  fail "expected two range requests and one download: $(cat "$HTTP_LOG")"
grep -q '^ffdep @ ' "$TMP/658e.lock" || fail "the downloaded wheel's dependency is not locked"
[[ -z $(ls -A "$FLASHFIT_CACHE_DIR/tmp" 2>/dev/null) ]] || fail "the download was left in tmp/"
export FLASHFIT_CACHE_DIR=$KEPT_CACHE
pass_note "lock: a wheel whose dist-info is not in its tail is downloaded whole to tmp/ and removed"

# --- bad input ------------------------------------------------------------------------
PYD=$(venv d)
bad() { # bad WHAT EXPECTED... (after an ff call)
  local what=$1 want
  shift
  expect_clean_error 2 "$what"
  for want in "$@"; do expect_err_contains "$want"; done
  nothing_installed "$PYD" "$what"
}
ff install --lock "$TMP/nowhere" --python "$PYD"
bad "no such lock" "$TMP/nowhere" "no such lock file"
mkdir -p "$TMP/empty"
ff install --lock "$TMP/empty" --python "$PYD"
bad "a directory without an index" "no flashfit-locks.json"
mkdir -p "$TMP/badindex"
bad_index() { # bad_index TEXT EXPECTED
  printf '%s' "$1" >"$TMP/badindex/flashfit-locks.json"
  ff install --lock "$TMP/badindex" --python "$PYD"
  bad "index: $2" "not a flashfit lock index" "$2"
}
bad_index '{"locks": []' "not JSON"
bad_index '{"flashfit-locks": 7, "locks": []}' "format 7"
bad_index '{"flashfit-locks": 1, "locks": [{"file": "../etc/passwd", "key": {}}]}' "not a requirements-*.txt or pylock.*.toml file name"
bad_index "$(sed 's/"torch": /"torcch": /' "$TMP/locks/flashfit-locks.json")" "unknown fact 'torcch'"
# An index whose entry for this key names the other environment's file.
json_field "$TMP/locks/flashfit-locks.json" 'json.dumps({"flashfit-locks": 1, "locks": [{"file": d["locks"][1]["file"], "key": d["locks"][0]["key"]}]})' >"$TMP/badindex/flashfit-locks.json"
cp "$TMP/locks/$OTHER_FILE" "$TMP/badindex/"
ff install --lock "$TMP/badindex" --python "$PYD"
bad "an index that disagrees with its file" "header and flashfit-locks.json's entry" "gpu-archs"
bad_line() { # bad_line NAME SED EXPECTED...
  local name=$1 edit=$2
  shift 2
  sed "$edit" "$TMP/locks/$HERE_FILE" >"$TMP/$name.txt"
  ff install --lock "$TMP/$name.txt" --python "$PYD"
  bad "$name" "$TMP/$name.txt:" "$@"
}
bad_line not-a-line 's/^ffpure @ /ffpure==/' "not a locked line"
bad_line ftp-url 's|^ffpure @ http://|ffpure @ ftp://|' "not http(s):// or file://"
bad_line short-hash 's/^\(ffpure @ .*--hash=sha256:\)\(.\{10\}\).*/\1\2/' "not 64 hex digits"
bad_line twice '/^ffdep @ /{p;}' "ffdep is locked twice"
bad_line no-hash 's/^\(ffpure @ [^ ]*\) --hash=.*/\1/' "ffpure has no --hash"
bad_line loose-line '/^# Written by/a\
ffpure @ http://127.0.0.1/ffpure-1.0-py3-none-any.whl' "outside the lock's two sections"
# A compiled line whose URL is another project's wheel: refused before pip runs its lines.
bad_line other-project 's|^\(ffinst @ [^ ]*/\)[^/ ]*\.whl|\1ffdep-1.2-py3-none-any.whl|' \
  "ffinst's URL names a wheel of another project (ffdep: ffdep-1.2-py3-none-any.whl)"
# An installer line with another torch than the header's.
bad_line other-torch "/^ffdep @ /a\\
torch @ $HTTP_URL/files/torch-9.9-py3-none-any.whl --hash=sha256:$(printf 'a%.0s' {1..64})" \
  "the lock's installer lines change torch ($TORCH -> 9.9)"
ff install --lock "$TMP/locks" ffpure --python "$PYD"
bad "--lock with a SPEC" "takes no SPEC"
ff install --lock "$TMP/locks" --index-url "$INDEX" --python "$PYD"
bad "--lock with a source flag" "takes no source flags"
ff lock -r "$TMP/requirements.txt" --python "$PYD" --dir "$TMP/locks" -o "$TMP/x.txt"
bad "lock --dir with -o" "give one"
printf 'not json' >"$TMP/badindex/flashfit-locks.json"
ff lock -r "$TMP/requirements.txt" --python "$PYD" --dir "$TMP/badindex"
bad "lock --dir over an unreadable index" "not a flashfit lock index"
[[ $(cat "$TMP/badindex/flashfit-locks.json") == "not json" ]] || fail "lock --dir overwrote an index it could not read"
pass_note "bad input: missing paths, bad indexes and lock lines, unhashed installer lines, bad usage: exit 2, nothing installed"
