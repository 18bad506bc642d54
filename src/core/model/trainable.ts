/** The trainable set of a configuration: full fine-tuning, or which linears LoRA adapts (PEFT semantics). */
import type { Arch, LayerGroup, Linear, LinearRole } from './arch.js';
import type { EstimateOptions, LoraTarget } from '../../schema/estimate.js';
import { type FusedExpertLora, fusedExpertLoraParams, keepsLinearLora } from './peft-moe.js';

export const ATTN_ROLES: readonly LinearRole[] = ['q', 'k', 'v', 'q_a', 'q_b', 'kv_a', 'kv_b'];
export const MLP_IN_ROLES: readonly LinearRole[] = ['gate', 'up'];

/** Which linear roles a LoRA target name adapts (PEFT matches module names, cross-attention included). */
const TARGET_ROLES: Record<Exclude<LoraTarget, 'embed' | 'lm_head'>, readonly LinearRole[]> = {
  q: ['q', 'q_a', 'q_b', 'cross_q'],
  k: ['k', 'kv_a', 'kv_b', 'cross_k'],
  v: ['v', 'cross_v'],
  o: ['o', 'cross_o'],
  gate: ['gate'],
  up: ['up'],
  down: ['down'],
};

/** The trainable set of one configuration. */
export interface Trainable {
  full: boolean;
  roles: ReadonlySet<LinearRole>;
  embed: boolean;
  lmHead: boolean;
  /** LoRA target_modules is PEFT's 'all-linear' shorthand. */
  allLinear?: true;
  /** Trained fully beside LoRA (PEFT modules_to_save: a trained copy of the module). */
  saveEmbed?: boolean;
  saveLmHead?: boolean;
}

const JOINED = new WeakMap<readonly string[], string>();
/**
 * `list.join(',')`, made once per list: an options' lists are read-only once made (nothing writes into them:
 * engines.ts engineFieldsInto shares its recipes' lists), and the memo keys below read them per call.
 */
export function joinedList(list: readonly string[]): string {
  let s = JOINED.get(list);
  if (s === undefined) JOINED.set(list, (s = list.join(',')));
  return s;
}

const TRAINABLE = new Map<string, Trainable>();
/** The trainable set, memoized per (method, targets): the planner asks for the same few many times. */
export function trainableSet(o: EstimateOptions): Trainable {
  const save = o.modulesToSave === undefined ? '' : joinedList(o.modulesToSave);
  const key = `${o.method}|${o.loraAllLinear}|${joinedList(o.loraTargets)}|${save}`;
  let t = TRAINABLE.get(key);
  if (!t) {
    t = buildTrainableSet(o);
    TRAINABLE.set(key, t);
  }
  return t;
}

function buildTrainableSet(o: EstimateOptions): Trainable {
  if (o.method === 'full') return { full: true, roles: new Set(), embed: true, lmHead: true };
  if (o.method === 'inference')
    return { full: false, roles: new Set(), embed: false, lmHead: false };
  const roles = new Set<LinearRole>();
  if (o.loraAllLinear) {
    // PEFT 'all-linear': every nn.Linear of the layers, the output layer excluded (peft tuners_utils).
    for (const r of [
      ...ATTN_ROLES,
      'o',
      'gate',
      'up',
      'down',
      'cross_q',
      'cross_k',
      'cross_v',
      'cross_o',
      'other',
    ] as const)
      roles.add(r);
  }
  for (const t of o.loraTargets) {
    if (t === 'embed' || t === 'lm_head') continue;
    for (const r of TARGET_ROLES[t]) roles.add(r);
  }
  const t: Trainable = {
    full: false,
    roles,
    embed: o.loraTargets.includes('embed'),
    lmHead: o.loraTargets.includes('lm_head'),
  };
  if (o.loraAllLinear) t.allLinear = true;
  if (o.modulesToSave?.includes('embed')) t.saveEmbed = true;
  if (o.modulesToSave?.includes('lm_head')) t.saveLmHead = true;
  return t;
}

export const isTrained = (t: Trainable, role: LinearRole): boolean => t.full || t.roles.has(role);
export const anyTrained = (t: Trainable, roles: readonly LinearRole[]): boolean =>
  t.full || roles.some((r) => t.roles.has(r));

/**
 * What an engine's LoRA reaches on a multimodal checkpoint beyond the language model's linears:
 * - `tower`: the vision tower's blocks take adapters wherever the targets match (PEFT matches module names in the
 *   whole model), or only when the run trains on images (Unsloth: FastLanguageModel.get_peft_model on a model
 *   FastModel loaded defaults finetune_vision_layers=False, unsloth 2026.10.9 models/llama.py get_peft_model;
 *   its vision notebooks pass finetune_vision_layers=True);
 * - `outer`: the linears outside the blocks 'all-linear' adapts: every one (peft 0.21.2 tuners_utils.py
 *   _maybe_include_all_linear_layers) or only those under an attention / MLP module whose leaf name recurs
 *   (unsloth_zoo 2026.10.9 peft_utils.py get_peft_regex drops leaves seen once outside a numbered stack).
 */
export interface LoraReach {
  tower: 'always' | 'with-images';
  outer: 'all' | 'block-leaf';
}
export const PEFT_REACH: LoraReach = { tower: 'always', outer: 'all' };

/** The reach of one configuration: whether the tower takes adapters, and which outer linears 'all-linear' takes. */
export interface LoraScope {
  tower: boolean;
  outer: LoraReach['outer'];
}
export const scopeOf = (reach: LoraReach, images: number): LoraScope => ({
  tower: reach.tower === 'always' || images > 0,
  outer: reach.outer,
});

/** Adapter parameters on the linears outside the blocks (PEFT 'all-linear' only). */
function outerLoraParams(arch: Arch, t: Trainable, rank: number, scope: LoraScope): number {
  if (t.allLinear !== true || !scope.tower) return 0;
  let n = 0;
  for (const l of arch.outerLinears ?? [])
    if (scope.outer === 'all' || l.blockLeaf) n += rank * (l.inFeatures + l.outFeatures);
  return n;
}

/**
 * One nn.Linear of a layer as the checkpoint holds it: a role's own linear, or a fused module (Linear.module) whose
 * roles share one input, their outputs summed (Phi-3's qkv_proj, GPT-NeoX's query_key_value).
 */
export interface LinearModule {
  roles: readonly LinearRole[];
  /** The group's linears it holds (one, or the fused module's roles). */
  linears: readonly Linear[];
  inFeatures: number;
  outFeatures: number;
  copies: number;
  activeCopies: number;
  /** The fused module's name; absent for a role's own linear. */
  module?: string;
}

/** A linear as a module of its own: one role (its arrays open for a fused module's later roles). */
const asModule = (l: Linear) => ({
  roles: [l.role],
  linears: [l],
  inFeatures: l.inFeatures,
  outFeatures: l.outFeatures,
  copies: l.copies,
  activeCopies: l.activeCopies,
});

const MODULES = new WeakMap<LayerGroup, LinearModule[]>();
/** A layer's linears as modules, in the group's order (a fused module where its first role sits); memoized. */
export function linearModules(g: LayerGroup): readonly LinearModule[] {
  let out = MODULES.get(g);
  if (out) return out;
  const list: LinearModule[] = [];
  const byName = new Map<string, LinearModule & { roles: LinearRole[]; linears: Linear[] }>();
  for (const l of g.linears) {
    const seen = l.module === undefined ? undefined : byName.get(l.module);
    if (seen) {
      seen.roles.push(l.role);
      seen.linears.push(l);
      seen.outFeatures += l.outFeatures;
      continue;
    }
    const m = l.module === undefined ? asModule(l) : { ...asModule(l), module: l.module };
    if (l.module !== undefined) byName.set(l.module, m);
    list.push(m);
  }
  out = list;
  MODULES.set(g, out);
  return out;
}

/** One LoRA A/B pair of every layer of `group` (times the module's copies): r x (in + out) parameters. */
export interface LoraAdapter extends LinearModule {
  group: LayerGroup;
}

/**
 * The linears and fused modules LoRA adapts in the layer groups (PEFT matches module names: a fused module
 * (Linear.module) is adapted whole, one pair over its summed outputs, when a role of it is targeted; LoRA §4,
 * arXiv:2106.09685). `fused`: routed experts adapted as fused 3-D parameters (model/peft-moe.ts keepsLinearLora
 * drops them here; fusedExpertLoraParams counts them). `scope`: whether the vision tower's blocks take adapters.
 * The memory count (loraParams) and the time readers read this one list.
 */
export function loraAdapters(
  arch: Arch,
  t: Trainable,
  fused: FusedExpertLora | null = null,
  scope: LoraScope = scopeOf(PEFT_REACH, 0),
): LoraAdapter[] {
  if (t.full) return [];
  const out: LoraAdapter[] = [];
  for (const group of arch.groups) {
    if (group.name === 'vision' && !scope.tower) continue;
    const moe = fused !== null && group.experts > 1;
    const keepOf = (l: Linear) =>
      fused !== null && (moe || fused.remapped) ? keepsLinearLora(group, l, fused) : null;
    for (const m of linearModules(group)) {
      // A fused module whose roles the expert rules leave to the trainable set: adapted whole.
      if (m.module !== undefined && m.linears.every((l) => keepOf(l) === null)) {
        if (m.roles.some((r) => t.roles.has(r))) out.push({ ...m, group });
        continue;
      }
      for (const l of m.linears)
        if (keepOf(l) ?? t.roles.has(l.role)) out.push({ ...asModule(l), group });
    }
  }
  return out;
}

/**
 * The language model's linears without their fused-module marks (Linear.module), for an engine whose own layers
 * adapt each role apart (FrameworkProfile.loraPerRole); the vision tower keeps its marks.
 */
export function withoutFusedModules(arch: Arch): Arch {
  if (!arch.groups.some((g) => g.name !== 'vision' && g.linears.some((l) => l.module))) return arch;
  let out = PER_ROLE.get(arch);
  if (out) return out;
  out = {
    ...arch,
    groups: arch.groups.map((g) =>
      g.name === 'vision' ? g : { ...g, linears: g.linears.map(({ module: _fused, ...l }) => l) },
    ),
  };
  PER_ROLE.set(arch, out);
  return out;
}
/** withoutFusedModules, memoized: readers that match linears by identity see one copy per architecture. */
const PER_ROLE = new WeakMap<Arch, Arch>();

/**
 * LoRA adds r x (in + out) parameters per adapted linear or fused module (loraAdapters). `fused`: the engine adapts
 * routed experts as fused 3-D parameters through PEFT's ParamWrapper (model/peft-moe.ts), given how PEFT remaps
 * the targets on this model type; null: every expert is a linear of its own. `scope`: how far the adapters reach
 * on a multimodal checkpoint (LoraReach).
 */
export function loraParams(
  arch: Arch,
  t: Trainable,
  rank: number,
  fullEmbeds: boolean,
  fused: Omit<FusedExpertLora, 'allLinear'> | null = null,
  scope: LoraScope = scopeOf(PEFT_REACH, 0),
): number {
  if (t.full) return 0;
  const f = fused ? { ...fused, allLinear: t.allLinear === true } : null;
  return (
    adapterParams(
      loraAdapters(arch, t, f, scope),
      fusedExpertAdapters(arch, t, rank, f, scope),
      rank,
    ) + outerTrainedParams(arch, t, rank, fullEmbeds, scope)
  );
}

/** One layer's fused routed-expert adapter parameters per MoE group LoRA reaches (model/peft-moe.ts). */
export interface ExpertAdapters {
  group: LayerGroup;
  params: number;
}

/**
 * The fused routed experts' adapters (`fused`: PEFT's ParamWrapper over 3-D expert parameters; null: none), one
 * layer's parameters per MoE group the scope reaches.
 */
export function fusedExpertAdapters(
  arch: Arch,
  t: Trainable,
  rank: number,
  fused: FusedExpertLora | null,
  scope: LoraScope,
): ExpertAdapters[] {
  if (fused === null) return [];
  return arch.groups
    .filter((g) => g.experts > 1 && (g.name !== 'vision' || scope.tower))
    .map((group) => ({ group, params: fusedExpertLoraParams(group, t.roles, rank, fused) }));
}

/** Parameters of LoRA's A/B pairs on `adapters` (each layer of its group, each copy) and of the fused experts'. */
export function adapterParams(
  adapters: readonly LoraAdapter[],
  experts: readonly ExpertAdapters[],
  rank: number,
): number {
  let n = 0;
  for (const a of adapters) n += a.group.count * a.copies * rank * (a.inFeatures + a.outFeatures);
  for (const e of experts) n += e.group.count * e.params;
  return n;
}

/** What LoRA trains beyond the layers' adapters: the outer modules the scope reaches and the embeddings. */
export function outerTrainedParams(
  arch: Arch,
  t: Trainable,
  rank: number,
  fullEmbeds: boolean,
  scope: LoraScope,
): number {
  let n = outerLoraParams(arch, t, rank, scope);
  // Unsloth turns embed_tokens / lm_head targets into fully trained fp32 copies (modules_to_save); PEFT's
  // modules_to_save (--modules-to-save) trains a full copy beside the frozen module (peft utils/other.py
  // ModulesToSaveWrapper).
  const fullEmbed = t.saveEmbed === true || (t.embed && fullEmbeds);
  const fullHead = t.saveLmHead === true || (t.lmHead && fullEmbeds);
  if (fullEmbed) n += arch.embedParams;
  else if (t.embed) n += rank * (arch.vocab + arch.hidden);
  // A tied lm_head is the embedding matrix: trained fully, it is counted once.
  const tiedTwice = arch.tiedEmbeddings && fullEmbed;
  if (fullHead) n += tiedTwice ? 0 : arch.lmHeadParams || arch.embedParams;
  else if (t.lmHead) n += rank * (arch.hidden + arch.vocab);
  return n;
}

/** LoRA target names that match at least one module of this architecture (embed/lm_head always do). */
export function availableLoraTargets(arch: Arch): LoraTarget[] {
  const roles = new Set(arch.groups.flatMap((g) => g.linears.map((l) => l.role)));
  const names = (Object.keys(TARGET_ROLES) as (keyof typeof TARGET_ROLES)[]).filter((t) =>
    TARGET_ROLES[t].some((r) => roles.has(r)),
  );
  return [...names, 'embed', 'lm_head'];
}
