#!/usr/bin/env python3
"""CPU time of vLLM 0.11.0's per-request chat-template parse for two Qwen3 chat templates, and their ratio.

vLLM 0.11.0's chat route calls resolve_chat_template_kwargs (vllm/entrypoints/chat_utils.py of the v0.11.0 wheel) on
every request: a new ImmutableSandboxedEnvironment, env.parse of the template's Jinja source and
jinja2.meta.find_undeclared_variables. Its cost follows the template's source, so models whose templates differ pay
different amounts per request. This script calls that function itself (the request's chat_template_kwargs empty,
as `vllm bench serve --backend openai-chat` sends none) for:
  qwen3           Qwen3-8B/14B/32B's hybrid-thinking template (QWEN3_TEMPLATE of vllm_api_server_request.py, the
                  template the API-server measurement used).
  qwen3_instruct  the Qwen3 Instruct-2507 template (QWEN3_INSTRUCT_2507_TEMPLATE below): the same template without
                  the reverse scan for the last user query, the assistant's reasoning split and the enable_thinking
                  tail. Written out from a public copy of Qwen3-4B-Instruct-2507's tokenizer_config.json (the 2507
                  Instruct releases, Qwen3-235B-A22B-Instruct-2507 and its FP8 checkpoint among them, ship this
                  template); not checked byte for byte against the hub.
Times: process CPU time (time.process_time) per call, median over N calls after WARMUP.
`ratio` (qwen3_instruct / qwen3) is what the vLLM rows of Instruct-2507 models carry as chat_template_parse_scale.

Setup: the venv of vllm_api_server_request.py (vllm==0.11.0, jinja2 3.1.6).
Usage: python vllm_template_parse.py --n 2000 --out out.json
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vllm_api_server_request import QWEN3_TEMPLATE, cpu_info, write_output  # noqa: E402

WARMUP = 50

QWEN3_INSTRUCT_2507_TEMPLATE = """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0].role == 'system' %}
        {{- messages[0].content + '\\n\\n' }}
    {%- endif %}
    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0].role == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if message.content is string %}
        {%- set content = message.content %}
    {%- else %}
        {%- set content = '' %}
    {%- endif %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}
        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- if message.tool_calls %}
            {%- for tool_call in message.tool_calls %}
                {%- if (loop.first and content) or (not loop.first) %}
                    {{- '\\n' }}
                {%- endif %}
                {%- if tool_call.function %}
                    {%- set tool_call = tool_call.function %}
                {%- endif %}
                {{- '<tool_call>\\n{"name": "' }}
                {{- tool_call.name }}
                {{- '", "arguments": ' }}
                {%- if tool_call.arguments is string %}
                    {{- tool_call.arguments }}
                {%- else %}
                    {{- tool_call.arguments | tojson }}
                {%- endif %}
                {{- '}\\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}"""

TEMPLATES = {"qwen3": QWEN3_TEMPLATE, "qwen3_instruct": QWEN3_INSTRUCT_2507_TEMPLATE}


def median_ms(fn, n):
    """Median process CPU time of fn() in ms over n calls after WARMUP untimed ones."""
    for _ in range(WARMUP):
        fn()
    xs = []
    for _ in range(n):
        t0 = time.process_time()
        fn()
        xs.append(time.process_time() - t0)
    return statistics.median(xs) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    import jinja2
    import vllm
    from vllm.entrypoints.chat_utils import resolve_chat_template_kwargs

    # tokenizer unused: with no request kwargs the supports_kw filter never runs
    times = {k: median_ms(lambda t=t: resolve_chat_template_kwargs(None, t, {}), args.n) for k, t in TEMPLATES.items()}
    out = {
        "script": "scripts/measure/vllm_template_parse.py",
        "what": "median process CPU time in ms of vllm.entrypoints.chat_utils.resolve_chat_template_kwargs (new Jinja "
                "environment, env.parse, find_undeclared_variables) per call, request kwargs empty",
        "versions": {"vllm": vllm.__version__, "jinja2": jinja2.__version__},
        "python": platform.python_version(),
        "cpu": cpu_info(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "calls": args.n,
        "template_chars": {k: len(t) for k, t in TEMPLATES.items()},
        "median_ms": {k: round(v, 3) for k, v in times.items()},
        "ratio": round(times["qwen3_instruct"] / times["qwen3"], 3),
    }
    write_output(json.dumps(out, indent=1) + "\n", args.out)


if __name__ == "__main__":
    main()
