#!/usr/bin/env python3
"""check_published_tree.py [--interrupted] ROOT: proves a `flashfit publish` tree consistent.

An oracle independent of flashfit (the standard library only):
  - every link of every HTML page (simple index, per-project pages, find-links
    pages at the root) resolves to a file in ROOT, and its #sha256= fragment is
    that file's sha256;
  - every data-core-metadata / data-dist-info-metadata hash is that of
    <file>.metadata, and that file equals the wheel's own dist-info METADATA;
  - every wheel's METADATA Name and Version agree with its file name (what pip
    checks: "inconsistent version");
  - the PEP 691 JSON pages say the same as the HTML ones;
  - every find-links page lists only wheels whose variant record's C++11 ABI
    matches the page (a "-cxx11abi0" page: pre-C++11; else C++11), and the
    simple index lists every wheel with a record.
With --interrupted (a publish that was killed or failed part-way), a wheel
on no page yet is allowed: files go up first and pages last, so such a wheel is
unlisted until the next publish, while every page must still be right.
Prints one line per problem and exits 1 when there is any, else 0.
"""
import hashlib
import html.parser
import json
import os
import re
import sys
import urllib.parse
import zipfile


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.append(dict(attrs))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def wheel_metadata(path):
    with zipfile.ZipFile(path) as z:
        names = [n for n in z.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
        if len(names) != 1:
            return None
        return z.read(names[0])


def headers(metadata):
    out = {}
    for line in metadata.decode("utf-8", "replace").splitlines():
        if not line:
            break
        if ":" in line and not line[0].isspace():
            k, v = line.split(":", 1)
            out.setdefault(k.strip().lower(), v.strip())
    return out


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def normal_version(v):
    # pip compares PEP 440 versions ("1.0" is "1.0.0"); its own packaging if no other.
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:
        from pip._vendor.packaging.version import InvalidVersion, Version
    try:
        return Version(v)
    except InvalidVersion:
        return v.lower().replace("_", "-")


def main():
    args = sys.argv[1:]
    interrupted = args[:1] == ["--interrupted"]
    if interrupted:
        args = args[1:]
    root = os.path.realpath(args[0])
    problems = []
    checked = set()

    def check_link(page, attrs):
        href = attrs.get("href", "")
        url, _, frag = href.partition("#")
        target = os.path.realpath(os.path.join(os.path.dirname(page), urllib.parse.unquote(url)))
        rel = os.path.relpath(page, root)
        if not target.startswith(root + os.sep) or not os.path.isfile(target):
            problems.append(f"{rel}: link {href} does not resolve")
            return None
        if not frag.startswith("sha256=") or frag[7:] != sha256(target):
            problems.append(f"{rel}: link {href} has the wrong sha256")
        for attr in ("data-core-metadata", "data-dist-info-metadata"):
            if attr in attrs:
                meta = target + ".metadata"
                if not os.path.isfile(meta):
                    problems.append(f"{rel}: {attr} but no {os.path.basename(meta)}")
                elif attrs[attr] != "sha256=" + sha256(meta):
                    problems.append(f"{rel}: {attr} hash differs from {os.path.basename(meta)}")
        if target not in checked:
            checked.add(target)
            meta = wheel_metadata(target)
            if meta is None:
                problems.append(f"{os.path.relpath(target, root)}: no single dist-info/METADATA")
                return target
            if os.path.isfile(target + ".metadata"):
                with open(target + ".metadata", "rb") as f:
                    if f.read() != meta:
                        problems.append(f"{os.path.relpath(target, root)}.metadata differs from the wheel's")
            name, version = os.path.basename(target).split("-")[:2]
            h = headers(meta)
            if canonical(h.get("name", "")) != canonical(name):
                problems.append(f"{os.path.basename(target)}: METADATA Name {h.get('name')} != file name")
            if normal_version(h.get("version", "")) != normal_version(version):
                problems.append(f"{os.path.basename(target)}: METADATA Version {h.get('version')} != {version}")
        return target

    def links_of(page):
        p = Links()
        with open(page, encoding="utf-8") as f:
            p.feed(f.read())
        return p.links

    records = {}
    files_dir = os.path.join(root, "files")
    if os.path.isdir(files_dir):
        for n in os.listdir(files_dir):
            if n.endswith(".variant.json"):
                with open(os.path.join(files_dir, n)) as f:
                    records[n[: -len(".variant.json")]] = json.load(f)

    in_simple = set()
    simple = os.path.join(root, "simple")
    for project in sorted(os.listdir(simple)) if os.path.isdir(simple) else []:
        page = os.path.join(simple, project, "index.html")
        if not os.path.isfile(page):
            continue
        html_links = {}
        for attrs in links_of(page):
            t = check_link(page, attrs)
            if t:
                in_simple.add(os.path.basename(t))
                html_links[os.path.basename(t)] = attrs["href"].partition("#")[2][7:]
        jpage = os.path.join(simple, project, "index.json")
        if os.path.isfile(jpage):
            with open(jpage) as f:
                doc = json.load(f)
            jfiles = {x["filename"]: x["hashes"]["sha256"] for x in doc.get("files", [])}
            if jfiles != html_links:
                problems.append(f"simple/{project}: index.json and index.html list different files")
    for name in records:
        if name not in in_simple and not interrupted:
            problems.append(f"files/{name}: has a variant record but is on no simple page")

    for n in sorted(os.listdir(root)):
        if not n.endswith(".html"):
            continue
        page = os.path.join(root, n)
        old_abi = "-cxx11abi0" in n
        for attrs in links_of(page):
            t = check_link(page, attrs)
            rec = records.get(os.path.basename(t)) if t else None
            if rec is None:
                if t:
                    problems.append(f"{n}: lists {os.path.basename(t)} without a variant record")
                continue
            if rec.get("cxx11_abi") is not None and rec["cxx11_abi"] == old_abi:
                problems.append(f"{n}: lists {rec['filename']} built with the other C++ ABI")

    for p in problems:
        print(p)
    print(f"checked {len(checked)} wheel(s), {len(records)} record(s): {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
