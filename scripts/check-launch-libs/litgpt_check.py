"""
Run inside LitGPT's own environment by check.py: every `litgpt ...` command launch.sh writes is parsed by LitGPT's
own CLI parser (the jsonargparse CLI over litgpt.__main__.PARSER_DATA, built as litgpt.__main__.main builds it,
captured before it runs), from the folder, so `--config litgpt.yaml` is read and type-checked as `litgpt` reads it;
the parsed classes are instantiated (the data module), and the optimizer's class_path and init_args are bound to
that class's signature as litgpt.utils.instantiate_torch_optimizer calls it. Nothing is downloaded or trained.
Records the options of each subcommand used (dotted keys) for the offline test.

Usage: litgpt_check.py FOLDERS OUT.json
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import os
import shlex
import sys
import traceback
import warnings
from importlib.metadata import version
from pathlib import Path

from serve_args import logical_lines


def parser():
    from jsonargparse import CLI, capture_parser, set_config_read_mode, set_docstring_parse_options
    from litgpt.__main__ import PARSER_DATA

    # as litgpt.__main__.main sets them
    set_docstring_parse_options(attribute_docstrings=True)
    set_config_read_mode(urls_enabled=True)
    return capture_parser(lambda: CLI(PARSER_DATA))


def bind_optimizer(opt) -> None:
    if isinstance(opt, dict) and "class_path" in opt:
        mod, name = opt["class_path"].rsplit(".", 1)
        cls = getattr(importlib.import_module(mod), name)
        inspect.signature(cls).bind([], **opt.get("init_args", {}))


def main() -> None:
    folders, out = Path(sys.argv[1]), Path(sys.argv[2])
    warnings.simplefilter("ignore")
    p = parser()
    used: dict[str, list[str]] = {}
    rows = []
    home = os.getcwd()
    for d in sorted(x for x in folders.iterdir() if (x / "litgpt.yaml").exists()):
        for line in logical_lines((d / "launch.sh").read_text()):
            toks = shlex.split(line)
            if "litgpt" not in toks:
                continue
            argv = toks[toks.index("litgpt") + 1 :]
            row = {"folder": d.name, "file": "launch.sh + litgpt.yaml" if "--config" in argv else "launch.sh",
                   "with": f"litgpt CLI parser: litgpt {argv[0]}"}
            sink = io.StringIO()
            try:
                os.chdir(d)
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    cfg = p.parse_args(argv)
                    init = p.instantiate_classes(cfg)
                    bind_optimizer(cfg[argv[0]].get("optimizer"))
                del init
                sub = p._subcommands_action._name_parser_map[argv[0]]
                used[argv[0]] = sorted(sub.get_defaults().keys())
                rows.append({**row, "ok": True})
            except BaseException as e:  # jsonargparse exits on a refusal; its message is the finding
                traceback.print_exc(file=sys.stderr)
                msg = " ".join(sink.getvalue().strip().splitlines()[-3:]) if isinstance(e, SystemExit) else f"{type(e).__name__}: {e}"
                rows.append({**row, "ok": False, "error": msg[:600]})
            finally:
                os.chdir(home)
    out.write_text(json.dumps({"version": version("litgpt"), "keys": used, "checks": rows}, indent=1))


if __name__ == "__main__":
    main()
