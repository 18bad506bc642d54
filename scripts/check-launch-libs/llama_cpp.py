"""
llama-server's own option table, read from llama.cpp's common/arg.cpp: every `add_opt(common_arg(...))` entry with
its names, its negated names, whether its handler takes a value, and the examples it is registered for. An entry
reaches llama-server when it names LLAMA_EXAMPLE_SERVER, or only LLAMA_EXAMPLE_COMMON (the default), and does not
exclude the server (common_params_parser_init's add_opt filter). The kv-cache types come from its kv_cache_types.

Then every `llama-server ...` line of the folders' serve.sh is read the way common_params_parse_ex reads argv:
each argument must be a server option (a `--long_name` may spell `_` for `-`), followed by as many values as its
handler takes; -ctk/-ctv values must be kv-cache types, -fa one of on/off/auto.

Usage: llama_cpp.py ARG_CPP FOLDERS OUT.json SOURCE   (check.py takes arg.cpp from the llama.cpp that PyPI's
llama-cpp-python sdist vendors, and names that commit, from the sdist's CHANGELOG.md, as SOURCE).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

STR = re.compile(r'"(?:[^"\\]|\\.)*"')


def close_paren(src: str, i: int) -> int:
    """Index just past the parenthesis that closes the one opened at src[i] (string and char literals skipped)."""
    depth = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            continue
        if c == "/" and src.startswith("//", i):
            i = src.index("\n", i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced parentheses in arg.cpp")


def string_lists(head: str) -> list[list[str]]:
    """The `{ "-a", "--bb" }` lists of the constructor's leading arguments (before the handler lambda)."""
    out = []
    for m in re.finditer(r"\{\s*((?:\"[^\"]*\"\s*,?\s*)+)\}", head):
        names = [s[1:-1] for s in STR.findall(m.group(1))]
        if names and all(n.startswith("-") for n in names):
            out.append(names)
    return out


HANDLER = re.compile(r"\[[^\]]*\]\s*\(\s*common_params\s*&\s*\w*\s*(?:,([^)]*))?\)")


def options(src: str) -> list[dict]:
    out = []
    for m in re.finditer(r"add_opt\(\s*common_arg\(", src):
        start = m.start() + len("add_opt")
        end = close_paren(src, start)
        block = src[start:end]
        h = HANDLER.search(block)
        head = block[: h.start()] if h else block
        lists = string_lists(head)
        if not lists:
            continue
        rest = [p.strip() for p in (h.group(1) or "").split(",")] if h and h.group(1) else []
        kinds = ["bool" if p.startswith("bool") else "int" if p.startswith("int") else "string" for p in rest if p]
        examples = re.search(r"\.set_examples\(\{([^}]*)\}\)", block)
        excludes = re.search(r"\.set_excludes\(\{([^}]*)\}\)", block)
        ex = set(re.findall(r"LLAMA_EXAMPLE_\w+", examples.group(1))) if examples else {"LLAMA_EXAMPLE_COMMON"}
        exc = set(re.findall(r"LLAMA_EXAMPLE_\w+", excludes.group(1))) if excludes else set()
        out.append({
            "args": lists[0],
            "neg": lists[1] if len(lists) > 1 else [],
            # values the handler reads: 0 (a switch, or bool with its --no- form), 1, or 2 (str, str)
            "values": 0 if kinds in ([], ["bool"]) else len(kinds),
            "server": ("LLAMA_EXAMPLE_SERVER" in ex or "LLAMA_EXAMPLE_COMMON" in ex)
            and "LLAMA_EXAMPLE_SERVER" not in exc,
        })
    return out


def kv_cache_types(src: str) -> list[str]:
    m = re.search(r"kv_cache_types\s*=\s*\{([^}]*)\}", src)
    return [t.lower() for t in re.findall(r"GGML_TYPE_(\w+)", m.group(1))] if m else []


def check_line(argv: list[str], table: dict) -> str | None:
    """None when llama-server's parser takes argv, else why not."""
    flags, i = table["flags"], 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("--"):
            arg = arg.replace("_", "-")
        if arg not in flags:
            return f"error: invalid argument: {arg}"
        n = flags[arg]
        vals = argv[i + 1 : i + 1 + n]
        if len(vals) < n:
            return f"expected value for argument {arg}"
        if arg in ("-ctk", "--cache-type-k", "-ctv", "--cache-type-v") and vals[0] not in table["cache_types"]:
            return f"Unsupported cache type: {vals[0]}"
        if arg in ("-fa", "--flash-attn") and table["flash_attn"] and vals[0] not in table["flash_attn"]:
            return f"error: unknown value for --flash-attn: '{vals[0]}'"
        i += 1 + n
    return None


def main() -> None:
    from serve_args import server_argv

    src = Path(sys.argv[1]).read_text()
    opts = [o for o in options(src) if o["server"]]
    flags = {}
    for o in opts:
        for a in o["args"]:
            flags[a] = o["values"]
        for a in o["neg"]:
            flags[a] = 0
    table = {
        "source": sys.argv[4],
        "flags": dict(sorted(flags.items())),
        "cache_types": kv_cache_types(src),
        "flash_attn": ["on", "off", "auto"] if '"[on|off|auto]"' in src else [],
    }
    checks = []
    for d in sorted(p for p in Path(sys.argv[2]).iterdir() if (p / "serve.sh").exists()):
        for argv in server_argv((d / "serve.sh").read_text(), ["llama-server"]):
            why = check_line(argv, table)
            row = {"folder": d.name, "file": "serve.sh", "with": f"llama-server option table ({sys.argv[4]})", "ok": why is None}
            checks.append(row if why is None else {**row, "error": why})
    Path(sys.argv[3]).write_text(json.dumps({**table, "checks": checks}, indent=1) + "\n")
    print(f"{len(opts)} llama-server options, {len(flags)} names", file=sys.stderr)


if __name__ == "__main__":
    main()
