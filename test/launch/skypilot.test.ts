// The SkyPilot task (sky.yaml) of rented plans, offline against what SkyPilot 0.14.1 itself read
// (test/fixtures/launch-libs/skypilot.json, written by scripts/check-launch-libs/sky.py with sky.Task.from_yaml):
// the keys its schemas accept, the node variables it sets, and each written task as SkyPilot parsed it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SKY_CASES, skyCaseInput } from '../../scripts/check-launch-libs/sky-folders.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { SKY_FILE, SKY_VARS, SKYPILOT_VERSION } from '../../src/core/launch/skypilot.js';
import {
  SKY_ACCELERATORS,
  SKY_CLOUDS,
  skyAcceleratorOf,
} from '../../src/core/launch/skypilot-gpus.js';
import { mapSkyPilot } from '../../src/core/from/skypilot.js';
import { detectFormat } from '../../src/core/from/index.js';
import { loadOffers } from '../../src/io/load-catalog.js';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';

interface SkyTask {
  num_nodes: number;
  workdir: string;
  setup: string | null;
  resources: {
    cloud: string | null;
    accelerators: Record<string, number>;
    use_spot: boolean;
    disk_size: number;
    ports: string[] | null;
  };
}
const FIXTURE = JSON.parse(
  readFileSync(new URL('../fixtures/launch-libs/skypilot.json', import.meta.url), 'utf8'),
) as {
  skypilot: string;
  taskKeys: string[];
  resourcesKeys: string[];
  nodeVariables: string[];
  tasks: Record<string, SkyTask>;
  errors: Record<string, string>;
  catalog: { source: string; accelerators: Record<string, string[]> };
};

const written = SKY_CASES.map((row) => {
  const bundle = buildLaunch(skyCaseInput(row));
  const file = bundle.files.find((f) => f.path === SKY_FILE);
  return {
    row,
    bundle,
    text: file?.content,
    doc: file ? (parse(file.content) as Record<string, unknown>) : null,
  };
});

describe('sky.yaml against SkyPilot 0.14.1', () => {
  it('the fixture is of the release the emitter follows, and SkyPilot refused no task', () => {
    expect(FIXTURE.skypilot).toBe(SKYPILOT_VERSION);
    expect(FIXTURE.errors).toEqual({});
  });

  it('every rented case writes a task whose keys SkyPilot schemas accept', () => {
    for (const w of written) {
      expect(w.doc, w.row.name).not.toBeNull();
      const doc = w.doc!;
      expect(
        Object.keys(doc).filter((k) => !FIXTURE.taskKeys.includes(k)),
        w.row.name,
      ).toEqual([]);
      const res = doc.resources as Record<string, unknown>;
      expect(
        Object.keys(res).filter((k) => !FIXTURE.resourcesKeys.includes(k)),
        w.row.name,
      ).toEqual([]);
    }
  });

  it('each task reads as SkyPilot read it (accelerators, spot, disk, nodes, ports, setup)', () => {
    for (const w of written) {
      const seen = FIXTURE.tasks[w.row.name];
      expect(
        seen,
        `${w.row.name}: not in the fixture; run scripts/check-launch-libs/sky.py`,
      ).toBeDefined();
      const doc = w.doc!;
      const res = doc.resources as Record<string, unknown>;
      const [name, count] = String(res.accelerators).split(':');
      expect({ [name!]: Number(count) }).toEqual(seen!.resources.accelerators);
      expect(res.use_spot).toBe(seen!.resources.use_spot);
      expect(res.disk_size).toBe(seen!.resources.disk_size);
      expect(doc.num_nodes ?? 1).toBe(seen!.num_nodes);
      expect(doc.workdir).toBe(seen!.workdir);
      expect(doc.setup).toBe(seen!.setup);
      const ports = res.ports === undefined ? [] : [res.ports].flat().map(Number);
      const seenPorts = (seen!.resources.ports ?? []).flatMap((p) => {
        const [a, b] = p.split('-').map(Number);
        return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => a! + i);
      });
      expect(ports).toEqual(seenPorts);
      expect(seen!.resources.cloud?.toLowerCase() ?? null).toBe(
        (res.infra as string | undefined) ?? null,
      );
    }
  });

  it('run uses only the node variables SkyPilot sets', () => {
    for (const v of Object.values(SKY_VARS)) expect(FIXTURE.nodeVariables).toContain(v);
    for (const w of written) {
      const used = String(w.doc!.run).match(/SKYPILOT_[A-Z_]+/g) ?? [];
      for (const v of used) expect(FIXTURE.nodeVariables, w.row.name).toContain(v);
    }
  });
});

describe('the plan in the task', () => {
  const byName = (n: string) => written.find((w) => w.row.name === n)!;

  it('multi-node: num_nodes machines of the offer size, rank and machine 0 from SkyPilot', () => {
    const w = byName('sky-lambda-fsdp-2node');
    expect(w.doc!.num_nodes).toBe(2);
    expect((w.doc!.resources as Record<string, unknown>).accelerators).toBe('H100:8');
    const run = String(w.doc!.run);
    expect(run).toContain('export NODE_RANK="$SKYPILOT_NODE_RANK"');
    expect(run).toContain('export MASTER_ADDR="$(echo "$SKYPILOT_NODE_IPS" | head -n 1)"');
    expect(run.trim().split('\n').at(-1)).toBe('bash launch.sh');
    // launch.sh reads what run exports.
    const launch = w.bundle.files.find((f) => f.path === 'launch.sh')!.content;
    expect(launch).toMatch(/NODE_RANK/);
    expect(launch).toMatch(/MASTER_ADDR/);
  });

  it('single machine: no num_nodes, no rank exports', () => {
    const w = byName('sky-lambda-a6000-lora');
    expect(w.doc!.num_nodes).toBeUndefined();
    expect(String(w.doc!.run)).not.toContain('NODE_RANK');
    expect((w.doc!.resources as Record<string, unknown>).accelerators).toBe('A6000:1');
  });

  it('spot as the offer says; on-demand where the offer is not spot', () => {
    for (const w of written) {
      const offer = w.row.offer;
      const res = w.doc!.resources as Record<string, unknown>;
      expect(res.use_spot, offer).toBe(offer.includes('-spot'));
    }
  });

  it('serving: serve.sh as run, the servers ports in resources.ports', () => {
    const one = byName('sky-serve-vllm-runpod');
    expect((one.doc!.resources as Record<string, unknown>).ports).toBe(8000);
    expect(String(one.doc!.run).trim().split('\n').at(-1)).toBe('bash serve.sh');
    const two = byName('sky-serve-vllm-2replicas-lambda');
    expect((two.doc!.resources as Record<string, unknown>).ports).toEqual([8000, 8001]);
    const sg = byName('sky-serve-sglang-modal');
    expect((sg.doc!.resources as Record<string, unknown>).ports).toBe(30000);
    // Modal is no SkyPilot cloud: no infra, SkyPilot picks among the user's clouds.
    expect((sg.doc!.resources as Record<string, unknown>).infra).toBeUndefined();
  });

  it('disk holds the download and a full fine-tune checkpoint: 70B full > 1 TB, never below SkyPilot default', () => {
    const big = byName('sky-aws-70b-full-2node');
    // 70.6e9 params x (2 B download + 14 B saved) + 50 GB ≈ 1180 GB.
    expect((big.doc!.resources as Record<string, unknown>).disk_size).toBeGreaterThan(1000);
    for (const w of written)
      expect((w.doc!.resources as Record<string, unknown>).disk_size).toBeGreaterThanOrEqual(256);
  });

  it('the price in the task header is the catalog offer price', () => {
    for (const w of written) {
      const offer = loadOffers().find((o) => o.id === w.row.offer)!;
      expect(w.text).toContain(`$${offer.usdPerGpuHour}/GPU-hour`);
      expect(w.text).toContain('SkyPilot may find another');
    }
  });

  it('owned GPUs get no task', () => {
    const { offer: _, ...owned } = skyCaseInput(SKY_CASES[0]!);
    expect(buildLaunch(owned).files.some((f) => f.path === SKY_FILE)).toBe(false);
  });

  it('a multi-node plan on a cloud SkyPilot runs single machines only: no task, the reason named', () => {
    const x = skyCaseInput({
      name: 'runpod-2node',
      model: 'llama-3.1-8b',
      offer: 'runpod-h100-sxm-on-demand',
      flags: { method: 'full', zero: '3', gpus: '2', checkpointing: 'full' },
    });
    const b = buildLaunch(x);
    expect(b.files.some((f) => f.path === SKY_FILE)).toBe(false);
    const sky = b.outputs.find((o) => o.engine === 'SkyPilot');
    expect(sky && !sky.ok && sky.reason).toMatch(/no multi-node clusters on runpod/);
  });
});

describe('GPU names', () => {
  it('every offer on a SkyPilot cloud maps to a name, every name is in SkyPilot catalog', () => {
    const names = new Set(Object.keys(FIXTURE.catalog.accelerators));
    const missing: string[] = [];
    for (const offer of loadOffers()) {
      const cloud = SKY_CLOUDS[offer.provider];
      expect(cloud, offer.provider).not.toBeUndefined();
      const name = skyAcceleratorOf(offer.gpuId, cloud ?? null);
      expect(name, offer.id).not.toBeNull();
      if (!names.has(name!)) missing.push(name!);
    }
    // RTX PRO 6000: named by SkyPilot's RunPod and AWS fetchers (fetch_runpod.py DEFAULT_GPU_INFO, fetch_aws.py
    // g7e), absent from the catalog copy the fixture holds.
    expect([...new Set(missing)]).toEqual(['RTXPRO6000']);
  });

  it('a cloud-specific name is listed for that cloud in the catalog', () => {
    for (const row of Object.values(SKY_ACCELERATORS))
      for (const [infra, name] of Object.entries(row.byCloud ?? {})) {
        if (name === 'RTXPRO6000') continue;
        const clouds = (FIXTURE.catalog.accelerators[name] ?? []).map((c) => c.toLowerCase());
        expect(clouds, `${name} on ${infra}`).toContain(infra);
      }
  });
});

describe('--from reads the task back', () => {
  it('mapSkyPilot: GPU, total count and GPUs a machine', () => {
    for (const w of written) {
      expect(detectFormat(w.doc!)).toBe('skypilot');
      const m = mapSkyPilot(w.doc!);
      const x = skyCaseInput(w.row);
      expect(m.flags.gpu, w.row.name).toBe(x.gpu.id);
      expect(m.flags['gpus-per-node'], w.row.name).toBe(Math.min(x.options.gpus, x.gpusPerNode!));
      expect(m.flags.gpus, w.row.name).toBe(x.options.gpus);
    }
  });

  it('without the vramplan env, the table reads the name on its cloud (RunPod H100-SXM is h100-sxm)', () => {
    const doc = parse(
      written.find((w) => w.row.name === 'sky-runpod-h100-torchtune')!.text!,
    ) as Record<string, unknown>;
    delete doc.envs;
    expect(mapSkyPilot(doc).flags.gpu).toBe('h100-sxm');
  });

  it('a bad accelerator value is a one-line error naming the key', () => {
    expect(() => mapSkyPilot({ resources: { accelerators: 'H100:x' }, run: 'x' })).toThrow(
      /resources\.accelerators/,
    );
    expect(() => mapSkyPilot({ resources: { accelerators: 'Z9000:1' }, run: 'x' })).toThrow(
      /SkyPilot accelerator vramplan knows/,
    );
    expect(() =>
      mapSkyPilot({ resources: { accelerators: 'H100:8' }, num_nodes: 0, run: 'x' }),
    ).toThrow(/num_nodes/);
    expect(() =>
      mapSkyPilot({ resources: { accelerators: { H100: 8, A100: 8 } }, run: 'x' }),
    ).toThrow(/one accelerator and its count/);
  });
});

describe.skipIf(!cliBuilt())('CLI: launch --offer, then --from sky.yaml and the folder', () => {
  const s = scratchDir('vramplan-sky-');
  let out = '';
  beforeAll(() => {
    out = join(s.dir, 'run');
    const r = runCli([
      'launch',
      '--model',
      'llama-3.1-8b',
      '--gpu',
      'h100-sxm',
      '--gpus',
      '16',
      '--method',
      'full',
      '--zero',
      '3',
      '--checkpointing',
      'full',
      '--offer',
      'lambda-h100-sxm-on-demand-8x',
      '--out',
      out,
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
  afterAll(() => s.remove());

  it('the README says the price is the catalog one and SkyPilot may find another', () => {
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('sky launch sky.yaml');
    expect(readme).toMatch(/may find a different price/);
    expect(readme).toContain('$3.99/GPU-hour');
  });

  it('--from sky.yaml and --from the folder give the plan GPU, count and machines', () => {
    for (const from of [join(out, 'sky.yaml'), out]) {
      const r = runCli(['estimate', '--from', from, '--model', 'llama-3.1-8b', '--json']);
      expect(r.status, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout) as {
        options: { gpus: number };
        gpu: { id: string };
        time: { settings: { gpusPerNode: number } };
      };
      expect(j.options.gpus).toBe(16);
      expect(j.gpu.id).toBe('h100-sxm');
      expect(j.time.settings.gpusPerNode).toBe(8);
    }
  });

  it('a bad sky.yaml through estimate --from is one line naming the file and the key', () => {
    const f = s.file(
      'bad-sky.yaml',
      'resources:\n  accelerators: H100:zero\nrun: bash launch.sh\n',
    );
    const r = runCli(['estimate', '--from', f, '--model', 'llama-3.1-8b', '--json']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/bad-sky\.yaml: resources\.accelerators: got 'H100:zero'/);
  });

  it('--offer of another GPU, or an unknown offer, is a one-line error and writes nothing', () => {
    const bad = join(s.dir, 'bad');
    for (const offer of ['runpod-rtx-4090-spot', 'nope']) {
      const r = runCli([
        'launch',
        '--model',
        'llama-3.1-8b',
        '--gpu',
        'h100-sxm',
        '--offer',
        offer,
        '--out',
        bad,
      ]);
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^vramplan: --offer: /);
      expect(r.stderr).not.toMatch(/at .*\.js/);
      expect(existsSync(bad)).toBe(false);
    }
  });
});

describe.skipIf(!cliBuilt())('CLI: a ranked plan carries its offer into the task', () => {
  const s = scratchDir('vramplan-sky-plan-');
  afterAll(() => s.remove());

  it('plan --export, then launch --from-plan: the task of the offer the plan rents; a bad offerId is named', () => {
    const plans = join(s.dir, 'plans.json');
    const p = runCli(['plan', 'scenarios/serve-405b-fp8-8xh100.yaml', '--export', plans]);
    expect(p.status, p.stderr).toBe(0);
    const out = join(s.dir, 'run');
    const r = runCli(['launch', '--from-plan', plans, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    const task = parse(readFileSync(join(out, 'sky.yaml'), 'utf8')) as {
      resources: Record<string, unknown>;
    };
    expect(task.resources).toMatchObject({ infra: 'lambda', accelerators: 'H100:8', ports: 8000 });
    const j = JSON.parse(readFileSync(plans, 'utf8')) as {
      plans: { hardware: { offerId: string } }[];
    };
    j.plans[0]!.hardware.offerId = 'no-such-offer';
    const bad = s.file('bad.json', JSON.stringify(j));
    const e = runCli(['launch', '--from-plan', bad, '--out', join(s.dir, 'x')]);
    expect(e.status).toBe(1);
    expect(e.stderr).toMatch(/plans\[0\]\.hardware\.offerId: got 'no-such-offer'/);
  });
});
