#!/usr/bin/env python3
"""Host cost of vLLM 0.10.1's API-server process per streamed output token, gpt-oss chat (harmony) path.

What it times, calling the classes of the vllm 0.10.1 wheel (unpacked, pure-Python modules only):
  engine side   OutputProcessor.process_outputs (vllm/v1/engine/output_processor.py): per request and token,
                FastIncrementalDetokenizer (tokenizers DecodeStream.step), stop checks, RequestOutput build,
                RequestOutputCollector.put; IterationStats as `vllm serve` (log stats on) passes it.
  server side   what chat_completion_stream_generator (vllm/v1/../entrypoints/openai/serving_chat.py) does per
                RequestOutput on the harmony path: StreamableParser.process per token id, DeltaMessage,
                ChatCompletionResponseStreamChoice, ChatCompletionStreamResponse, model_dump_json(exclude_unset=True)
                and the SSE line.
  together      N asyncio consumer tasks awaiting their RequestOutputCollector (AsyncLLM.generate's
                get_nowait() or await get()) while one producer runs process_outputs per step and yields to the
                loop: wall time per step / N.
  http send     a FastAPI StreamingResponse under uvicorn (uvloop, httptools), as `vllm serve` runs its app, sending a
                chat chunk's SSE line per token to N concurrent HTTP clients: the server process's CPU time
                (/proc/<pid>/stat) per chunk.
Not timed: the ZMQ receive and msgpack decode of EngineCoreOutputs.

The wheel needs torch at import; only type names and dtype tables are touched on these paths, so a stand-in
module is put on sys.path. The gpt-oss tokenizer is rebuilt from o200k_base.tiktoken with the harmony special
tokens at their ids (transformers' TikTokenConverter); decoding cost does not depend on the split regex.

Setup (a venv, CPU only): pip install openai-harmony==0.0.4 tokenizers==0.21.4 transformers==4.55.2 pydantic==2.11.7
tiktoken==0.11.0 fastapi==0.116.1 uvicorn==0.35.0 uvloop httptools openai==1.99.1 msgspec regex cachetools psutil pyzmq
cloudpickle prometheus_client blake3 pyyaml jinja2 pillow cbor2 setproctitle pybase64 aiohttp; `pip download
vllm==0.10.1 --no-deps` and unzip the wheel; o200k_base.tiktoken from the tiktoken-rs 0.7.0 crate's assets/ (cargo fetch).
Usage: VLLM_WHEEL_DIR=<unpacked wheel> TIKTOKEN_ENCODINGS_BASE=<dir with o200k_base.tiktoken> \
       [TOKENS=600 REPEATS=5 CHUNKS=20000] python vllm_frontend_token.py > out.json
"""

import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time

STUB = '''
import sys, types, importlib.util
class _Meta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Dummy
class _Dummy(metaclass=_Meta):
    def __init__(self, *a, **k): pass
    def __call__(self, *a, **k): return _Dummy()
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Dummy()
    def __getitem__(self, k): return _Dummy()
    def __class_getitem__(cls, k): return cls
    def __or__(self, o): return _Dummy
    def __ror__(self, o): return _Dummy
    def __radd__(self, o): return o
    def __add__(self, o): return o
    def __iter__(self): return iter(())
    def __bool__(self): return False
    def __enter__(self): return self
    def __exit__(self, *a): return False
class _Mod(types.ModuleType):
    __path__ = []
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        sub = _Mod(self.__name__ + "." + name)
        sys.modules[sub.__name__] = sub
        setattr(self, name, sub)
        return sub
    def __call__(self, *a, **k): return _Dummy()
    def __getitem__(self, k): return _Dummy
    def __or__(self, o): return _Dummy
    def __ror__(self, o): return _Dummy
    def __mro_entries__(self, bases): return (_Dummy,)
    def __bool__(self): return False
class _Finder:
    def find_spec(self, name, path, target=None):
        if name.startswith("torch."):
            return importlib.util.spec_from_loader(name, self)
        return None
    def create_module(self, spec): return _Mod(spec.name)
    def exec_module(self, m): pass
sys.meta_path.insert(0, _Finder())
sys.modules[__name__].__class__ = _Mod
__version__ = "2.7.1"
Tensor = _Dummy
class iinfo:
    def __init__(self, dt):
        self.min, self.max, self.bits = -(2**63), 2**63 - 1, 64
'''


def install_torch_stand_in():
    root = tempfile.mkdtemp(prefix="torch-stand-in-")
    os.makedirs(os.path.join(root, "torch"))
    with open(os.path.join(root, "torch", "__init__.py"), "w") as f:
        f.write(STUB)
    sys.path.insert(0, root)
    sys.path.insert(0, os.environ["VLLM_WHEEL_DIR"])
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")


def gpt_oss_tokenizer(enc):
    from tokenizers import AddedToken
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    path = os.path.join(os.environ["TIKTOKEN_ENCODINGS_BASE"], "o200k_base.tiktoken")
    tok = TikTokenConverter(vocab_file=path, additional_special_tokens=[]).converted()
    base = tok.get_vocab_size()
    specials = []
    for i in range(base, 200019):
        try:
            name = enc.decode([i])
        except Exception:
            name = f"<|reserved_{i}|>"
        specials.append(AddedToken(name, special=True, normalized=False))
    tok.add_special_tokens(specials)
    return PreTrainedTokenizerFast(tokenizer_object=tok)


def completion_tokens(enc, n_tokens):
    """A harmony completion: analysis channel, then final channel, English prose from the stdlib's docstrings."""
    import asyncio as a
    import json as j
    import typing as t

    prose = " ".join(" ".join((m.__doc__ or "").split()) for m in (a, j, t, a.Queue, a.Event, j.JSONDecoder))
    body = enc.encode(prose, allowed_special=set())
    half = n_tokens // 2
    head = enc.encode("<|channel|>analysis<|message|>", allowed_special="all")
    mid = enc.encode("<|end|><|start|>assistant<|channel|>final<|message|>", allowed_special="all")
    tail = enc.encode("<|return|>", allowed_special="all")
    return head + body[:half] + mid + body[half : 2 * half] + tail


def make_world(n_req, tokens, tokenizer):
    from vllm.sampling_params import RequestOutputKind, SamplingParams
    from vllm.v1.engine import EngineCoreRequest
    from vllm.v1.engine.output_processor import OutputProcessor, RequestOutputCollector

    class Group:
        def get_lora_tokenizer(self, lora_request=None):
            return tokenizer

    proc = OutputProcessor(Group(), log_stats=True)
    queues = []
    for r in range(n_req):
        params = SamplingParams(max_tokens=len(tokens), output_kind=RequestOutputKind.DELTA)
        req = EngineCoreRequest(
            request_id=f"chatcmpl-{r}",
            prompt_token_ids=tokens[:64],
            mm_kwargs=None,
            mm_hashes=None,
            mm_placeholders=None,
            sampling_params=params,
            pooling_params=None,
            eos_token_id=200002,
            arrival_time=time.time(),
            lora_request=None,
            cache_salt=None,
            data_parallel_rank=None,
        )
        q = RequestOutputCollector(RequestOutputKind.DELTA)
        proc.add_request(req, None, None, 0, q)
        queues.append(q)
    return proc, queues


def chunk_for(output, parser, request_id, created):
    """The harmony branch of chat_completion_stream_generator for one RequestOutput (no tools, no logprobs)."""
    from vllm.entrypoints.openai.protocol import (
        ChatCompletionResponseStreamChoice,
        ChatCompletionStreamResponse,
        DeltaMessage,
    )

    out = output.outputs[0]
    for token_id in out.token_ids:
        parser.process(token_id)
    is_final = parser.current_channel == "final"
    delta_text = parser.last_content_delta or ""
    delta = DeltaMessage(content=delta_text) if is_final else DeltaMessage(reasoning_content=delta_text)
    choice = ChatCompletionResponseStreamChoice(index=0, delta=delta, logprobs=None, finish_reason=None)
    chunk = ChatCompletionStreamResponse(
        id=request_id, object="chat.completion.chunk", created=created, choices=[choice], model="openai/gpt-oss-20b"
    )
    return f"data: {chunk.model_dump_json(exclude_unset=True)}\n\n"


def chunk_line(tokens, tokenizer):
    """A mid-stream chat chunk's SSE line, as the harmony branch builds it."""
    from vllm.entrypoints.harmony_utils import get_streamable_parser_for_assistant
    from vllm.v1.metrics.stats import IterationStats

    proc, queues = make_world(1, tokens, tokenizer)
    parser = get_streamable_parser_for_assistant()
    line = ""
    for k in range(40):
        proc.process_outputs(step_outputs(1, tokens[k]), time.monotonic(), IterationStats())
        line = chunk_for(queues[0].get_nowait(), parser, "chatcmpl-0123456789abcdef0123456789abcdef", int(time.time()))
    return line


def step_outputs(n_req, token):
    from vllm.v1.engine import EngineCoreOutput

    return [EngineCoreOutput(request_id=f"chatcmpl-{r}", new_token_ids=[token]) for r in range(n_req)]


def run_split(n_req, tokens, tokenizer):
    """Engine side and server side timed apart in process CPU time, per token per request (seconds)."""
    from vllm.entrypoints.harmony_utils import get_streamable_parser_for_assistant
    from vllm.v1.metrics.stats import IterationStats

    proc, queues = make_world(n_req, tokens, tokenizer)
    parsers = [get_streamable_parser_for_assistant() for _ in range(n_req)]
    created = int(time.time())
    engine = server = 0.0
    steps = len(tokens) - 1
    for k in range(steps):
        outs = step_outputs(n_req, tokens[k])
        t0 = time.process_time()
        proc.process_outputs(outs, time.monotonic(), IterationStats())
        t1 = time.process_time()
        for r, q in enumerate(queues):
            chunk_for(q.get_nowait(), parsers[r], f"chatcmpl-{r}", created)
        t2 = time.process_time()
        engine += t1 - t0
        server += t2 - t1
    return engine / (steps * n_req), server / (steps * n_req)


async def run_together(n_req, tokens, tokenizer):
    """One producer (the output handler) and n_req consumer tasks on one event loop; process CPU time and wall time
    per step / n_req."""
    from vllm.entrypoints.harmony_utils import get_streamable_parser_for_assistant
    from vllm.v1.metrics.stats import IterationStats

    proc, queues = make_world(n_req, tokens, tokenizer)
    steps = len(tokens) - 1
    created = int(time.time())
    sent = [0] * n_req

    async def consumer(r):
        parser = get_streamable_parser_for_assistant()
        q = queues[r]
        while sent[r] < steps:
            out = q.get_nowait() or await q.get()
            chunk_for(out, parser, f"chatcmpl-{r}", created)
            sent[r] += len(out.outputs[0].token_ids)

    tasks = [asyncio.create_task(consumer(r)) for r in range(n_req)]
    await asyncio.sleep(0)
    c0, t0 = time.process_time(), time.perf_counter()
    for k in range(steps):
        proc.process_outputs(step_outputs(n_req, tokens[k]), time.monotonic(), IterationStats())
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    n = steps * n_req
    return (time.process_time() - c0) / n, (time.perf_counter() - t0) / n


SERVER = """
import sys, uvicorn
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
app = FastAPI()
LINE = sys.argv[2]
@app.get("/s")
async def stream(n: int):
    async def gen():
        for _ in range(n):
            yield LINE
    return StreamingResponse(gen(), media_type="text/event-stream")
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), loop="uvloop", http="httptools",
            log_level="warning", access_log=False)
"""


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def fetch_stream(port, n):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /s?n={n} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    while await reader.read(65536):
        pass
    writer.close()


def http_send(line, streams_list, chunks):
    """Server CPU seconds per SSE chunk sent, for each count of concurrent streams."""
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port), line])
    try:
        for _ in range(200):
            try:
                asyncio.run(fetch_stream(port, 10))
                break
            except OSError:
                time.sleep(0.1)
        out = {}
        for n in streams_list:
            c0 = cpu_seconds(proc.pid)

            async def all_streams():
                await asyncio.gather(*(fetch_stream(port, chunks) for _ in range(n)))

            asyncio.run(all_streams())
            out[n] = (cpu_seconds(proc.pid) - c0) / (n * chunks)
        return out
    finally:
        proc.terminate()
        proc.wait()


def versions():
    from importlib.metadata import version

    names = (
        "openai-harmony",
        "tokenizers",
        "transformers",
        "pydantic",
        "pydantic_core",
        "msgspec",
        "openai",
        "fastapi",
        "starlette",
        "uvicorn",
        "uvloop",
        "httptools",
    )
    return {n: version(n) for n in names}


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    install_torch_stand_in()
    from openai_harmony import HarmonyEncodingName, load_harmony_encoding

    enc = load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)
    tokenizer = gpt_oss_tokenizer(enc)
    tokens = completion_tokens(enc, int(os.environ.get("TOKENS", "600")))
    repeats = int(os.environ.get("REPEATS", "3"))
    line = chunk_line(tokens, tokenizer)
    sends = [http_send(line, (1, 4, 8, 16), int(os.environ.get("CHUNKS", "4000"))) for _ in range(repeats)]
    rows = []
    for n_req in (1, 4, 8, 16):
        split = [run_split(n_req, tokens, tokenizer) for _ in range(repeats)]
        together = [asyncio.run(run_together(n_req, tokens, tokenizer)) for _ in range(repeats)]
        rows.append(
            {
                "requests": n_req,
                "engine_side_us": round(statistics.median(s[0] for s in split) * 1e6, 2),
                "server_side_us": round(statistics.median(s[1] for s in split) * 1e6, 2),
                "together_cpu_us": round(statistics.median(t[0] for t in together) * 1e6, 2),
                "together_wall_us": round(statistics.median(t[1] for t in together) * 1e6, 2),
                "http_send_cpu_us": round(statistics.median(x[n_req] for x in sends) * 1e6, 2),
            }
        )
    print(
        json.dumps(
            {
                "what": "microseconds of API-server Python per streamed output token per request, vLLM 0.10.1 harmony chat path (engine_side, server_side and together_cpu: process CPU time; together_wall: wall time on a shared host)",
                "vllm": "0.10.1 (wheel vllm-0.10.1-cp38-abi3-manylinux1_x86_64.whl, pure-Python modules)",
                "python": platform.python_version(),
                "versions": versions(),
                "cpu": cpu_model(),
                "logical_cpus": os.cpu_count(),
                "load_average_1m": round(os.getloadavg()[0], 2),
                "tokens_per_request": len(tokens),
                "repeats": repeats,
                "rows": rows,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
