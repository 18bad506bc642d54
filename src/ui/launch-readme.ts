/** README.md of a launch folder: the plan, its memory breakdown, expected slowdown, files and assumptions. */
import type { LaunchBundle, LaunchInput } from '../core/launch/index.js';
import type { EstimateResult } from '../core/estimate.js';
import { planSummary } from '../core/launch/index.js';
import { isAdapter, shardingOf } from '../core/launch/common.js';
import type { Breakdown } from '../core/memory/index.js';
import { slowingTechniques } from '../core/time/slowdown.js';
import {
  formatCount,
  formatDeviceMemory,
  formatGiB,
  formatInt,
  servedKernelName,
} from './format.js';
import { COMPONENT_LABEL, PHASE_LABEL } from './messages.js';
import { HOST_RAM_LABEL, hostRamFigure } from './host-ram-text.js';
import { hostRamOfOptions } from '../core/memory/host-ram.js';
import { skyRunLines } from './sky-readme.js';
import { MiB } from '../core/units.js';
import { visionTokens } from '../core/model/vision.js';

/** A learning rate as the README writes it (1e-6). */
const formatLr = (lr: number): string => lr.toExponential(0);

/** A key's first number in the written files (JSON `"key": v`, YAML `key: v`, Python `key=v`), or null. */
function writtenNumber(bundle: LaunchBundle, key: string): number | null {
  const re = new RegExp(`(?<![\\w.])["']?${key}["']?\\s*[:=]\\s*(-?[0-9][0-9.eE+-]*)`);
  for (const f of bundle.files) {
    const m = re.exec(f.content);
    const v = m ? Number(m[1]) : NaN;
    if (Number.isFinite(v)) return v;
  }
  return null;
}

/** The README's line on the starting hyperparameters: what the files write, read back from them. */
function startingPoints(bundle: LaunchBundle, adapter: boolean): string {
  const lr = writtenNumber(bundle, 'learning_rate') ?? writtenNumber(bundle, 'lr');
  const alpha = adapter ? writtenNumber(bundle, 'lora_alpha') : null;
  const dropout = adapter ? writtenNumber(bundle, 'lora_dropout') : null;
  const parts = [
    lr !== null ? `learning rate ${formatLr(lr)}` : null,
    alpha !== null ? `LoRA alpha ${alpha}` : null,
    dropout !== null ? `LoRA dropout ${dropout}` : null,
  ].filter((p): p is string => p !== null);
  return `- Starting points as the files write them${parts.length > 0 ? ` (${parts.join(', ')})` : ''}: the engine's recipe where a note under Files names one, else 2e-5 full fine-tuning and 2e-4 LoRA/QLoRA, LoRA alpha = 2r.`;
}

/**
 * The plan table's images row, where the plan carries images (launch's `--images` / `--image-pixels`, as estimate
 * takes them): the flags, and the tokens they add to the context the row above shows (core/model/vision.ts).
 */
function imagesRows(x: LaunchInput<EstimateResult>): [string, string][] {
  const o = x.options;
  const v = o.images ? visionTokens(x.arch, o.images, o.imagePixels) : null;
  if (!o.images || !v) return [];
  const flags = `--images ${o.images}${o.imagePixels !== undefined ? ` --image-pixels ${o.imagePixels}` : ''}`;
  return [
    [
      'images',
      `${o.images} a sequence at ${formatInt(v.pixels)} pixels (\`${flags}\`): ${formatInt(v.tokens)} of its ${formatInt(o.seq)} tokens (${formatInt(v.perImage)} an image); the vision tower is in the memory and time below`,
    ],
  ];
}

/** The kernel family a served plan's quantized weights run through (Marlin, CUTLASS W8A8, ...), as the plan names it. */
const servedKernel = (x: LaunchInput<EstimateResult>): string => {
  const k = servedKernelName(x.estimate.time?.settings.quantFormat);
  return k ? ` (${k} kernel)` : '';
};

export function renderLaunchReadme(x: LaunchInput<EstimateResult>, bundle: LaunchBundle): string {
  const o = x.options;
  const r = x.estimate;
  const dp = o.gpus / (o.tp * o.pp);
  const out: string[] = [];
  out.push(`# Launch plan: ${x.arch.id} (${o.method})`, '');
  out.push(`${planSummary(x)}`, '');
  out.push(
    `Engine: **${bundle.engine}**: the engine whose memory and time vramplan modelled for this plan; the files below run it.`,
    '',
  );
  out.push('## The plan', '');
  out.push(`| setting | value |`, `|---|---|`);
  const serving = o.method === 'inference';
  const model: [string, string] = [
    'model',
    `${x.modelRef} (${x.arch.modelType}, ${formatCount(r.params.total)} parameters${serving ? '' : `, ${formatCount(r.params.trainable)} trainable`})`,
  ];
  // Serving plans carry only what a server is started with: no optimizer, accumulation, recompute or loss rows.
  const trainingRows: [string, string][] = [
    [
      'method',
      o.method +
        (o.method === 'lora' || o.method === 'qlora'
          ? ` r=${o.loraRank}, targets ${o.loraAllLinear ? 'all-linear' : o.loraTargets.join(',')}`
          : ''),
    ],
    [
      'base weights / compute',
      `${o.weights}${o.doubleQuant ? ' (double quant)' : ''} / ${o.compute}${o.masterWeights ? ', fp32 master weights' : ''}`,
    ],
    [
      'optimizer',
      `${o.optimizer} (states ${o.optimizerStates})${o.optimizerInBackward ? ', stepped in backward' : ''}`,
    ],
    ['micro-batch x sequence', `${o.batch} x ${o.seq} tokens`],
    ...imagesRows(x),
    [
      'gradient accumulation',
      `${x.gradAccum} (global batch ${o.batch * x.gradAccum * dp} sequences)`,
    ],
    ['activation checkpointing', o.checkpointing],
    ['attention / chunked loss', `${o.attention} / ${o.chunkedLoss ? 'yes' : 'no'}`],
  ];
  const servingRows: [string, string][] = [
    ['method', 'inference (serving)'],
    [
      'weights / compute',
      `${o.weights}${servedKernel(x)}${o.doubleQuant ? ' (double quant)' : ''} / ${o.compute}`,
    ],
    ['KV cache', o.kvCacheDtype && o.kvCacheDtype !== 'auto' ? o.kvCacheDtype : 'model dtype'],
    ['sequences at once x context', `${o.batch} x ${o.seq} tokens`],
    ...imagesRows(x),
  ];
  const rows: [string, string][] = [
    model,
    ...(serving ? servingRows : trainingRows),
    [
      'GPUs',
      serving
        ? `${o.gpus} x ${x.gpu.name} (${dp} replica${dp > 1 ? 's' : ''}, tp ${o.tp}, pp ${o.pp})`
        : `${o.gpus} x ${x.gpu.name} (dp ${dp}, tp ${o.tp}, pp ${o.pp})`,
    ],
    ...(serving
      ? []
      : ([
          [
            'sharding',
            o.zero === 0 ? 'none' : `ZeRO-${o.zero} via ${shardingOf(x)}, offload ${o.offload}`,
          ],
        ] as [string, string][])),
    [
      'power limit',
      x.powerLimitW === null ? 'board default' : `${formatInt(x.powerLimitW)} W per GPU`,
    ],
  ];
  for (const [k, v] of rows) out.push(`| ${k} | ${v} |`);
  out.push('', '## Memory per GPU (vramplan estimate)', '');
  out.push(`Peak at the ${PHASE_LABEL[r.peakPhase]}.`, '');
  out.push('| component | memory |', '|---|---:|');
  // A serving engine's KV row is the pool it pre-allocates, not the KV its planned sequences hold (the plan
  // table's "KV cache in use"): labelled so.
  // A pool short of the plan's sequences (a static fraction: SGLang) pre-allocates less than the row counts.
  const label = (key: keyof Breakdown, bytes: number): string =>
    key !== 'kvCache' || !r.serving
      ? COMPONENT_LABEL[key]
      : r.serving.kvPoolBytes < bytes - MiB
        ? `KV cache of the plan's ${o.batch} sequences (the pool pre-allocates ${formatGiB(r.serving.kvPoolBytes)})`
        : 'KV cache pool (pre-allocated)';
  for (const [key, bytes] of Object.entries(r.perGpu.breakdown) as [keyof Breakdown, number][])
    if (bytes > 0) out.push(`| ${label(key, bytes)} | ${formatGiB(bytes)} |`);
  out.push(`| **allocated (torch peak)** | ${formatGiB(r.perGpu.allocatedBytes)} |`);
  out.push(`| **reserved (caching allocator)** | ${formatGiB(r.perGpu.reservedBytes)} |`);
  out.push(`| **device (nvidia-smi)** | ${formatDeviceMemory(r.perGpu.deviceBytes)} |`);
  // The plan's own figure (Plan.hostRam is the same function over the same node): one host-RAM number.
  const host = hostRamOfOptions(x.arch, o, r.params.total, r.hostBytesPerGpu, x.gpusPerNode);
  out.push(`| ${HOST_RAM_LABEL} | ${hostRamFigure(host)} |`);
  out.push('');
  if (r.serving) out.push(poolSentence(r.serving, o.batch), '');
  if (r.gpu)
    out.push(
      r.fits
        ? `Fits: ${formatGiB(r.gpu.headroomBytes)} headroom on ${r.gpu.name} (${formatGiB(r.gpu.capacityBytes)}). Likely measured range ${formatGiB(r.uncertainty.lowBytes, 1)} – ${formatGiB(r.uncertainty.highBytes, 1)}.`
        : `**Does not fit**: over by ${formatGiB(-r.gpu.headroomBytes)} on ${r.gpu.name}. Run \`vramplan explain\` for the cheapest fixes.`,
    );
  out.push('', '## Expected speed (vramplan time model)', '');
  const t = r.time;
  if (t) {
    out.push(
      o.method === 'inference'
        ? `Decode about ${formatInt(t.decodeTokensPerSecond ?? 0)} tokens/s per replica (${(t.stepSeconds * 1000).toFixed(1)} ms per step), bound by ${t.bound}.`
        : `About ${t.stepSeconds.toFixed(2)} s per optimizer step (${t.settings.gradAccum} micro-batch${t.settings.gradAccum > 1 ? 'es' : ''}) at ${formatInt(t.tokensPerSecondPerGpu)} tokens/s per GPU (MFU ${(t.mfu * 100).toFixed(0)}%), bound by ${t.bound}.`,
      '',
    );
    // A serving plan's prefill of the whole batch is a one-off per request, not part of the decode step.
    const serving = o.method === 'inference';
    const steady = serving ? t.phases.filter((x) => x.phase !== 'prefill') : t.phases;
    const total = steady.reduce((a, x) => a + x.seconds, 0);
    for (const ph of steady)
      if (total > 0 && ph.seconds / total >= 0.005)
        out.push(`- ${ph.phase}: ${Math.round((100 * ph.seconds) / total)}%`);
    const prefill = serving ? (t.phases.find((x) => x.phase === 'prefill')?.seconds ?? 0) : 0;
    if (prefill > 0)
      out.push('', `Prefill of the whole batch: ${prefill.toFixed(2)} s (apart from the step).`);
  }
  const factors = slowingTechniques(o);
  if (factors.length > 0)
    out.push('', `Techniques that cost time here: ${factors.map((f) => f.why).join('; ')}.`);
  out.push('', '## Files', '');
  for (const e of bundle.outputs) {
    if (e.ok) {
      out.push(`- **${e.engine}**: ${e.files.map((f) => `\`${f.path}\``).join(', ')}`);
      for (const n of e.notes) out.push(`  - note: ${n}`);
    } else out.push(`- **${e.engine}**: not written — ${e.reason}`);
  }
  out.push('', '## How to run', '');
  const has = (p: string) => bundle.files.some((f) => f.path === p);
  const machines = x.options.gpus > (x.gpusPerNode ?? x.options.gpus);
  let step = 1;
  if (has('power-limit.sh'))
    out.push(
      machines
        ? `${step++}. \`bash power-limit.sh\` (root) on every machine to cap its GPUs.`
        : `${step++}. \`bash power-limit.sh\` (root) to cap the GPUs.`,
    );
  for (const e of bundle.outputs)
    for (const p of e.ok ? (e.prepare ?? []) : [])
      out.push(
        `${step++}. \`${p.command}\` from this folder${machines ? ' on every machine (or once on a file system they share)' : ''}: ${p.what}.`,
      );
  if (has('train_unsloth.py'))
    out.push('- Unsloth: `bash launch.sh` (edit the dataset line of `train_unsloth.py` first).');
  else if (has('train.py') && has('launch.sh'))
    out.push('- Trainer/TRL: `bash launch.sh` (edit the dataset line of `train.py` first).');
  if (has('torchtitan_vramplan.py'))
    out.push(
      "- torchtitan: `bash launch.sh` (replace `config.dataloader` in `torchtitan_vramplan.py` for your data; the recipe's c4 loader is the default).",
    );
  if (has('litgpt.yaml'))
    out.push(
      '- LitGPT: `bash launch.sh` (replace the `data:` block of `litgpt.yaml` for your data).',
    );
  if (has('torchtune.yaml'))
    out.push(
      '- torchtune: the command in the first line of `torchtune.yaml`, in the torchtune environment (`pip install -r requirements.txt` in a virtualenv of its own: torchtune 0.6.1 needs torch 2.6 and torchao 0.10).',
    );
  if (has('axolotl.yaml'))
    out.push(
      '- axolotl: `axolotl train axolotl.yaml`, in the axolotl environment (`pip install -r requirements-axolotl.txt` in a virtualenv of its own: axolotl pins its own transformers, TRL and PEFT).',
    );
  const server = bundle.outputs.find((e) => e.ok && e.files.some((f) => f.path === 'serve.sh'));
  if (server?.ok)
    out.push(
      `- ${server.engine}: ${server.files.some((f) => f.path === 'serve.sh' && f.content.includes('NODE_RANK=')) ? "`NODE_RANK=<0 on the first machine, 1, ...> bash serve.sh` on every machine (with MASTER_ADDR=<the first machine's address> where serve.sh asks for it: one replica over several machines), then `bash check.sh` asks the replicas a machine answers for a few tokens" : '`bash serve.sh`, then `bash check.sh` asks each replica for a few tokens'}; both in the ${server.engine} environment (\`pip install -r requirements.txt\` in a virtualenv of its own${server.environment ? `: ${server.environment}` : ''}).`,
    );
  if (has('generate.py'))
    out.push(
      '- transformers: `CUDA_VISIBLE_DEVICES=0 python generate.py "your prompt"` (one process per GPU), in the transformers environment (`pip install -r requirements.txt` in a virtualenv of its own).',
    );
  out.push(...skyRunLines(x, bundle));
  out.push(
    '',
    'Your edits are safe: `vramplan launch ... --force` replaces this folder only while it holds the files launch wrote, unchanged (`.vramplan-launch` lists them with their hashes); once a file here is edited or a run writes into the folder, it refuses, and `--keep-old` moves the folder aside as `<folder>.old-<time>` before writing a new one.',
  );
  out.push('', '## Assumptions', '');
  out.push(
    "- Memory is vramplan's estimate for this exact configuration; it ignores NCCL buffers, CUDA graphs, other processes and dataloader workers on the GPU.",
    ...(serving
      ? []
      : [
          startingPoints(bundle, isAdapter(o)),
          '- Dataset, tokenizer paths and checkpoint paths are placeholders to replace.',
        ]),
    "- Key names follow each engine's current documentation (DeepSpeed config-json, Accelerate CLI, Transformers TrainingArguments, TRL SFTConfig, PEFT LoraConfig, torchtune recipes, axolotl config reference); older releases may name some keys differently (e.g. TRL max_seq_length before max_length).",
    '- Slowdown factors multiply: each is a published or measured ratio, not a benchmark of this machine.',
  );
  return `${out.join('\n')}\n`;
}

/**
 * What the KV pool holds against the plan's sequences at their mean context: all of them (part of the pool), or
 * only some, the rest waiting for blocks (time/pool-queue.ts; the expected speed below is at that many).
 */
function poolSentence(v: NonNullable<EstimateResult['serving']>, batch: number): string {
  const held = `The KV cache pool holds ${v.kvTokens.toLocaleString('en-US')} tokens`;
  const mean = `at their mean context (${v.meanContext.toLocaleString('en-US')} tokens)`;
  if (v.sequencesAtMeanContext >= batch)
    return `${held}; the plan's ${batch} sequences ${mean} use part of it (the plan table's "KV cache in use").`;
  return `${held}: ${v.sequencesAtMeanContext} of the plan's ${batch} sequences ${mean} fit in it at once, and the engine keeps the rest waiting until blocks free up (the expected speed below is at ${v.sequencesAtMeanContext}).`;
}
