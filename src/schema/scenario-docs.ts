/**
 * The description of every field of a scenario, as scenario.schema.json gives it to editors (hover text,
 * completion). Keyed by the field's path; a job field under its kind (`job.inference.outputTokens`), an
 * array's items as `[]`. scenarioJsonSchema (scenario.ts) writes them in; a test checks that every field of
 * the generated schema has one and that no key here names a field the schema lacks.
 */
export const SCENARIO_DOCS: Readonly<Record<string, string>> = {
  $schema: 'Path or URL of this JSON Schema, for editors (ignored by vramplan).',
  name: 'A short title for the scenario, shown at the top of reports and the explorer.',
  description: 'Free text about the scenario (not used in planning).',
  model:
    'The model: a catalog id (vramplan catalog models), a Hugging Face repo id, or a path to a config.json or model folder (relative to this file).',
  job: 'What to run: a fine-tune (kind: fine-tune) or a serving job (kind: inference).',

  'job.fine-tune.kind': 'fine-tune: train the model on a dataset.',
  'job.fine-tune.methods':
    'Methods the planner may choose from: full (every weight trained), lora (16-bit base, adapters trained), qlora (4-bit base, adapters trained).',
  'job.fine-tune.seq': 'Tokens per training sample (sequence length).',
  'job.fine-tune.globalBatch':
    'Samples per optimizer step: micro-batch × gradient accumulation × data-parallel GPUs, kept whatever the micro-batch.',
  'job.fine-tune.datasetTokens':
    'Tokens in the dataset, one epoch; with epochs, the training time and cost.',
  'job.fine-tune.epochs': 'Passes over the dataset (may be fractional).',
  'job.fine-tune.loraRank': 'LoRA rank r of the adapters (lora and qlora).',
  'job.fine-tune.loraTargets':
    "Layers the adapters train: 'all-linear' or a list of q, k, v, o, gate, up, down; default each engine's recipe targets (docs/engines.md).",
  'job.fine-tune.objective':
    'Training objective: sft (default), dpo, orpo, kto, simpo or grpo; independent of the method.',
  'job.fine-tune.rl':
    "GRPO only: the rollout's generations per prompt and its prompt and completion tokens.",
  'job.fine-tune.rl.generations':
    'Completions sampled per prompt (TRL num_generations; at least 2, default 8).',
  'job.fine-tune.rl.promptTokens':
    "Prompt tokens per rollout (default: the job's seq less the completion).",
  'job.fine-tune.rl.completionTokens':
    'Mean generated tokens per completion (default 256, TRL max_completion_length).',

  'job.inference.kind': 'inference: serve the model (generate tokens for requests).',
  'job.inference.context':
    "Tokens per request: its prompt plus the tokens it generates (the request's whole sequence).",
  'job.inference.concurrency':
    'Requests served at once (the decode batch), shared by the replicas.',
  'job.inference.outputTokens':
    'Output tokens of the WHOLE job, all requests together (e.g. 100000000), for its time and cost: not per request. Per request, a request generates context − promptTokens tokens; a value below concurrency × that is warned about.',
  'job.inference.promptTokens':
    'Prompt tokens per request; the rest of context is generated. Default: half the context.',
  'job.inference.slo': 'Service level each request must meet; plans that miss it are pruned.',
  'job.inference.slo.ttftMs': 'Most time to the first token of a request, milliseconds.',
  'job.inference.slo.tpotMs': 'Most time per output token after the first, milliseconds.',
  'job.inference.prefixCaching':
    "Share of each prompt that is a shared prefix (system prompt, few-shot examples) served from vLLM's or SGLang's prefix cache, from 0 up to (not including) 1; only the rest is prefilled.",
  'job.inference.requestsPerSecond':
    "Requests per second the plan's replicas must complete; sets the fleet's size.",
  'job.inference.lora':
    'Multi-LoRA serving: LoRA adapters served at once on the base model (vLLM --max-loras, SGLang --max-loras-per-batch).',
  'job.inference.lora.adapters':
    'Adapters served at once: the adapter slots each server preallocates.',
  'job.inference.lora.rank': "The largest adapter rank (the engine's max LoRA rank). Default 16.",
  'job.inference.haveCheckpoints':
    "Weight formats you already have a checkpoint in (e.g. [int4] for an AWQ copy you made): plans in them add no quantize cost and are not marked 'quantize first'. Default: only published checkpoints and the model's own format count as existing.",

  hardware: 'The GPUs the planner may use: owned, detected, rented or bought.',
  'hardware.owned': 'GPUs you already have.',
  'hardware.owned[].gpu': 'GPU catalog id (vramplan catalog gpus).',
  'hardware.owned[].count': 'How many of this GPU you have.',
  'hardware.owned[].priceUsd':
    'Purchase price per GPU, USD, to amortise over power.amortizeYears; omit to count energy only.',
  'hardware.detect': 'Add the GPUs nvidia-smi reports on this machine (as --detect does).',
  'hardware.rent':
    'Rent GPUs from the dated offers in catalogs/offers/; every field narrows the offers.',
  'hardware.rent.providers': 'Providers to rent from (offer file names, e.g. runpod).',
  'hardware.rent.kinds':
    'Kinds of offer to consider: on-demand, spot, serverless, community, reserved.',
  'hardware.rent.offers': 'Only these offer ids.',
  'hardware.rent.gpus': 'Only offers of these GPU catalog ids.',
  'hardware.buy': 'Buy new GPUs: their price is amortised (or paid) in the cost.',
  'hardware.buy.gpus':
    "GPU catalog ids to consider buying, or 'all' for every GPU with a launch price.",
  'hardware.buy.priceUsd': 'Price per GPU by catalog id, USD; default: the launch price.',
  'hardware.gpusPerNode': 'GPUs per machine; more GPUs than this span several machines.',
  'hardware.interNodeGBps':
    "Network between machines, GB/s per GPU (default 25, Calculon's A100 system's InfiniBand; 10 GbE is 1.25).",
  'hardware.counts': 'GPU counts to consider.',
  'hardware.counts.min': 'Fewest GPUs a plan may use.',
  'hardware.counts.max': 'Most GPUs a plan may use.',
  'hardware.hostRamGiB':
    "Host RAM per machine, GiB (offloaded states, pinned buffers, loading the checkpoint); default twice the machine's GPU memory, at least 64 GiB.",

  power: 'Electricity: circuits, price, power supply and the power limits to try.',
  'power.circuits':
    'Circuits the owned or bought machines plug into: catalog ids (vramplan catalog circuits) or inline circuits; empty: not checked.',
  'power.circuits[].id': "The inline circuit's name.",
  'power.circuits[].volts': 'Circuit voltage, V.',
  'power.circuits[].amps': "The breaker's rating, A.",
  'power.circuits[].continuousFraction':
    "Share of the breaker's rating a continuous load may draw (default 0.8: NEC 210.20(A), a continuous load may use at most 80% of the rating).",
  'power.electricityUsdPerKwh': 'Electricity price, USD per kWh.',
  'power.psu':
    'Power supply efficiency tier (80 PLUS): 80plus, bronze, silver, gold, platinum, titanium.',
  'power.systemDrawW': 'Non-GPU draw per machine, W (CPU and platform); default 330.',
  'power.powerLimits':
    'GPU power limits to try, as fractions of board power from 0.3 to 1 (nvidia-smi -pl on NVIDIA GPUs, amd-smi set --power-cap on AMD Instinct GPUs; Radeon and Apple GPUs, whose cap launch does not write, run at full power).',
  'power.pue': 'Data-centre overhead on energy (power usage effectiveness; 1 at home).',
  'power.amortizeYears': "Years over which owned and bought GPUs' prices are amortised.",

  limits: 'Limits a plan must stay within; all optional.',
  'limits.budgetUsd': 'Most a fine-tune (or serving job) may cost, USD.',
  'limits.budgetUsdPerHour':
    'Serving fleets: most running cost per hour, USD (rent, energy, amortisation); default budgetUsd / deadlineHours.',
  'limits.maxSlowdown':
    "Largest 'x fastest': a plan's hours (with any weights it makes first) over the fastest plan's hours.",
  'limits.maxGpus': 'Most GPUs a plan may use.',
  'limits.deadlineHours': 'Most hours the job may take.',
  'limits.memoryMargin':
    "Share of each GPU's memory kept free as a safety margin (fragmentation, spikes), 0 to 0.5.",

  rank: 'What the ranking puts first: cost, time, power (wall watts) or slowdown.',
  quality:
    'The least quality accepted: exact, near (default) or lossy; lossier plans (weights, optimizer states) are pruned.',

  search: 'Axis values to search; an omitted axis searches every value that makes sense.',
  'search.weights':
    'Weight formats to try: fp32, fp16, bf16, fp8, int8, nf4, fp4, int4, mxfp4, nvfp4 and the GGUF types q4_0, q4_k_m, q5_k_m, q6_k, q8_0 and the low-bit q2_k, q3_k_m, iq1_s, iq2_xxs, iq2_m, iq3_xxs, iq3_m (llama.cpp; the low-bit types searched only where named, q4_0, q5_k_m and q6_k also where a published checkpoint holds them).',
  'search.optimizers': 'Optimizers to try.',
  'search.checkpointing': 'Activation checkpointing modes to try.',
  'search.attention': 'Attention kernels to try.',
  'search.microBatches': 'Micro-batch sizes to try.',
  'search.compute':
    'Compute dtypes to try beside bf16: fp8 or mxfp8 adds FP8 training (torchao) to full fine-tunes on the engines that write it (torchtitan), on GPUs with FP8 tensor cores (mxfp8: Blackwell). Default: bf16 only.',
  'search.zero': 'ZeRO / FSDP sharding stages to try (0 to 3).',
  'search.offload': 'CPU offload modes to try: none, optimizer, optimizer+params.',
  'search.tp': 'Tensor-parallel degrees to try.',
  'search.pp': 'Pipeline-parallel degrees to try.',
  'search.framework':
    'One engine family (hf: Trainer, FSDP, DeepSpeed; deepspeed) or one engine by name; default every engine vramplan launches for the job.',
  'search.engines':
    "Engines to consider; default every engine vramplan launches for the job's kind.",
  'search.undocumented':
    "Also search the paths an engine's release runs but its guides do not describe (Unsloth's native FSDP2, UNSLOTH_FSDP2=1; Unsloth over several machines, whose guides launch on one); default false: such plans are pruned as undocumented.",

  expect:
    'What the tests check after planning this scenario (test/scenarios.test.ts); ignored by plan.',
  'expect.fits': 'Whether any plan fits.',
  'expect.bestMethod': "The best plan's method.",
  'expect.bestGpu': "The best plan's GPU catalog id.",
  'expect.bestGpus': "The best plan's GPU count.",
  'expect.minPlans': 'At least this many feasible configurations.',
  'expect.prunedReason': 'A pruning reason code that must appear.',
  'expect.bestQuality': 'The least lossy quality tier the best plan may have.',
  'expect.bestEngine': "The best plan's engine.",
  'expect.bestWeights': "The best plan's weight format.",
  'expect.bestTp': "The best plan's tensor-parallel degree.",
  'expect.bestMasterWeights': 'Whether the best plan keeps an fp32 master copy of the weights.',
  'expect.bestHostRam': 'Whether the best plan needs host RAM for offloaded states.',
  'expect.bestGpuMemoryGiB': "The best plan's GPU has at least this much memory, GiB.",
};

type Node = { [k: string]: unknown };

/**
 * Writes each field's description into a JSON Schema generated from the scenario schema; returns the paths
 * of its fields (for the test that every field has one).
 */
export function describeFields(schema: Node): string[] {
  const seen: string[] = [];
  const walk = (n: unknown, path: string): void => {
    if (!n || typeof n !== 'object') return;
    const node = n as Node;
    const props = node.properties as Record<string, Node> | undefined;
    if (props)
      for (const [k, v] of Object.entries(props)) {
        const p = path === '' ? k : `${path}.${k}`;
        seen.push(p);
        const doc = SCENARIO_DOCS[p];
        if (doc !== undefined) v.description = doc;
        walk(v, p);
      }
    for (const key of ['anyOf', 'oneOf']) {
      const branches = node[key] as Node[] | undefined;
      for (const b of branches ?? []) {
        const kind = (b.properties as Record<string, Node> | undefined)?.kind?.const;
        walk(b, typeof kind === 'string' ? `${path}.${kind}` : path);
      }
    }
    if (node.items) walk(node.items, `${path}[]`);
  };
  walk(schema, '');
  return seen;
}
