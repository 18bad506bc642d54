#!/usr/bin/env python3
"""CPU time of vLLM 0.11.0's API server per chat request, as `vllm bench serve --backend openai-chat` sends it.

What it runs, calling the classes of the vllm 0.11.0 wheel in one process and one event loop, requests in series:
  parse        json.loads of the body and ChatCompletionRequest.model_validate (what FastAPI does for the route).
  render       the chat preprocessing of OpenAIServing._preprocess_chat (vllm/entrypoints/openai/serving_engine.py):
               resolve_chat_template_content_format, parse_chat_messages_futures and apply_hf_chat_template
               (vllm/entrypoints/chat_utils.py), which in this release calls resolve_chat_template_kwargs, a new
               Jinja environment and env.parse of the template per request ("template_parse", counted inside render).
  tokenize     OpenAIServing._tokenize_prompt_input_async (AsyncMicrobatchTokenizer on its executor thread).
  input        AsyncLLM.add_request's Processor.process_inputs (vllm/v1/engine/processor.py), the EngineCoreRequest.
  stream       the rest: create_chat_completion's own work, AsyncLLM.generate with its real output_handler task and
               OutputProcessor (detokenization, RequestOutput, IterationStats as `vllm serve` logs stats), and
               chat_completion_stream_generator rendering every SSE chunk (role chunk, 4 token chunks, the finish
               chunk with include_usage, the usage chunk and [DONE]).
The engine core is a fake (FakeEngineCore): each request's 4 tokens come back at once, one EngineCoreOutputs per token,
the request's consumer running between them (one SSE chunk a token).
Not timed: uvicorn/HTTP and the FastAPI middleware, the msgpack/ZMQ hop to EngineCore and back, the client.

Request: the body of vllm/benchmarks/lib/endpoint_request_func.py async_request_openai_chat_completions at v0.11.0
(messages [{"role": "user", "content": [{"type": "text", "text": prompt}]}], temperature 0.0,
max_completion_tokens 4, stream true, stream_options include_usage); prompts from RandomDataset (vllm/benchmarks/
datasets.py, seed 42, input_len 128, output_len 4, range_ratio 0).

Model: Qwen3-14B's config.json (calibration/configs/Qwen__Qwen3-14B.json). Tokenizer: Hugging Face is not reachable
here, so it is rebuilt from qwen.tiktoken, the Qwen BPE ranks shipped in the dashscope 2.0.2 wheel on PyPI (151,643
ranks, the regular vocabulary Qwen2/Qwen3 share), with Qwen2's split pattern, NFC normalizer and Qwen3's 26 added
tokens at ids 151643-151668; the chat template is Qwen3-14B's (QWEN3_TEMPLATE below, written out from public copies
of Qwen/Qwen3-14B's tokenizer_config.json; not checked byte for byte against the hub).

Times: process CPU time (time.process_time: every thread, the tokenizer's executor included) per request, median
and mean over the timed requests after WARMUP untimed ones.

Setup: a venv with vllm==0.11.0 (CPU-installable wheel), torch==2.8.0, transformers==4.57.1 (see
vllm_v1_engine_host.py); `pip download --no-deps dashscope==2.0.2` and unzip it for dashscope/resources/qwen.tiktoken.
Usage: QWEN_TIKTOKEN=<path to qwen.tiktoken> python vllm_api_server_request.py --n 1000 --out out.json
"""

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "calibration", "configs", "Qwen__Qwen3-14B.json")
OUT_TOKENS = 4
WARMUP = 50

# Qwen2's pre-tokenizer split (Qwen/Qwen2-7B tokenizer.json; Qwen3 keeps it).
QWEN2_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"""
                 r"""\s*[\r\n]+|\s+(?!\S)|\s+""")
QWEN3_ADDED = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
               "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
               "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>",
               "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_response>",
               "</tool_response>", "<think>", "</think>"]
QWEN3_SPECIAL = set(QWEN3_ADDED[:14]) | set(QWEN3_ADDED[16:22])

QWEN3_TEMPLATE = """{%- if tools %}
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
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}
        {%- set ns.multi_step_tool = false %}
        {%- set ns.last_query_index = index %}
    {%- endif %}
{%- endfor %}
{%- for message in messages %}
    {%- if message.content is string %}
        {%- set content = message.content %}
    {%- else %}
        {%- set content = '' %}
    {%- endif %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}
        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {%- set reasoning_content = '' %}
        {%- if message.reasoning_content is string %}
            {%- set reasoning_content = message.reasoning_content %}
        {%- else %}
            {%- if '</think>' in content %}
                {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}
                {%- set content = content.split('</think>')[-1].lstrip('\\n') %}
            {%- endif %}
        {%- endif %}
        {%- if loop.index0 > ns.last_query_index %}
            {%- if loop.last or (not loop.last and reasoning_content) %}
                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}
            {%- else %}
                {{- '<|im_start|>' + message.role + '\\n' + content }}
            {%- endif %}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- endif %}
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
    {%- if enable_thinking is defined and enable_thinking is false %}
        {{- '<think>\\n\\n</think>\\n\\n' }}
    {%- endif %}
{%- endif %}"""


def build_model_dir(tiktoken_path):
    """A model folder with Qwen3-14B's config.json and a Qwen tokenizer rebuilt from the tiktoken ranks."""
    from tokenizers import AddedToken, normalizers
    from transformers.convert_slow_tokenizer import TikTokenConverter

    d = tempfile.mkdtemp(prefix="qwen3-14b-")
    with open(CONFIG) as f:
        cfg = json.load(f)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f)
    tok = TikTokenConverter(vocab_file=tiktoken_path, pattern=QWEN2_PATTERN, additional_special_tokens=[]).converted()
    tok.normalizer = normalizers.NFC()
    tok.add_tokens([AddedToken(t, special=t in QWEN3_SPECIAL, normalized=False) for t in QWEN3_ADDED])
    assert tok.token_to_id("<|endoftext|>") == 151643 and tok.token_to_id("</think>") == 151668
    tok.save(os.path.join(d, "tokenizer.json"))
    tcfg = {"tokenizer_class": "Qwen2TokenizerFast", "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>",
            "bos_token": None, "unk_token": None, "model_max_length": 131072, "errors": "replace",
            "add_prefix_space": False, "clean_up_tokenization_spaces": False, "split_special_tokens": False,
            "chat_template": QWEN3_TEMPLATE}
    with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
        json.dump(tcfg, f)
    return d


class FakeEngineCore:
    """EngineCore stand-in: every added request's tokens come back at once, one EngineCoreOutputs a token."""

    def __init__(self):
        self.resources = type("Resources", (), {"engine_dead": False})()
        self.pending = []
        self.ready = asyncio.Event()

    async def add_request_async(self, request):
        self.pending.extend((request.request_id, i) for i in range(request.sampling_params.max_tokens))
        self.ready.set()

    async def abort_requests_async(self, ids):
        pass

    def shutdown(self):
        pass

    async def get_output_async(self):
        from vllm.v1.engine import EngineCoreOutput, EngineCoreOutputs, FinishReason

        while not self.pending:
            self.ready.clear()
            await self.ready.wait()
        # Let the request's consumer drain the token before the next one, as a real step's gap does: one SSE chunk
        # a token, not one merged delta.
        for _ in range(4):
            await asyncio.sleep(0)
        rid, i = self.pending.pop(0)
        last = not self.pending or self.pending[0][0] != rid
        out = EngineCoreOutput(request_id=rid, new_token_ids=[1000 + 17 * i],
                               finish_reason=FinishReason.LENGTH if last else None)
        return EngineCoreOutputs(outputs=[out], timestamp=time.monotonic())


class Clock:
    """Process CPU time spent inside wrapped callables, by part."""

    def __init__(self):
        self.t = {}

    def add(self, part, dt):
        self.t[part] = self.t.get(part, 0.0) + dt

    def wrap(self, part, fn):
        def inner(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                self.add(part, time.process_time() - t0)
        return inner

    def wrap_async(self, part, fn):
        async def inner(*a, **k):
            t0 = time.process_time()
            try:
                return await fn(*a, **k)
            finally:
                self.add(part, time.process_time() - t0)
        return inner


def make_server(model_dir, clock):
    import vllm.entrypoints.chat_utils as cu
    import vllm.entrypoints.openai.serving_engine as se
    from vllm.config import CacheConfig, DeviceConfig, ModelConfig, SchedulerConfig, VllmConfig
    from vllm.entrypoints.openai.serving_chat import OpenAIServingChat
    from vllm.entrypoints.openai.serving_models import BaseModelPath, OpenAIServingModels
    from vllm.transformers_utils.tokenizer import init_tokenizer_from_configs
    from vllm.v1.engine.async_llm import AsyncLLM
    from vllm.v1.engine.output_processor import OutputProcessor
    from vllm.v1.engine.processor import Processor

    model = ModelConfig(model=model_dir, tokenizer=model_dir, dtype="bfloat16", seed=0, max_model_len=40960)
    vc = VllmConfig(model_config=model, cache_config=CacheConfig(block_size=16, swap_space=0),
                    scheduler_config=SchedulerConfig(max_num_seqs=1024, max_num_batched_tokens=8192,
                                                     max_model_len=40960, enable_chunked_prefill=True),
                    device_config=DeviceConfig(device="cpu"))
    tokenizer = init_tokenizer_from_configs(model_config=model)
    llm = object.__new__(AsyncLLM)
    llm.vllm_config = vc
    llm.model_config = model
    llm.tokenizer = tokenizer
    llm.processor = Processor(vllm_config=vc, tokenizer=tokenizer)
    llm.output_processor = OutputProcessor(tokenizer, log_stats=True)
    llm.engine_core = FakeEngineCore()
    llm.log_requests = False
    llm.log_stats = True
    llm.logger_manager = None
    llm.output_handler = None
    llm.processor.process_inputs = clock.wrap("input", llm.processor.process_inputs)

    # The names serving_engine imported from chat_utils, and the parse inside apply_hf_chat_template.
    for name in ("resolve_chat_template_content_format", "parse_chat_messages_futures", "apply_hf_chat_template"):
        setattr(se, name, clock.wrap("render", getattr(se, name)))
    cu.resolve_chat_template_kwargs = clock.wrap("template_parse", cu.resolve_chat_template_kwargs)

    models = OpenAIServingModels(engine_client=llm, model_config=model,
                                 base_model_paths=[BaseModelPath(name="Qwen/Qwen3-14B", model_path=model_dir)])
    chat = OpenAIServingChat(llm, model, models, "assistant", request_logger=None, chat_template=None,
                             chat_template_content_format="auto")
    chat._tokenize_prompt_input_async = clock.wrap_async("tokenize", chat._tokenize_prompt_input_async)
    return chat, tokenizer


def bodies(tokenizer, n):
    """The request bodies `vllm bench serve --backend openai-chat --dataset-name random` sends at v0.11.0."""
    from vllm.benchmarks.datasets import RandomDataset

    reqs = RandomDataset(random_seed=42).sample(tokenizer=tokenizer, num_requests=n, prefix_len=0, range_ratio=0.0,
                                                input_len=128, output_len=OUT_TOKENS)
    out = []
    for r in reqs:
        payload = {"model": "Qwen/Qwen3-14B",
                   "messages": [{"role": "user", "content": [{"type": "text", "text": r.prompt}]}],
                   "temperature": 0.0, "max_completion_tokens": r.expected_output_len, "stream": True,
                   "stream_options": {"include_usage": True}}
        out.append(json.dumps(payload).encode())
    return out


async def one(chat, clock, body):
    from vllm.entrypoints.openai.protocol import ChatCompletionRequest

    t0 = time.process_time()
    req = ChatCompletionRequest.model_validate(json.loads(body))
    clock.add("parse", time.process_time() - t0)
    gen = await chat.create_chat_completion(req, None)
    chunks = 0
    async for _ in gen:
        chunks += 1
    assert chunks == OUT_TOKENS + 3, chunks  # role chunk, a chunk a token, usage chunk, [DONE]
    return time.process_time() - t0, chunks


async def run(chat, tokenizer, n):
    clock = chat._clock
    reqs = bodies(tokenizer, n + WARMUP)
    rows = []
    for i, body in enumerate(reqs):
        clock.t = {}
        total, chunks = await one(chat, clock, body)
        if i >= WARMUP:
            parts = {k: v for k, v in clock.t.items()}
            parts["total"] = total
            parts["chunks"] = chunks
            rows.append(parts)
    return rows


def summarize(rows):
    keys = ["parse", "render", "template_parse", "tokenize", "input", "stream", "total", "total_less_template_parse"]
    for r in rows:
        r["stream"] = r["total"] - r.get("parse", 0) - r.get("render", 0) - r.get("tokenize", 0) - r.get("input", 0)
        r["total_less_template_parse"] = r["total"] - r.get("template_parse", 0)
    med = {k + "_ms": round(1e3 * statistics.median(r.get(k, 0.0) for r in rows), 3) for k in keys}
    mean = {k + "_ms": round(1e3 * statistics.fmean(r.get(k, 0.0) for r in rows), 3) for k in keys}
    return med, mean, rows[0]["chunks"]


def cpu_info():
    """The first core's model name, family/model, bogomips and whether it is a VM guest, from /proc/cpuinfo."""
    fields = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if not line.strip():
                break
            k, _, v = line.partition(":")
            fields[k.strip()] = v.strip()
    guest = "hypervisor" in fields.get("flags", "").split()
    return (f"{fields.get('model name')} (family {fields.get('cpu family')} model {fields.get('model')}, "
            f"bogomips {fields.get('bogomips')}{', a VM guest' if guest else ''})")


def write_output(text, out):
    """Write the fixture text to `out`, or to stdout for "-"."""
    if out == "-":
        sys.stdout.write(text)
    else:
        with open(out, "w") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[200, 1000])
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    tiktoken_path = os.environ["QWEN_TIKTOKEN"]
    model_dir = build_model_dir(tiktoken_path)
    clock = Clock()
    chat, tokenizer = make_server(model_dir, clock)
    chat._clock = clock
    results = []

    async def all_runs():  # one event loop: AsyncLLM's output handler task lives in it
        for n in args.n:
            rows = await run(chat, tokenizer, n)
            med, mean, chunks = summarize(rows)
            results.append({"requests": n, "sse_items_per_request": chunks, "median": med, "mean": mean})
            print(json.dumps(results[-1]), file=sys.stderr)

    asyncio.run(all_runs())
    import importlib.metadata as md
    import hashlib

    with open(tiktoken_path, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    versions = {p: md.version(p) for p in ("vllm", "torch", "transformers", "tokenizers", "pydantic", "pydantic_core",
                                           "jinja2", "fastapi", "msgspec")}
    doc = {
        "script": "scripts/measure/vllm_api_server_request.py",
        "what": "process CPU time per chat request of vLLM 0.11.0's API-server code path (ChatCompletionRequest "
                "validation, OpenAIServingChat.create_chat_completion with stream=True, AsyncLLM.generate with its "
                "output handler and OutputProcessor) against a fake engine core returning 4 tokens at once, "
                "requests in series; median and mean over the timed requests, in ms",
        "parts": {"parse": "json.loads + ChatCompletionRequest.model_validate",
                  "render": "resolve_chat_template_content_format + parse_chat_messages_futures + "
                            "apply_hf_chat_template (template_parse included)",
                  "template_parse": "resolve_chat_template_kwargs: new Jinja environment and env.parse per request",
                  "tokenize": "OpenAIServing._tokenize_prompt_input_async",
                  "input": "Processor.process_inputs",
                  "stream": "the rest: create_chat_completion's own work, AsyncLLM.generate, output handler, "
                            "OutputProcessor and every SSE chunk of chat_completion_stream_generator",
                  "total_less_template_parse": "a request's work without the per-request template parse"},
        "not_timed": "uvicorn/HTTP and FastAPI middleware, the msgpack/ZMQ hop to EngineCore and back, the client",
        "request": "vllm bench serve --backend openai-chat --dataset-name random at v0.11.0: one user message with "
                   "content [{type: text, text: prompt}], temperature 0.0, max_completion_tokens 4, stream true, "
                   "stream_options.include_usage; RandomDataset seed 42, input_len 128, range_ratio 0",
        "tokenizer": "rebuilt from qwen.tiktoken of the dashscope 2.0.2 wheel (sha256 " + sha + ") with Qwen2's "
                     "split pattern, NFC and Qwen3's added tokens at 151643-151668; Qwen3-14B's chat template; "
                     "Hugging Face was not reachable",
        "model_config": "calibration/configs/Qwen__Qwen3-14B.json",
        "versions": versions,
        "python": platform.python_version(),
        "cpu": cpu_info(),
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "warmup_requests": WARMUP,
        "results": results,
    }
    text = json.dumps(doc, indent=2) + "\n"
    write_output(text, args.out)


if __name__ == "__main__":
    main()
