#!/usr/bin/env bash
# flashfit cache list|dir|add|remove|gc against a private cache, with wheels
# fetched from a real local HTTP server (a dropped connection resumes, a 503
# is retried, a 404 is not, a wrong sha256 stores nothing), and bad input
# answered with clean exit-2 errors.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

WHEELS="$TMP/wheels"
mkdir -p "$WHEELS/drop" "$WHEELS/flaky"
SMALL=demo_pkg-1.0-py3-none-any.whl
BIG=flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl
"$TEST_PYTHON" - "$WHEELS" "$SMALL" "$BIG" <<'PY'
import os, sys, zipfile
root, small, big = sys.argv[1:]
with zipfile.ZipFile(os.path.join(root, small), "w") as z:
    z.writestr("demo_pkg/__init__.py", "x = 1\n")
data = os.urandom(3_000_000)
for sub in ("", "drop", "flaky"):
    with zipfile.ZipFile(os.path.join(root, sub, big), "w", zipfile.ZIP_STORED) as z:
        z.writestr("flash_attn/blob.bin", data)
PY
sha_of() { sha256sum "$1" | cut -d' ' -f1; }
SMALL_SHA=$(sha_of "$WHEELS/$SMALL")
BIG_SHA=$(sha_of "$WHEELS/$BIG")
entries() { "$FLASHFIT" cache list --json | "$TEST_PYTHON" -c 'import json, sys; print(len(json.load(sys.stdin)["entries"]))'; }

# --- dir, add, list ------------------------------------------------------------
ff cache dir
expect_rc 0 "cache dir"
[[ $(cat "$TMP/out") == "$FLASHFIT_CACHE_DIR/wheels" ]] || fail "cache dir printed $(cat "$TMP/out")"
# --json, as README lists it (issue 13 item 17: it was refused).
ff cache dir --json
expect_rc 0 "cache dir --json"
[[ $(json_field "$TMP/out" 'd["cache_dir"]') == "$FLASHFIT_CACHE_DIR/wheels" ]] || fail "cache dir --json: $(cat "$TMP/out")"
[[ -f $FLASHFIT_CACHE_DIR/CACHEDIR.TAG ]] || fail "no CACHEDIR.TAG"

ff cache list
expect_rc 0 "empty list"
expect_out_contains "no cached wheels"

ff cache add "$WHEELS/$SMALL"
expect_rc 0 "cache add"
expect_out_contains "cached demo-pkg 1.0"
expect_out_contains "$SMALL_SHA"
[[ -f $FLASHFIT_CACHE_DIR/wheels/${SMALL_SHA:0:2}/$SMALL_SHA/$SMALL ]] || fail "the wheel is not at <sha[0:2]>/<sha>/<file>"
[[ -f $FLASHFIT_CACHE_DIR/wheels/${SMALL_SHA:0:2}/$SMALL_SHA/entry.json ]] || fail "no entry.json"
ff cache add "$WHEELS/$SMALL" --json
expect_rc 0 "adding the same wheel again"
[[ $(json_field "$TMP/out" 'd["sha256"]') == "$SMALL_SHA" ]] || fail "add --json sha256"
[[ $(entries) == 1 ]] || fail "the same bytes added twice made two entries"
pass_note "dir, add (twice: one entry), layout"

# --- fetching URLs: resume, retry, refusals --------------------------------------
cat >"$TMP/routes.json" <<EOF2
{"/drop/$BIG": {"drop_after": 1000000, "times": 1},
 "/flaky/$BIG": {"status": 503, "times": 2},
 "/gone/$BIG": {"status": 404}}
EOF2
start_http_server "$WHEELS" "$TMP/routes.json"

ff cache add "$HTTP_URL/drop/$BIG" --sha256 "$BIG_SHA"
expect_rc 0 "a dropped download resumes"
grep -qF "GET /drop/$BIG bytes=1000000-" "$HTTP_LOG" || fail "no Range request in the server log: $(cat "$HTTP_LOG")"
cmp -s "$WHEELS/drop/$BIG" "$FLASHFIT_CACHE_DIR/wheels/${BIG_SHA:0:2}/$BIG_SHA/$BIG" || fail "the resumed wheel differs"
expect_err_contains "retrying"
before=$(grep -c "GET /drop/" "$HTTP_LOG")
ff cache add "$HTTP_URL/drop/$BIG"
expect_rc 0 "the same URL again"
[[ $(grep -c "GET /drop/" "$HTTP_LOG") == "$before" ]] || fail "a cached URL was downloaded again"
pass_note "resume after a dropped connection; a cached URL is not fetched again"

ff cache add "$HTTP_URL/flaky/$BIG"
expect_rc 0 "503 twice, then OK"
[[ $(grep -c "GET /flaky/" "$HTTP_LOG") == 3 ]] || fail "expected 3 requests for the flaky URL"

ff cache add -q "$HTTP_URL/gone/$BIG"
expect_clean_error 1 "404"
expect_err_contains "HTTP 404"
[[ $(grep -c "GET /gone/" "$HTTP_LOG") == 1 ]] || fail "a 404 was retried"

ff cache add -q "$HTTP_URL/$BIG" --sha256 "$(printf 'a%.0s' {1..64})"
expect_clean_error 2 "a wrong sha256"
expect_err_contains "sha256 mismatch: expected $(printf 'a%.0s' {1..64}), got $BIG_SHA"
[[ -z $(ls -A "$FLASHFIT_CACHE_DIR/wheels/tmp") ]] || fail "tmp/ is not empty after a refusal: $(ls -A "$FLASHFIT_CACHE_DIR/wheels/tmp")"
[[ $(entries) == 2 ]] || fail "a refused wheel was stored"

ff cache add "$HTTP_URL/..%2F..%2Fevil-1.0-py3-none-any.whl"
expect_clean_error 2 "a hostile file name"
expect_err_contains "refusing the file name"
ff cache add "$HTTP_URL/index.html"
expect_clean_error 2 "not a wheel URL"
port=$(closed_port)
FF_TIMEOUT=60 ff cache add -q "http://127.0.0.1:$port/$BIG"
expect_clean_error 1 "a refused connection"
pass_note "retries, 404, sha256 mismatch, hostile names, refused connection"

# --- list -------------------------------------------------------------------------
ff cache list
expect_rc 0 "list"
expect_out_contains "PACKAGE"
expect_out_contains "flash-attn"
expect_out_contains "demo-pkg"
expect_out_contains "2 wheel(s)"
ff cache list --json
expect_rc 0 "list --json"
[[ $(json_field "$TMP/out" 'sorted(e["package"] for e in d["entries"])') == "['demo-pkg', 'flash-attn']" ]] ||
  fail "list --json packages"
[[ $(json_field "$TMP/out" '[e for e in d["entries"] if e["package"] == "flash-attn"][0]["torch"]') == 2.8 ]] ||
  fail "variant fields"
[[ $(json_field "$TMP/out" 'd["total_bytes"] > 3000000') == True ]] || fail "total_bytes"

# A garbled entry is skipped with a warning.
# (Only that entry's directory is removed afterwards, never its shard: a real
# entry's sha256 starts with ff once in 256 runs.)
GARBLED="$FLASHFIT_CACHE_DIR/wheels/ff/$(printf 'f%.0s' {1..64})"
mkdir -p "$GARBLED"
printf '{"sha256": [' >"$GARBLED/entry.json"
ff cache list
expect_rc 0 "list with a garbled entry"
expect_err_contains "warning: skipping"
expect_out_contains "2 wheel(s)"
rm -rf "$GARBLED"
pass_note "list (text, JSON, a garbled entry skipped)"

# --- gc -----------------------------------------------------------------------------
# Make the flash-attn entry old (as if last used in 2000).
"$TEST_PYTHON" - "$FLASHFIT_CACHE_DIR/wheels/${BIG_SHA:0:2}/$BIG_SHA/entry.json" <<'PY'
import json, sys
path = sys.argv[1]
entry = json.load(open(path))
entry["last_used_at"] = "2000-01-01T00:00:00Z"
json.dump(entry, open(path, "w"))
PY
ff cache gc --dry-run
expect_rc 0 "gc --dry-run"
expect_out_contains "would remove $BIG"
[[ $(entries) == 2 ]] || fail "a dry run removed something"
ff cache gc --json --keep-days 30
expect_rc 0 "gc --json"
[[ $(json_field "$TMP/out" '[e["filename"] for e in d["removed"]]') == "['$BIG']" ]] || fail "gc removed the wrong wheels"
[[ $(json_field "$TMP/out" 'd["freed_bytes"] >= 3000000') == True ]] || fail "freed_bytes"
[[ $(json_field "$TMP/out" 'd["kept"]') == 1 ]] || fail "kept"
[[ $(entries) == 1 ]] || fail "gc did not remove the old entry"
pass_note "gc (dry run, JSON, keeps recent)"

# --- gc: orphaned backups (backups/<name>-<pid>, left by a SIGKILLed run) ---------------
# A cache of its own: --keep-days 0 would take the wheels the later sections use.
MAIN_CACHE=$FLASHFIT_CACHE_DIR
export FLASHFIT_CACHE_DIR=$TMP/backup-cache
B=$FLASHFIT_CACHE_DIR/backups
GONE=$(($(cat /proc/sys/kernel/pid_max) + 1)) # no process can ever have it
# A live process that looks like flashfit (its comm begins with "flashfit").
ln -s "$(command -v sleep)" "$TMP/flashfit-sleeper"
"$TMP/flashfit-sleeper" 600 &
LIVE=$!
BACKGROUND_PIDS+=("$LIVE")
backup() { mkdir -p "$B/$1" && printf '%*s' "$2" '' >"$B/$1/0" && touch -d "$3" "$B/$1"; }
backup "ffinst-$GONE" 4000 '40 days ago'            # owner gone, old: stale
backup "uninstall-ffinst-$$" 300 '40 days ago'      # pid now this bash, not flashfit: stale
backup "ffinst-$LIVE" 10 '40 days ago'              # owner running: kept
backup "undo-current-$GONE" 10 '2 days ago'         # owner gone, recent: kept
backup "ffinst-$((GONE + 1))" 10 '40 days ago'      # last-install.json's: kept
backup "notes" 10 '40 days ago'                     # not a backup name: kept
printf '{"py' >"$B/.last-install.json.Ab12Cd" && touch -d '40 days ago' "$B/.last-install.json.Ab12Cd" # a killed write: stale
printf '{"py' >"$B/.last-install.json.Xy34Zw"                                                       # being written, perhaps: kept
"$TEST_PYTHON" - "$B" "$((GONE + 1))" <<'PY'
import json, os, sys
b, pid = sys.argv[1:]
json.dump({"python": "/usr/bin/python3", "package": "ffinst", "installed_version": "1.0",
           "replaced": {"site_dir": "/nonexistent", "dist_info": "/nonexistent/ffinst-0.9.dist-info",
                        "name": "ffinst", "version": "0.9", "egg_info": False,
                        "dir": os.path.join(b, "ffinst-" + pid), "files": []},
           "time": "2026-01-01T00:00:00Z"}, open(os.path.join(b, "last-install.json"), "w"))
PY
backups_left() { ls -A "$B" | sort | tr '\n' ' '; }
before=$(backups_left)
ff cache gc --dry-run
expect_rc 0 "gc --dry-run with backups"
expect_out_contains "would remove stale backup ffinst-$GONE (3.91 KiB, its process is gone"
expect_out_contains "would remove stale backup uninstall-ffinst-$$ (300 B, its pid is another program now"
expect_out_contains "would remove stale backup .last-install.json.Ab12Cd (4 B, a write that never finished"
expect_out_contains "3 stale backup(s)"
[[ $(grep -c 'stale backup ' "$TMP/out") == 3 ]] || fail "gc --dry-run lists other backups: $(cat "$TMP/out")"
[[ $(backups_left) == "$before" ]] || fail "a dry run removed a backup"
ff cache gc --json
expect_rc 0 "gc --json with backups"
[[ $(json_field "$TMP/out" 'sorted((b["name"], b["reason"], b["bytes"]) for b in d["stale_backups"])') == \
  "[('.last-install.json.Ab12Cd', 'abandoned-temp-file', 4), ('ffinst-$GONE', 'owner-gone', 4000), ('uninstall-ffinst-$$', 'pid-reused', 300)]" ]] ||
  fail "gc --json reclaimed the wrong backups: $(cat "$TMP/out")"
[[ $(json_field "$TMP/out" 'd["backups_kept"], d["freed_bytes"]') == "(4, 4304)" ]] || fail "gc --json counts: $(cat "$TMP/out")"
want=$(printf '%s\n' .last-install.json.Xy34Zw "ffinst-$((GONE + 1))" "ffinst-$LIVE" last-install.json notes "undo-current-$GONE" | sort | tr '\n' ' ')
[[ $(backups_left) == "$want" ]] || fail "gc left '$(backups_left)', expected '$want'"
# --keep-days 0: the recent orphan goes; the live owner's, install --undo's and a
# temp file younger than an hour never.
ff cache gc --keep-days 0
expect_rc 0 "gc --keep-days 0 with backups"
want=$(printf '%s\n' .last-install.json.Xy34Zw "ffinst-$((GONE + 1))" "ffinst-$LIVE" last-install.json notes | sort | tr '\n' ' ')
[[ $(backups_left) == "$want" ]] || fail "gc --keep-days 0 left '$(backups_left)', expected '$want'"
# An unreadable last-install.json could name any backup: every one stays, with a warning.
kill "$LIVE" 2>/dev/null || true
wait "$LIVE" 2>/dev/null || true
forget_background "$LIVE"
printf '{garbage' >"$B/last-install.json"
ff cache gc --keep-days 0
expect_rc 0 "gc with an unreadable last-install.json"
expect_err_contains "every backup is kept"
[[ $(backups_left) == "$want" ]] || fail "gc with an unreadable record removed a backup"
pass_note "gc: stale backups (owner gone or pid reused, old) reclaimed; live owner's, recent, undo's, unknown names kept"

# --- gc: work directories of killed runs (<cache>/tmp/<purpose>-<pid>, build-<pid>-...) ---
T=$FLASHFIT_CACHE_DIR/tmp
rundir() { mkdir -p "$T/$1/sub" && printf '%*s' "$2" '' >"$T/$1/sub/o" && touch -d "$3" "$T/$1"; }
"$TMP/flashfit-sleeper" 600 &
LIVE=$!
BACKGROUND_PIDS+=("$LIVE")
rundir "build-$GONE-20260101T000000-0" 5000 '40 days ago' # owner gone, old: reclaimed
rundir "install-r-$$" 200 '40 days ago'                    # pid now this bash: reclaimed
rundir "lock-$LIVE" 10 '40 days ago'                       # owner running: kept
rundir "install-$GONE" 10 '2 days ago'                     # owner gone, recent: kept
rundir "my-notes-$GONE" 10 '40 days ago'                   # not a run directory's name: kept
runs_left() { ls -A "$T" | grep -v '^removed-' | sort | tr '\n' ' '; }
before=$(runs_left)
ff cache gc --dry-run
expect_rc 0 "gc --dry-run with run directories"
expect_out_contains "would remove the work directory of a killed run build-$GONE-20260101T000000-0 (4.88 KiB, its process is gone"
expect_out_contains "would remove the work directory of a killed run install-r-$$ (200 B, its pid is another program now"
expect_out_contains "2 run directory(ies)"
[[ $(runs_left) == "$before" ]] || fail "a dry run removed a run directory"
ff cache gc --json
expect_rc 0 "gc --json with run directories"
[[ $(json_field "$TMP/out" 'sorted((t["name"], t["reason"], t["bytes"]) for t in d["stale_run_dirs"])') == \
  "[('build-$GONE-20260101T000000-0', 'owner-gone', 5000), ('install-r-$$', 'pid-reused', 200)]" ]] ||
  fail "gc --json reclaimed the wrong run directories: $(cat "$TMP/out")"
want=$(printf '%s\n' "install-$GONE" "lock-$LIVE" "my-notes-$GONE" | sort | tr '\n' ' ')
[[ $(runs_left) == "$want" ]] || fail "gc left '$(runs_left)' in tmp/, expected '$want'"
ff cache gc --keep-days 0
expect_rc 0 "gc --keep-days 0 with run directories"
want=$(printf '%s\n' "lock-$LIVE" "my-notes-$GONE" | sort | tr '\n' ' ')
[[ $(runs_left) == "$want" ]] || fail "gc --keep-days 0 left '$(runs_left)' in tmp/, expected '$want'"
kill "$LIVE" 2>/dev/null || true
wait "$LIVE" 2>/dev/null || true
forget_background "$LIVE"
export FLASHFIT_CACHE_DIR=$MAIN_CACHE
pass_note "gc: killed runs' work directories (owner gone or pid reused, old) reclaimed; a running one's, recent, other names kept"

# --- remove ---------------------------------------------------------------------------
ff cache remove "$SMALL"
expect_rc 0 "remove by file name"
expect_out_contains "removed $SMALL"
ff cache add "$WHEELS/$SMALL"
ff cache remove "${SMALL_SHA^^}"
expect_rc 0 "remove by sha256 (any case)"
[[ $(entries) == 0 ]] || fail "remove left entries"
ff cache remove "$SMALL"
expect_clean_error 2 "removing what is not cached"
expect_err_contains "no cached wheel"
pass_note "remove by name and sha256"

# --- bad input ---------------------------------------------------------------------------
ff cache add "$TMP/nope-1.0-py3-none-any.whl"
expect_clean_error 2 "a missing file"
printf 'x' >"$TMP/notes.txt"
ff cache add "$TMP/notes.txt"
expect_clean_error 2 "not a wheel"
ff cache add "$WHEELS/$SMALL" --sha256 abc
expect_clean_error 2 "--sha256 with a local file"
ff cache add -q "$HTTP_URL/$BIG" --sha256 xyz
expect_clean_error 2 "a malformed --sha256"
ff cache gc --keep-days abc
expect_clean_error 2 "--keep-days abc"
ff cache gc --keep-days -1
expect_clean_error 2 "--keep-days -1"
ff cache remove
expect_clean_error 2 "remove without a target"
ff cache frobnicate
expect_clean_error 2 "an unknown subcommand"
ff cache
expect_clean_error 2 "no subcommand"
pass_note "bad input: clean exit-2 errors"
