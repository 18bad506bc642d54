/**
 * vramplan_probe.py without a GPU: it compiles; `run` passes the command's exit code and output through and
 * writes a measured.json the check reads; `serve` scrapes a /metrics endpoint; attach_probe's callback writes a
 * rank record (torch and transformers stand-ins on PYTHONPATH: only the calls the probe makes).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROBE_FILE, PROBE_PY } from '../../src/core/launch/probe-py.js';
import { measuredSchema, rankRecordSchema } from '../../src/schema/measured.js';
import { scratchDir } from '../helpers/run-cli.js';

// The interpreter's own path: the runs below narrow PATH (no nvidia-smi), which may not hold python3.
const found = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
  encoding: 'utf8',
});
const python = found.status === 0 ? found.stdout.trim() : null;
const tmp = scratchDir('vramplan-probe-');
afterAll(() => tmp.remove());
tmp.file(PROBE_FILE, PROBE_PY);
tmp.file('requirements.txt', 'torch==2.12.1\ntransformers==5.14.1\n');
const py = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(python!, args, {
    cwd: tmp.dir,
    encoding: 'utf8',
    timeout: 15_000,
    // No nvidia-smi on PATH: the probe records no GPU rather than failing.
    env: { ...process.env, PATH: '/usr/bin:/bin', ...env },
  });

describe.skipIf(python === null)('vramplan_probe.py', () => {
  it('compiles', () => {
    const r = py(['-m', 'py_compile', PROBE_FILE]);
    expect(r.status, r.stderr).toBe(0);
  });

  it('run: the command runs unchanged, its exit code and output pass through, measured.json is written', () => {
    const r = py([
      PROBE_FILE,
      'run',
      '--',
      'sh',
      '-c',
      'echo to-stdout; echo to-stderr >&2; exit 7',
    ]);
    expect(r.status).toBe(7);
    expect(r.stdout).toBe('to-stdout\n');
    expect(r.stderr).toContain('to-stderr\n');
    const m = measuredSchema.parse(
      JSON.parse(readFileSync(join(tmp.dir, 'measured.json'), 'utf8')),
    );
    expect(m).toMatchObject({ probe: 'run', exitCode: 7, log: 'run.log', gpus: [] });
    expect(Object.keys(m.versions)).toEqual(['torch', 'transformers']);
    const log = readFileSync(join(tmp.dir, 'run.log'), 'utf8');
    expect(log).toContain('to-stdout\n');
    expect(log).toContain('to-stderr\n');
  });

  it('serve: scrapes each port once per interval into metrics.prom', () => {
    const site = join(tmp.dir, 'site');
    mkdirSync(site, { recursive: true });
    writeFileSync(join(site, 'metrics'), 'vllm:num_requests_running{model_name="m"} 3.0\n');
    // A one-shot HTTP server on a free port that serves site/metrics, then the probe against it.
    const script = [
      'import http.server, functools, socketserver, subprocess, sys, threading',
      `h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=${JSON.stringify(site)})`,
      'http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None',
      "s = socketserver.TCPServer(('localhost', 0), h)",
      'threading.Thread(target=s.serve_forever, daemon=True).start()',
      `r = subprocess.run([sys.executable, ${JSON.stringify(PROBE_FILE)}, 'serve', '--ports', str(s.server_address[1]), '--seconds', '0', '--interval', '0'])`,
      's.shutdown()',
      'sys.exit(r.returncode)',
    ].join('\n');
    const r = py(['-c', script]);
    expect(r.status, r.stderr).toBe(0);
    const m = measuredSchema.parse(
      JSON.parse(readFileSync(join(tmp.dir, 'measured.json'), 'utf8')),
    );
    expect(m).toMatchObject({ probe: 'serve', metrics: 'metrics.prom' });
    const prom = readFileSync(join(tmp.dir, 'metrics.prom'), 'utf8');
    expect(prom).toMatch(
      /^# vramplan-scrape port=\d+ t=[\d.]+\nvllm:num_requests_running\{model_name="m"\} 3\.0\n/,
    );
  });

  it("attach_probe: the callback records the rank's torch peaks and the median interval between steps", () => {
    const fake = join(tmp.dir, 'fake');
    mkdirSync(join(fake, 'torch'), { recursive: true });
    writeFileSync(
      join(fake, 'torch', '__init__.py'),
      [
        'class cuda:',
        '    is_available = staticmethod(lambda: True)',
        '    max_memory_allocated = staticmethod(lambda: 123)',
        '    max_memory_reserved = staticmethod(lambda: 456)',
        "    get_device_name = staticmethod(lambda: 'Stand-in GPU')",
        '',
      ].join('\n'),
    );
    writeFileSync(join(fake, 'transformers.py'), 'class TrainerCallback:\n    pass\n');
    const script = [
      'import vramplan_probe',
      'ticks = iter([10.0, 10.5, 11.5, 12.0])',
      'vramplan_probe.time.perf_counter = lambda: next(ticks)',
      'class Trainer:',
      '    def add_callback(self, cb): self.cb = cb',
      'class State: num_input_tokens_seen = 0',
      'trainer = vramplan_probe.attach_probe(Trainer())',
      'for _ in range(4): trainer.cb.on_step_end(None, State(), None)',
      'trainer.cb.on_train_end(None, State(), None)',
    ].join('\n');
    const r = py(['-c', script], { PYTHONPATH: `${fake}:${tmp.dir}`, RANK: '0', WORLD_SIZE: '1' });
    expect(r.status, r.stderr).toBe(0);
    const rec = rankRecordSchema.parse(
      JSON.parse(readFileSync(join(tmp.dir, 'measured.rank0.json'), 'utf8')),
    );
    // Intervals 0.5, 1.0, 0.5 s: median 0.5.
    expect(rec).toMatchObject({
      allocatedBytes: 123,
      reservedBytes: 456,
      gpuName: 'Stand-in GPU',
      steps: 4,
      stepSeconds: 0.5,
    });
  });
});
