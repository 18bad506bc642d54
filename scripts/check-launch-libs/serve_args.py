"""
Run inside a serving engine's environment by check.py: parses every server command line the folders' serve.sh
write with the engine's own argument parser, and records the options that parser accepts (for the offline test).

  vllm:   vLLM's CLI (vllm.entrypoints.cli.main.main) on `vllm serve ...`, with the serve subcommand's dispatch
          replaced by AsyncEngineArgs.from_cli_args: parse, the subcommand's validate (validate_parsed_serve_args),
          and the engine arguments' own checks run; no model is loaded. The platform is vLLM's CPU platform
          (no GPU here), as vLLM's CLI sets it for `vllm bench`: device-specific checks are not run.
  sglang: sglang.srt.server_args.prepare_server_args on the arguments after `python -m sglang.launch_server`,
          the function launch_server calls first: argparse, ServerArgs.from_cli_args and ServerArgs.__post_init__.
          The model path is replaced by a local folder holding the checkpoint's config.json where the check needs
          one (no download); check.py writes those configs.

Usage: serve_args.py vllm|sglang FOLDERS OUT.json [CONFIGS_DIR]
Writes JSON {engine, version, options: {flag: {nargs, choices}}, checks: [...]}.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shlex
import sys
import traceback
from importlib.metadata import version
from pathlib import Path


def logical_lines(text: str) -> list[str]:
    """Shell lines with backslash continuations joined, comments dropped."""
    out, cur = [], ""
    for line in text.splitlines():
        s = line.rstrip()
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        cur += s
        if cur.strip() and not cur.lstrip().startswith("#"):
            out.append(cur.strip())
        cur = ""
    return out


def model_default(text: str) -> str:
    m = re.search(r"^MODEL=\$\{MODEL:-([^}]*)\}", text, re.M)
    return m.group(1) if m else "MODEL"


def machine_lines(text: str) -> list[str]:
    """The logical lines as each machine runs them: a server over several machines reads NODE_RANK (0 on the first)
    and MASTER_ADDR, and vLLM's workers add $HEADLESS (`[ "$NODE_RANK" = 0 ] || HEADLESS=--headless`); its lines
    are expanded for the first and the second machine, $((NODE_RANK*k)) evaluated."""
    lines = logical_lines(text)
    if not re.search(r"^NODE_RANK=", text, re.M):
        return lines
    out = []
    for rank in (0, 1):
        env = {"NODE_RANK": str(rank), "MASTER_ADDR": "10.0.0.1", "HEADLESS": "" if rank == 0 else "--headless"}
        for line in lines:
            if re.match(r"^(NODE_RANK|MASTER_ADDR|HEADLESS)=|^\[ ", line):
                continue
            line = re.sub(r"\$\(\(\s*NODE_RANK\s*\*\s*(\d+)\s*\)\)", lambda m: str(rank * int(m.group(1))), line)
            for k, v in env.items():
                line = line.replace(f'"${k}', f'"{v}').replace(f"${k}", v)
            out.append(line)
    return out


def server_argv(text: str, marker: list[str]) -> list[list[str]]:
    """argv after `marker` (e.g. ['vllm', 'serve']) of every command line that runs the server, $MODEL filled in."""
    model = model_default(text)
    out = []
    for line in machine_lines(text):
        toks = shlex.split(line.replace('"$MODEL"', shlex.quote(model)).replace("$MODEL", model))
        while toks and re.match(r"^[A-Z_][A-Z0-9_]*=", toks[0]):  # env assignments before the command
            toks.pop(0)
        if toks and toks[-1] == "&":
            toks.pop()
        for i in range(len(toks) - len(marker) + 1):
            if toks[i : i + len(marker)] == marker:
                out.append(toks[i + len(marker) :])
                break
    return out


def options_of(parser: argparse.ArgumentParser) -> dict:
    opts = {}
    # every registered spelling, the hidden ones too (vLLM's --no-enable-x beside --disable-x)
    for s, a in parser._option_string_actions.items():
        nargs = 0 if a.nargs == 0 else (a.nargs if isinstance(a.nargs, int) else 1 if a.nargs in (None, "?") else a.nargs)
        opts[s] = {"nargs": nargs, "choices": sorted(map(str, a.choices)) if a.choices else None}
    return dict(sorted(opts.items()))


def run_quiet(fn):
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        try:
            fn()
        except SystemExit as e:  # argparse's refusal: the message went to stderr
            if e.code not in (0, None):
                raise RuntimeError(" ".join(sink.getvalue().strip().splitlines()[-2:])) from None


def check_vllm(folders: Path) -> tuple[dict, list]:
    import vllm.entrypoints.cli.main as cli
    import vllm.entrypoints.cli.serve as serve
    from vllm import platforms
    from vllm.platforms.cpu import CpuPlatform

    # No GPU here (and vLLM's CUDA platform module needs libcuda to import): the CPU platform, as vLLM's own CLI
    # sets it for `vllm bench` on such a machine (entrypoints/cli/main.py), so the device config can be inferred.
    platforms._current_platform = CpuPlatform()
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.entrypoints.common.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    from vllm.config.cache import KV_CACHE_DTYPES, CacheConfig
    from vllm.model_executor.layers.quantization import QUANTIZATION_METHODS, get_quantization_config

    def dispatch(args):
        # EngineArgs.__post_init__ loads the general plugins (vllm-bnb-plugin registers bitsandbytes there).
        ea = AsyncEngineArgs.from_cli_args(args)
        # The pieces create_engine_config would build first without the model's config (no download here):
        # the cache config validates kv_cache_dtype; the quantization method must be registered.
        CacheConfig(cache_dtype=ea.kv_cache_dtype, gpu_memory_utilization=ea.gpu_memory_utilization)
        if ea.quantization is not None:
            get_quantization_config(ea.quantization)

    serve.ServeSubcommand.cmd = staticmethod(dispatch)
    rows = []
    for d in sorted(p for p in folders.iterdir() if (p / "serve.sh").exists()):
        text = (d / "serve.sh").read_text()
        for argv in server_argv(text, ["vllm", "serve"]):
            sys.argv = ["vllm", "serve", *argv]
            rows.append(row(d.name, "vllm serve", lambda: run_quiet(cli.main)))
    from vllm.plugins import load_general_plugins

    load_general_plugins()
    opts = options_of(make_arg_parser(FlexibleArgumentParser()))
    # values checked past argparse (after the plugins registered theirs)
    opts["--kv-cache-dtype"]["choices"] = sorted(KV_CACHE_DTYPES)
    opts["--quantization"]["choices"] = sorted(QUANTIZATION_METHODS)
    return opts, rows


def check_sglang(folders: Path, configs: Path | None) -> tuple[dict, list]:
    from sglang.srt.server_args import ServerArgs, prepare_server_args

    rows = []
    for d in sorted(p for p in folders.iterdir() if (p / "serve.sh").exists()):
        text = (d / "serve.sh").read_text()
        for argv in server_argv(text, ["python", "-m", "sglang.launch_server"]):
            if configs is not None and "--model-path" in argv:
                i = argv.index("--model-path") + 1
                local = configs / argv[i].replace("/", "--")
                if (local / "config.json").exists():
                    argv = [*argv[:i], str(local), *argv[i + 1 :]]
            rows.append(row(d.name, "python -m sglang.launch_server", lambda a=argv: run_quiet(lambda: prepare_server_args(a))))
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    return options_of(parser), rows


def row(folder: str, cmd: str, fn) -> dict:
    try:
        fn()
        return {"folder": folder, "file": "serve.sh", "with": cmd, "ok": True}
    except BaseException as e:  # the library's own refusal is the finding
        traceback.print_exc(file=sys.stderr)
        return {"folder": folder, "file": "serve.sh", "with": cmd, "ok": False, "error": f"{type(e).__name__}: {e}"[:600]}


def main() -> None:
    engine, folders, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    configs = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    if engine == "vllm":
        opts, rows = check_vllm(folders)
    else:
        opts, rows = check_sglang(folders, configs)
    out.write_text(json.dumps({"engine": engine, "version": version(engine), "options": opts, "checks": rows}, indent=1))


if __name__ == "__main__":
    main()
