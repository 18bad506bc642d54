/**
 * The time model against the shipped published speeds (calibration/throughput.json), through the very
 * function `estimate --json` and `validate --throughput` use (estimateTime via throughputRows). Fails when
 * the figures regress past the bars below.
 */
import { describe, expect, it } from 'vitest';
import { throughputRows } from '../../src/commands/validate-throughput.js';
import {
  THROUGHPUT_TARGETS,
  summarizeThroughput,
  throughputSummaries,
} from '../../src/core/time/accuracy.js';
import { renderThroughputText } from '../../src/ui/validate-text.js';
import { caseArch, loadThroughputCases } from '../../src/io/load-calibration.js';
import { estimateTime } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const rows = throughputRows('throughput.json');

/** A source's rows are exactly `ids` (`err`: their errors by id, ids sorted), none of them in sample. */
function holdsOutOfSample(
  source: readonly { inSample: boolean }[],
  err: Record<string, number>,
  ids: readonly string[],
): void {
  expect(Object.keys(err).sort()).toEqual(ids);
  expect(source.every((r) => !r.inSample)).toBe(true);
}
// Field rows: published serving and decode measurements added after the bars below were set, scored before any
// model change (their own bars at the end). The bars above them hold for the rows they were set on.
const FIELD_ROW =
  /^(oci-mi300x-|llamacpp-15525-|llamacpp-15631-|sglang-achatbot-|llamacpp-lcp1017-|tt143-|tt340-|inferencex-|flashinfer1734-|amd-rocm-|sglang8552-|tt356-|inferencex870-|vllm25444-|sglcookbook-|lmsys-|a100pcie-|gpustack-|accelmark-|pavlokhmel-|vllm43232-|jmusgrave-|llamacpp-12183-|llamacpp-17621-|inferencex1061-|gpuconc-|llamacpp-16649-|llamacpp-16834-|llamacpp-15451-|amdrocm1025-|dk-qwq32b-|vllm49723-|sglang28224-|llamacpp-26284-|dennislee-|recipes431-|llmd1233-|llmd139-|emmy-|benhamm-|gpslab-|llamacpp-15131-|llamacpp-24216-|llamacpp-20586-|vllm25135-|aiter1930-|llamacpp-15802-|tt394-|vllm20469-|llamacpp-17505-|tt125-|vllm17788-|vllm29217-|club3090-|vsexp-|qwen25sb-|lukallm-|ywac-|davidshare-|speedbench-|mi300testing-|kvcached-|mushfiq-|dbmart-|crusoe-|infbench-|vllm28992-|continuum1627-|vllm23151-|llminfra-|sglang32668-|qwen8b5090-|llamacpp-15013-|llamacpp-4167-|sglang10404-|sglang10467-|vllm27323-|sglang7631-|vllm25398-|inferencex832-|modelopt2015-|sglang12343-|sglang31044-|sglang30812-|llamacpp-19365-|tt521-|sglang9162-|recipes165-|llamacpp-14262-|vllm27402-|sglang10816-|recipesl33rocm-|recipesdsamd-|recipesq3next-|vllm17530-|vllm17535-|llamacpp-16894-|sglang6885-|vllm28200-|sgllfm25-|vllm50040-|vllm48757-|sglang32994-|gpsquant-|gpsa100-|vllm18725-|vllm23696-|rgshaw-|iognet-|vllm22331-|sglang9359-|vllm6677-|sglang8852-|sglang7445-|datacrunch-|inferencex1092-|livinfly-|llmfit-|timwang-|sglang060-|openinfer-|hamzah-|lambdavllm-|aibench-|llamacpp-2917-|llamacpp-2891-|llamacpp-8215-|llamacpp-unsloth-|llmie-|perfmodel-|yobitel-|calebcoffie-|gpsoss120-|wmx-|llamacpp-20835-|lotto3090-|qwen3speed-|llminfbench-|vllm30326-|dstackamd-|vllm23695-|sglang9770-|sglang1060-|recipes443-|vultrcookbook-|recipesglmv-|recipesdsv3-|ixblog-|nanovllm-|inferencelab-|magpie88-|gpsglmair-|sglang1138-|sglang1281-|recipes476-|inferencex1276-|amverified-|sglcb-|systalyze-|recipes112-|vllm40838-|gpsq235a100-|gpsglm46-|vllmblogfp8kv-|vllm19455-|gpsglm52-|gpsglm4x-|sglang4918-|sglang6111-|sglang4858-|isambard-|sglang3237-|ocitput-|lmsysdet-|vllm13747-|millstone-|joshua8-|llmso-|vllm48035-|adjbench-|rocmvllmdev0100-|rocmvllmdev073-|vllm16300-|optimum-prefill-|kubesimplify-)/;
const fieldRows = rows.filter((r) => FIELD_ROW.test(r.id));
// FP8 training rows (the torchao float8 README's Llama-3-8B table), scored apart below.
const FP8_ROW = /^torchao-f8-/;
const fp8Rows = rows.filter((r) => FP8_ROW.test(r.id));
// Training rows from two sources new to the set (calibration/README.md "Training rows at scale and on MoE"), scored
// before any model change, with their own bars at the end: fms-fsdp's FSDP pretraining table, ms-swift's
// DeepSpeed ZeRO-2/3 benchmark (dense and MoE), and Trainy's torchtitan FP8 runs on 32 and 64 H200.
const SCALE_ROW = /^(fmsfsdp-|msswift-|trainy-)/;
const scaleRows = rows.filter((r) => SCALE_ROW.test(r.id));
// Unsloth notebook rows new to the set (calibration/README.md "MoE and GRPO notebook rows"): a 16-bit LoRA of
// Qwen3-30B-A3B on an A100 and three GRPO runs, scored before any model change, with their own bars at the end.
const NOTEBOOK_ROW = /^(unsloth-moe-|unsloth-grpo-dsr1-|unsloth-grpo-llama3\.2-)/;
const notebookRows = rows.filter((r) => NOTEBOOK_ROW.test(r.id));
// QwenLM/Qwen3#736 (calibration/README.md "LoRA over ZeRO-3 on 8 H100, dense and MoE"): Qwen2 7B, 72B and
// 57B-A14B LoRA through one harness, scored before any model change, with their own bars at the end.
const QWEN_ISSUE_ROW = /^qwen3-736-/;
const qwenIssueRows = rows.filter((r) => QWEN_ISSUE_ROW.test(r.id));
// Unsloth notebook rows of FP8 LoRA on an L4 (the GRPO runs and the SFT passes before them) and gpt-oss-20b GRPO with a
// transformers rollout (calibration/README.md "FP8 on an L4 and gpt-oss rollouts"), scored before any model change,
// with their own bars at the end.
const L4_NOTEBOOK_ROW = /^(unsloth-fp8grpo-|unsloth-fp8sft-|unsloth-gptoss-grpo-)/;
const l4NotebookRows = rows.filter((r) => L4_NOTEBOOK_ROW.test(r.id));
// Fine-tuning rows from sources new to the time set (calibration/README.md "PEFT's method comparison and a packed T4
// QLoRA"): PEFT's MetaMathQA runs on an L40S and Unsloth's TinyLlama notebook on a T4, scored before any model change,
// with their own bars at the end.
const PEFT_ROW =
  /^(peft-mmqa-l32-3b-l40s-(full|lora-r10-mlp|lora-r32-qv|lora-r64-qv)$|unsloth-tinyllama-)/;
// QwenLM/Qwen's README profiling table (calibration/README.md, the same section): Qwen-7B LoRA on one A100 80GB at 256 to
// 8,192 padded tokens, scored before any model change, with its own bars at the end.
const QWEN1_ROW = /^qwen1-readme-7b-/;
const qwen1Rows = rows.filter((r) => QWEN1_ROW.test(r.id));
// fms-acceleration's A100 80GB reference benchmarks (calibration/README.md "fms-acceleration's reference benchmarks"):
// Mistral-7B, Mixtral-8x7B and Llama-2-70B full, LoRA and bitsandbytes QLoRA runs of the HF Trainer on one GPU and
// over FSDP on two, scored before any model change, with their own bars at the end.
const FMSACC_ROW = /^fmsacc-/;
const fmsaccRows = rows.filter((r) => FMSACC_ROW.test(r.id));
const peftRows = rows.filter((r) => PEFT_ROW.test(r.id));
// torchtitan's docs/performance.md tables (64 A100 over FSDP2, 128 H100 over FSDP2 x TP 8), its async TP page's vanilla
// TP rows (FSDP x TP 8 on 64 and 256 H100) and two Unsloth GRPO
// notebooks re-run on an A100 by datawhalechina/self-llm, scored before any model change, with their own bars at the end.
const TITAN_DOC_ROW = /^torchtitan-(perfdoc|asynctp)-/;
const SELFLLM_ROW = /^selfllm-/;
// Training rows from sources new to the set (calibration/README.md "FSDP and ZeRO-3 on four A100, Blackwell torchtitan
// tables and a packed 8,192-token trainer"): the Hugging Face blog's FSDP / DeepSpeed table, torchao's MX-formats B200
// table, torchtitan's NVFP4 page's GB200 runs and ljm565/universal-llm-trainer's GPU test, scored before any model change,
// with their own bars at the end.
const NEWSRC_ROW = /^(hfblog-ds2fsdp-|torchao-mx-b200-|torchtitan-nvfp4doc-|ult-)/;
const newsrcRows = rows.filter((r) => NEWSRC_ROW.test(r.id));
// ms-swift's example scripts (calibration/README.md, the packed 16K ZeRO-3 Qwen2.5-7B run with Liger on four A100),
// a source new to the set, scored before any model change, with its own bar at the end.
const SWIFT_EXAMPLE_ROW = /^msswift-(liger|fa2|nolgr)-/;
// Unsloth's Gemma 3 1B GRPO notebook on a T4 and datawhalechina/self-llm's Gemma 3 4B one on an A800 (calibration/README.md
// "Fine-tuning and RL rows: two Gemma 3 GRPO notebooks"), sources new to the set, scored before any model change, with
// their own bar at the end.
const GEMMA_GRPO_ROW = /^(unsloth-grpo-gemma3-|selfllm-grpo-gemma3-)/;
// DeepSpeed ZeRO-3 parameter offload, sources new to the set, scored before any model change (calibration/README.md,
// docs/time-model.md "DeepSpeed ZeRO-3 parameter offload rows"): deepspeedai/DeepSpeed#3901's Falcon-7B on eight
// A100 40GB with and without offload, s-JoL/Open-Llama's 65B on 48 A100, and deepspeedai/DeepSpeed#7474's ZeRO-2
// optimizer offload of Qwen2.5-3B on two A100 40GB with and without --bind_cores_to_rank; their own bars at the end.
const DS_OFFLOAD_ROW = /^(ds3901-|openllama-|ds7474-)/;
// Fine-tuning and RL rows new to the set (calibration/README.md "Qwen-1.8B, 14B and 72B from the Qwen table, a TRL GRPO
// notebook and an older PEFT run"): QwenLM/Qwen's README rows beside its Qwen-7B ones (Qwen-1.8B LoRA and a ZeRO-3 full
// fine-tune on one A100, Qwen-14B LoRA and GPTQ Q-LoRA, Qwen-72B LoRA over ZeRO-3 on four A100 and GPTQ Q-LoRA on one),
// TRL's GRPO QLoRA notebook on a T4 and PEFT's 2025 rsLoRA run on an L40S, scored before any model change, with their own
// bars at the end.
const QWEN_TABLE_TRL_ROW =
  /^(qwen1-readme-(1\.8b|14b|72b)-|peft-mmqa-l32-3b-l40s-lora-r64-qv-rslora-2025$|trl-nb-)/;
// The Qwen-72B ZeRO-3 LoRA row's 512-, 1,024- and 4,096-token cells (QwenLM/Qwen README.md at e8e1596, the same table
// row as the 256-, 2,048- and 8,192-token ones), carried later and scored before any model change: -3.3%, +23.1%, +0.7%.
const QWEN72B_ZERO3_LATER_CELL = /^qwen1-readme-72b-lora-zero3-4xa100-(512|1024|4096)$/;
const qwen72bZero3LaterCells = rows.filter((r) => QWEN72B_ZERO3_LATER_CELL.test(r.id));
const qwenTableTrlRows = rows.filter(
  (r) => QWEN_TABLE_TRL_ROW.test(r.id) && !QWEN72B_ZERO3_LATER_CELL.test(r.id),
);
// Fine-tuning and RL rows from sources new to the set (calibration/README.md "Packed DDP and single-card full
// fine-tunes, TinyLlama's pretraining rate, an RTX 3090 QLoRA run and open-r1's GRPO step"): Scicom's small-ablation
// throughput runs (Qwen3-0.6B over DDP on 4 H200, H100, L40S; Qwen3-1.7B on one RTX 5090 and one H100), TinyLlama's
// README rate on 16 A100-40G, an Unsloth QLoRA run on an RTX 3090 and huggingface/open-r1#251's GRPO step on
// 8 H100 under ZeRO-2, scored before any model change, with their own bars at the end.
const COMMUNITY_FT_ROW = /^(scicom-|tinyllama-readme-|verilog-unsloth-|openr1-251-)/;
const communityFtRows = rows.filter((r) => COMMUNITY_FT_ROW.test(r.id));
// Training rows from three sources new to the set (calibration/README.md "xtuner's ZeRO-3 tables, VectorLM's FSDP
// table and optimum-benchmark's QLoRA runs"), scored before any model change, each with its own bars at the end:
// xtuner's DeepSpeed ZeRO-3 full fine-tuning tables (Llama 2 7B and 70B, Llama 3 8B, Mixtral-8x7B on 4 to 32 A100),
// VectorLM's FSDP full and LoRA Llama-3-8B table (1 and 4 A100) and optimum-benchmark's fp4 QLoRA Llama-2-7B runs
// (RTX 4090, A100).
const XTUNER_ROW = /^xtuner-/;
// xtuner's Cohere (Command R+ 104B at 128k under sequence parallelism, 64-256 A100) and DeepSeek V2 (236B MoE through the
// Hub's per-expert loop, 128 A100) README tables (calibration/README.md "xtuner's Cohere and DeepSeek V2 READMEs"),
// scored before any model change with their own bars below: the first scored Ulysses-style rows, and ZeRO-3 across
// 16 nodes over a 160-expert loop.
const XTUNER_SP_MOE_ROW = /^xtuner-(cohere104b|dsv2)-/;
const xtunerSpMoeRows = rows.filter((r) => XTUNER_SP_MOE_ROW.test(r.id));
// The same speed benchmark's Llama 2 70B rows at 32k, 128k and 256k on the 32 A100 of its 8k row, under xtuner's
// Ulysses-style sequence parallelism 4, 8 and 16 (calibration/README.md "xtuner's Llama 2 70B sequence-parallel
// cells"), scored before any model change with their own bars below: -10.5%, -2.2%, +31.2%.
const XTUNER_70B_SP_ROW = /^xtuner-bench-llama2-70b-(32k|128k|256k)-32xa100-sp(4|8|16)-zero3$/;
const xtuner70bSpRows = rows.filter((r) => XTUNER_70B_SP_ROW.test(r.id));
const xtunerRows = rows.filter(
  (r) => XTUNER_ROW.test(r.id) && !XTUNER_SP_MOE_ROW.test(r.id) && !XTUNER_70B_SP_ROW.test(r.id),
);
const VECTORLM_ROW = /^vectorlm-/;
const vectorlmRows = rows.filter((r) => VECTORLM_ROW.test(r.id));
const OPTBENCH_ROW = /^optbench-/;
const optbenchRows = rows.filter((r) => OPTBENCH_ROW.test(r.id));
// Preference and RL rows from sources new to the set (docs/time-model.md "TRL's GRPO on an RTX 4090, a DPO
// notebook and two unlogged GRPO runs"), scored before any model change, each with its own bars at the end:
// jsboige/CoursIA's GRPO VRAM probe (TRL's GRPOTrainer, QLoRA Qwen3-14B, transformers generate, one RTX 4090),
// philschmid/deep-learning-pytorch-huggingface's DPO notebook (QLoRA Mistral-7B, one H100) and Mini-R1 GRPO run
// (unscored: lengths not logged), and verl-project/verl#7412's GRPO step (unscored: verl is not an engine).
const COURSIA_ROW = /^coursia-/;
const coursiaRows = rows.filter((r) => COURSIA_ROW.test(r.id));
const PHILSCHMID_ROW = /^philschmid-/;
const philschmidRows = rows.filter((r) => PHILSCHMID_ROW.test(r.id));
const VERL_ROW = /^verl\d+-/;
// Training rows from three sources new to the set (docs/time-model.md "Lit-GPT under Thunder's harness, QLoRA on an
// A10 and LLaMA-Factory's long-sequence QLoRA"), scored before any model change, each with its own bars at the end:
// lightning-thunder's Lit-GPT example (open_llama_3b full training on one and two A100-40GB, eager and Inductor, FSDP
// ZeRO-2 and ZeRO-3), a Mistral-7B QLoRA diagnostic on one A10, and LLaMA-Factory's wiki QLoRA Llama-2-7B line from
// 1,024 to 32,768 tokens on one A100-40GB.
const THUNDER_ROW = /^thunder-litgpt-/;
const thunderRows = rows.filter((r) => THUNDER_ROW.test(r.id));
const A10_QLORA_ROW = /^dkmistral-/;
const a10QloraRows = rows.filter((r) => A10_QLORA_ROW.test(r.id));
const LF_WIKI_ROW = /^lfwiki-/;
const lfWikiRows = rows.filter((r) => LF_WIKI_ROW.test(r.id));
// Training rows from three sources new to the set (docs/time-model.md "Unsloth on an RTX 5090, prime-rl's FSDP2 trainer
// and a host-bound TinyLlama LoRA"), scored before any model change, each with its own bars at the end: Surogate's speed
// page (its Unsloth NF4 and BF16 columns: Qwen3 0.6B to 8B on one RTX 5090, 8B and 14B on one H100), prime-rl's nightly
// SFT benchmark (FSDP2 + per-block compile + full AC: Qwen3-0.6B on one H100 and one RTX A6000, Qwen3-4B on 8 H100, H200
// and B200, Qwen3-30B-A3B on 8 H200) and llama3-lora-bench's TinyLlama LoRA runs on one A100-40GB.
const SUROGATE_ROW = /^surogate-/;
const surogateRows = rows.filter((r) => SUROGATE_ROW.test(r.id));
const PRIMERL_ROW = /^primerl-/;
const primerlRows = rows.filter((r) => PRIMERL_ROW.test(r.id));
const PRIMERL_RL_LORA_ROWS = [
  'primerl-rl-lora16-qwen3-30b-a3b-8xh100-s16384',
  'primerl-rl-lora16-qwen3-30b-a3b-8xh200-s16384',
] as const;
// The same harness's result files at 65,536 tokens (Qwen3-30B-A3B) and for the dense Qwen3-4B at 16,384, on 8 H100 and
// 8 H200 (PrimeIntellect-ai/prime-rl@8718eb14 benchmarks/baselines/).
const PRIMERL_RL_LORA_SWEEP_ROWS = {
  long: [
    'primerl-rl-lora16-qwen3-30b-a3b-8xh100-s65536',
    'primerl-rl-lora16-qwen3-30b-a3b-8xh200-s65536',
  ],
  dense: ['primerl-rl-lora16-qwen3-4b-8xh100-s16384', 'primerl-rl-lora16-qwen3-4b-8xh200-s16384'],
} as const;
// More of the same harness's LoRA rank-16 result files (PrimeIntellect-ai/prime-rl@8718eb14 benchmarks/baselines/): the
// dense models on one H100 at 16,384 tokens, and Qwen3-4B at 65,536 on 8 H100 and 8 H200.
// Three more of the harness's Qwen3-30B-A3B LoRA RL result files (docs/time-model.md "prime-rl's alignment permute and
// three more LoRA RL result files"): 4 of an 8 x H100 host (PrimeIntellect-ai/prime-rl@b1f6e004), and 8 B200 under
// flash-attn 2 (@30bf494f) and 4 (@e257dae0).
const PRIMERL_RL_LORA_MORE_ROWS = {
  fourH100: 'primerl-rl-lora16-qwen3-30b-a3b-4xh100-s16384',
  b200Fa2: 'primerl-rl-lora16-qwen3-30b-a3b-8xb200-s16384-fa2',
  b200Fa4: 'primerl-rl-lora16-qwen3-30b-a3b-8xb200-s16384-fa4',
} as const;
const PRIMERL_RL_LORA_DENSE_ROWS = {
  oneGpu: [
    'primerl-rl-lora16-qwen3-4b-1xh100-s16384',
    'primerl-rl-lora16-qwen3-0.6b-1xh100-s16384',
  ],
  long: ['primerl-rl-lora16-qwen3-4b-8xh100-s65536', 'primerl-rl-lora16-qwen3-4b-8xh200-s65536'],
} as const;
const LORABENCH_ROW = /^lorabench-/;
const lorabenchRows = rows.filter((r) => LORABENCH_ROW.test(r.id));
// Fine-tuning and preference rows from four sources new to the set (docs/time-model.md "NeMo AutoModel's benchmark table,
// a DPO strategy sweep on two T4s and a gpt-oss-20b FSDP2 log"), scored before any model change, each with its own bars at
// the end: NVIDIA-NeMo/Automodel's performance summary (LoRA on 1 to 16 H100, Llama 3.1 70B over 64 H100 with CP 2; its MoE rows
// carried unscored: expert parallelism), a DPO benchmark of FSDP and DeepSpeed ZeRO-2/3 on two Kaggle T4s, and SkyPilot's
// gpt-oss-20b full fine-tune log (carried unscored: its batch split is not recoverable).
const AUTOMODEL_ROW = /^automodel-/;
const automodelRows = rows.filter((r) => AUTOMODEL_ROW.test(r.id));
const DPODIST_ROW = /^dpodist-/;
const dpodistRows = rows.filter((r) => DPODIST_ROW.test(r.id));
const SKYPILOT_ROW = /^skypilot-/;
// A gpt-oss-20b QLoRA run under Unsloth on one RTX 3090 (Maxli53/NeMo_NIM's LESSONS_LEARNED.md), the same section.
const NEMONIM_ROW = /^nemonim-/;
const nemonimRows = rows.filter((r) => NEMONIM_ROW.test(r.id));
// Full training of TinyLlama-1.1B and LLaMA-7B under the HF Trainer from whyNLP/tinyllama's README tables (docs/time-model.md
// "Plain DDP and ZeRO-2 over PCIe cards: whyNLP/tinyllama's tables"): 2,048-token packed blocks without checkpointing on one
// to eight RTX 3090, RTX 4090, RTX A6000 and A100-80G, plain DDP and DeepSpeed ZeRO-2, scored before any model change, with
// its own bars at the end.
const WHYNLP_ROW = /^whynlp-/;
const whynlpRows = rows.filter((r) => WHYNLP_ROW.test(r.id));
// Llama-2-7B over FSDP on 8 to 64 A100-80GB from ATorch's Llama 2 example table (intelligent-machine-learning/dlrover), full and
// LoRA, the same section, scored before any model change with its own bars at the end.
const ATORCH_ROW = /^atorch-/;
const atorchRows = rows.filter((r) => ATORCH_ROW.test(r.id));
// Soup's ZeRO-3 comparison on eight PCIe-linked H100 (MakazhanAlpamys/Soup's H100 record), carried unscored: whole-run times over
// steps of about 550 tokens a GPU.
const SOUP_ROW = /^soup-/;
// MoE fine-tuning and preference rows from three sources new to the set (docs/time-model.md "Unsloth's gpt-oss notebooks, a
// Mixtral FSDP baseline and KTO's KL passes"), scored before any model change, each with its own bars at the end: Unsloth's gpt-oss
// notebooks (unslothai/notebooks: the 20B QLoRA SFT and the 4-bit 2048-game GRPO on a T4; the 120B A100 SFT carried
// unscored), the Mixtral-8x7B and Granite-3.0 3B-A800M full fine-tunes of fms-acceleration's MoE benchmark CSV (its
// per-expert-loop baselines, on eight and on one, two and four A100), and Unsloth's KTO example on an RTX 4090 (Gemma-2-9B
// QLoRA).
const UNSLOTHNB_ROW = /^unslothnb-/;
const unslothnbRows = rows.filter((r) => UNSLOTHNB_ROW.test(r.id));
const FMSMOE_ROW = /^fmsmoe-/;
const fmsmoeRows = rows.filter((r) => FMSMOE_ROW.test(r.id));
const UNSLOTHKTO_ROW = /^unslothkto-/;
const unslothktoRows = rows.filter((r) => UNSLOTHKTO_ROW.test(r.id));
// RL rows from two sources new to the set (docs/time-model.md "TRL's transformers generate on Colab A100s, a
// LLaMA-Factory DPO log"), scored before any model change, each with its own bars at the end: WYR186/RLVR's GRPO runs
// (TRL 1.6 GRPOTrainer with transformers generate on a Colab A100 80GB: Qwen2.5-0.5B-Instruct full, Qwen2.5-7B and
// 7B-Instruct LoRA) and JonOlsenCa/LLM_fine-tuning's LLaMA-Factory DPO log (Qwen2.5-7B-Instruct LoRA r 256, one RTX A6000).
const RLVR_ROW = /^rlvr-/;
const rlvrRows = rows.filter((r) => RLVR_ROW.test(r.id));
const OLSENDPO_ROW = /^olsendpo-/;
const olsendpoRows = rows.filter((r) => OLSENDPO_ROW.test(r.id));
// RL rows from two sources new to the set (docs/time-model.md "The HF cookbook's GRPO notebook, Hands-On LLMs' T4 DPO and
// transformers' DynamicCache copy"), scored before any model change, with their own bars at the end: the GRPO notebook of
// huggingface/cookbook (Qwen2-0.5B-Instruct LoRA, transformers generate on a Colab A100, two saved runs) and chapter 12 of
// HandsOnLLM/Hands-On-Large-Language-Models (TinyLlama QLoRA DPO on a Colab T4).
const COOKBOOKGRPO_ROW = /^cookbook-grpo-/;
const HANDSONLLM_ROW = /^handsonllm-/;
const cookbookHandsOnRows = rows.filter(
  (r) => COOKBOOKGRPO_ROW.test(r.id) || HANDSONLLM_ROW.test(r.id),
);
// Qwen3-30B-A3B full fine-tunes from a source new to the set (docs/time-model.md "Qwen3-30B-A3B's experts hooked and as one
// leaf on one B200 node, and FSDP's forward gathers behind the loop"), scored before any model change, with their own bars at
// the end: yehchunhung/qwen3-moe-fast-sft's ZeRO-3 (experts hooked, and the MoE block as one leaf) and FSDP baselines.
const QWEN3FASTSFT_ROW = /^qwen3fastsft-/;
const qwen3fastsftRows = rows.filter((r) => QWEN3FASTSFT_ROW.test(r.id));
// Training rows from two sources new to the set (docs/time-model.md "Transformer Engine's HF baselines and Soup's
// attention and Liger arms"), scored before any model change, with their own bars at the end: the HF baseline rows of
// NVIDIA/TransformerEngine's te_llama tutorial (Llama 2 7B and Llama 3 8B full fine-tunes in bf16, batch 8 of 256, one
// GPU) and MakazhanAlpamys/Soup#378's four arms (Llama-3.1-8B LoRA r 16 on one H100: SDPA, FlashAttention 2, Liger, both).
const TE_HF_ROW = /^te-hf-/;
const teHfRows = rows.filter((r) => TE_HF_ROW.test(r.id));
const SOUP378_ROW = /^soup378-/;
const soup378Rows = rows.filter((r) => SOUP378_ROW.test(r.id));
// A training row from a notebook new to the set (docs/time-model.md "Serving rows from GPUStack's quantization study and
// A100 pages, a QwQ-32B issue and a B200 MXFP4 PR"), scored before any model change, with its own bar at the end: TRL's
// sft_nemotron_3 notebook (Nemotron-3-Nano-30B-A3B bf16 LoRA r 8 on one A100 80GB, 1 x 128 tokens, 4 micro-batches).
const TRLNB_ROW = /^trlnb-/;
const trlnbRows = rows.filter((r) => TRLNB_ROW.test(r.id));
// Transformers v5 MoE full fine-tunes under FSDP2 on one 8-H100 node, the baselines of NVIDIA's NeMo AutoModel blog post
// (docs/time-model.md "Transformers v5's MoE baselines in NVIDIA's NeMo AutoModel post"), scored before any model change,
// with their own bars at the end.
const NEMOAMBLOG_ROW = /^nemoamblog-/;
const nemoamblogRows = rows.filter((r) => NEMOAMBLOG_ROW.test(r.id));
// ZeRO-3 and FSDP training rows from two sources new to the set (docs/time-model.md "A Llama 2 70B FSDP fine-tune over
// EFA and FlagPerf's DeepSpeed ZeRO-3 Llama-2-7B case"), scored before any model change, with their own bars at the end: the
// Hugging Face blog's Llama 2 70B full fine-tune under FSDP on two A100 nodes, and FlagPerf's DeepSpeed ZeRO-3 Llama-2-7B
// case on one DGX A800.
const HFBLOGFSDP_ROW = /^hfblog-fsdp-/;
const hfblogFsdpRows = rows.filter((r) => HFBLOGFSDP_ROW.test(r.id));
const FLAGPERF_ROW = /^flagperf-/;
const flagperfRows = rows.filter((r) => FLAGPERF_ROW.test(r.id));
// torchtitan PRs' logged runs (pytorch/torchtitan#1690's Qwen3-32B over FSDP and FSDP x TP on 8-64 H100 96GB, pytorch/torchtitan#996's
// Llama 3 8B with and without the chunked loss, pytorch/torchtitan#887's SDPA arm on an A100) and casper-hansen/FlashSamplePack's packed
// Qwen2.5-7B full fine-tune on one H100, sources new to the set, scored before any model change, with their own bars at the
// end (calibration/README.md "torchtitan PR logs and a packed single-H100 trainer").
const TTPR_ROW = /^(tt1690-|tt996-|tt887-|flashsamplepack-)/;
const ttprRows = rows.filter((r) => TTPR_ROW.test(r.id));
// Unsloth GRPO notebook runs saved by users from ten repositories new to the set (docs/time-model.md "Unsloth GRPO
// notebook runs saved by users"), scored before any model change, with their own bars at the end: Qwen2.5-3B QLoRA on T4s,
// an H20 and an RTX 3090, Gemma 3 1B with transformers generate on a T4, Llama 3.1 8B on a T4 (vLLM colocated, V0 engine).
const NBRERUN_ROW =
  /^(holazzer|xun3|vidya|feeyan|newsteinwell|matthewchung74|qiuzhanghua|madhurachanna|micic|gianfrancopuca|xenonaesir)-grpo-/;
const nbrerunRows = rows.filter((r) => NBRERUN_ROW.test(r.id));
// open-r1's README GRPO command of 2025-01-29 as a participant ran it on 8 H100 (huggingface/open-r1#100: ZeRO-3,
// transformers generate in every micro-step), a source new to the set, scored before any model change, with its own bar at
// the end (docs/time-model.md "open-r1's README GRPO command on 8 H100").
const OPENR1GEN_ROW = /^openr1-100-/;
const openr1genRows = rows.filter((r) => OPENR1GEN_ROW.test(r.id));
// huggingface/optimum-benchmark's running-llamas example: Llama-2-7B fp16 forwards of 1-64 x 256 tokens on one A100
// (transformers 4.35.2, eager and FlashAttention-2), a source new to the set scored before any model change, with its own
// bars at the end (docs/time-model.md "An eager transformers forward's elementwise passes in a prefill").
const RUNLLAMAS_ROW = /^runllamas-fwd-/;
const runllamasRows = rows.filter((r) => RUNLLAMAS_ROW.test(r.id));
// A torchtitan issue thread's compiled Llama 3 8B on 8 A100 (pytorch/torchtitan#929) and TRL's 1M-token context-parallel
// SFT on 8 H100 (huggingface/trl#6846, and the same example's earlier PR huggingface/trl#6845 with its 4M-token row),
// sources new to the set scored before any model change, and torchtitan's December 2024 Table 2 CP sweep (a source
// already in the set) scored after the context-parallel attention count it tests (docs/time-model.md "Context-parallel
// attention"), with their own bars at the end.
const CP_ROW = /^(tt929-|trl6846-|trl6845-|torchtitan-t2-tps-)/;
const cpRows = rows.filter((r) => CP_ROW.test(r.id));
// torchtitan's MoE runs in PR and issue threads new to the set (DeepSeek-V3-16B on 8 H100 and 8 B200, Qwen3-30B-A3B and
// gpt-oss-20b on 8 B200), scored before any model change, with their own bars at the end.
const MOEPR_ROW = /^(tt1789-|tt1993-|tt4605-|tt2389-)/;
const moeprRows = rows.filter((r) => MOEPR_ROW.test(r.id));
// Six GRPO steps from sources new to the set (docs/time-model.md "GRPO runs with logged lengths from six new sources"),
// scored before any model change, with their own bars at the end: TRL's own GRPOTrainer with a vLLM server on 2x A10G
// (rycerzes/trl), Unsloth with vLLM colocated on a T4 twice (bsvaz, amitons13), on an RTX 4080 SUPER (SurtrJ) and on an
// RTX 4090 (Kevindic0214), Unsloth's generate on an A10 (thegenaiexplorer/NLP).
const NEWRL21_ROW = /^(rycerzes|bsvaz|genaiexplorer|amitons13|surtrj|kevindic)-/;
const newrl21Rows = rows.filter((r) => NEWRL21_ROW.test(r.id));
// Six DPO optimizer steps from a source new to the set (docs/time-model.md "DPO and ORPO steps from
// RicoStaedeli/NLP2025_CQG and two Unsloth notebooks"), scored before any model change, with their own bars at the end:
// six Unsloth DPO runs of Llama-3.1-8B QLoRA on a Colab A100 40GB (their TensorBoard files' step times).
const RICOCQG_ROW = /^ricocqg-/;
const ricocqgRows = rows.filter((r) => RICOCQG_ROW.test(r.id));
// Unsloth GRPO notebook runs saved by users in three repositories new to the set (docs/time-model.md "Three more Unsloth
// GRPO notebook runs, and what TRL fetches around its rollout"), scored before any model change, with their own bars at
// the end: Qwen2.5-3B on an H100 with 4 prompts x 4 a step (Manojpatil123/GRPO-fine-tuning), Llama 3.1 8B on a T4 at
// the 200 and 768 caps (PranayS676/grpo-self-learning-llm, benjaminsinzore/Llama3.1_-8B-GRPO).
const UNSLOTH_GRPO_COPIES_ROW = /^(manojpatil|pranays676|benjaminsinzore)-grpo-/;
const unslothGrpoCopiesRows = rows.filter((r) => UNSLOTH_GRPO_COPIES_ROW.test(r.id));
// Unsloth GRPO runs users saved with their outputs in eight repositories new to the set (docs/time-model.md "GRPO runs
// from eight more repositories: T4, A10G and their completion spread"), scored before any model change, with their own
// bars at the end: the Qwen3 (4B) notebook on Colab T4s at four Unsloth/vLLM builds (Time-Carbon/unsloth-test, also a
// Qwen3-1.7B run, MA-vector/GRPO_UNSLOTH_NOTEBOOK, pydev369/grpo_hands_on, terminal-ai-course/PostTrain), Phi-4 on a
// Kaggle T4 (tkg31302/Reasoning-in-LLMs), Llama 3.1 8B on a T4 (hoa-10/RLHF), Qwen2.5-14B and Llama-3.2-1B QLoRA with
// transformers rollouts on an A10G (tituslhy/ideal-palm-tree) and Gemma 3 1B on a T4 (majidhanif230/gemma3).
const GRPO_USER_RUNS_ROW =
  /^(timecarbon|mavector|pydev369|posttrain|tkg31302|hoa10|tituslhy|majidhanif)-grpo-/;
const grpoUserRunsRows = rows.filter((r) => GRPO_USER_RUNS_ROW.test(r.id));
// Unsloth GRPO runs users saved with their outputs in three repositories new to the set (docs/time-model.md "Long-tailed
// GRPO completions: four Kaggle runs on an RTX PRO 6000 and two Colab T4 runs"), scored before any model change, with their
// own bars at the end: Qwen3-1.7B-Base 16-bit LoRA on an RTX PRO 6000 Blackwell under vLLM 0.18 at four GRPO settings
// (dzungphieuluuky/ToolFormer), Llama 3.1 8B QLoRA on a T4 (Freakz3z/ShiTongTian_LLM), Qwen3-4B-Base LoRA on a T4
// (AbdullahFageeh/colab).
const LONGTAIL_GRPO_ROW = /^(toolformer|freakz3z|abdullahfageeh)-grpo-/;
const longtailGrpoRows = rows.filter((r) => LONGTAIL_GRPO_ROW.test(r.id));
// Unsloth GRPO runs users saved with their outputs in eight repositories new to the set (docs/time-model.md "Unsloth
// GRPO runs saved in eight more repositories: T4 and L4 under vLLM V0 and V1"), scored before any model change, with their
// own bars at the end: the Qwen3 (4B) notebook on Colab T4s and an L4 (DarioRepoRuler/DynamixelSDK, gyaneshhere/HuggingFace,
// cometbaydo/finetune, Wendy-hub/llm-finetuning) and pointed at Llama 3.2 1B with 16 micro-batches a step
// (a-ting-j/LLMFine-tuningExperiment), DeepSeek-R1-0528-Qwen3-8B at its 843-token cap (QuanNH98/AI), Llama 3.1 8B on a T4
// (gyaneshhere/HuggingFace, machupichu412/Data-Description-Quality) and Qwen2.5-3B on a T4 (WhaiPkuKeyuhao/Unsloth_Tut).
const GRPO_SAVED_RUNS_ROW =
  /^(quannh98|dariorepo|gyaneshhere|cometbaydo|wendyhub|machupichu|atingj|whaipku)-grpo-/;
const grpoSavedRunsRows = rows.filter((r) => GRPO_SAVED_RUNS_ROW.test(r.id));
// Fine-tuning rows from three sources new to the set (docs/time-model.md "torchtune against PEFT on RTX 4090s and two
// LLaMA-Factory LoRA runs"), scored before any model change, with their own bars at the end: BenjaminBossan/peft-experiments'
// torchtune and PEFT logs on one and two RTX 4090, hiyouga/LlamaFactory#6958's RTX 5090 run and a V100S run of the same recipe.
const PEFTX_LLAMAFACTORY_ROW = /^(bbpeftx-|lf6958-|nrzheng-)/;
// Three more runs of BenjaminBossan/peft-experiments' Llama-3-8B QLoRA on one RTX 4090 (docs/time-model.md "Llama-3-8B
// QLoRA on one RTX 4090: three more runs and the loss each loop computes"), scored before any model change, with their
// own block at the end; the group above keeps its nine rows.
const PEFTX_QLORA_RUNS_ROW =
  /^bbpeftx-llama3-8b-qlora-4090-(hf-in-torchtune|peft-in-torchtune|peft-bnb0432)$/;
const peftxQloraRunsRows = rows.filter((r) => PEFTX_QLORA_RUNS_ROW.test(r.id));
const peftxLlamafactoryRows = rows.filter(
  (r) => PEFTX_LLAMAFACTORY_ROW.test(r.id) && !PEFTX_QLORA_RUNS_ROW.test(r.id),
);
// Fine-tuning rows from sources new to the set (docs/time-model.md "PEFT's fp32 adapter matmuls without autocast:
// unsloth-lora-bench"), scored before any model change, with their own bars at the end: noamshh/unsloth-lora-bench's
// Qwen2.5-3B LoRA on an A100, vanilla PEFT and Unsloth at 64-512 padded tokens a sequence.
const UNSLOTHBENCH_ROW = /^unslothbench-/;
const unslothbenchRows = rows.filter((r) => UNSLOTHBENCH_ROW.test(r.id));
// A held-out fine-tuning row from a source new to the set (docs/time-model.md "FSDP over consumer cards without P2P: a
// held-out torchtune run on four RTX 3090"), scored before any model change, with its own bar at the end:
// meta-pytorch/torchtune#2264's Phi-3-mini LoRA under lora_finetune_distributed on four RTX 3090.
const TT2264_ROW = /^tt2264-/;
const tt2264Rows = rows.filter((r) => TT2264_ROW.test(r.id));
// DeepSpeed rows of LLaMA-7B on one 8-A800 machine from a source new to the set (docs/time-model.md "A DeepSpeed
// benchmark gist's LLaMA-7B on 8 A800: ZeRO-3 beside its ZeRO-2 control"), scored before any model change, with their own
// bars at the end: chenyaofo's gist table, ZeRO-3 with and without checkpointing and its ZeRO-2 row.
const CHENYAOFO_ROW = /^chenyaofo-/;
const chenyaofoRows = rows.filter((r) => CHENYAOFO_ROW.test(r.id));
// FSDP full fine-tunes of three dense 7-8B models on four A100 from a source new to the set (docs/time-model.md "Liger-Kernel's
// HF Trainer logs: FSDP full fine-tunes of three 7-8B models on four A100"), scored before any model change, with their own
// bars at the end: linkedin/Liger-Kernel's example logs, each model with and without Liger's kernels.
const LIGERHF_ROW = /^ligerhf-/;
const ligerhfRows = rows.filter((r) => LIGERHF_ROW.test(r.id));
// A torchtitan control run of Qwen3-30B-A3B over FSDP 8 on 8 B200, posted in a source new to the set (mlc-ai/pith-train#79;
// docs/time-model.md "A torchtitan Qwen3-30B-A3B control run on 8 B200, and torch._grouped_mm on Hopper against a kernel
// benchmark"), scored before any model change, with its own bar at the end.
const PITHTRAIN_ROW = /^pithtrain79-/;
const pithtrainRows = rows.filter((r) => PITHTRAIN_ROW.test(r.id));
// axolotl's Llama 4 README lines at axolotl-ai-cloud/axolotl@9f986f5e7 (Maverick QLoRA over FSDP1 on four H100, Scout
// QLoRA on one H100), scored before any model change, with their own bar at the end.
const AXOLOTL_L4_EARLY_ROW = /^axolotl9f98-/;
const axolotlL4EarlyRows = rows.filter((r) => AXOLOTL_L4_EARLY_ROW.test(r.id));
// GPT-2 DDP rows from two sources new to the set (calibration/README.md "GPT-2 DDP over a bridged pair and through host
// memory"), scored before any model change, with their own bars at the end: the transformers docs' two TITAN RTX and
// huggingface/transformers#9371's two RTX 3090, one card and DDP over the NVLink bridge (the NCCL_P2P_DISABLE=1 arms are
// carried unscored: their slots are not stated).
const GPT2DDP_ROW = /^(hfdocs-ddp-|t9371-)/;
const gpt2ddpRows = rows.filter((r) => GPT2DDP_ROW.test(r.id));
// Full fine-tuning rows from two sources new to the set (calibration/README.md; docs/time-model.md "Granite 3.3 SFT through
// training_hub, and a Qwen3.5-9B FSDP2 step"), scored before any model change, with their own bars at the end: Granite 3.3 8B
// SFT through training_hub's instructlab-training backend on eight H100 and eight A100 (mazam-lab/training_hub's runtime
// table), and the baseline arm of huggingface/transformers#48692 (Qwen3.5-9B-Base over FSDP2 on eight B200).
const TRAINING_HUB_ROW = /^traininghub-/;
const trainingHubRows = rows.filter((r) => TRAINING_HUB_ROW.test(r.id));
const QWEN35_FSDP2_PR_ROW = /^hf48692-/;
const qwen35Fsdp2PrRows = rows.filter((r) => QWEN35_FSDP2_PR_ROW.test(r.id));
// fms-acceleration's OrcaMath padding-free benchmark (calibration/README.md; docs/time-model.md "fms-acceleration's OrcaMath
// padding-free benchmark: Mistral-7B at 289-524 tokens a sample"), a file new to the set scored before any model change, with
// its own bars at the end: Mistral-7B full fp16 and NF4 QLoRA on one A100 and over FSDP1 on two, padded and padding-free.
const FMSORCA_ROW = /^fmsorca-/;
const fmsorcaRows = rows.filter((r) => FMSORCA_ROW.test(r.id));

// MoE fine-tuning rows of gpt-oss-20b and Qwen3-30B-A3B (the OpenAI cookbook's TRL recipe, its Azure rerun, Unsloth
// notebook runs kept in the notebooks' history), scored apart below.
const MOEFT_ROW = /^moeft-/;
const moeftRows = rows.filter((r) => MOEFT_ROW.test(r.id));
// MoE fine-tuning benchmarks (Unsloth's MoE page: gpt-oss-20b on one B200 under Unsloth, transformers 5 and
// transformers 4.57; experts4bit-qlora's same-box RTX 5090 lane: Unsloth on Qwen3-30B-A3B, transformers + PEFT on
// Granite-3.1-3B-A800M), scored apart below.
const MOEBENCH_ROW = /^(unslothmoe-|e4btp4-)/;
const moebenchRows = rows.filter((r) => MOEBENCH_ROW.test(r.id));
// Vertex Model Garden's OpenLLaMA-7B LoRA/QLoRA report on one A100 40GB and a Qwen3-0.6B QLoRA run on an RTX 3090.
const HFPATH_ROW = /^(vtx-ollama7b-|agrec-)/;
const hfpathRows = rows.filter((r) => HFPATH_ROW.test(r.id));
// Sharded training rows from two sources new to the set (calibration/README.md "FSDP1 on 64-256 A100: YaFSDP's
// baseline table, and a DeepSpeed ZeRO-3 LLaMA-7B on eight A800"), scored before any model change, with their own bars
// at the end: yandex/YaFSDP's FSDP iteration times and hpcaitech/ColossalAI#4311's DeepSpeed run.
const YAFSDP_COLOSSAL_ROW = /^(yafsdp-|colossalai4311-)/;
const yafsdpColossalRows = rows.filter((r) => YAFSDP_COLOSSAL_ROW.test(r.id));
const earlierRows = rows.filter(
  (r) =>
    !FIELD_ROW.test(r.id) &&
    !FP8_ROW.test(r.id) &&
    !SCALE_ROW.test(r.id) &&
    !NOTEBOOK_ROW.test(r.id) &&
    !QWEN_ISSUE_ROW.test(r.id) &&
    !L4_NOTEBOOK_ROW.test(r.id) &&
    !PEFT_ROW.test(r.id) &&
    !QWEN1_ROW.test(r.id) &&
    !FMSACC_ROW.test(r.id) &&
    !TITAN_DOC_ROW.test(r.id) &&
    !SELFLLM_ROW.test(r.id) &&
    !NEWSRC_ROW.test(r.id) &&
    !GEMMA_GRPO_ROW.test(r.id) &&
    !DS_OFFLOAD_ROW.test(r.id) &&
    !QWEN_TABLE_TRL_ROW.test(r.id) &&
    !COMMUNITY_FT_ROW.test(r.id) &&
    !XTUNER_ROW.test(r.id) &&
    !VECTORLM_ROW.test(r.id) &&
    !OPTBENCH_ROW.test(r.id) &&
    !COURSIA_ROW.test(r.id) &&
    !PHILSCHMID_ROW.test(r.id) &&
    !VERL_ROW.test(r.id) &&
    !THUNDER_ROW.test(r.id) &&
    !A10_QLORA_ROW.test(r.id) &&
    !LF_WIKI_ROW.test(r.id) &&
    !SUROGATE_ROW.test(r.id) &&
    !PRIMERL_ROW.test(r.id) &&
    !LORABENCH_ROW.test(r.id) &&
    !AUTOMODEL_ROW.test(r.id) &&
    !DPODIST_ROW.test(r.id) &&
    !SKYPILOT_ROW.test(r.id) &&
    !NEMONIM_ROW.test(r.id) &&
    !WHYNLP_ROW.test(r.id) &&
    !ATORCH_ROW.test(r.id) &&
    !SOUP_ROW.test(r.id) &&
    !UNSLOTHNB_ROW.test(r.id) &&
    !FMSMOE_ROW.test(r.id) &&
    !UNSLOTHKTO_ROW.test(r.id) &&
    !RLVR_ROW.test(r.id) &&
    !OLSENDPO_ROW.test(r.id) &&
    !COOKBOOKGRPO_ROW.test(r.id) &&
    !HANDSONLLM_ROW.test(r.id) &&
    !QWEN3FASTSFT_ROW.test(r.id) &&
    !TE_HF_ROW.test(r.id) &&
    !SOUP378_ROW.test(r.id) &&
    !TRLNB_ROW.test(r.id) &&
    !NEMOAMBLOG_ROW.test(r.id) &&
    !HFBLOGFSDP_ROW.test(r.id) &&
    !FLAGPERF_ROW.test(r.id) &&
    !TTPR_ROW.test(r.id) &&
    !NBRERUN_ROW.test(r.id) &&
    !OPENR1GEN_ROW.test(r.id) &&
    !RUNLLAMAS_ROW.test(r.id) &&
    !CP_ROW.test(r.id) &&
    !MOEPR_ROW.test(r.id) &&
    !NEWRL21_ROW.test(r.id) &&
    !RICOCQG_ROW.test(r.id) &&
    !UNSLOTH_GRPO_COPIES_ROW.test(r.id) &&
    !GRPO_USER_RUNS_ROW.test(r.id) &&
    !LONGTAIL_GRPO_ROW.test(r.id) &&
    !GRPO_SAVED_RUNS_ROW.test(r.id) &&
    !PEFTX_LLAMAFACTORY_ROW.test(r.id) &&
    !UNSLOTHBENCH_ROW.test(r.id) &&
    !TT2264_ROW.test(r.id) &&
    !CHENYAOFO_ROW.test(r.id) &&
    !LIGERHF_ROW.test(r.id) &&
    !PITHTRAIN_ROW.test(r.id) &&
    !AXOLOTL_L4_EARLY_ROW.test(r.id) &&
    !GPT2DDP_ROW.test(r.id) &&
    !TRAINING_HUB_ROW.test(r.id) &&
    !QWEN35_FSDP2_PR_ROW.test(r.id) &&
    !FMSORCA_ROW.test(r.id) &&
    !MOEFT_ROW.test(r.id) &&
    !MOEBENCH_ROW.test(r.id) &&
    !HFPATH_ROW.test(r.id) &&
    !YAFSDP_COLOSSAL_ROW.test(r.id),
);
const summary = Object.fromEntries(throughputSummaries(earlierRows).map((s) => [s.group, s]));

// the headline figures are the out-of-sample rows (a row a constant was worked out from is in
// sample: its in_sample_why); the bars are the figures measured when the split was made, per kind.
const OUT_OF_SAMPLE_BARS = {
  // Ten field rows scored before the model changed (LLaMA-Factory's HF/Unsloth TGS table, axolotl's Llama 4 Scout
  // QLoRA, three Unsloth GRPO notebooks): training 67 rows 11.1% / 55.8% and the new 7 at 62.7% / 217% before;
  // after PEFT's, torchtune's, LitGPT's and Unsloth's LoRA paths (engines/*/lora-path.ts), parameter offload by
  // pass and direction, and the Unsloth rollout on its shared 4-bit weights, 74 rows 14.5% / 66.2% (the 67
  // earlier rows 13.8% / 35.1%: the fsdp_qlora RTX 3090 and H100 rows closer, its RTX 4090 rows now 10-25% slow).
  // Then torchtune's two README rows on an "A6000" left the score (their implied rate is above the RTX A6000's
  // spec: calibration/throughput.json why_not), and GeForce matmuls run at their measured share of the
  // fp32-accumulate spec (time/hardware.ts GEMM_EFF_GEFORCE): training 72 rows 12.0% / 61.1%; with fsdp_qlora's
  // dual-3090 rig timed over the PCIe 3.0 x8 link its source describes (the rows' `pcie`), 11.3% / 29.3%; with
  // Volta's matmul shares (fp16 0.76, fp32 0.91 of spec, time/hardware.ts), 9.7% / 28.2%.
  // With the Phi-4 (14B) and Qwen3-4B T4 GRPO notebook rows added (scored at +51.2% and +30.2% before the changes
  // below) and inline-ECC GDDR bandwidth: 154 rows 8.9% / 26.1% (the median moves by the added rows, the p90 by the
  // T4 GRPO rows). With the pre-0.48 bitsandbytes tree kernel's 4-bit dequantization below the memory rate on the
  // T4, A100 and H100 (time/bnb-dequant.ts, the rows' bnb_dequant): 8.5% / 24.4%, training 9.6% / 28.2%. With a
  // dense MoE block's per-expert linears (time/dense-moe.ts, the Scout rows' moe_dispatch 'dense-loop') and SDPA
  // handed a padding mask (the LLaMA-Factory HF rows' sdpa_mask), with the GRPO rollouts' lone last steps:
  // 8.5% / 23.9%, training 9.6% / 27.4%. With fsdp_qlora's rows timed on their own LoRA stack (train.py's
  // lora_dropout 0.1, adapters in the weights' bf16 under PEFT before 0.12: the rows' lora_adapter_dtype and
  // lora_dropout), 8.7% / 23.9%: its RTX 4090 LoRA and 70B rows closer, its 4090 QLoRA and 3090 LoRA rows 3-4 points
  // further off (docs/time-model.md); the training kind's median moved the other way, 9.8% -> 9.6% over 83 rows.
  // With GeForce matmuls at their measured share divided by the shape loss shapeFactor applies again (0.95 -> 0.98)
  // and FlashAttention-2 at that share on GeForce (time/hardware.ts ATTN_EFF_GEFORCE, was A100's 0.55): 8.5% / 23.3%
  // -> 7.9% / 24.2%, training 9.5% / 27.4% -> 7.8% / 27.6%; the slow RTX 4090 and 3090 DDP rows 4-5 points closer
  // (the 4090 24k-token row -22% -> -4%), the 3090 rig's link-bound rows, already fast, 5-6 points further off.
  // With transformers' eager RMSNorm (36 B per element) and rotary (10 passes over q and k) counted as read, and its
  // SDPA's layout copies as run (q, k, v only under a mask; the output's copy a no-op after PyTorch's fused kernels)
  // on the hf and deepspeed engines (engines/hf/eager-modules.ts): 7.9% / 24.2% -> 8.1% / 24.1%, training 7.8% /
  // 27.6% -> 9.5% / 27.0%; the LLaMA-Factory HF rows 11-14 points closer, the fsdp_qlora RTX 4090 rows 3.5-5.5
  // points further off (slow). With ggml-org/llama.cpp#19053's two gpt-oss-20b MXFP4 GGUF rows scored (-28.5%, -16.5%
  // when first scored; -19.7%, -7.7% with the GGUF's non-expert tensors read as its Q8_0, engines/llama-cpp/memory.ts
  // mxfp4Dense): 156 rows 8.1% / 24.2%. With a generation batch's longest completion following its size
  // (time/completion-length.ts longestToMean: the RTX 4090 and Llama 3.1 T4 GRPO rows decode 6 completions, not the
  // logged 8), 8.3% / 24.1%. With transformers.AdamW's per-tensor loop on the BERT rows whose Trainer ran adamw_hf
  // (time/optimizer-step.ts, the rows' adam_impl 'hf-loop'): the AMP rows closer (+27.4% -> +14.3%, +37.0% ->
  // +28.5%), the fp32 rows 2-3 points further off (-8.8% -> -12.2% the furthest), training's median 9.5% -> 9.7%.
  all: { count: 156, median: 0.083, p90: 0.242 },
  // With the HF Trainer's and DeepSpeed's gradient-norm clip priced (FrameworkProfile.gradClip) and whyNLP/tinyllama's
  // torch AdamW read as the foreach step it ran (the rows' adam_impl): median 9.5% -> 9.6%; with the BERT rows'
  // adamw_hf loop (above), 9.7%.
  'kind:training': { count: 72, median: 0.097, p90: 0.27 },
  // GRPO steps (seconds per optimizer step, rollout included): 141% / 168% before, 30% / 42% after; with the
  // reference log-probs TRL 0.14-0.18 compute at their default beta (the rows' --reference model), 24% / 37%; with
  // the vLLM V0 engine loop the notebooks' logs show (scheduler: v0), 31% / 33% (the RTX 4090 row now -31%); with
  // the Qwen2.5-3B notebook's max_completion_length 200 bounding its decode (--max-completion-tokens; 1.47x its mean
  // is 270), 33% / 45%: both T4 rows are then +33% and +45% fast, the RTX 4090 row -31% slow; with the adapter
  // served unmerged through vLLM's punica shrink/expand kernels in the shared-weights rollout, 32.4% / 41.7%. With
  // Unsloth's Phi-4 (14B) T4 GRPO notebook added (+51.2% before these changes, +50.3% with the LoRA term), 4 rows
  // 37.1% / 50.3%; with the T4's inline-ECC GDDR6 streaming at 0.85 (time/hardware.ts INLINE_ECC_KEEP), 29.9% /
  // 32.5%: the T4 rows +27%, +16% and +33% fast, the RTX 4090 row -32% slow. Unsloth's Qwen3-4B 16-bit LoRA T4
  // notebook (scored first: +30.2%; +25.2% with the LoRA kernels) is +10.9%: 5 rows 27.4% / 32.5%. With the
  // dequantized 16-bit shard read back from L2 where it fits (time/decode.ts l2HeldElements; RTX 4090 72 MB, T4
  // 4 MB), the RTX 4090 row -32.4% -> -28.3% and the Qwen2.5-3B T4 row +27.4% -> +27.9%: 27.9% / 32.5%. With the
  // rollout's 4-bit dequantization through bitsandbytes' pre-0.48 tree kernel, 1.5x the memory-rate pass on a T4
  // (time/bnb-dequant.ts, bitsandbytes-foundation/bitsandbytes#1747), the three 4-bit T4 rows +27.9% / +15.7% / +32.5% -> +9.7% / -4.5% /
  // +9.3% (the RTX 4090 row, sm89, unchanged at -28.3%): 9.7% / 28.3%. With vLLM's rollout running the longest
  // completion's steps past the second longest at batch 1 (time/completion-length.ts loneCompletionSteps; 4-bit
  // weights then take gemv_4bit), the RTX 4090 row -28.3% -> -21.4%, the Llama 3.1 T4 row -4.5% -> +7.9%: 9.7% / 21.4%.
  // With the longest completion of a generation batch at the log-normal's largest of its size (longestToMean: 1.40x
  // the mean for 6, 1.47x for the logged 8; Unsloth's Qwen3-VL notebook logs 1.10x for 2 against 1.13x predicted),
  // the RTX 4090 row -21.1% -> -17.7%, the Llama 3.1 T4 row +7.9% -> +12.1%, Qwen3-4B +10.9% -> +11.2%: 11.2% / 17.8%.
  // With vLLM's CUDA-graph kernels at 3.15 µs beyond their bytes (engines/graph-kernel.ts) the rollouts take longer:
  // the RTX 4090 row -17.7% -> -20.4%, the T4 rows 1-2 points closer: 9.9% / 20.4%.
  'kind:rl': { count: 5, median: 0.099, p90: 0.205 },
  // llama.cpp decode: 26 rows (llama-bench / main eval timings on nine GPUs, Llama 2-3.2, F16 and
  // Q4_K_M GGUF), most of them outside every GPU and kernel the earlier rows used.
  // The F16 rows of llama.cpp builds before ggml-org/llama.cpp#10318 pay dmmv's latency-bound last wave of rows
  // (core/time/matvec-tail.ts): decode p90 27.6% -> 21.6%, llama.cpp 10.8% / 46.5% -> 6.3% / 33.2%.
  // Builds before ggml-cuda's op fusion launch every op of build_llama's graph, 24 kernels a layer and a q8_1
  // kernel before each quantized matmul, each a graph gap (engines/llama-cpp/memory.ts unfusedDecodeKernels):
  // the HBM rows move in (H100 PCIe Q4_K_M +69% / +48% -> +23% / +8%, A100 F16 +33% / +29% -> +22% / +21%) and the
  // GeForce Q4_K_M rows out (-5..+16% -> -24..-1%): llama.cpp 6.3% / 33.2% -> 8.0% / 23.3%, GGUF 11.5% / 47.6% ->
  // 15.8% / 24.1%, decode 8.0% / 21.6% -> 8.0% / 21.7%.
  // ggml-org/llama.cpp#19053's gpt-oss-20b MXFP4 GGUF rows (RTX 6000 Ada, RTX PRO 6000 Max-Q; January 2026 build), scored when the
  // engine took MXFP4: -28.5%, -16.5% (llama.cpp 31 rows 9.5% / 23.3%, decode 64 rows 8.0% / 21.7%); with the file's
  // non-expert tensors read as Q8_0 through the GGUF kernels (llama-quant.cpp MXFP4_MOE), -19.7%, -7.7%: llama.cpp
  // 8.0% / 22.9%, decode 8.0% / 21.5%, GGUF 16 rows 15.8% / 24.1%.
  // llama.cpp's quantized mat-vec bound by the SMs' work where they issue too few instructions for the bandwidth
  // (time/decode.ts KERNELS.gguf.issue; ggml-org/llama.cpp#6763's H100 PCIe rows +7.9% -> -0.3%, +23.3% -> +13.9%):
  // llama.cpp 8.0% / 23.4% -> 8.0% / 21.7%, decode 8.0% / 21.7% -> 8.0% / 20.6%, GGUF 15.9% / 24.2% -> 14.6% / 24.1%.
  'kind:decode': { count: 64, median: 0.08, p90: 0.192 },
  // A graph kernel's cost in SM cycles (engines/llama-cpp/memory.ts graphKernelCycles: 2.5 µs at the H100 SXM's
  // 1.98 GHz): the Ada and A100 rows move in, the Ampere GeForce Q4_K_M rows (1.7 GHz) 2.4-3.8 points further slow:
  // llama.cpp 8.0% / 21.7% -> 8.1% / 19.6%, GGUF 14.6% / 24.1% -> 15.3% / 25.4%, decode 8.0% / 20.6% -> 8.0% / 19.2%.
  'engine:llama.cpp': { count: 31, median: 0.081, p90: 0.196 },
  'kernel:gguf': { count: 16, median: 0.154, p90: 0.254 },
  // vLLM static-batch latencies (benchmark_latency, H100: bf16 TP 1 and 4, Marlin int8 / int4) and
  // SGLang v0.2 decode steps (TP 8 bs 1, and bs 128: +46%; +23.3% run eagerly, as sglang 0.2 replayed its graphs
  // only below a batch of 128: the row's graph_max_batch, time/graph-step.ts aboveGraphs).
  'kind:serving': { count: 15, median: 0.064, p90: 0.124 },
  'engine:vllm': { count: 13, median: 0.064, p90: 0.116 },
  'engine:sglang': { count: 2, median: 0.122, p90: 0.233 },
  'kernel:marlin': { count: 6, median: 0.079, p90: 0.124 },
  // With V1's serial host work per running request (serialSeqHostSeconds) the bf16 median 3.1% -> 3.2%.
  // With the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts): median 3.2% -> 3.4%.
  'kernel:bf16': { count: 24, median: 0.034, p90: 0.139 },
} as const;

describe('time model accuracy on the shipped throughput set', () => {
  // Fine-tuning's field target, over every out-of-sample training row: median 10%, p90 35%. The rows past 35% are
  // docs/time-model.md "Known misses" (at 36% or more) and the rows just under it. Six more rows of chenyaofo's
  // DeepSpeed gist table, carried as measured (+36% to +124%, the source's common offset and its offload rows), put the
  // p90 at 37.6%: the bar is 38% until they are explained.
  // p90 39%: prime-rl's two Qwen3-30B-A3B LoRA RL rows (+59%, +51%) entered as known misses.
  // Median 10.5%: four more prime-rl LoRA RL result files (PRIMERL_RL_LORA_SWEEP_ROWS, scored before any model change:
  // -13%, -16%, +45%, +38%) took it from 9.9% to 10.3% (the p90 39.0% -> 39.2%, back to 39.0% with the eager loss of
  // the builds that compiled the model alone, TimeOptions.eagerLoss). Median 10.8%: with Qwen's README 1.8B ZeRO-3 rows
  // (`qwen1-readme-1.8b-full-zero3-a100-*`, -7.1% and -15.7% scored before any change) and DeepSpeed ZeRO-2's bucket all-reduce beside them,
  // 10.7% over 367 rows (the rows near the median lie 9.6-11.2% apart by rank). Median 10.9%, p90 39.2%: four more
  // prime-rl LoRA RL result files (PRIMERL_RL_LORA_DENSE_ROWS, scored before any model change: +43%, +111%, -19%, -20%);
  // back to 10.7% and 38.0% with torchtitan's LoRA path beside each adapted linear (engines/torchtitan/lora-path.ts).
  // 10.9% and 38.9% over 373 rows once the recompute left out the output layer and the loss (which no engine re-runs).
  // 10.91% over 387 rows: training_hub's Granite 3.3 SFT table and huggingface/transformers#48692's Qwen3.5-9B step
  // (TRAINING_HUB_ROW, QWEN35_FSDP2_PR_ROW: +19.8%, +12.8%, +1.1%, -5.1%, +37.5%, scored before any model change).
  // 11.21% / 43.44% over 403 rows: fms-acceleration's OrcaMath padding-free CSV (FMSORCA_ROW, sixteen rows scored before
  // any model change, all too fast: +7.7..+24.6% on one A100, +45.8..+418.3% over FSDP1 on two; nine in "Known misses").
  // 11.34% / 44.26% over 409 rows: the six MoE fine-tuning rows (MOEFT_ROW: +96.3%, +86.6%, +35.0%, -32.5%, -21.7%,
  // +7.8% scored before any model change; the two cookbook-recipe rows +57.0% and +53.2% with ParamWrapper's per-access
  // rebuild in the expert loop), all above the old median.
  // 11.41% / 44.30% over 422 rows: Vertex Model Garden's OpenLLaMA-7B LoRA/QLoRA report on one A100 40GB and a
  // Qwen3-0.6B QLoRA run on an RTX 3090 (HFPATH_ROW: thirteen rows scored before any model change, -6.2..+197.8%; five
  // in "Known misses"); the median and the p90 move by the added rows.
  // 11.87% / 50.33% over 425 rows: the sixteen MoE fine-tuning benchmark rows (MOEBENCH_ROW, scored before any model
  // change: Unsloth's gpt-oss-20b B200 table +57.2..+404.8% for Unsloth, +100.8..+123.2% for transformers 5, -25.6..+63.7%
  // for transformers 4.57; the RTX 5090 lane -32.6%, -40.0% and +165.6%), twelve of them past 36%.
  // 11.67% / 46.93% over 422 rows: YaFSDP's FSDP1 baseline table and hpcaitech/ColossalAI#4311's ZeRO-3 run
  // (YAFSDP_COLOSSAL_ROW, thirteen rows scored before any model change: the six FSDP1 rows at 2,048 tokens a GPU
  // +66.9..+89.3%, the 4,096-token ones +16.2..+33.1%, the 8,192-token ones +7.8%, +8.9%, the ZeRO-3 row -6.8%).
  // 12.08% / 54.34% over 451 rows with the three sets above together.
  it('out-of-sample training rows: median |error| <= 12.08%, p90 <= 54.34%', () => {
    const s = summarizeThroughput(
      'training',
      rows.filter((r) => !r.inSample && r.kind === 'training'),
    );
    expect(s.count).toBeGreaterThan(300);
    // 10.8% / 39% before the recompute left out the output layer and the loss (TrainWork.headFwdFlops).
    expect(s.medianAbsError).toBeLessThanOrEqual(0.1208);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.5434);
  });

  it('scores every scorable case (1513: 1498 out of sample, 15 in sample) with a finite estimate', () => {
    expect(rows.length).toBe(1513);
    expect(earlierRows.length).toBe(169);
    expect(
      rows
        .filter((r) => r.inSample)
        .map((r) => r.id)
        .sort(),
    ).toEqual([
      'bbpeftx-llama3-8b-qlora-4090-peft-in-torchtune',
      'bbpeftx-llama3-8b-qlora-4090-torchtune',
      'fsdpqlora-70b-a6000adax2',
      'fsdpqlora-70b-a6000adax4',
      'gptfast-l2-7b-int4',
      'gptfast-l2-7b-int8',
      'sglang-1008-l3-8b-bs1',
      'torchtitan-t1-compile',
      'torchtitan-t1-fsdp',
      'torchtitan-t3-compile',
      'torchtitan-t3-fsdp',
      'torchtune-readme-06',
      'vllm-rtn-8b-bf16-b1',
      'vllm-rtn-8b-int4-b1',
      'vllm-rtn-8b-int8-b1',
    ]);
    expect(new Set(rows.map((r) => r.kind))).toEqual(
      new Set(['training', 'decode', 'serving', 'rl']),
    );
    for (const r of rows) expect(Number.isFinite(r.estimated) && r.estimated > 0, r.id).toBe(true);
  });

  for (const [group, bar] of Object.entries(OUT_OF_SAMPLE_BARS))
    it(`${group} (out of sample): ${bar.count} rows, median <= ${bar.median * 100}%, p90 <= ${bar.p90 * 100}%`, () => {
      const s = summary[group]!;
      expect(s.count).toBe(bar.count);
      expect(s.medianAbsError).toBeLessThanOrEqual(bar.median);
      expect(s.p90AbsError).toBeLessThanOrEqual(bar.p90);
    });

  it(`overall median |error| <= ${THROUGHPUT_TARGETS.median * 100} % and kind medians <= ${THROUGHPUT_TARGETS.kindMedian * 100} %`, () => {
    expect(summary.all!.medianAbsError).toBeLessThanOrEqual(THROUGHPUT_TARGETS.median);
    for (const kind of ['training', 'decode'])
      expect(summary[`kind:${kind}`]!.medianAbsError).toBeLessThanOrEqual(
        THROUGHPUT_TARGETS.kindMedian,
      );
  });

  it('in-sample rows are summarized apart, never in the headline', () => {
    expect(summary['in-sample:all']!.count).toBe(13);
    expect(summary.all!.count + summary['in-sample:all']!.count).toBe(earlierRows.length);
  });

  // Row by row against the published number (trust high/medium rows whose mechanism the time model has): the
  // measured value in calibration/throughput.json is the source's figure, not the code's own formula.
  const published: [string, number][] = [
    ['gptfast-l2-7b-bf16', 0.15],
    ['gptfast-l31-8b-bf16', 0.15],
    ['gptfast-l2-70b-int8', 0.3],
    // The run's paged 8-bit AdamW keeps 11.3 GiB of its 15.2 GiB states in host RAM on the 24 GB card: +27.0%
    // with the page migration untimed; -16.6% with every state migrated each step at half the PCIe 4.0 x16 rate
    // (time/paged-migration.ts: bitsandbytes prefetches per parameter, the UVM driver evicts least recently
    // migrated first, bitsandbytes' docs put a prefetch at half the link).
    ['torchtune-readme-01', 0.18],
    // BERT-large fp16 AMP at batch 1 (+63.6% before): its step is host-bound once autocast's casts are dispatched
    // (time/autocast.ts); the Trainer's loop AdamW and per-micro-batch sync are not timed (docs/time-model.md).
    ['hfdocs-bert-tp-05', 0.38],
    // The three 4-bit T4 GRPO steps (+27.9%, +15.7%, +32.5% before): bitsandbytes' pre-0.48 tree kernel
    // (time/bnb-dequant.ts).
    ['unsloth-grpo-qwen2.5-3b-t4', 0.1],
    // −4.5% before vLLM's lone last steps of the longest completion were timed at batch 1 (time/completion-length.ts),
    // +7.9% after: that mechanism lengthens every vLLM rollout, and the row's completion lengths are not logged;
    // +12.1% with the longest of its 6 completions at the log-normal's 1.40x the mean (longestToMean), not 1.47x.
    ['unsloth-grpo-llama3.1-8b-t4', 0.13],
    ['unsloth-grpo-phi4-14b-t4', 0.1],
  ];
  for (const [id, tol] of published)
    it(`${id}: within ${tol * 100}% of the published speed`, () => {
      const r = rows.find((x) => x.id === id)!;
      expect(Math.abs(r.error), `${r.estimated} vs ${r.measured}`).toBeLessThanOrEqual(tol);
    });

  // decode and serving rows together (one replica's decode speed, any engine). The vLLM and SGLang rows alone met median <= 10%,
  // p90 <= 25%; the llama.cpp rows on HBM GPUs (A100, H100 PCIe: +17% to +69%, docs/time-model.md)
  // raised the p90 to 27.5%; dmmv's latency-bound tail (core/time/matvec-tail.ts) brought it to 21.5%.
  it('decode and serving rows together (out of sample): median <= 10%, p90 <= 25%', () => {
    const s = summarizeThroughput(
      'decode+serving',
      earlierRows.filter((r) => !r.inSample && (r.kind === 'decode' || r.kind === 'serving')),
    );
    expect(s.count).toBe(79);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.1);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.25);
  });

  it('the text report gives each engine and kernel family of the decode and serving rows its own line', () => {
    const text = renderThroughputText(rows, throughputSummaries(rows), []);
    const lines = text.split('\n');
    const decoding = rows.filter((r) => r.kind === 'decode' || r.kind === 'serving');
    const engines = new Set(decoding.map((r) => r.engine));
    const kernels = new Set(decoding.map((r) => r.kernel));
    for (const e of engines)
      expect(lines.filter((l) => l.startsWith(`engine:${e} `))).toHaveLength(1);
    for (const k of kernels)
      expect(lines.filter((l) => l.startsWith(`kernel:${k} `))).toHaveLength(1);
    expect([...engines].sort()).toEqual(['hf-generate', 'litgpt', 'llama.cpp', 'sglang', 'vllm']);
    expect(kernels).toContain('marlin');
    // Latencies print with three significant figures, not rounded to 0.2.
    expect(lines.find((l) => l.startsWith('vllm-rtn-8b-bf16-b1 '))).toMatch(/ 0\.236 /);
  });

  // A batch latency is scored as the speed it implies: a positive error means too fast, as on every row.
  it('batch-latency rows: error = measured seconds / estimated seconds - 1', () => {
    for (const r of rows.filter((x) => x.id.startsWith('vllm-rtn-')))
      expect(r.error).toBeCloseTo(r.measured / r.estimated - 1, 10);
  });
});

// Field rows (calibration/README.md "Serving field rows"), scored before any model change, then after the changes
// they prompted, each sourced outside them (AMD's achieved HBM bandwidth, FP8 W8A8 at small batch, vLLM's V0 engine
// loop, the fused-MoE call at small batch) or listed in calibration/assumed.json (FlashInfer's CUTLASS NVFP4 MoE
// call, worked out from the in-sample SGLang sgl-project/sglang#8552 row). Out of sample only. They miss the serving targets (median
// 10%, p90 25% per engine): the bars are today's figures, so a change that makes them worse fails here.
const OLDER_FIELD_ROW =
  /^(oci-mi300x-|sglang-achatbot-|llamacpp-lcp1017-|tt143-|tt340-|inferencex-|flashinfer1734-)/;
// The latest sources' rows: SemiAnalysisAI/InferenceX#870 (SGLang) and vllm-project/vllm#25444 (vLLM, piecewise and full graphs).
const NEWEST_FIELD_ROW = /^(inferencex870-|vllm25444-)/;
// SGLang of 2025 from two sources new to the set, scored before any model change: the SGLang cookbook's speed
// benchmarks (sglang 0.5.6: Llama-3.1-70B on 8x A100, Qwen3-235B-A22B and gpt-oss-120b on 8x B200) and the LMSYS
// gpt-oss blog's batch-1 decode (sglang 0.5.1.post3 on B200 and H100).
const SGLANG_2025_FIELD_ROW = /^(sglcookbook-|lmsys-)/;
// vLLM of 2026 from a source new to the set (cssnoeasy/a100-vllm-benchmark-blog): vllm bench serve closed loops of
// Qwen2.5-7B fp16 on A100 80GB PCIe cards, TP 1 and 2 over PCIe, vLLM 0.19.0.
const VLLM_2026_FIELD_ROW = /^a100pcie-/;
// Sources new to the set, scored before any model change: GPUStack's performance lab (SGLang v0.5.3.post3: Qwen3-8B
// bf16 on one H100 SXM, ShareGPT at most 4 in flight; vLLM 0.11.0: Qwen3-8B bf16 TPOT at 1-8 in flight on one H100,
// gpt-oss-20b bursts of 500 requests on one H100 and one A100, and a Qwen3-32B burst of 500 on one H100), AccelMark's
// interactive scenario (SGLang 0.5.6 on A100-SXM4-40GB, one request at a time: Llama-3-70B over TP 8, Llama-3-8B,
// Llama-3.1-8B at 28.7k tokens, Qwen2.5-0.5B) and pavlokhmel/llm_throughput_benchmark (llama-server, gpt-oss-20b
// Q4_K_M at one request on six GPUs); with them vllm-project/vllm#43232's prefill-heavy closed loop (Qwen3-235B-A22B
// FP8 over TP 4 on B200, 30,000-token prompts) and a blog's batch-1 decode of Llama-3.1-8B on an A100 40GB (vLLM
// 0.23.0, johnmusgrave.com).
const GPU_LAB_FIELD_ROW = /^(gpustack-|accelmark-|pavlokhmel-|vllm43232-|jmusgrave-)/;
// Two sources new to the set, scored before any model change (docs/time-model.md "llama.cpp on an RTX 4090 and gpt-oss
// on one MI300X"): ggml-org/llama.cpp#12183's RTX 4090 decode (Llama-3.2-3B and Qwen2.5-1.5B Q4_K_M, a llama.cpp of
// March 2025, 10 to 10,000 prompt tokens), ggml-org/llama.cpp#17621's unfused tg128 on an RTX 4090 and an RTX 5090
// (Qwen3-30B-A3B Q4_K_M and gpt-oss-20b MXFP4, late 2025) and SemiAnalysisAI/InferenceX#1061 (gpt-oss-120b MXFP4 on one MI300X, vLLM
// 0.17.0, 64 to 256 in flight).
const ADA_CDNA_FIELD_ROW = /^(llamacpp-12183-|llamacpp-17621-|inferencex1061-)/;
// Four sources new to the set, scored before any model change (docs/time-model.md "gpt-oss serving of August 2025 and
// llama.cpp's PR tables"): sariekr/gpu_conc (gpt-oss-20b on one H100 PCIe, H200, B200 and MI300X, vLLM of August 2025,
// closed loops of 1 to 16 streamed chat requests) and the master columns of ggml-org/llama.cpp#16649, ggml-org/llama.cpp#16834 (RTX
// 4090) and ggml-org/llama.cpp#15451 (two RTX A5000 in a layer split): gpt-oss-20b MXFP4 tg128; with them the October 2025
// edition of AMD's MI300X results page (Llama 3.1 70B FP8 over TP 8, vLLM 0.10.2, batch 1, 2 and 4).
const LATE_2025_FIELD_ROW =
  /^(gpuconc-|llamacpp-16649-|llamacpp-16834-|llamacpp-15451-|amdrocm1025-)/;
// Four sources new to the set for quantized serving, scored before any model change (calibration/README.md "Quantized
// serving rows: AWQ Marlin, NVFP4 and GGUF on ROCm"): DeutscheKI/llm-performance-tests (QwQ-32B AWQ on vLLM of March 2025,
// one request at a time, on eight single- and multi-GPU rigs), vllm-project/vllm#49723 (Mistral Small 24B BF16 and NVFP4 on
// one B200, vLLM 0.25.1, 64 in flight; its FP8 rows carried), sgl-project/sglang#28224 (Llama 3.3 70B NVFP4 over TP 4 on
// GB200, one request) and ggml-org/llama.cpp#26284 (Llama 3 8B Q4_K_M and Q5_K_M tg64 on an RX 7900 XTX).
const QUANT_FIELD_ROW = /^(dk-qwq32b-|vllm49723-|sglang28224-|llamacpp-26284-)/;
// Three sources new to the set, scored before any model change (calibration/README.md "vLLM bursts on one A100 and
// FP8 over TP 8 on MI355X"): dennislee22/vLLM-benchmarking (Qwen2-7B bf16 on one A100 80GB, vLLM of September 2025, one
// request and bursts of 10 to 500), vllm-project/recipes#431 (Qwen3Guard-Gen-8B on one MI300X, 32 in flight) and
// llm-d/llm-d#1233 with llm-d/llm-d#139 (Llama-3.3-70B FP8 over TP 8 on MI355X, 4 to 256 in flight).
const SWEEP_FIELD_ROW = /^(dennislee-|recipes431-|llmd1233-|llmd139-)/;
// Three sources new to the set, scored before any model change (calibration/README.md "Batch-1 and burst rows of 2026"):
// cloudrift-ai/emmy (Qwen3-30B-A3B on one H200 with vLLM 0.17.0, Qwen3-8B on one A100 with vLLM 0.23.0, one request),
// a gist's SGLang v0.5.8.post1 sweep on 8x B200 (Qwen3-235B-A22B, gpt-oss-120b and GLM-4.6 at one request) and three
// GPUStack lab pages not read as rows before (DeepSeek-R1-0528 FP8 over TP 8 on H200 and Qwen3-235B-A22B bf16 over TP 8
// and FP8 over TP 4 on H100 with vLLM v0.11.0; Qwen3-14B on one H100 with vLLM v0.11.0 and its FP8 checkpoint with
// SGLang v0.5.5.post1): saturated bursts of 100 to 1000 requests and one closed loop of 4. Later, the lab's GLM-4.6 page
// (bf16 over TP 8 on H200 with vLLM v0.11.0, a burst of 500 x 4K), scored before any model change: +25.3%.
const SRV2026_FIELD_ROW = /^(emmy-|benhamm-|gpslab-)/;
// Two SGLang cookbook pages not read as rows before (calibration/README.md "DeepSeek on the SGLang cookbook: B200 and
// MI300X"), scored before any model change: DeepSeek-R1-0528 FP8 over TP 8 on 8x B200 (SGLang 0.5.6.post1, 1 to 100 in
// flight, 1K/1K, 1K/8K and 8K/1K) and DeepSeek-V3 FP8 on 8x MI300X (sglang 0.5.7: MTP with DP attention at one request,
// expert parallelism with DP attention at 88 in flight).
const DS_COOKBOOK_FIELD_ROW = /^sglcookbook-ds(r1|v3|v31)-/;
// Two sgl-project/sgl-cookbook pages not read as rows before (calibration/README.md "GLM-4.6 and Qwen3-Next on the
// sgl-cookbook pages: 8x B200 under SGLang 0.5.6"), scored before any model change: GLM-4.6 bf16 over TP 8 on 8x B200
// (SGLang 0.5.6.post1, 1 to 100 in flight, 1K/1K, 1K/8K and 8K/1K) and Qwen3-Next-80B-A3B bf16 over TP 8 on 8x B200
// (sglang 0.5.6, ShareGPT at 1 and 100 in flight).
const SGLCB56_FIELD_ROW = /^sglcookbook-(glm46|qwen3next)-/;
// Three llama.cpp PRs' microbatch tables, the first batched llama.cpp rows (docs/time-model.md "llama.cpp's MoE at a
// decode batch"), scored before any model change: ggml-org/llama.cpp#15131 (Llama 3.1 8B BF16 on an RTX 4090, 1-8
// tokens), ggml-org/llama.cpp#24216 (Llama 3.2 1B F16 on an RTX 3090, 1-16) and ggml-org/llama.cpp#20586 (gpt-oss-20b
// MXFP4 on an RTX 3090, 1-64).
const MICROBATCH_FIELD_ROW = /^(llamacpp-15131-|llamacpp-24216-|llamacpp-20586-)/;
// Three PR tables new to the set, scored before any model change (calibration/README.md "MXFP4 on MI355X, SGLang's
// DeepSeek on MI300X and MMVQ's columns: three PR tables"): vllm-project/vllm#25135 (Llama 3.1 405B MXFP4 on one MI355X, vLLM of September 2025,
// 64 in flight), ROCm/aiter#1930 (SGLang DeepSeek-R1 FP8 on 8x MI300X with aiter's tuned block-scaled FP8 GEMM, 4 to 32
// in flight) and ggml-org/llama.cpp#15802 (Llama 3 8B Q4_0 on an RTX 3090, microbatch 1 to 8).
const PR_TABLE_FIELD_ROW = /^(vllm25135-|aiter1930-|llamacpp-15802-)/;
// Three tables new to the set, scored before any model change (calibration/README.md "Qwen3-4B on an RTX 4090, an eager
// AWQ run on an A100 and llama.cpp at a 32K depth: three tables"): tenstorrent/tt-inference-server#394 (Qwen3-4B bf16 on
// an RTX 4090 at concurrency 1), vllm-project/vllm#20469 (Qwen3-14B-AWQ on an A100 under vLLM v0.9.1 with
// --enforce-eager) and ggml-org/llama.cpp#17505 (Llama 3 8B Q4_0 after a 32,768-token depth, microbatch 1 to 16).
const DEPTH_EAGER_FIELD_ROW = /^(tt394-|vllm20469-|llamacpp-17505-)/;
// Five sources new to the set, the mainstream cases a user checks first, scored before any model change (calibration/README.md
// "Mainstream vLLM serving: RTX 4090, L40S and H100 NVL"): tenstorrent/tt-inference-server#125 (Qwen2.5-7B-Instruct bf16 on an
// RTX 4090, one request), violet-quartz/vllm-serving-experiments (vLLM 0.25.1 on an RTX 4090: Qwen2.5-7B-Instruct bf16 and
// online FP8, ShareGPT closed loops of 1 to 128 in flight), noonghunna/club-3090#697 (Qwen3-4B online FP8 on an RTX 4090 at a
// 250 W cap, one stream), vllm-project/vllm#17788 (Qwen3-32B bf16 on one H100 NVL, a ShareGPT burst of 1000 at 32 running) and
// vllm-project/vllm#29217 (Qwen3-VL-32B block FP8 text-only on one L40S, a ShareGPT burst of 1000).
const MAINSTREAM_FIELD_ROW = /^(tt125-|vsexp-|club3090-|vllm17788-|vllm29217-)/;
// Three sources new to the set, one card each, scored before any model change (calibration/README.md "One card: Marlin at
// batch 1 on an A100, an FP8 MoE burst on an L40S, GGUF on an RTX 3060"): the Qwen2.5 speed benchmark's vLLM tables
// (vLLM 0.6.3 on one A100 80GB, batch 1, 2048 tokens: Qwen2.5-7B, 14B and 32B in BF16, GPTQ-Int8, GPTQ-Int4 and AWQ
// through Marlin), lukaLLM/vLLM_vs_SGLang_benchmarks (Qwen3-Coder-30B-A3B block FP8 on one L40S, a ShareGPT burst of
// 1000 under SGLang 0.5.8 and vLLM v0.10.2) and a blog's llama-bench tg512 on an RTX 3060 12GB (Llama 3.1 8B and
// Qwen2.5-14B Q5_K_M, a llama.cpp of December 2024).
const ONE_CARD_FIELD_ROW = /^(qwen25sb-|lukallm-|ywac-)/;
// Three sources new to the set, scored before any model change (calibration/README.md "Workstation Blackwell, H100 NVL and
// MI300X: three engines on one RTX PRO 6000, gpt-oss closed loops, ROCm builds"): AUGMXNT/speed-benchmarking's nvfp4/ results
// (Llama-3.1-8B-Instruct on one RTX PRO 6000 Blackwell at 600 W: vLLM W4A16 Marlin and FP8, SGLang W4A16 and FP8, llama.cpp
// Q4_K_M, random 1024/128 at 1, 8 and 32 in flight), xinyuwei-david/david-share (gpt-oss-20b and -120b closed loops of 256 on
// one H100 NVL, Qwen3-235B-A22B bf16 at one request on 8x MI300X under vLLM 0.8.3's V0 engine) and AUGMXNT/MI300-testing
// (llama-bench tg128 of Llama 2 7B Q4_0 on one MI300X, a ROCm build of October 2024, flash attention off and on).
const PRO6000_FIELD_ROW = /^(davidshare-|speedbench-|mi300testing-)/;
// Four sources new to the set, scored before any model change (docs/time-model.md "Serving rows from Poisson-rate
// sweeps, an RTX 4090 capacity sweep and a host's RTX 4090 bursts"): ovg-project/kvcached's vanilla engines (vLLM 0.19.0:
// Qwen3-0.6B on one H100 SXM at 16 req/s and a burst of 500; SGLang v0.4.6.post2: Llama-3.2-3B on one A100 80GB at 8 and
// 16 req/s), crusoecloud/crusoe-cookbook's vLLM 0.5.5 Poisson sweeps on L40S (Llama-3.1-8B bf16 and FP8-dynamic at 1-9
// req/s on one card, Llama-3.1-70B bf16 over TP 8 and FP8 over TP 4 at 1 req/s), a blog's closed loops of
// Mistral-7B-Instruct-v0.3 on one RTX 4090 (4 to 48 in flight) and databasemart.com's RTX 4090 bursts of 300 (five 1.5B-9B
// models in 16-bit, vLLM of early 2025).
const RATE_SWEEP_FIELD_ROW = /^(kvcached-|mushfiq-|dbmart-|crusoe-)/;
// Three sources new to the set, each its own group, scored before any model change (docs/time-model.md "Serving rows
// from a cloud engine shoot-out, a DeepSeek decode sweep and a workstation llama.cpp baseline"): ree2raz/inference-bench's
// closed loops of 128-token chat requests on Modal (vLLM 0.20.1 on an A100 40GB: Qwen2.5-7B bf16 and AWQ-Marlin at 1-64 in
// flight, Qwen3-30B-A3B AWQ-Marlin at 1 and 16; Qwen3-30B-A3B bf16 on an A100 80GB at 1 and 4; SGLang on the A100 40GB, bf16
// without CUDA graphs and AWQ-Marlin with them; vLLM 0.8.5, SGLang 0.4.6 and llama.cpp b5540 on an L4; Qwen3-8B's ~6,500-token
// reasoning answers one at a time on the L4, bf16 and AWQ), vllm-project/vllm#28992 (DeepSeek-V3.1 FP8 over TP 8 on
// H200, 16 in flight of one prompt token and 100 out) and CambrianTech/continuum#1627 (Qwen3-8B Q4_K_M on one RTX 5090
// under WSL2, llama.cpp); vllm-project/vllm#23151 has its own group below.
const INFBENCH_FIELD_ROW = /^infbench-/;
const VLLM28992_FIELD_ROW = /^vllm28992-/;
const CONTINUUM1627_FIELD_ROW = /^continuum1627-/;
// vllm-project/vllm#23151: Qwen3-30B-A3B bf16 on one H100 under vLLM of August 2025, 10 in flight of 2048 in and 1024 out.
const VLLM23151_FIELD_ROW = /^vllm23151-/;
// Three sources new to the set, each its own group, scored before any model change (docs/time-model.md "Serving rows
// from an eager A100 suite, SGLang's Marlin MoE on SM120 and an RTX 5090 log"): staru09/llm_infra_bench (vLLM of
// February 2026 with --enforce-eager on an A100-SXM4-80GB: Llama-3.1-8B and Qwen3-8B fp16, ShareGPT closed loops of 20,
// 50 and 100), sgl-project/sglang#32668 (gpt-oss-20b MXFP4 through SGLang's Marlin MoE on an SM120 card, random 512/512
// closed loops of 1 to 256) and Cloud-Linuxer/qwen-8b (Qwen3-8B bf16 on an RTX 5090 under vLLM 0.10.2: one request and
// bursts of 5 to 50).
const LLMINFRA_FIELD_ROW = /^llminfra-/;
const SGLANG32668_FIELD_ROW = /^sglang32668-/;
const QWEN8B5090_FIELD_ROW = /^qwen8b5090-/;
// llama.cpp's two scoreboard threads, each its own group, scored before any model change (docs/time-model.md "llama.cpp's
// scoreboards: Llama 2 7B tg128 on CUDA cards and Apple M-series"): discussion ggml-org/llama.cpp#15013 (the CUDA
// scoreboard, Q4_0 tg128 with flash attention off on twelve GeForce and RTX workstation cards) and discussion ggml-org/llama.cpp#4167 (the
// Apple Silicon table of build 8e672ef: F16, Q8_0 and Q4_0 tg128 on the M2 Ultra and M4 Max, Q4_0 on the M3 Max).
const CPP15013_FIELD_ROW = /^llamacpp-15013-/;
const CPP4167_FIELD_ROW = /^llamacpp-4167-/;
const eraOfEarlier = (id: string) =>
  OLDER_FIELD_ROW.test(id)
    ? 'older'
    : NEWEST_FIELD_ROW.test(id)
      ? 'newest'
      : DS_COOKBOOK_FIELD_ROW.test(id)
        ? 'dscookbook'
        : SGLCB56_FIELD_ROW.test(id)
          ? 'sglcb56'
          : SGLANG_2025_FIELD_ROW.test(id)
            ? 'sglang2025'
            : VLLM_2026_FIELD_ROW.test(id)
              ? 'vllm2026'
              : GPU_LAB_FIELD_ROW.test(id)
                ? 'gpulab'
                : ADA_CDNA_FIELD_ROW.test(id)
                  ? 'adacdna'
                  : LATE_2025_FIELD_ROW.test(id)
                    ? 'late2025'
                    : QUANT_FIELD_ROW.test(id)
                      ? 'quant'
                      : SWEEP_FIELD_ROW.test(id)
                        ? 'sweep'
                        : SRV2026_FIELD_ROW.test(id)
                          ? 'srv2026'
                          : MICROBATCH_FIELD_ROW.test(id)
                            ? 'microbatch'
                            : PR_TABLE_FIELD_ROW.test(id)
                              ? 'prtable'
                              : DEPTH_EAGER_FIELD_ROW.test(id)
                                ? 'deptheager'
                                : MAINSTREAM_FIELD_ROW.test(id)
                                  ? 'mainstream'
                                  : ONE_CARD_FIELD_ROW.test(id)
                                    ? 'onecard'
                                    : PRO6000_FIELD_ROW.test(id)
                                      ? 'pro6000'
                                      : RATE_SWEEP_FIELD_ROW.test(id)
                                        ? 'ratesweep'
                                        : INFBENCH_FIELD_ROW.test(id)
                                          ? 'infbench'
                                          : VLLM28992_FIELD_ROW.test(id)
                                            ? 'vllm28992'
                                            : CONTINUUM1627_FIELD_ROW.test(id)
                                              ? 'continuum1627'
                                              : VLLM23151_FIELD_ROW.test(id)
                                                ? 'vllm23151'
                                                : LLMINFRA_FIELD_ROW.test(id)
                                                  ? 'llminfra'
                                                  : SGLANG32668_FIELD_ROW.test(id)
                                                    ? 'sglang32668'
                                                    : QWEN8B5090_FIELD_ROW.test(id)
                                                      ? 'qwen8b5090'
                                                      : CPP15013_FIELD_ROW.test(id)
                                                        ? 'cpp15013'
                                                        : CPP4167_FIELD_ROW.test(id)
                                                          ? 'cpp4167'
                                                          : 'newer';
// Ten sources new to the set, each its own group, scored before any model change (docs/time-model.md "Serving rows from
// fused-MoE config PRs, a Qwen3-Next llama.cpp build and a B200 quantization thread"): the untuned (Before) runs of SGLang's
// Qwen3-Next fused-MoE config PRs on H200 (sgl-project/sglang#10404) and H20 (sgl-project/sglang#10467), vLLM v0.11.0's GLM-4.6
// on 8x MI300X (vllm-project/vllm#27323), SGLang's DeepSeek-V3-0324 on 8x H20 (sgl-project/sglang#7631), vLLM's
// Qwen3-30B-A3B-FP8 over TP 2 + EP on two H100 PCIe (vllm-project/vllm#25398), InferenceX's MiniMax-M2.5 FP8 on H100 with vLLM
// (SemiAnalysisAI/InferenceX#832), a bf16 Mistral 24B on one B200 with vLLM 0.25.1 (NVIDIA/Model-Optimizer#2015), SGLang's
// Qwen3-30B-A3B-FP8 over TP 4 + EP on H200 (sgl-project/sglang#12343), SGLang 0.5.13's MiniMax-M2.7 FP8 on MI300X
// (sgl-project/sglang#31044) and llama.cpp's Qwen3-Next Q4_K_M on an A100 (ggml-org/llama.cpp#19365). Six more, the same
// way (docs/time-model.md "Serving rows from a Gemma 3 reference sweep, LoRA and Qwen3-Next PRs and a Nemotron recipe"):
// Tenstorrent's gemma-3-4b-it GPU reference on an A100 (tenstorrent/tt-inference-server#521), SGLang's DeepSeek-R1 NVFP4 on
// B200 (sgl-project/sglang#9162), vLLM 0.12.0's Nemotron-3-Nano FP8 on H200 (vllm-project/recipes#165), llama-bench's BF16
// Llama 8B on an RTX 3090 (ggml-org/llama.cpp#14262), vLLM's LoRA serving on H20 (vllm-project/vllm#27402) and SGLang's
// Qwen3-Next over TEP4 on H200 and H20 (sgl-project/sglang#10816). Five more, the same way (docs/time-model.md "Serving
// rows from AMD recipe pages and Qwen3 FP8 MoE tuning PRs"): three vllm-project/recipes pages (Llama/Llama3.3-70B-ROCm.md's
// FP8 Llama 3.3 70B on one MI355X, DeepSeek/AMD_GPU/README.md's DeepSeek-R1 on 8x MI300X, Qwen/Qwen3-Next.md's B200
// outputs) and the Before Tuning columns of vLLM's MI300X Qwen3 FP8 MoE config PRs (vllm-project/vllm#17530,
// vllm-project/vllm#17535: offline bursts of 200). Four more, the same way (docs/time-model.md "Serving rows from an
// LFM2.5 cookbook snippet, two vLLM PRs of July 2026 and SGLang's FP8 one_batch runs"): the SGLang cookbook's LFM2.5
// benchmark snippet (LFM2.5-1.2B-Instruct bf16 on H100, H200 and B200 at 1 and 100 in flight), vLLM main's
// Nemotron-3-Nano FP8 on H200 one request at a time (vllm-project/vllm#50040), vLLM main's Qwen3-32B-FP8 over TP 8 on
// H100 at 32 in flight (vllm-project/vllm#48757) and SGLang's bench_one_batch of two W8A8 FP8 7B checkpoints
// (sgl-project/sglang#32994, H100 assumed). Four more, the same way (docs/time-model.md "Serving rows from GPUStack's
// quantization study and A100 pages, a QwQ-32B issue and a B200 MXFP4 PR"): GPUStack's quantization study (Qwen3-8B on
// vLLM 0.9.2, 1000-prompt ShareGPT bursts through BF16, AWQ, GPTQ, Marlin, bitsandbytes and FP8 kernels on an RTX 4090, an
// A100 and an H100), the lab's A100 pages for Qwen3-14B and Qwen3-32B (vLLM 0.11.0 and SGLang 0.5.5.post1), QwQ-32B one
// request at a time on 8x H200 (vllm-project/vllm#18725) and gpt-oss-120b over TP 8 on B200 (vllm-project/vllm#23696).
const NEWSRV_ERAS: readonly (readonly [RegExp, string])[] = [
  [/^sglang10404-/, 'sglang10404'],
  [/^sglang10467-/, 'sglang10467'],
  [/^vllm27323-/, 'vllm27323'],
  [/^sglang7631-/, 'sglang7631'],
  [/^vllm25398-/, 'vllm25398'],
  [/^inferencex832-/, 'inferencex832'],
  [/^modelopt2015-/, 'modelopt2015'],
  [/^sglang12343-/, 'sglang12343'],
  [/^sglang31044-/, 'sglang31044'],
  [/^ocitput-/, 'ocitput'],
  [/^sglang30812-/, 'sglang30812'],
  [/^llamacpp-19365-/, 'cpp19365'],
  [/^tt521-/, 'tt521'],
  [/^sglang9162-/, 'sglang9162'],
  [/^recipes165-/, 'recipes165'],
  [/^llamacpp-14262-/, 'cpp14262'],
  [/^vllm27402-/, 'vllm27402'],
  [/^sglang10816-/, 'sglang10816'],
  [/^recipesl33rocm-/, 'recipesl33rocm'],
  [/^recipesdsamd-/, 'recipesdsamd'],
  [/^recipesq3next-/, 'recipesq3next'],
  [/^vllm17530-/, 'vllm17530'],
  [/^vllm17535-/, 'vllm17535'],
  [/^llamacpp-16894-/, 'cpp16894'],
  [/^sglang6885-/, 'sglang6885'],
  [/^vllm28200-/, 'vllm28200'],
  [/^sgllfm25-/, 'sgllfm25'],
  [/^vllm50040-/, 'vllm50040'],
  [/^vllm48757-/, 'vllm48757'],
  [/^sglang32994-/, 'sglang32994'],
  [/^gpsquant-/, 'gpsquant'],
  [/^gpsa100-/, 'gpsa100'],
  [/^vllm18725-/, 'vllm18725'],
  [/^vllm23696-/, 'vllm23696'],
  [/^rgshaw-/, 'rgshaw'],
  [/^iognet-/, 'iognet'],
  [/^vllm22331-/, 'vllm22331'],
  [/^sglang9359-/, 'sglang9359'],
  [/^vllm6677-/, 'vllm6677'],
  [/^sglang7445-/, 'sglang7445'],
  [/^datacrunch-/, 'datacrunch'],
  [/^inferencex1092-/, 'inferencex1092'],
  [/^livinfly-/, 'livinfly'],
  [/^llmfit-/, 'llmfit'],
  [/^timwang-/, 'timwang'],
  [/^sglang060-/, 'sglang060'],
  [/^openinfer-/, 'openinfer'],
  [/^hamzah-/, 'hamzah'],
  [/^lambdavllm-/, 'lambdavllm'],
  [/^aibench-/, 'aibench'],
  [/^llamacpp-2917-/, 'llamacpp2917'],
  [/^llamacpp-2891-/, 'llamacpp2891'],
  [/^llamacpp-8215-/, 'llamacpp8215'],
  [/^llamacpp-unsloth-/, 'unslothr1'],
  [/^llmie-/, 'llmie'],
  [/^perfmodel-/, 'perfmodel'],
  [/^yobitel-/, 'yobitel'],
  [/^calebcoffie-/, 'calebcoffie'],
  [/^gpsoss120-/, 'gpsoss120'],
  [/^gpsglmair-/, 'gpsglmair'],
  [/^gpsglm46-/, 'gpsglm46'],
  [/^gpsglm52-/, 'gpsglm52'],
  [/^gpsglm4x-/, 'gpsglm4x'],
  [/^wmx-/, 'wmx'],
  [/^llamacpp-20835-/, 'llamacpp20835'],
  [/^lotto3090-/, 'lotto3090'],
  [/^qwen3speed-/, 'qwen3speed'],
  [/^llminfbench-/, 'llminfbench'],
  [/^vllm30326-/, 'vllm30326'],
  [/^dstackamd-/, 'dstackamd'],
  [/^vllm23695-/, 'vllm23695'],
  [/^sglang9770-/, 'sglang9770'],
  [/^sglang1060-/, 'sglang1060'],
  [/^sglang1138-/, 'sglang1138'],
  [/^sglang1281-/, 'sglang1281'],
  [/^recipes443-/, 'recipes443'],
  [/^vultrcookbook-/, 'vultrcookbook'],
  [/^recipesglmv-/, 'recipesglmv'],
  [/^recipesdsv3-/, 'recipesdsv3'],
  [/^ixblog-/, 'ixblog'],
  [/^nanovllm-/, 'nanovllm'],
  [/^inferencelab-/, 'inferencelab'],
  [/^vllmblogfp8kv-/, 'vllmblogfp8kv'],
  [/^vllm40838-/, 'vllm40838'],
  [/^magpie88-/, 'magpie88'],
  [/^recipes476-/, 'recipes476'],
  [/^inferencex1276-/, 'inferencex1276'],
  [/^amverified-/, 'amverified'],
  [/^sglcb-/, 'sglcb'],
  [/^systalyze-/, 'systalyze'],
  [/^recipes112-/, 'recipes112'],
  [/^gpsq235a100-/, 'gpsq235a100'],
  [/^vllm19455-/, 'vllm19455'],
  [/^sglang4918-/, 'sglang4918'],
  [/^sglang6111-/, 'sglang6111'],
  [/^sglang4858-/, 'sglang4858'],
  [/^isambard-/, 'isambard'],
  [/^sglang3237-/, 'sglang3237'],
  [/^lmsysdet-/, 'lmsysdet'],
  [/^vllm13747-/, 'vllm13747'],
  [/^millstone-/, 'millstone'],
  [/^joshua8-/, 'joshua8'],
  [/^llmso-/, 'llmso'],
  [/^vllm48035-/, 'vllm48035'],
  [/^adjbench-/, 'adjbench'],
  [/^rocmvllmdev(0100|073)-/, 'rocmvllmdev'],
  [/^vllm16300-/, 'vllm16300'],
  [/^optimum-prefill-/, 'optimumprefill'],
  [/^kubesimplify-/, 'kubesimplify'],
];
const isNewSrvRow = (id: string) => NEWSRV_ERAS.some(([re]) => re.test(id));
const eraOf = (id: string) => NEWSRV_ERAS.find(([re]) => re.test(id))?.[1] ?? eraOfEarlier(id);
// The older and newer vLLM field rows at today's figures (each line's comment says how they got there).
const OLDER_BAR = { count: 31, median: 0.099, p90: 0.23 };
// With the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts): p90 11.91% -> 12.23%.
const NEWER_BAR = { count: 4, median: 0.088, p90: 0.1223 };
const FIELD_BARS = {
  // OCI Llama-3.1-405B FP8 on 8x MI300X (vLLM 0.6 V0 benchmark_latency, batch 1-256: +41..+148% before,
  // +11..+75% after), Qwen2.5-72B on 2x H100 at batch 1 (TPOT, +4%), Qwen3-30B-A3B on an A100 at batch 1
  // (TPOT, +54..+59% before, +21..+27% after the fused-MoE call latency), gpt-oss-120b MXFP4 on H100 (SemiAnalysis
  // SemiAnalysisAI/InferenceX#828: 9.8% / 25.4% alone) and Llama 4 Scout NVFP4 on a B200 at batch 1 (flashinfer-ai/flashinfer#1734,
  // CUTLASS MoE: +178%; +18.6% with FlashInfer's CUTLASS NVFP4 MoE call, engines/moe-call.ts): 31 rows, 16.8% /
  // 43.9% before that call, 16.8% / 29.2% with it. With vLLM's FP8 linears on ROCm timed as hipBLASLt's (torch._scaled_mm:
  // its read rate at decode M and its FP8 GEMM rate, time/decode.ts KERNELS.cutlass.rocm, time/hardware.ts
  // FP8_GEMM_EFF_AMD), the OCI rows +0.4..+36.9%: 10.3% / 26.6%; with the GPU's gap at each split of vLLM's piecewise
  // graphs (14 µs a layer, vllm-project/vllm#20059; tt143 +4% -> +1.5%, tt340 +21..+27% -> +18..+23%): 10.3% / 25.5%;
  // with RCCL's measured all-reduce on MI300X as each TP call's floor (catalog interconnect.allReduce; OCI batch 16-256
  // +10..+37% -> +8..+27%): 3.4% / 13.5%; with vLLM's decode linears on ROCm that its skinny kernels do not take timed
  // as hipBLASLt calls (engines/vllm/rocm-gemm.ts; OCI batch 2-128 -5.5..+12.3%): 4.1% / 13.5% (OLDER_BAR).
  'older kind:serving engine:vllm': OLDER_BAR,
  // Rows from sources added later, scored before any change: AMD's MI300X results page (Llama 3.1 70B FP8 over TP 8,
  // vLLM 0.9.1, batch 1 and 2: +17.2%, +22.4%) and tenstorrent/tt-inference-server#356 (DeepSeek-R1-0528 AWQ over TP 8 on
  // H100 at batch 1: +146%, +147%; -6.8%, -5.6% with the attention layers' eager calls under vLLM's piecewise CUDA
  // graphs, time/piecewise.ts): 84.3% / 147.3% -> 11.8% / 22.4%; with hipBLASLt's FP8 read rate on ROCm and the GPU's
  // gap at each piecewise split: 3.9% / 6%; with the linears hipBLASLt runs at batch 2 on ROCm (AMD's batch 2 +1.3% ->
  // -11.7%: the step grows by 1.3 ms from batch 1, the page's 0.4 ms; its batch 1 stays -3.1%); with V1's serial host
  // work per running request (engines/vllm/memory.ts serialSeqHostSeconds, 10 µs) batch 2 -11.7% -> -11.8%; with the
  // pieces' cudaGraphLaunch host time under piecewise graphs (engines/vllm/piecewise.ts pieceLaunchNodeSeconds, 0.91 µs
  // a node, sgl-project/sglang#29960) tt356 -3.1%, -1.9% -> -9.3%, -8.1%: 8.7% / 11.9%; with vLLM's ROCm decode kernels'
  // KV read at their sourced shares of the peak (engines/vllm/rocm-attention.ts VLLM_ROCM_DECODE_READ; AMD's batch 2
  // -11.85% -> -11.90%): 8.7% / 11.9% (NEWER_BAR, p90 0.1190 -> 0.1191).
  'newer kind:serving engine:vllm': NEWER_BAR,
  // The latest sources, scored before any change: vllm-project/vllm#25444 (Qwen3-Coder-30B-A3B FP8 on one H100, a burst of
  // 10: piecewise graphs +85.7%, +90.9%, full graphs +26.4%, +32.1%; the piecewise cost of a K/V-head MoE layer is
  // not modelled). With the block-scaled FP8 linears timed by their kernels (time/block-fp8.ts): +59.1%, +61.5%;
  // +8.3%, +11.8%. With the GPU's gap at each split of the piecewise graphs (48 x 14 µs) and vLLM's serial step gap
  // worked out again with it (0.8 -> 0.38 ms, engines/vllm/memory.ts): +55.8%, +52.5%; +12.1%, +11.8%. With the
  // graph's kernels at 3.15 µs (engines/graph-kernel.ts; the serial gap worked out again, 0.13 ms): 29.6% / 54.5%;
  // with those kernels in SM cycles (the H100 PCIe's 1.75 GHz against the SXM's 1.98): 29.7% / 54.5%. With the
  // prefill's GEMMs at vLLM's block-FP8 CUTLASS rate on Hopper (engines/vllm/block-fp8.ts peakShare8), from +40.9%,
  // +35.0%; +0.9%, -1.8% (the frontend bound and DeepSeek's decode kernels in): +33.2%, +27.5%; -5.0%, -7.5%: 17.5% / 33.2%.
  'newest kind:serving engine:vllm': { count: 4, median: 0.175, p90: 0.332 },
  // SemiAnalysisAI/InferenceX#870 (DeepSeek-R1 FP8 on 8x H200, SGLang v0.5.7, 8-64 in flight: +15.6..+22.8%; -9.1%, -7.2%,
  // +2.2%, +7.3% with the block-scaled FP8 linears timed by DeepGEMM's kernel figures, time/block-fp8.ts; -9.6%,
  // -8.0%, +0.9%, +5.2% with the TP all-reduces of prefill timed, time/decode.ts prefillTime; -12.1%, -10.4%, -1.8%,
  // +2.7% with the graph's kernels at 3.15 µs, engines/graph-kernel.ts: MLA's decode chain is not counted apart;
  // -12.1%, -10.5%, -2.0%, +2.4% with the prefill's GEMMs at DeepGEMM's large-M rate, engines/sglang/block-fp8.ts).
  // With the issue's concurrency-4 run (1k/1k, 1k/8k, 8k/1k on three runners: +114.0%, +2.3%, +0.8%, scored before any
  // change; the 1k/1k job's TPOT is above the 8-in-flight sweep's): 7 rows.
  // With the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts): median 4.2% -> 4.4%.
  'newest kind:serving engine:sglang': { count: 7, median: 0.044, p90: 1.141 },
  // gpt-oss-20b MXFP4 on one H100, 32 requests in flight: +34% on the output tokens/s the PR prints, whose wall time
  // carries a TTFT outside the engine (2.7 s at 4 in flight); scored by its TPOT, -8.6%; -10.6% with the graph's
  // kernels at 3.15 µs (engines/graph-kernel.ts); -11.4% with its strided q copied before the attention kernel above
  // one sequence (engines/sglang/memory.ts stridedQCopyKernels).
  // -11.7% with its neighbours' eager prefills at SGLang's host price a call (engines/sglang/memory.ts
  // SGLANG_EAGER_CALL_SECONDS, sgl-project/sglang#12160).
  // With the same PR's run at 4 in flight scored by its TPOT (+15.0%, scored before any change): 2 rows.
  'older kind:serving engine:sglang': { count: 2, median: 0.134, p90: 0.15 },
  // Mixtral Q5_K_M on an A100 and an H100 with a llama.cpp of December 2023 (+96%, +141%; +55%, +91% with the
  // build's host round trip per expert slot, engines/llama-cpp/memory.ts expertIdsSyncSeconds; +34%, +66% with
  // the unfused graph's kernels; +20%, +49% with the per-slot MoE layer's own kernels, engines/llama-cpp/memory.ts
  // perSlotMoeKernels; +12%, +21% with the quantized mat-vec bound by the SMs' work, time/decode.ts KERNELS.gguf.issue).
  // +9.5%, +7.6% with a graph kernel's cost in SM cycles (engines/llama-cpp/memory.ts graphKernelCycles).
  // +12.1%, +10.2% without a second count of the routing: that build's router and top-k ops are perSlotMoeKernels'
  // (time/decode-host.ts moeRoutingKernelCount), not also a fused graph's 4.
  'older kind:decode engine:llama.cpp': { count: 2, median: 0.112, p90: 0.121 },
  // The SGLang cookbook's 16 rows and the LMSYS blog's 4, scored before any model change and unchanged: the cookbook's
  // Llama-3.1-70B (8x A100) and Qwen3-235B-A22B (8x B200) rows +24..+36% at one request in flight and +4..+93% at 13-91,
  // its gpt-oss-120b row -13.7%; the blog's gpt-oss-120b rows -13.1..+16.7%: 33.3% / 54.4%. With a request's own
  // prefill left out of its TPOT (time/decode.ts servingTime: the others' B - 1), 34.7% / 55.2% (the one-request rows
  // +34..+37%; docs/time-model.md "SGLang of 2025"). With a prefill's experts at one expert's TP width (time/decode.ts
  // prefillExpertFlops) the Qwen3-235B rows at 16-64 in flight move 1.8-5.9 points toward their runs. With SGLang's
  // prefills launched eagerly (time/decode.ts eagerPrefillHostSeconds; Qwen3-235B at 91 in flight +91.5% -> +71.3%,
  // at 13 +35.8% -> +31.4%): 34.2% / 55.2%. With the graph's kernels at 3.15 µs (engines/graph-kernel.ts) as well,
  // 25.7% / 52.1%: the one-request rows +24.8..+28.7%, the gpt-oss rows -20.4%, -19.8% (MXFP4 on B200) and +8.0%,
  // +4.7% (H100). At today's figures (the later kernel changes) 22.6% / 45.4%; with SGLang's decode step routing its
  // batch padded to the captured graph size, Qwen3's per-head q/k norms' kernels and a plain layer's strided q copied
  // above one sequence (engines/sglang/memory.ts graphBatch, qkNormKernels, stridedQCopyKernels), and those kernels
  // among an eager prefill's launches (Qwen3-235B at 91 in flight +62.8% -> +52.3%): 20.1% / 42.6%. With gpt-oss's
  // all-reduces fused with their norms on Blackwell (engines/sglang/memory.ts allReduceNormFusion; the B200 gpt-oss
  // rows -20.4%, -19.8%, -0.2% -> -13.8%, -13.4%, +7.3%): 18.5% / 42.6%. With the Llama-3.1-70B page's A100 read as
  // the 40GB SXM card (the cookbook's own A100 sizing of the same release and a same-engine 40GB run; the rows' notes),
  // those six rows +1.3..+42.5% -> -5.5..+26.5%: 10.0% / 33.4%. With SGLang's eager prefill launches at its own host
  // price a call (engines/sglang/memory.ts SGLANG_EAGER_CALL_SECONDS, sgl-project/sglang#12160: 44 µs, was 21), the
  // Qwen3-235B rows at 13-90 in flight +7.8..+37.4% -> -0.3..+28.8%: 7.8% / 20.9%.
  'sglang2025 kind:serving engine:sglang': { count: 20, median: 0.079, p90: 0.209 },
  // vLLM 0.19.0 on A100 80GB PCIe (Qwen2.5-7B fp16, TP 1 and 2, 8-32 in flight, 100 prompts), scored before any model
  // change as first read (no prefix cache, a steady cap in flight): +4.1%, -8.9%, -42.1%, -43.0%, -17.2%, -25.9%, 21.6% /
  // 43.0%. Read again from the harness's code (the seeded prompts replayed from vLLM's prefix cache, and the closed
  // loop's rounds: the rows' prefix-cache and num_prompts): +10.2%, -4.6%, -7.1%, -10.1%, +12.1%, -2.7%. No model change.
  // With a neighbour's prefill sharing the decode step's weight read (vLLM's chunked prefill, time/decode.ts
  // servingTime): +12.5%, -3.4%, -2.4%, -7.3%, +15.5%, -0.9%. With the graph's kernels at 3.15 µs
  // (engines/graph-kernel.ts) as well: 7.3% / 13.6%; with those kernels in SM cycles (the A100's 1.41 GHz: 4.4 µs),
  // +5.7%, -10.2%, -6.1%, -11.7%, +9.8%, -6.9%: 8.3% / 11.7%. With FlashAttention-2's KV read at 0.87 of the peak
  // (time/decode-attention.ts, vllm-project/vllm#9471) the o512 rows +10.2%, -6.8%: 8.5% / 11.7%.
  // With the logits' gather over TP 2 through the A100 PCIe cards' host link (time/vocab-parallel.ts: the a100pcie TP 2
  // rows -7.2..-11.8% -> -9.6..-13.2%): median 8.5% -> 9.6%.
  'vllm2026 kind:serving engine:vllm': { count: 6, median: 0.096, p90: 0.136 },
  // GPUStack's Qwen3-8B on one H100 (SGLang v0.5.3.post3, ShareGPT, 4 in flight) and AccelMark's SGLang 0.5.6 rows on
  // A100-SXM4-40GB at one request, scored before any model change: +7.5%; Llama-3-70B TP 8 +8.8%, Llama-3-8B +4.7%,
  // Llama-3.1-8B at 28.7k tokens +3.2%, Qwen2.5-0.5B +28.7%: 7.5% / 28.7%. With the graph's kernels at 3.15 µs
  // (engines/graph-kernel.ts): +3.1%; +5.0%, +2.6%, +1.5%, +14.1%: 3.1% / 14.1%. At today's figures (the graph
  // kernels in SM cycles) 1.8% / 6.6%; with Qwen3's per-head q/k norms' kernels (engines/sglang/memory.ts
  // qkNormKernels) GPUStack's row +3.2% -> -0.1%: 1.6% / 6.6%. With FlashInfer's KV read at 0.82 of an A100's peak
  // (time/decode-attention.ts, flashinfer.ai blog Figure 9) the 28.7k-token row -1.6% -> -2.2%: 1.8% / 6.6%.
  // With the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts): median 1.9% -> 2.1%.
  'gpulab kind:serving engine:sglang': { count: 5, median: 0.021, p90: 0.066 },
  // GPUStack's vLLM 0.11.0 rows, scored before any model change: Qwen3-8B bf16 TPOT on one H100 at 1, 2, 4 and 8 in
  // flight +3.5..+7.2%; the gpt-oss-20b bursts of 500 two-thousand-token prompts +117.0% (H100) and +58.1% (A100),
  // their prefill timed at twice the rate the runs reached (docs/time-model.md "GPUStack and a llama-server sweep");
  // the A100's +54.4% with vLLM's default of 256 running sequences there (the row's max_num_seqs);
  // the Qwen3-32B burst of 500 on one H100, whose KV pool holds a dozen, +173.4% with all 500 timed at once and
  // +48.7% with the pool's queue (time/pool-queue.ts); vllm-project/vllm#43232's Qwen3-235B-A22B FP8 closed loop of
  // 30,000-token prompts on four B200s +54.6% (prefill again; +48.7% with the experts at their TP width); Llama-3.1-8B batch-1 decode on an A100 40GB with vLLM
  // 0.23.0 +7.3%. With Marlin's GEMMs on Hopper at 0.54 of the 16-bit peak (the H100 gpt-oss burst names Marlin, the
  // kernel v0.11.0 ran there) +83.8%; with the fp8-KV prefill attention on SM100 at TRT-LLM FMHA's rate the B200 row
  // +27.0% (docs/time-model.md "Marlin's GEMMs on Hopper", "vLLM's fp8-KV prefill attention on SM100"): 6.9% / 83.8%.
  // With the lab's three further gpt-oss-20b H100 runs of vLLM v0.11.0 (the 4K and 32K random bursts and the ShareGPT
  // burst of 1000: +63.1%, +44.4%, +34.7%, scored before any model change): 12 rows, 20.0% / 63.1%.
  'gpulab kind:serving engine:vllm': { count: 12, median: 0.201, p90: 0.839 },
  // llama-server decoding gpt-oss-20b Q4_K_M one request at a time, scored before any model change and unchanged:
  // +42..+71% on the A100, H100, H200 and B300 hosts (a per-token cost of about 2.7 ms that the cards' bandwidth does
  // not move), -21.3% on the RTX 4090 desktop. With the quantized mat-vec bound by the SMs' work on the datacenter
  // cards (time/decode.ts KERNELS.gguf.issue): +36.8%, +30.4%, +17.7%, +15.3%, +8.9%; the RTX 4090 unchanged.
  // With a graph kernel's cost in SM cycles (engines/llama-cpp/memory.ts graphKernelCycles): the A100 rows +24.9%,
  // +19.0%, the RTX 4090 -17.7%, the H100, H200 and B300 unchanged.
  'gpulab kind:decode engine:llama.cpp': { count: 6, median: 0.178, p90: 0.249 },
  // ggml-org/llama.cpp#12183's master column on an RTX 4090, scored before any model change: Llama-3.2-3B Q4_K_M -28.0%,
  // -27.9%, -25.0%, -9.6% and Qwen2.5-1.5B -19.1%, -18.6%, -17.7%, -3.7% at 10, 100, 1,000 and 10,000 prompt tokens: too
  // slow where the weights dominate (the Q4_K_M rows of GeForce cards all are), less so at 10,000 tokens, where that
  // build's flash-decoding kernel ran at low occupancy (the PR's own finding). ggml-org/llama.cpp#17621's tg128 with the
  // CUDA backend's fusion off, scored before any model change: Qwen3-30B-A3B Q4_K_M -31.6% (RTX 5090), -29.6% (RTX
  // 4090), gpt-oss-20b MXFP4 -28.9%, -27.2%: 12 rows 26.1% / 29.6%. With flash attention's one kernel for a layer's
  // attention in the unfused graph (both sources ran -fa; engines/llama-cpp/memory.ts unfusedDecodeKernels
  // .flashAttentionFewer): -25.0..+1.8%, 23.3% / 25.9%. The unfused graph's kernels at 2.5 µs each still take nearly all
  // of the RTX 5090's measured Qwen3 step (docs/time-model.md "llama.cpp's graph kernel in SM cycles"). With that cost in SM cycles (2.5 µs at the
  // H100 SXM's 1.98 GHz: 1.96 µs on an RTX 4090, 2.05 on an RTX 5090; engines/llama-cpp/memory.ts graphKernelCycles):
  // -18.9..+14.8%, 15.0% / 18.8%. With the GGUF family's read rate worked out from ggml-org/llama.cpp#6766's pair
  // (time/decode.ts KERNELS.gguf, 0.75 -> 0.93): -11.4..+23.9%, 8.0% / 11.4%. With ggml's own MoE routing kernels in
  // the unfused graph (engines/llama-cpp/moe-kernels.ts: 14 a Qwen3-30B-A3B layer and 11 a gpt-oss-20b one beyond a
  // dense MLP, where vLLM's 4 stood): Qwen3 -11.4% -> -27.1% (RTX 5090), -7.4% -> -21.1%, gpt-oss -11.0% -> -19.1%,
  // -8.8% -> -14.8%: 9.2% / 23.9%. The counted kernels are one-block softmax, argsort and add kernels, each at a
  // mat-vec boundary's gap (graphKernelCycles), which these rows read as too dear for them.
  'adacdna kind:decode engine:llama.cpp': { count: 12, median: 0.092, p90: 0.239 },
  // SemiAnalysisAI/InferenceX#1061, gpt-oss-120b MXFP4 on one MI300X with vLLM 0.17.0 (median TPOT, 1k/1k), scored before
  // any model change: +67.7%, +74.6%, +84.3%, +118.8% at 64, 96, 128 and 256 in flight, the experts timed as FP4
  // Marlin's read. With the experts' FP4 unpacked in the CUs' registers by triton_kernels' matmul_ogs, 2.5 B a CU cycle
  // (time/decode.ts KERNELS.marlin.rocmMoeIssue, ROCm/triton#970): -17.8%, -13.5%, -7.0%, +18.9%. With gpt-oss's
  // biased attention linears and router on hipBLASLt (engines/vllm/rocm-gemm.ts): -19.3%, -15.0%, -8.6%, +17.7%. With
  // vLLM's ROCm prefill attention at the Triton kernel's rate (engines/vllm/rocm-attention.ts): -19.4%, -15.1%, -8.7%,
  // +17.4%. With the experts at the shape vLLM pads them to on ROCm, 3072 x 3072 (engines/vllm/mxfp4-pad.ts;
  // ROCm/triton#970's 2.5 B a CU cycle is a padded shape's): -27.7%, -23.8%, -17.9%, +6.3%. With vLLM's ROCm decode
  // kernels' KV read at their sourced shares of the peak (engines/vllm/rocm-attention.ts VLLM_ROCM_DECODE_READ, the
  // HIP kernel's 0.52: the sinks that send gpt-oss to the Triton kernel are not modelled): -27.9%, -24.4%, -19.0%, +3.1%.
  // With vLLM's sampler passes in the step (time/sampler-step.ts: the fp32 upcast and argmax of the logits):
  // median 21.82%, p90 27.92%.
  'adacdna kind:serving engine:vllm': { count: 4, median: 0.219, p90: 0.28 },
  // sariekr/gpu_conc, gpt-oss-20b MXFP4 on one GPU with vLLM of August 2025 (0.10.1 assumed: piecewise graphs, serial
  // scheduler), the median per-request output speed of 1, 4, 8 and 16 streamed chat requests in flight read as 1 / TPOT,
  // scored before any model change and unchanged: H100 PCIe +42.5%, -1.5%, -16.3%, -15.9%; H200 +52.5%, +27.6%,
  // +15.5%, +39.1%; B200 +84.4%, +95.8%, +111.8%, +176.8%; MI300X +89.9%, +117.1%, +61.2%, +74.8% (docs/time-model.md:
  // the batch-1 step the H200 and B200 share, 4.5 ms, and the B200's MoE backend of that build are not modelled).
  // With AMD's October 2025 edition (Llama 3.1 70B FP8 over TP 8 on MI300X, vLLM 0.10.2, batch 1, 2, 4: -10.7%, +0.6%,
  // +3.2%), 19 rows. With vLLM's decode linears on ROCm that its skinny kernels do not take timed as hipBLASLt calls
  // (engines/vllm/rocm-gemm.ts; gpt-oss's biased attention linears and router at every batch): MI300X +68.6%, +100.2%,
  // +50.9%, +65.5%; AMD's October edition -10.7%, -12.3%, -10.0% (batch 2 and 4 leave the FP8 skinny kernel).
  'late2025 kind:serving engine:vllm': { count: 19, median: 0.391, p90: 1.032 },
  // gpt-oss-20b MXFP4 tg128 of llama.cpp master (fused graph), scored before any model change and unchanged: RTX 4090
  // +32.7% (ggml-org/llama.cpp#16649, October 2025) and +19.1% (ggml-org/llama.cpp#16834); two RTX A5000 in a layer split +19.5%
  // (ggml-org/llama.cpp#15451, build 6263). With the GGUF family's read rate worked out from ggml-org/llama.cpp#6766's
  // pair (time/decode.ts KERNELS.gguf, 0.75 -> 0.93): +52.6%, +36.9%, +35.3%, where the same author's RTX 4090 at
  // 232.05 tok/s on a December build (ggml-org/llama.cpp#17621) goes -18.9% -> -8.8%: the card's figure moved 39% across
  // builds of two months, which the model does not tell apart. With ggml's own MoE routing kernels by build
  // (engines/llama-cpp/moe-kernels.ts: 6 beyond a dense MLP for ggml-org/llama.cpp#16649's master, 8 for build 6263's, where vLLM's 4
  // stood; ggml-org/llama.cpp#16834's fused graph keeps 4): +34.8% -> +32.0%, +36.9%, +18.3% -> +13.1%.
  'late2025 kind:decode engine:llama.cpp': { count: 3, median: 0.32, p90: 0.37 },
  // QwQ-32B AWQ (awq_marlin) on vLLM of March 2025, one request at a time, median TPOT, scored before any model change
  // and unchanged: RTX 3090 Ti -13.3%, RTX 6000 Ada -18.5%, RTX 4090 -16.5%, RTX 5090 -9.3%, H100 SXM -14.3%, two RTX
  // 5090s over PCIe +12.7%, four RTX 4090s +7.7%, two RTX 4070 Ti SUPERs -4.1%; vllm-project/vllm#49723's Mistral Small 24B
  // closed loop of 64 on one B200 (output tokens/s): BF16 -14.2%, NVFP4 -8.3% (its FP8 rows carried: why_not).
  // vLLM's mixed prefill-decode steps replayed as piecewise graphs under FULL_AND_PIECEWISE (time/mixed-step.ts): 13.2% / 17.1%.
  // With vLLM's sampler passes in the step as well (time/sampler-step.ts): 13.30% / 17.10%.
  'quant kind:serving engine:vllm': { count: 10, median: 0.134, p90: 0.172 },
  // Llama 3.3 70B NVFP4 over TP 4 on GB200, one request (AIPerf output tokens/s): -54.9% (SGLang main of July 2026) and
  // -34.9% (its June parent) before any model change, the TP all-reduces at the host link's latency; -6.3% and +35.2%
  // with an NVL72 rack read as NVLink-switched (time/hardware.ts nvSwitched). The two builds differ by 44%.
  'quant kind:serving engine:sglang': { count: 2, median: 0.208, p90: 0.352 },
  // Llama 3 8B tg64 on an RX 7900 XTX (llama.cpp master of 2026, HIP), scored before any model change and unchanged:
  // Q4_K_M +8.7% (empty context) and +7.9% (4096 tokens), Q5_K_M -0.4%.
  'quant kind:decode engine:llama.cpp': { count: 3, median: 0.08, p90: 0.087 },
  // Scored before any model change and unchanged, all too fast: Qwen2-7B bf16 on one A100 80GB (vLLM 0.10.1 assumed)
  // one request +15.0% (TPOT), bursts of 10, 30, 100, 200 and 500 +23.7%, +12.7%, +39.4%, +37.4%, +55.5% (duration);
  // Qwen3Guard-Gen-8B on one MI300X at 32 in flight +34.5%; Llama-3.3-70B FP8 over TP 8 on MI355X (llm-d-rocm v0.6.0)
  // +48.1% (8 in flight), +46.3% (16), +111.7% (256), +75.2% (4k/4k at 32), +89.8% (16k/2k at 32), +133.5% (32k/128 at 4).
  // With vLLM's decode linears on ROCm that its skinny kernels do not take timed as hipBLASLt calls (a fixed cost a
  // call, engines/vllm/rocm-gemm.ts): Qwen3Guard +20.3%; MI355X +22.1%, +23.1%, +105.6%, +47.1%, +72.1%, +123.7%.
  // With the attention kernels after the GEMMs (time/decode-attention.ts) and FA2's KV rate: the A100 bursts +23.8%,
  // +13.0%, +40.1%, +26.1%, +34.6%; MI355X at 256 in flight +102.4%: 26.1% / 102.4%. With vLLM's ROCm prefill
  // attention at the Triton kernel's rate (engines/vllm/rocm-attention.ts) and MI355X's measured all-reduce
  // (vllm-project/vllm#39080, catalog interconnect.allReduce): MI355X +21.5%, +20.2%, +86.6%, +40.2%, +60.0%, +90.6%;
  // Qwen3Guard +20.0%: 23.8% / 86.6%. The MI355X 1k/256 row at 256 in flight carried since (its totals give 8 input
  // tokens an output token, not the 4 of its heading: calibration/README.md): 12 rows, 22.9% / 34.9%.
  'sweep kind:serving engine:vllm': { count: 12, median: 0.229, p90: 0.35 },
  // Scored before any model change and unchanged (each row's notes give its figure): the two batch-1 rows of today's
  // vLLM +6.2% (Qwen3-30B-A3B, H200) and +0.7% (Qwen3-8B, A100); DeepSeek-R1 FP8 over TP 8 on H200 at 4 in flight
  // +35.2% and its bursts +69.7..+102.5% (+650.5% for 1000 prompts of 128 tokens); Qwen3-235B-A22B bf16 over TP 8 on
  // H100 bursts -2.2..+18.2% (+149.8% at 984 x 128), FP8 over TP 4 +36.3..+68.0% (+118.0%); Qwen3-14B bf16 on one
  // H100 +56.6..+71.5% (+252.8%). All too fast but the one Qwen3-235B 32K burst. With the block-scaled FP8 GEMMs at
  // vLLM's CUTLASS rate on Hopper (engines/vllm/block-fp8.ts peakShare8), with the API server's bound in: DeepSeek-R1
  // +66.0..+96.5% -> -0.8..+18.1%, Qwen3-235B FP8 +32.2..+65.4% -> -9.1..-2.4%: 11.8% / 109.6%.
  'srv2026 kind:serving engine:vllm': { count: 20, median: 0.118, p90: 1.096 },
  // SGLang v0.5.8.post1 on 8x B200 at one request: Qwen3-235B-A22B -20.3%, gpt-oss-120b -10.1%, GLM-4.6 +79.9%;
  // SGLang v0.5.5.post1 with Qwen3-14B-FP8 on one H100, bursts +100.8..+135.1% (+141.1% at 1000 x 128); +82.0..+96.1%
  // (+115.6%) with the GEMMs at DeepGEMM's large-M rate and the attention at the 16-bit one (engines/sglang/block-fp8.ts).
  // With the gist's DeepSeek-R1-0528 NVFP4 row at SGLang's SM100 default TensorRT-LLM-gen MoE (-52.9% with the CUTLASS
  // MoE call in its place, -19.6% with it), 8 rows: 73.6% / 115.6%.
  'srv2026 kind:serving engine:sglang': { count: 8, median: 0.737, p90: 1.156 },
  // Scored before any model change, all too fast (each row's notes give its figure): DeepSeek-R1-0528 FP8 over TP 8 on
  // 8x B200 with SGLang 0.5.6.post1, one request +65.8..+66.5% (1K/1K, 1K/8K, 8K/1K), 14 in flight +38.3..+57.3%,
  // 57-92 in flight +34.8..+90.8%; DeepSeek-V3 FP8 on 8x MI300X with sglang 0.5.7, MTP (3 drafts, accept length 2.61)
  // with DP attention at one request +701%, EP 8 with DP attention at 88 in flight (ShareGPT) +449%. With SGLang's eager
  // prefill launches at its own host price a call (engines/sglang/memory.ts SGLANG_EAGER_CALL_SECONDS), the B200 rows at
  // 14-92 in flight +17.7..+61.3% -> +16.5..+36.1%, the MI300X rows +11.6%, +204.5% -> +6.0%, +141.6%: 23.3% / 36.1%.
  // With the sgl-cookbook's DeepSeek-V3.1-Terminus page (8x MI300X, sglang 0.5.7: TP 8 with MTP at one request +22.5%,
  // EP 8 with DP attention at 81 in flight +26.4%, scored before any change; sglcookbook-dsv31-*): 13 rows, 11.5% / 29.9%.
  'dscookbook kind:serving engine:sglang': { count: 13, median: 0.115, p90: 0.299 },
  // Scored before any model change: GLM-4.6 +28.0 / +24.4 / +22.2% (1K/1K at 1, 14, 91 in flight), +28.7 / +24.3 /
  // +30.4% (1K/8K at 1, 14, 56), +29.5 / +28.4 / +33.2% (8K/1K at 1, 14, 58); Qwen3-Next +31.7% (one request), +121.0%
  // (93 in flight): 28.8% / 33.2%. With the serial loop sglang 0.5.5.post2-0.5.13 ran for Qwen3-Next under the radix
  // cache (engines/sglang/memory.ts serialLoopModelTypeReleases) the Qwen3-Next rows +10.8% / +75.3%: 28.4% / 33.2%.
  'sglcb56 kind:serving engine:sglang': { count: 11, median: 0.284, p90: 0.333 },
  // Scored before any model change: Llama 3.1 8B BF16 -16.2%, -12.2%, -11.4%, -9.9% at 1, 2, 4, 8 tokens; Llama 3.2 1B
  // F16 -28.3%, -16.4%, -5.3% at 1, 8, 16; gpt-oss-20b -7.2%, +15.6%, +39.2%, +31.3%, +31.3%, +58.8%, +127.1% at 1-64
  // (16.3% / 39.2%). With llama.cpp's MUL_MAT_ID at a batch (per-slot reads up to 4 tokens, MMQ tiles as wide as the
  // step's tokens for every routed expert above; engines/llama-cpp/memory.ts moeBatchKernel, time/moe-tile.ts) the
  // gpt-oss-20b rows -7.2%, +11.6%, +22.2%, +30.3%, +23.5%, +15.6%, -2.3%: 13.9% / 28.3%. Timed without the output head
  // llama-bench's prompt test computes for the batch's last token only (harness llama-bench-pp, time/decode.ts
  // noOutputHead): the BF16 and F16 rows -12.6..+11.7% (were -28.3..-7.7%), the gpt-oss-20b rows +11.8..+22.8% at 1-16
  // tokens: 11.3% / 22.0%.
  'microbatch kind:decode engine:llama.cpp': { count: 14, median: 0.139, p90: 0.283 },
  // ggml-org/llama.cpp#15802's Llama 3 8B Q4_0 on an RTX 3090 at microbatch 1, 2, 4, 8 (scored before any change):
  // -8.9%, -2.0%, +16.5%, +86.7%: the measured step grows with MMVQ's columns (6.4 ms at 1, 13.7 ms at 8), the
  // estimate's stays at the weights' read (docs/time-model.md "MXFP4 on MI355X, SGLang's DeepSeek on MI300X and MMVQ's columns").
  // Timed without the output head llama-bench's prompt test skips (harness llama-bench-pp): -3.7%, +0.0%, +10.0%, +16.4%.
  'prtable kind:decode engine:llama.cpp': { count: 4, median: 0.128, p90: 0.868 },
  // ROCm/aiter#1930's SGLang DeepSeek-R1 FP8 on 8x MI300X at 4, 8, 16, 32 in flight: +15.2%, +15.3%, +13.1%, -1.7%.
  'prtable kind:serving engine:sglang': { count: 4, median: 0.142, p90: 0.154 },
  // vllm-project/vllm#25135's Llama 3.1 405B MXFP4 on one MI355X at 64 in flight: -15.8% (the estimate slow; MXFP4 timed
  // weight-only at the 16-bit rate on AMD GPUs, docs/time-model.md, same section); -18.3% with vLLM's ROCm decode kernels'
  // KV read at their sourced shares of the peak (engines/vllm/rocm-attention.ts VLLM_ROCM_DECODE_READ).
  'prtable kind:serving engine:vllm': { count: 1, median: 0.184, p90: 0.184 },
  // ggml-org/llama.cpp#17505's Llama 3 8B Q4_0 after a 32,768-token depth (scored before any change): -7.5%, +3.8%,
  // +42.9%, +40.0% at 2, 4, 8, 16 tokens on an RTX 3090, -13.4% at one on an RTX 4090: MMVQ's column work at 8 and the
  // harness reading's attention at 16 (docs/time-model.md "Qwen3-4B on an RTX 4090, an eager AWQ run and llama.cpp at a
  // 32K depth"). Timed without the output head, which llama-bench's prompt test computes for the batch's last token only
  // (harness llama-bench-pp, time/decode.ts noOutputHead): the 3090 rows -6.4%, +0.4%, +6.0%, +43.8% at 2-16, the 4090's
  // -10.6%.
  'deptheager kind:decode engine:llama.cpp': { count: 5, median: 0.135, p90: 0.438 },
  // tenstorrent/tt-inference-server#394's Qwen3-4B on an RTX 4090 at concurrency 1: -1.2%, -2.9%, -4.5%, -1.4%, -3.5%;
  // vllm-project/vllm#20469's eager Qwen3-14B-AWQ on an A100: +101.9% at the compiled count a layer, +51.9% with
  // v0.9.1's eager layer counted (its q/k norms' calls, engines/vllm/eager-ops.ts; docs/time-model.md "Eager decoder
  // layers counted by family").
  'deptheager kind:serving engine:vllm': { count: 6, median: 0.035, p90: 0.52 },
  // Scored before any model change and unchanged (each row's notes give its figure): tenstorrent/tt-inference-server#125's
  // Qwen2.5-7B bf16 on an RTX 4090 at one request -4.0..-4.5%; violet-quartz/vllm-serving-experiments' vLLM 0.25.1 on an RTX
  // 4090, bf16 at 1-128 in flight -14.0..-7.3%, online FP8 at 8-128 -8.3..+17.9%; noonghunna/club-3090#697's Qwen3-4B online
  // FP8 at one stream on a 250 W RTX 4090 -15.7%; vllm-project/vllm#17788's Qwen3-32B burst on one H100 NVL +65.0%;
  // vllm-project/vllm#29217's Qwen3-VL-32B FP8 burst on one L40S -15.1% (docs/time-model.md "Mainstream vLLM serving rows");
  // +51.7% with its pool sized as vLLM's start-up profile sizes it, its sampler at the 256 running sequences of
  // max_num_seqs rather than the burst's 1000 (docs/time-model.md "ShareGPT bursts on a small KV pool").
  'mainstream kind:serving engine:vllm': { count: 20, median: 0.085, p90: 0.18 },
  // Scored before any model change and unchanged (each row's notes give its figure; docs/time-model.md "One-card rows:
  // vLLM 0.6.3's V0 step, an FP8 MoE burst on an L40S, GGUF Q5_K_M on an RTX 3060"): the Qwen2.5 speed benchmark's batch-1
  // generate of 2048 tokens on one A100 under vLLM 0.6.3 (V0 engine), BF16 -13.8%, -5.7%, +1.4% (7B, 14B, 32B eager),
  // GPTQ-Int8 -21.3%, -11.9%, -6.8%, GPTQ-Int4 -24.4%, -17.8%, -9.6%, AWQ -21.3%, -13.1%, -2.8%: all but one slow, most
  // for the smallest model, whose step the estimate bounds by the V0 engine's 4 ms host work; lukaLLM's
  // Qwen3-Coder-30B-A3B FP8 burst of 1000 on one L40S under vLLM v0.10.2, +544.2%; +447.5% with the pool of the
  // run's --gpu-memory-utilization 0.8 and its sampler profiled at max_num_seqs (docs/time-model.md "ShareGPT bursts
  // on a small KV pool"). With Marlin's large-M GEMMs on an A100 at KernelFamily.sm80PeakShare (vllm-project/vllm#2497),
  // the batch-1 Marlin rows' prefills grow: 32B GPTQ-Int4 -9.6% -> -9.7%, AWQ -2.8% -> -2.9% (median 13.1% -> 13.14%, p90 24.4% -> 24.43%).
  'onecard kind:serving engine:vllm': { count: 13, median: 0.132, p90: 0.245 },
  // The same burst under SGLang 0.5.8: +1051.9% (790 s measured, 69 s estimated; docs/time-model.md, same section);
  // +570.2% (118 s) with the 48,740-token pool the run printed (its --mem-fraction-static 0.8).
  'onecard kind:serving engine:sglang': { count: 1, median: 5.703, p90: 5.703 },
  // llama-bench tg512 on an RTX 3060 12GB (llama.cpp of December 2024, flash attention off): Llama 3.1 8B Q5_K_M -14.5%,
  // Qwen2.5-14B Q5_K_M -13.6%, both slow.
  'onecard kind:decode engine:llama.cpp': { count: 2, median: 0.141, p90: 0.146 },
  // Scored before any model change and unchanged (each row's notes give its figure; docs/time-model.md "Workstation
  // Blackwell, H100 NVL and MI300X rows: rounds of equal requests, FP8 on sm_120, ROCm builds"): AUGMXNT/speed-benchmarking's
  // Llama-3.1-8B on an RTX PRO 6000, vLLM W4A16 (Marlin) +4.4%, -12.0%, -26.8% and FP8 +37.8%, +27.0%, -2.1% at 1, 8 and 32 in
  // flight (the c8 and c32 rows read with the harness's prefix cache and rounds: -71.2..-0.7% as first read);
  // xinyuwei-david/david-share's gpt-oss-20b and -120b closed loops of 256 on an H100 NVL +134.9%, +31.1% (+114.7%,
  // +21.1% as first read, without the prefix cache their identical prompts find) and Qwen3-235B-A22B bf16 at one request
  // on 8x MI300X (vLLM 0.8.3, V0) +51.3%.
  'pro6000 kind:serving engine:vllm': { count: 9, median: 0.271, p90: 1.35 },
  // The same Blackwell card under SGLang: W4A16 +3.7%, -11.7%, -28.3% and FP8 -10.2%, -3.6%, -15.2%.
  'pro6000 kind:serving engine:sglang': { count: 6, median: 0.11, p90: 0.284 },
  // llama-server Q4_K_M at one request on the RTX PRO 6000 -4.2%; llama-bench tg128 of Llama 2 7B Q4_0 on one MI300X (HIP
  // build of October 2024, every kernel launched from the host) +48.7%, +84.7% with -fa 1.
  'pro6000 kind:decode engine:llama.cpp': { count: 3, median: 0.488, p90: 0.847 },
  // Scored before any model change and unchanged (each row's notes give its figure; docs/time-model.md "Serving rows from
  // Poisson-rate sweeps, an RTX 4090 capacity sweep and a host's RTX 4090 bursts"): the crusoe-cookbook L40S rows (vLLM
  // 0.5.5, V0 loop) Llama-3.1-8B bf16 -18.8..-27.8% and FP8 -21.3..-3.2% at 1-9 req/s (too slow; -4.1..-0.2% and
  // -1.1..+36.6% without the V0 loop's per-step host time), 70B bf16 TP 8 +3.7%, FP8 TP 4 -3.7%; the RTX 4090 closed
  // loops of Mistral-7B -3.3%, +4.9%, +10.5%, +17.3%, +20.4% at 4-48 in flight; Qwen3-0.6B on an H100 at 16 req/s +45.9%
  // and its burst of 500 +124.1%; the RTX 4090 bursts of 300 +26.7% (gemma-2-9b), +57.4%, +96.0%, +128.5%, +191.1%
  // (Llama-8B, Qwen-7B, Qwen2.5-3B and Qwen-1.5B shapes) as first scored, +25.4%, +51.1%, +82.6%, +99.0%, +132.2% read
  // again with the serial scheduler every vLLM of early 2025 ran (-12.0..+17.4% timed as vLLM's V0 loop, which the
  // page's date does not settle).
  'ratesweep kind:serving engine:vllm': { count: 24, median: 0.204, p90: 0.99 },
  // kvcached's SGLang v0.4.6.post2 rows, Llama-3.2-3B on an A100 80GB at 8 and 16 req/s: +16.2%, +7.2%.
  'ratesweep kind:serving engine:sglang': { count: 2, median: 0.117, p90: 0.163 },
  // Scored before any model change and unchanged but for the prefix cache (each row's notes give its figure):
  // ree2raz/inference-bench's vLLM rows, A100 40GB vLLM 0.20.1 Qwen2.5-7B bf16 +0.9%, -8.2%, -12.8% at 1, 16, 64 in
  // flight, AWQ-Marlin +1.7%, -14.9% at 1 and 64, Qwen3-30B-A3B AWQ-Marlin -10.1%, -30.8% at 1 and 16; Qwen3-30B-A3B bf16
  // on an A100 80GB -11.5%, -3.6% at 1 and 4; vLLM 0.8.5 on an L4 -13.8%, -36.2% at 1 and 64 (too slow at every batch: the
  // L4's stream rate); Qwen3-8B's reasoning answers at one request on the L4 (TPOT at a ~3,500-token mean context) -12.9%
  // bf16, +6.9% AWQ run eagerly. At 64 in flight the harness's warm-up is the measured prompts themselves (bench_lib.py
  // prompts[:concurrency * 2] of 100): prefix-cache 0.762 (vLLM's 16-token blocks), 0.976 (SGLang's radix tree).
  // With Marlin's large-M GEMMs on an A100 at KernelFamily.sm80PeakShare (vllm-project/vllm#2497): AWQ-Marlin at 64 in
  // flight -14.9% -> -43.1%, Qwen3-30B-A3B at 16 -30.8% -> -32.3%, at 1 +1.7% -> -0.2% and -10.1% -> -10.4% (p90 30.9% ->
  // 36.2%): the closed loop's 64-row steps are timed below Marlin's batch-64 tile rate, a miss (docs/time-model.md "Known
  // misses"). With a prefill's linears as Marlin's passes of 16-row blocks (KernelFamily.mBlocks) and a chunked prompt
  // priced as the passes it adds to the step: AWQ-Marlin at 64 -43.1% -> +24.0%, at 1 -0.2% -> +3.8% (p90 36.2% -> 32.3%).
  // vLLM's mixed prefill-decode steps replayed as piecewise graphs under FULL_AND_PIECEWISE (time/mixed-step.ts): p90 32.6%.
  'infbench kind:serving engine:vllm': { count: 13, median: 0.116, p90: 0.327 },
  // Its SGLang rows: without CUDA graphs, the A100 40GB image of May 2026 +33.2%, +3.9% at 1 and 64, 0.4.6 on an L4 -13.3%,
  // -52.6%; AWQ-Marlin with graphs on the A100 -7.5%, -21.6%, +56.2% at 1, 16, 64 (its 64 slower a step than its bf16 run);
  // with Marlin's passes of 16-row blocks (KernelFamily.mBlocks) -7.0%, -18.0%, +27.1% (median 13.3% -> 18.0%).
  'infbench kind:serving engine:sglang': { count: 7, median: 0.216, p90: 0.562 },
  // llama.cpp b5540 (unfused graph) serving Q4_K_M on the L4 with four slots: -15.2% at 1 in flight, +13.0% at 4.
  'infbench kind:decode engine:llama.cpp': { count: 2, median: 0.141, p90: 0.152 },
  // DeepSeek-V3.1 FP8 over TP 8 on H200 (vLLM of November 2025, serial scheduler), 16 in flight: -15.8%.
  // -15.8% before the Triton fused_moe's padded rows and large-M rate (time/moe-pad-rows.ts), -16.1% with them.
  // vLLM's mixed prefill-decode steps replayed as piecewise graphs under FULL_AND_PIECEWISE (time/mixed-step.ts): -16.5%.
  // With vLLM's sampler passes in the step as well (time/sampler-step.ts: the fp32 upcast and argmax of the logits): -16.5%.
  // 16.7% with the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts).
  'vllm28992 kind:serving engine:vllm': { count: 1, median: 0.167, p90: 0.167 },
  // Qwen3-8B Q4_K_M on one RTX 5090 under WSL2 (llama.cpp of mid-2026), one request: -3.3%.
  'continuum1627 kind:decode engine:llama.cpp': { count: 1, median: 0.034, p90: 0.034 },
  // Qwen3-30B-A3B bf16 on one H100 (vLLM of August 2025: serial scheduler, piecewise graphs), mean TPOT at 10 in flight
  // of 2048 in and 1024 out: -12.0%.
  'vllm23151 kind:serving engine:vllm': { count: 1, median: 0.121, p90: 0.121 },
  // vLLM of February 2026 with --enforce-eager (every decode kernel launched from the host) on an A100-SXM4-80GB, mean
  // TPOT of ShareGPT closed loops of 100 prompts, scored before any model change: Llama-3.1-8B fp16 +75.5%, +51.2%,
  // +21.2% and Qwen3-8B +87.8%, +88.2%, +49.3% at 20, 50 and 100 in flight (too fast: the eager step's host work).
  'llminfra kind:serving engine:vllm': { count: 6, median: 0.634, p90: 0.883 },
  // gpt-oss-20b MXFP4 through SGLang's Marlin MoE on an SM120 card (read as an RTX 5090), random 512/512 closed loops of
  // four rounds, scored before any model change: +26.4%, +22.4%, +14.4%, +8.3% at 1-8 in flight, +0.9..+6.3% at 16-256.
  'sglang32668 kind:serving engine:sglang': { count: 9, median: 0.063, p90: 0.269 },
  // Qwen3-8B bf16 on an RTX 5090 under vLLM 0.10.2 (serial scheduler, piecewise graphs), 200-token completions, scored
  // before any model change: one request +1.5%; bursts of 5, 10, 20, 50 +9.2%, +5.8%, +19.7%, -0.7%.
  'qwen8b5090 kind:serving engine:vllm': { count: 5, median: 0.059, p90: 0.197 },
  // llama.cpp's CUDA scoreboard (discussion ggml-org/llama.cpp#15013), Llama 2 7B Q4_0 tg128 with flash attention off,
  // scored before any model change: RTX 5090 -1.8%, 5080 -5.3%, 5070 -2.1%, 4090 -4.0%, 4080 SUPER -8.5%, 4070 Ti SUPER
  // -5.3%, 3090 Ti -0.3%, 3090 -0.1%, 3060 12GB -11.3%, RTX 6000 Ada -2.7%, RTX A6000 -2.7%, RTX A5000 +2.9%.
  'cpp15013 kind:decode engine:llama.cpp': { count: 12, median: 0.029, p90: 0.086 },
  // llama.cpp's Apple Silicon table (discussion ggml-org/llama.cpp#4167, build 8e672ef of November 2023), Llama 2 7B tg128, scored before
  // any model change (too fast everywhere: the estimate streams at the catalog's bandwidth): M2 Ultra F16 +19.3%, Q8_0
  // +24.0%, Q4_0 +50.2%; M4 Max +7.1%, +7.1%, +21.7%; M3 Max Q4_0 +14.7%. With the build's unfused graph (ggml_graph) and
  // Metal's dispatch a kernel (engines/llama-cpp/memory.ts metalDecode): +4.0%, -0.6%, +5.4%; -2.8%, -8.8%, -6.6%; -6.6%.
  'cpp4167 kind:decode engine:llama.cpp': { count: 7, median: 0.054, p90: 0.088 },
  // Qwen3-Next-80B-A3B bf16 under SGLang of mid-September 2025, the runs without the tuned fused-MoE config, closed loops of 1000
  // in and 2000 out, scored before any model change (too fast, more so as TP grows): H200 8 in flight +28.0%, +35.9%, +47.4% at
  // TP 2, 4, 8; H20 32 in flight +40.2%, +57.1% at TP 4, 8. With SGLang 0.5.2's Qwen3-Next decode kernels counted
  // (engines/sglang/decode-kernels.ts): +19.0%, +24.0%, +32.5%; +32.4%, +45.6%.
  // With the After column (three rows at the PR's tuned files: -17.5..-13.5% before the tuned BLOCK_SIZE_N entered the
  // fused_moe grid, +3.5..+13.6% after).
  'sglang10404 kind:serving engine:sglang': { count: 6, median: 0.24, p90: 0.326 },
  'sglang10467 kind:serving engine:sglang': { count: 2, median: 0.39, p90: 0.456 },
  // GLM-4.6 bf16 over TP 8 on 8x MI300X under vLLM v0.11.0 (default fused_moe tiles), 1024 in and 128 out at 64 in flight: +40.9%.
  'vllm27323 kind:serving engine:vllm': { count: 1, median: 0.409, p90: 0.409 },
  // DeepSeek-V3-0324 FP8 over TP 8 on 8x H20 under SGLang of June 2025 (default fused_moe tiles), 8 in flight: +58.4%.
  // With SGLang's routed experts on Hopper at the Triton fused MoE's prefill share: +35.0%.
  'sglang7631 kind:serving engine:sglang': { count: 1, median: 0.35, p90: 0.35 },
  // Qwen3-30B-A3B-FP8 over TP 2 with EP on two H100 PCIe (vLLM of September 2025), mean TPOT at 64 in flight of 7500/7500: -7.7%;
  // -7.9% with the busiest expert-parallel rank's reads (time/expert-balance.ts).
  // With vLLM's sampler passes in the step (time/sampler-step.ts: the fp32 upcast and argmax of the logits): 8.04%.
  // 8.7% with the logits' gather of 64 rows over the two H100 PCIe cards' host link (time/vocab-parallel.ts).
  'vllm25398 kind:serving engine:vllm': { count: 1, median: 0.088, p90: 0.088 },
  // MiniMax-M2.5 FP8 on H100 with vLLM of March 2026, mean TPOT at 4 in flight: TP 8 / EP 8 +40.7%, TP 4 / EP 4 +66.2%; with
  // the busiest expert-parallel rank's reads +21.7%, +48.1%.
  'inferencex832 kind:serving engine:vllm': { count: 2, median: 0.349, p90: 0.481 },
  // A bf16 Mistral 24B on one B200 with vLLM 0.25.1, TPOT P50 at 64 in flight of 300 in and 64 out: -47.3% (too slow).
  // vLLM's mixed prefill-decode steps replayed as piecewise graphs under FULL_AND_PIECEWISE (time/mixed-step.ts): -49.0%.
  'modelopt2015 kind:serving engine:vllm': { count: 1, median: 0.49, p90: 0.49 },
  // Qwen3-30B-A3B-FP8 over TP 4 with EP on H200 under SGLang of October 2025 (default tiles), one request of 4096 in, 1024 out: +14.5%;
  // +11.9% with the busiest expert-parallel rank's reads.
  'sglang12343 kind:serving engine:sglang': { count: 1, median: 0.12, p90: 0.12 },
  // MiniMax-M2.7 FP8 on MI300X under SGLang 0.5.13.post1 (Triton attention, FP8 KV), mean TPOT at 1000/1000: TP 2 / EP 2 +85.3%,
  // +42.6% at 1 and 16 in flight; TP 4 / EP 4 +68.7%, +108.0% at 64 and 256. With the busiest expert-parallel rank's reads
  // +78.5%, +37.3%, +64.1%, +108.0%. With the table's TP 8 / EP 8 row at 1024 in flight, scored before any change:
  // +287.5% (its TTFT of 3.5 s says requests queued), 5 rows.
  'sglang31044 kind:serving engine:sglang': { count: 5, median: 0.713, p90: 2.876 },
  // OCI's Llama 3.1 405B FP8 over TP 8 on MI300X, vLLM 0.6 benchmark_throughput.py of 1000 prompts (V0, 256 running):
  // 128/128 and 128/2048, scored before any change: +3.2%, +1.7%.
  'ocitput kind:serving engine:vllm': { count: 2, median: 0.025, p90: 0.033 },
  // GLM-5.1 FP8 over TP 8 on MI300X under SGLang 0.5.13.post1 (DSA tilelang backends, bf16 KV), mean TPOT at 1000/1000, scored
  // before any model change: +30.8%, +53.6%, +68.2%, +131.7% at 1, 16, 64 and 256 in flight.
  'sglang30812 kind:serving engine:sglang': { count: 4, median: 0.61, p90: 1.317 },
  // Qwen3-Next-80B-A3B Q4_K_M on one A100 with llama.cpp of February 2026 (its Gated DeltaNet layers as generic ggml ops), tg128:
  // +211.6% (docs/time-model.md, the same section).
  'cpp19365 kind:decode engine:llama.cpp': { count: 1, median: 2.116, p90: 2.116 },
  // gemma-3-4b-it on one A100 with vLLM of late summer 2025 (piecewise graphs, serial scheduler), one request, TPOT
  // 8.4-10.8 ms: +21.0..+54.2% (too fast; docs/time-model.md "Serving rows from a Gemma 3 reference sweep, LoRA and
  // Qwen3-Next PRs and a Nemotron recipe").
  'tt521 kind:serving engine:vllm': { count: 6, median: 0.437, p90: 0.543 },
  // DeepSeek-R1 NVFP4 over TP 4 on B200 under SGLang of August 2025 (TensorRT-LLM-gen MoE), 1000/1000: +11.5% at one
  // request in flight, +21.6% at 16.
  'sglang9162 kind:serving engine:sglang': { count: 2, median: 0.166, p90: 0.216 },
  // Nemotron-3-Nano-30B-A3B FP8 on one H200 with vLLM 0.12.0, 1024 in flight of 1024/1024, mean TPOT: +35.6%.
  'recipes165 kind:serving engine:vllm': { count: 1, median: 0.356, p90: 0.356 },
  // BF16 Llama 8B on an RTX 3090 under llama-bench of June 2025 at microbatch 1 and 2: -14.8%, +0.5%; -8.9%, +7.4% timed
  // without the output head llama-bench's prompt test skips (harness llama-bench-pp).
  'cpp14262 kind:decode engine:llama.cpp': { count: 2, median: 0.082, p90: 0.089 },
  // Qwen3-30B-A3B with one rank-64 LoRA adapter on one H20, a burst of 100 at 2048/1024: +48.9%.
  'vllm27402 kind:serving engine:vllm': { count: 1, median: 0.489, p90: 0.489 },
  // Qwen3-Next-80B-A3B over TP 4 + EP 4 under SGLang of September 2025 (FA3 full attention), 1k/1k: H200 +16.7%, +31.3%
  // and H20 +20.3%, +29.4% at 1 and 2 in flight.
  'sglang10816 kind:serving engine:sglang': { count: 4, median: 0.249, p90: 0.314 },
  // AMD's FP8 Llama 3.3 70B on one MI355X under a vLLM source build of November 2025, two lockstep rounds of 64 at 8k/1k,
  // mean TPOT: -27.0% (its MXFP4 twin carried: dense MXFP4 is not a weights kind the estimate has). +4.7% with a closed
  // loop of equal requests timed as its rounds run, the prompts' prefills in the TTFT (the row's equal_lengths).
  'recipesl33rocm kind:serving engine:vllm': { count: 1, median: 0.047, p90: 0.047 },
  // DeepSeek-R1 FP8 over TP 8 on MI300X under rocm/vllm of August 2025 (AITER MLA), 256 in flight at 3200/800: +33.7%.
  // +60.7% with the closed loop's rounds (the row's equal_lengths): its rounds' decode is faster than it ran.
  'recipesdsamd kind:serving engine:vllm': { count: 1, median: 0.608, p90: 0.608 },
  // Qwen3-Next-80B-A3B bf16 over TP 4 on B200 under vLLM v0.10.2, 256 in flight at 2048/1024: +45.2%.
  'recipesq3next kind:serving engine:vllm': { count: 1, median: 0.452, p90: 0.452 },
  // Qwen3-30B-A3B-FP8 on one MI300X, offline bursts of 200 under vLLM of May 2025 (V0: its FP8 KV cache kept V1 off
  // ROCm): +82.9%, +35.2%, +111.4% at 5000/1000, 1000/2000, 10000/500.
  'vllm17530 kind:serving engine:vllm': { count: 6, median: 0.83, p90: 1.115 },
  // Qwen3-235B-A22B-FP8 over TP 4 on MI300X, the same harness: +138.1%, +81.2%, +167.6%.
  'vllm17535 kind:serving engine:vllm': { count: 5, median: 1.381, p90: 1.677 },
  // llama-batched-bench on Metal (a build of late October 2025; the M2 Ultra inferred), 32 tokens generated after 512 or 4096:
  // gpt-oss-20b MXFP4 +25.5%, +24.4%, +50.7% at 1, 2, 4 sequences and +32.9% at 4096; Qwen2.5 7B Q8_0 -6.9%, +1.0%, +20.7%
  // and -3.8%, +6.2%, +28.1% (docs/time-model.md "Serving rows from a Metal batched bench and H20 fused-MoE PRs").
  'cpp16894 kind:decode engine:llama.cpp': { count: 10, median: 0.226, p90: 0.33 },
  // DeepSeek-V3-0324 FP8 over TP 8 on 8x H20 under SGLang of early June 2025 (default fused_moe tiles), 8 in flight: +71.2%.
  // With SGLang's routed experts on Hopper at the Triton fused MoE's prefill share (engines/sglang/block-fp8.ts
  // moePeakShare8): +59.4%.
  'sglang6885 kind:serving engine:sglang': { count: 1, median: 0.595, p90: 0.595 },
  // MiniMax-M2 FP8 over TP 4 on H100 (TP inferred) under vLLM of November 2025 (default fused_moe tiles), mean TPOT at 10 in
  // flight of 2048/1024: +30.6%.
  'vllm28200 kind:serving engine:vllm': { count: 1, median: 0.307, p90: 0.307 },
  // LFM2.5-1.2B-Instruct bf16 under an SGLang source build (0.0.0.dev1+g631db6c75) on Modal, random 1024/1024, mean TPOT:
  // one request in flight H100 +43.3%, H200 +83.2%, B200 +20.8%; 100 in flight +73.9%, +33.4%, -45.6%. With SGLang's
  // serial loop for LFM2 under the radix cache (engines/sglang/memory.ts serialLoopModelTypes), one request in flight
  // -10.4%, +6.2%, -35.9%. With that loop's per-request host work in series (serialLoopSeqHostSeconds, the sglang==0.5.6
  // scheduler timed on a CPU): 100 in flight +29.1%, +7.0%, -52.8%; one request -11.0%, +5.5%, -36.4%.
  'sgllfm25 kind:serving engine:sglang': { count: 6, median: 0.201, p90: 0.529 },
  // Nemotron-3-Nano-30B-A3B FP8 (per-tensor) on one H200 under vLLM main of late July 2026, 60 ShareGPT prompts one at
  // a time with 300-token answers, output throughput: -1.6%.
  'vllm50040 kind:serving engine:vllm': { count: 1, median: 0.016, p90: 0.016 },
  // Qwen3-32B-FP8 (block-wise) over TP 8 on H100 under vLLM main at a89015c6df, 32 in flight of 128/1024, mean TPOT: +17.3%.
  'vllm48757 kind:serving engine:vllm': { count: 1, median: 0.174, p90: 0.174 },
  // bench_one_batch of RedHatAI's Llama-2-7b-chat and Qwen2-7B-Instruct W8A8 FP8 (static activation scales) under SGLang of
  // mid-2026, batch 1 at 1024/1024 (H100 assumed): +28.5%, +28.9%.
  'sglang32994 kind:serving engine:sglang': { count: 2, median: 0.288, p90: 0.29 },
  // GPUStack's quantization study, Qwen3-8B on vLLM 0.9.2, 1000-prompt ShareGPT bursts (duration from the page's total
  // token throughput). First figures: RTX 4090 BF16 -13.1%, AWQ -23.3%, AWQ Marlin +5.6%, GPTQ int8 -26.6%; A100 BF16
  // -20.1%, GPTQ Marlin int4 +16.6%, GPTQ int4 -8.3%, AWQ -21.9%, AWQ Marlin +17.8%, GPTQ Marlin int8 +27.4%, GPTQ int8
  // -1.8%, bitsandbytes -13.3%; H100 FP8 static +40.1%, FP8 dynamic +50.8%, BF16 +25.8%, AWQ +59.4%, BF16 + FP8 KV +36.5%.
  // With Marlin's large-M GEMMs on an A100 at KernelFamily.sm80PeakShare (vllm-project/vllm#2497): the A100 Marlin rows
  // -21.2%, -20.4%, -12.3%; with a prefill's linears as Marlin's passes of 16-row blocks (KernelFamily.mBlocks) -19.0%,
  // -18.2%, -9.7% (median 21.2% -> 20.1%).
  'gpsquant kind:serving engine:vllm': { count: 17, median: 0.201, p90: 0.509 },
  // GPUStack's A100 SXM pages (vLLM 0.11.0, SGLang 0.5.5.post1), Qwen3-14B and Qwen3-32B bursts. First figures: 14B vLLM
  // ShareGPT +29.8%, FP8 (Marlin) +70.4%, AWQ (Marlin) +60.2%, random 32K +17.0%, 4K +21.7%, 2K +10.1%, 128 +35.8%; 32B
  // ShareGPT -4.7%, FP8 +70.5%, AWQ +60.5%, 32K +7.4%, 4K -7.1%, 2K -11.3%, 128 +10.1%. With Marlin's large-M GEMMs on an
  // A100 (KernelFamily.sm80PeakShare): the four Marlin rows +11.8%, +2.6%, +9.1%, -0.1%; with a prefill's linears as
  // Marlin's passes of 16-row blocks (KernelFamily.mBlocks, no shape loss from the token count) +16.2%, +6.4%, +13.6%,
  // +3.8% (median 10.1% -> 10.7%).
  'gpsa100 kind:serving engine:vllm': { count: 14, median: 0.108, p90: 0.299 },
  // The same pages' SGLang ShareGPT bursts: 14B +4.9%, 32B +7.4%.
  'gpsa100 kind:serving engine:sglang': { count: 2, median: 0.062, p90: 0.075 },
  // QwQ-32B bf16 on the issue's 8x H200, ten ShareGPT requests one at a time: -55.2% read as TP 1 on one card (above one
  // H200's bandwidth bound), +31.3% as TP 8.
  'vllm18725 kind:serving engine:vllm': { count: 1, median: 0.313, p90: 0.313 },
  // gpt-oss-120b MXFP4 over TP 8 on B200, a 1000-prompt ShareGPT burst, the PR's FlashInfer CUTLASS MXFP4 MoE: +139.0%.
  'vllm23696 kind:serving engine:vllm': { count: 1, median: 1.39, p90: 1.39 },
  // robertgshaw2-redhat/benchmark-single-token: Qwen2.5-0.5B on an H100, 100 requests of 250 prompts (600 tokens in,
  // one out) sent at once, scored before any model change: vLLM 0.7.3 V1 +0.4% (bound by its API server's work a
  // prompt), SGLang 0.4.3.post2 +370.1% (5.8 ms a prompt where SGLang's profile prices 0.9 ms: a batched-prompt request
  // through that release's TokenizerManager, not timed).
  'rgshaw kind:serving engine:vllm': { count: 1, median: 0.005, p90: 0.005 },
  'rgshaw kind:serving engine:sglang': { count: 1, median: 3.702, p90: 3.702 },
  // IOG-Foundation/llm-inference-benchmarks: DeepSeek-R1-Distill-Qwen-1.5B under vLLM 0.8.5, 200 ShareGPT requests sent at
  // a Poisson 32 a second, scored before any model change: H100 PCIe -2.2%, RTX 4090 +56.0% (its mean TPOT 2.1 times
  // the estimate's, docs/time-model.md "Poisson-rate ShareGPT bursts of a 1.5B model").
  'iognet kind:serving engine:vllm': { count: 2, median: 0.291, p90: 0.56 },
  // vllm-project/vllm#22331: gpt-oss-120b on one A100 80GB, one stream through Triton attention, scored before any
  // model change: +48.8% (the Marlin MXFP4 step at one token, docs/time-model.md Known misses).
  'vllm22331 kind:serving engine:vllm': { count: 1, median: 0.488, p90: 0.488 },
  // sgl-project/sglang#9359: gpt-oss-120b on 4x B200 with DP attention and EP 4, 2,560 in flight, per rank: -9.7%;
  // -12.2% with each prompt's tokens through the extend steps' all-reduces (time/expert-parallel.ts extendGatherSeconds).
  'sglang9359 kind:serving engine:sglang': { count: 1, median: 0.122, p90: 0.122 },
  // vllm-project/vllm#6677's Llama-3-8B-Instruct-FP8 (per-tensor W8A8) on one L40S, ShareGPT at 1 req/s under vLLM of
  // late July 2024 (V0): CUTLASS -26.0%, torch._scaled_mm -21.0% (the V0 step, as the crusoe-cookbook L40S rows).
  'vllm6677 kind:serving engine:vllm': { count: 2, median: 0.235, p90: 0.26 },
  // Qwen3-235B-A22B-FP8 over TP 4 on H100 (inferred) under SGLang of June 2025 (default fused_moe tiles), 16 in flight of
  // 1000/1000 (sgl-project/sglang#7445): +77.1%, unmoved by the experts' prefill share (decode-bound).
  'sglang7445 kind:serving engine:sglang': { count: 1, median: 0.772, p90: 0.772 },
  // datacrunch-research/h200-benchmarks: Llama-3.3-70B-Instruct bf16 over TP 4 on H200 under SGLang of December 2024,
  // Poisson arrivals of random lengths up to 1024/1024 at 1, 2 and 4 req/s, mean TPOT from the mean E2E: +2.4%, +6.3%,
  // +23.2% (scored before any change).
  'datacrunch kind:serving engine:sglang': { count: 3, median: 0.064, p90: 0.233 },
  // SemiAnalysisAI/InferenceX#1092: gpt-oss-120b over TP 8 on 8x MI300X under vLLM 0.17.0 (ROCm), 1k/1k at 1 and 4 in
  // flight, TPOT read as 1000 / tokens/s per user (rounded in the PR): -53.0%, -50.2% (scored before any change; the
  // experts' FP4 unpacking on few compute units dominates the estimate's step, docs/time-model.md Known misses).
  // 53.2% with the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts).
  'inferencex1092 kind:serving engine:vllm': { count: 2, median: 0.532, p90: 0.532 },
  // Livinfly/MLsys-Learning-Record-2: Mistral-7B-Instruct and DeepSeek-R1-0528-Qwen3-8B bf16 on one A100 PCIe 40GB, SGLang's
  // bench_serving at 1, 2 and 4 req/s (random lengths up to 1024/1024), mean TPOT, scored before any change: vLLM 0.9.1 V0
  // -10.4%, -0.4%, +11.0% (Mistral), +2.5%, +11.8% (Qwen3-8B); SGLang 0.4.7.post1 -2.3%, -1.9%, +25.2% (Mistral), -3.8%,
  // -1.7%, +15.5% (Qwen3-8B). The V0 rows with vLLM 0.9.1's output processing beside the forward (time/v0-host.ts):
  // -9.4%, +0.5%, +11.6%, +3.6%, +12.7%.
  'livinfly kind:serving engine:vllm': { count: 5, median: 0.095, p90: 0.128 },
  'livinfly kind:serving engine:sglang': { count: 6, median: 0.031, p90: 0.253 },
  // AlexsJones/llmfit's community RTX 5070 rows: llama-server, one request, eleven Q4_K_M GGUFs from Llama 3.2 1B to Qwen3
  // 14B, scored before any change: -6.5..+6.8%.
  'llmfit kind:decode engine:llama.cpp': { count: 11, median: 0.036, p90: 0.068 },
  // The Tim Wang blog's Llama-3.1-8B waves of 5 on one H100 (2000 tokens out each, batch latency): vLLM 0.9.0 V0 -27.0%,
  // V1 +0.1%, SGLang 0.4.9 +2.2%, scored before any change; its 50 and 100 rows are carried (their columns disagree).
  'timwang kind:serving engine:vllm': { count: 2, median: 0.136, p90: 0.271 },
  'timwang kind:serving engine:sglang': { count: 1, median: 0.023, p90: 0.023 },
  // sgl-project/sglang benchmark/benchmark_vllm_060: SGLang v0.3.0 (serial scheduler), ShareGPT at 4 and 8 req/s, median
  // TPOT: Llama 3.1 8B on an A100 80GB -2.2%, +3.8%; 70B over TP 4 on H100 +8.1%, +0.9% (scored before any change).
  // With the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts): median 3.1% -> 3.2%.
  'sglang060 kind:serving engine:sglang': { count: 4, median: 0.032, p90: 0.082 },
  // openinfer-project/openinfer's stock-vLLM runs on one RTX 5090 (Qwen3-4B BF16): vLLM 0.22.1 Poisson QPS 1-10 (1024/128,
  // median TPOT) +2.2, +2.2, +0.2, -2.6, -8.0%; vLLM 0.19.1 one request of 4096/64 -6.5% (scored before any change).
  // With vLLM's sampler passes in the step (time/sampler-step.ts: the fp32 upcast and argmax of the logits):
  // p90 8.14%.
  'openinfer kind:serving engine:vllm': { count: 6, median: 0.025, p90: 0.082 },
  // HamzahTariq11/llama.cpp-and-vLLM-benchmarks: vLLM 0.31 on a Kaggle T4, Qwen2.5-1.5B-Instruct FP16 and AWQ, closed loops
  // of 40 requests (256 out) at 1, 4, 8, 32: FP16 +16.3, +6.4, +10.7, +27.3%; AWQ -5.0, -6.7, -0.8, -33.5% before any
  // change; the AWQ row at 32 +20.7% with vLLM's awq_gemm kept to 255 tokens (FrameworkProfile.awqGemmMaxTokens).
  'hamzah kind:serving engine:vllm': { count: 8, median: 0.088, p90: 0.274 },
  // LambdaLabsML/vllm-benchmark: vLLM 0.5.4 (V0) ShareGPT bursts of 40, 160 and 640 on one H100 SXM (Llama-3-8B-Instruct):
  // -16.0, -11.1, +31.8% (scored before any change); the same sweep's 80 and 320, -5.8, +3.3% (scored before any change).
  // V0's prefill-first steps at max(max_model_len, 2048) tokens (FrameworkProfile.v0Scheduler): -16.3, -6.3, -11.6,
  // +1.8, +22.8%. With vLLM's sampler passes in the step as well (time/sampler-step.ts): median 11.72%.
  'lambdavllm kind:serving engine:vllm': { count: 5, median: 0.118, p90: 0.229 },
  // geerlingguy/ai-benchmarks' README: llama-bench tg128 under llama.cpp's Vulkan backend (the playbook's default build)
  // on an Intel 265K desktop, Llama-3.2-3B and R1-Distill-Qwen-14B Q4_K_M and gpt-oss-20b on an RTX 4090, RTX 3060 12GB
  // and RTX A4000: -8.8..+28.2%, the gpt-oss rows on the two smaller cards +15.9% and +28.2% (scored before any change).
  'aibench kind:decode engine:llama.cpp': { count: 8, median: 0.064, p90: 0.283 },
  // ggml-org/llama.cpp#2917 (August 2023, master column) and ggml-org/llama.cpp#2891 (September 2023, after its merge): LLaMA / Llama 2 7B
  // tg128 and tg64 on the M2 Ultra's Metal backend, unfused graphs: Q8_0 +6.7%, Q4_0 +12.2%; F16 +3.3%, Q8_0 +7.8%,
  // Q6_K +18.2% (scored before any change).
  'llamacpp2917 kind:decode engine:llama.cpp': { count: 2, median: 0.095, p90: 0.123 },
  'llamacpp2891 kind:decode engine:llama.cpp': { count: 3, median: 0.079, p90: 0.183 },
  // ggml-org/llama.cpp#8215 (mid-2024, PR column): Llama 3 8B IQ3_XXS llama-bench pp512 at microbatch 1, 2, 4 and 8 on
  // an RTX 3090 (+6.2, +22.7, +53.0, +54.7%) and an RTX 4090 (-20.7, -7.4, +2.1, +28.3%), unfused graphs; Unsloth's
  // DeepSeek-R1 UD-IQ1_S blog figure, 14 tokens/s single user on 2x H100 (+440.4%). All scored before any change
  // (docs/time-model.md "Low-bit GGUF rows: IQ3_XXS microbatches and a DeepSeek-R1 UD-IQ1_S figure").
  'llamacpp8215 kind:decode engine:llama.cpp': { count: 8, median: 0.217, p90: 0.547 },
  'unslothr1 kind:decode engine:llama.cpp': { count: 1, median: 4.405, p90: 4.405 },
  // Michaelvll/llm-ie-benchmarks: DeepSeek-R1 FP8 over TP 8 on 8x H200, sglang.bench_serving random 1000/2000, 5000/1000,
  // 10000/500 and 30000/100, 50 and 200 prompts at 10 req/s, the run's duration as a burst: SGLang 0.4.5.post3 +14.6..+37.5%,
  // vLLM 0.8.4 (V1) +16.6..+66.4% (scored before any change; H200 bursts, docs/time-model.md "A third mainstream sample").
  'llmie kind:serving engine:sglang': { count: 8, median: 0.22, p90: 0.376 },
  'llmie kind:serving engine:vllm': { count: 8, median: 0.344, p90: 0.665 },
  // willettAMT/perf-analysis-modeling-project: llama-bench tg128 of Qwen3-8B Q5_K_M on one L40S, a build with
  // GGML_CUDA_GRAPHS off: -7.0% (scored before any change).
  'perfmodel kind:decode engine:llama.cpp': { count: 1, median: 0.07, p90: 0.07 },
  // yobitelcomm/bench: Llama-3.1-8B-Instruct under vLLM 0.21.0 on one H100, closed loops of 1, 4 and 16 streams (max 128
  // tokens), median TPOT: -0.1, -1.2, +47.5% (scored before any change); the loop of 64 is carried (client-bound).
  // vLLM's mixed prefill-decode steps replayed as piecewise graphs under FULL_AND_PIECEWISE (time/mixed-step.ts): -1.4%.
  'yobitel kind:serving engine:vllm': { count: 3, median: 0.014, p90: 0.475 },
  // calebcoffie.com: Gemma-3 4b-it Q4_K_M tg_512 and tg_1024 on one RTX 3090 under llama.cpp's CUDA build of 2026: +20.3%,
  // +18.4% (scored before any change; as the tt521 Gemma 3 rows under vLLM, docs/time-model.md "Gemma 3 at batch 1").
  'calebcoffie kind:decode engine:llama.cpp': { count: 2, median: 0.194, p90: 0.204 },
  // GPUStack's gpt-oss-120b pages (docs/performance-lab/gpt-oss-120b/h100.md under vLLM v0.10.2, a100.md under v0.11.0):
  // ShareGPT loops of 4 (-0.3..+6.0%), random 2K/4K bursts of 500 on one card (-8.1..+12.6%) and over TP 2 with async
  // scheduling (+54.6%, +52.2%), 32K bursts of 100 (+29.8%, +41.3%), scored before any change (docs/time-model.md "A fourth
  // mainstream sample").
  'gpsoss120 kind:serving engine:vllm': { count: 12, median: 0.077, p90: 0.624 },
  // GPUStack's GLM-4.5-Air pages (docs/performance-lab/glm-4.5-air/h100.md and a100.md; bf16 over TP 4, vLLM v0.11.0
  // and SGLang v0.5.4.post2): ShareGPT bursts of 1000 (vLLM +62.9%, +62.3%; SGLang +46.6%, +34.4%) and the A100's random
  // 2K and 4K bursts of 500 under vLLM (+66.6%, +94.6%), scored before any change (docs/time-model.md "GLM-4.5-Air
  // bursts on four GPUs"); the vLLM rows +58.3..+85.4% with vLLM 0.11.0's fp32 GLM-4.5 router GEMM priced
  // (time/fp32-router.ts).
  'gpsglmair kind:serving engine:vllm': { count: 4, median: 0.592, p90: 0.854 },
  // The SGLang rows +30.9%, +19.0% with the release named and SGLang's default 16-bit fused_moe tiles above E tokens
  // where v0.5.4.post2 ships no tuned file for E=128,N=352 on either card (time/moe-default-tiles.ts).
  'gpsglmair kind:serving engine:sglang': { count: 2, median: 0.25, p90: 0.31 },
  // GPUStack's GLM-4.6 pages (docs/performance-lab/glm-4.6/h100.md and a100.md; zai-org/GLM-4.6-FP8 over TP 8, vLLM
  // v0.11.0 and SGLang v0.5.3): ShareGPT bursts of 1000 on eight H100s (vLLM +215.3%; SGLang +158.5%, with EP 8 +151.8%)
  // and eight A100s (vLLM +51.6%, with EP 8 +64.1%), scored before any change (docs/time-model.md "GLM-4.6 FP8 bursts on
  // eight H100 and A100").
  'gpsglm46 kind:serving engine:vllm': { count: 3, median: 0.642, p90: 2.154 },
  'gpsglm46 kind:serving engine:sglang': { count: 2, median: 1.552, p90: 1.586 },
  // GPUStack's GLM-5.2 page (docs/performance-lab/glm-5.2/h200.md; zai-org/GLM-5.2-FP8 on eight H200s, SGLang v0.5.14,
  // 1000 requests of 8K in / 1K out at 512 in flight): TP 8 +20.0%, TP 8 with DP attention over 8 ranks +72.4% and the
  // same at --mem-fraction-static 0.85 -12.1%, scored before any change (docs/time-model.md "GLM-5.2 FP8 on eight H200
  // under SGLang, and SGLang's default fused_moe tiles"); the same page's DP-attention runs at --mem-fraction-static 0.8
  // (+14.2%) and with --ep-size 8 (+84.8%), scored before any change. With SGLang's DP-attention gathers (every layer,
  // each prompt's tokens through the extend steps' all-reduces): the DP-attention rows +55.5%, -20.8%, +3.1%, +66.9%.
  'gpsglm52 kind:serving engine:sglang': { count: 5, median: 0.208, p90: 0.67 },
  // GPUStack's GLM-4.x page (docs/performance-lab/glm-4.x/h200.md; zai-org/GLM-4.6 bf16 over TP 8 on eight H200s, vLLM
  // v0.11.0 and SGLang v0.5.3, ShareGPT bursts of 1000): vLLM +48.7%, SGLang +21.2% scored before any change; +46.7% and
  // +20.3% with the Triton fused_moe's padded rows and large-M rate (time/moe-pad-rows.ts). The same page's
  // zai-org/GLM-4.6-FP8 SGLang runs (TP 8, TP 4, TP 4 + EP 4; no tuned fused_moe file for their shapes in the 0.5.3
  // wheel), scored before any model change: +41.0%, +18.3%, +25.7% (docs/time-model.md "GLM-4.6 FP8 on H200 beside H100").
  'gpsglm4x kind:serving engine:vllm': { count: 1, median: 0.467, p90: 0.467 },
  'gpsglm4x kind:serving engine:sglang': { count: 4, median: 0.23, p90: 0.411 },
  // ai.wmx.dev: Qwen2.5-0.5B-Instruct under vLLM v0.23.0 on one L4, closed loops of 1-32 streams (256 in, 128 out), TPOT
  // from the median E2E and TTFT: -5.9..-9.4% (scored before any change).
  // vLLM's mixed prefill-decode steps replayed as piecewise graphs under FULL_AND_PIECEWISE (time/mixed-step.ts): 7.7% / 10.0%.
  // With vLLM's sampler passes in the step (time/sampler-step.ts: the fp32 upcast and argmax of the logits):
  // Qwen2.5-0.5B's closed loops at 8-32 in flight read slower still; with both, median 8.35%, p90 11.5%.
  'wmx kind:serving engine:vllm': { count: 6, median: 0.084, p90: 0.117 },
  // ggml-org/llama.cpp#20835: Qwen3-30B-A3B UD-Q4_K_XL tg128 on an RTX 5090 under Windows, build 8322: +57.8% (scored before
  // any change).
  'llamacpp20835 kind:decode engine:llama.cpp': { count: 1, median: 0.579, p90: 0.579 },
  // LottoLottoLotto/4x3090-llm-benchmarks: Mistral-7B-v0.3 and Qwen3-4B bf16 under vLLM 0.25.0 on one RTX 3090 capped at
  // 220 W, 512 in / 256 out at 1, 4 and 8 in flight: +30.3, +19.9, +8.5% and +24.7, +9.6, -0.1% (scored before any change;
  // docs/time-model.md "A fifth mainstream sample").
  'lotto3090 kind:serving engine:vllm': { count: 6, median: 0.148, p90: 0.303 },
  // QwenLM/Qwen3's speed benchmark: Qwen3-4B to 32B and Qwen3-30B-A3B at batch 1, one prompt token and 2048 generated,
  // SGLang 0.4.6.post1 on one H20: +48..+124% (BF16, FP8, AWQ), +712% (GPTQ-Int4 MoE), scored before any change. With
  // its Qwen3-235B-A22B FP8 and GPTQ-Int4 rows over TP 4 (+48.8%, +651.1%, scored before any change): 17 rows, 87.1% /
  // 651.1%. With that release's per-expert Marlin MoE launches (time/per-expert-moe.ts; GPTQ +45.8%, +53.7%): 62.1% /
  // 113.4%.
  'qwen3speed kind:serving engine:sglang': { count: 17, median: 0.621, p90: 1.135 },
  // huggingface/optimum's prefill-only benchmark (tests/benchmark/README.md, two editions): Llama-2-13B in fp16 on one
  // A100-SXM4-80GB, model.generate of 1-16 prompts of 512 tokens and one new token, scored before any change: +4.8..+50.8%
  // (transformers 4.37.2) and +2.1..+33.2% (August 2023, eager attention), too fast by more the more rows the batch holds.
  // With the eager forward's elementwise passes priced in a prefill (time/eager-prefill-passes.ts): -11.3..+29.2%.
  'optimumprefill kind:decode engine:hf-generate': { count: 10, median: 0.083, p90: 0.209 },
  // argonne-lcf/LLM-Inference-Bench: vLLM's benchmark_latency (V0, fp16) of Meta-Llama-3-8B on one H100 (-15.6..-26.7%) and
  // one MI300X (+15.9..+185.2%) and Meta-Llama-3-70B over TP 4 on H100 (-8.3..+0.4%), 128/128 and 1024/1024 at batch 1
  // and 64, scored before any change. The MI300X build is v0.6.1, its output processing beside the forward
  // (time/v0-host.ts): +18.6..+188.0%; the H100 build's release is not known (0.5.x-0.6.1) and keeps the serial cost.
  // v0.6.1 predates the split HIP decode kernel: its V0 backend's generic kernel reads the KV once a query head
  // (RocmPagedDecode.releases): +15.7..+96.1%, the 1024/1024 batch of 64 +188.0% -> +72.1%.
  // With vLLM's sampler passes in the step (time/sampler-step.ts: the fp32 upcast and argmax of the logits):
  // median 20.67%.
  'llminfbench kind:serving engine:vllm': { count: 12, median: 0.207, p90: 0.721 },
  // vllm-project/vllm#30326: gpt-oss-120b over TP 8 on 8x H200, 40 requests of 1024 in and out at 8 in flight, the build
  // before vllm-project/vllm#29708: +11.3% (scored before any change).
  'vllm30326 kind:serving engine:vllm': { count: 1, median: 0.114, p90: 0.114 },
  // dstackai/benchmarks amd/tgi_vs_vllm: Llama 3.1 405B BF16 over TP 8 on 8x MI300X, vLLM 0.6.3.dev116 (V0), one request
  // of 16K, 32K, 64K and 128K tokens: +109.7%, +112.6%, +121.8%, +162.1% (scored before any change); +34.9%, +38.3%,
  // +47.3%, +81.3% with V0's decode steps past max_seq_len_to_capture run eagerly (FrameworkProfile.v0GraphMaxSeqLen);
  // +34.9%, +38.3%, +36.5%, +19.1% with the split HIP kernel held to 32,768 tokens in that release and V0's generic
  // kernel past it (RocmPagedDecode.releases).
  'dstackamd kind:serving engine:vllm': { count: 4, median: 0.358, p90: 0.384 },
  // vllm-project/vllm#23695: GLM-4.5-Air FP8 over TP 2 on B200, vLLM main of August 2025, about 169 in flight at 10
  // requests a second: +83.1% (scored before any change; docs/time-model.md "GLM-4.5-Air FP8 on B200: two fused-MoE
  // config PRs"); +79.4% with GLM-4.5's fp32 router GEMM of that build priced (time/fp32-router.ts).
  'vllm23695 kind:serving engine:vllm': { count: 1, median: 0.795, p90: 0.795 },
  // sgl-project/sglang#9770: the same model and client over TP 4 on B200 under SGLang main of August 2025, about 205 in
  // flight: +68.8% (scored before any change).
  'sglang9770 kind:serving engine:sglang': { count: 1, median: 0.689, p90: 0.689 },
  // sgl-project/sglang#1060: two saturated bursts of 1000 on one H100 under SGLang main of August 2024, every step eager
  // (MLA, or --disable-flashinfer, turned the graphs off) with Triton attention, scored before any change:
  // DeepSeek-V2-Lite bf16 with MLA over ShareGPT +157.9% (docs/time-model.md Known misses), Llama-3.1-8B-Instruct
  // over random prompts up to 8,192 tokens with 8 out +32.2%. With the 0.2 line's eager MLA and MoE layer ops
  // (engines/sglang/memory.ts eagerMlaMoeLayerOps): DeepSeek-V2-Lite +11.4%.
  'sglang1060 kind:serving engine:sglang': { count: 2, median: 0.218, p90: 0.322 },
  // sgl-project/sglang#1138 and sgl-project/sglang#1281: MLA bursts on the Triton backend of August-September 2024,
  // every step eager, scored before any change: DeepSeek-V2 bf16 over TP 8 on 8x H100 (5000 ShareGPT prompts) +237.5%,
  // DeepSeek-V2-Lite on one A100 at 128 requests/s +195.9%; with the 0.2 line's eager MLA and MoE layer ops +54.2% and
  // +135.7% (docs/time-model.md Known misses).
  'sglang1138 kind:serving engine:sglang': { count: 2, median: 0.95, p90: 1.358 },
  // DeepSeek-V2-Lite with --enable-mla on one A100 (3000 prompts) +183.6% and on one H100 (5000 prompts) +201.9%; with
  // the eager MLA and MoE layer ops +100.2% and +81.5%.
  'sglang1281 kind:serving engine:sglang': { count: 2, median: 0.909, p90: 1.003 },
  // vllm-project/recipes#443: Ministral-3-8B-Reasoning-2512 BF16 on one MI300X, 100 requests of 1024 in and out at 32 in
  // flight (vllm/vllm-openai-rocm of May 2026): +41.1% (scored before any change).
  'recipes443 kind:serving engine:vllm': { count: 1, median: 0.412, p90: 0.412 },
  // The Vultr Inference Cookbook's MI325X closed loops (vLLM v0.14.1 per arXiv:2603.10031; 100 requests of 2,048 in and
  // 512 out at 10, 50 and 100 in flight, means of 5 runs): Llama-3.1-405B online FP8 over TP 8 +49.9%, -6.7%, -26.9%;
  // Qwen3-VL-235B-A22B BF16 over TP 8 +41.8%, +20.7%, +19.2% (scored before any change).
  'vultrcookbook kind:serving engine:vllm': { count: 6, median: 0.239, p90: 0.499 },
  // vLLM with tensor parallel attention and --enable-expert-parallel (EP = TP, whole experts per rank), scored before any
  // change: vllm-project/recipes GLM-V.md's GLM-4.5V-FP8 over TP 4 + EP on 4x H100, one request at a time (+34.9%).
  'recipesglmv kind:serving engine:vllm': { count: 1, median: 0.35, p90: 0.35 },
  // vllm-project/recipes DeepSeek-V3.md's DeepSeek-R1-0528 FP8 over TP 8 + EP on 8x H200, one 8K/1K request (-17.9%).
  // 18.1% with the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts).
  'recipesdsv3 kind:serving engine:vllm': { count: 1, median: 0.181, p90: 0.181 },
  // The InferenceX blog's MiniMax-M2.5 tables whose recipe ran TP + EP: FP8 over TP 8 on 8x H200 (8K/1K and 1K/1K at 128
  // in flight: +7.8%, +18.4%), TP 4 on 4x H100 (1K/1K at 64: -24.9%), NVFP4 over TP 2 on 2x B200 (8K/1K at 128: -16.5%),
  // scored before any change; +5.8%, +14.3%, -26.1% with vLLM's TP + EP fused_moe blocks past the rank's own experts
  // timed as early-exiting programs (FusedMoeGrid.epAlignsLocal).
  // The H100 block-FP8 row -26.2% before the Triton fused_moe's padded rows (time/moe-pad-rows.ts), -26.3% with them.
  // With vLLM's sampler passes in the step (time/sampler-step.ts: the fp32 upcast and argmax of the logits):
  // p90 26.40%.
  // With the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts): p90 26.4% -> 26.7%.
  // With the blog's gpt-oss-120b tables (six rows at 64 in flight: H100 over TP 2, MI300X and MI325X, 8K/1K and 1K/1K,
  // -16.9..-42.8%, scored before any change): 10 rows, 22.8% / 35.7%.
  'ixblog kind:serving engine:vllm': { count: 10, median: 0.228, p90: 0.357 },
  // aerlabsAI/nano-vllm's vLLM 0.15.1 sweep on an RTX 3060 12GB: Qwen3-0.6B and Qwen2.5-3B-Instruct, 20 prompts of about
  // 4,200 tokens in and 520 out sent at a Poisson 1 a second, --max-num-seqs 16, scored by the run's duration and its
  // mean TPOT, before any change: +18.7%, +12.5% (durations), +21.6%, +3.3% (TPOT).
  'nanovllm kind:serving engine:vllm': { count: 4, median: 0.157, p90: 0.216 },
  // hackertron/inference-lab: Qwen3-1.7B under vLLM 0.30.0 --enforce-eager on an RTX 3060 Ti, 2 in flight, mean TPOT
  // 14.77 ms: +33.7% (scored before any change).
  'inferencelab kind:serving engine:vllm': { count: 1, median: 0.337, p90: 0.337 },
  // AMD-AGI/Magpie#88: Qwen3-Coder-480B-A35B over TP 4 on 4x MI355X under SGLang 0.5.14 with AITER, mean TPOT at 32 in
  // flight of 1024/1024, scored before any model change: FP8 (block-scaled) -21.5%, MXFP4 -7.7% (too slow).
  // With the embedding's all-reduce and the logits' gather under TP (time/vocab-parallel.ts): 14.6% / 21.5% ->
  // 14.9% / 21.7%.
  'magpie88 kind:serving engine:sglang': { count: 2, median: 0.149, p90: 0.217 },
  // vllm-project/recipes#476: Ministral-3-3B-Instruct-2512 (FP8 weights) on one MI300X with AITER, 100 requests of 1024
  // in and out at 32 in flight (vllm/vllm-openai-rocm of May 2026): +50.1% (scored before any change).
  'recipes476 kind:serving engine:vllm': { count: 1, median: 0.501, p90: 0.501 },
  // SemiAnalysisAI/InferenceX#1276's baseline column: MiniMax-M2.5 FP8 over TP 2 + EP on 2x MI355X under vLLM with AITER,
  // 1k/1k at 2, 4 and 8 in flight, scored before any change: +24.7%, +17.7%, +6.8%; +25.1%, +18.4%, +7.8% timed with
  // AITER on, as the harness sets it (rocm_aiter).
  'inferencex1276 kind:serving engine:vllm': { count: 3, median: 0.184, p90: 0.252 },
  // AccelMark's verified vLLM reference runs (vLLM 0.7.3, V0 engine, one request at a time through AsyncLLMEngine) on one
  // H100 80GB HBM3: Meta-Llama-3-8B-Instruct -25.4%, Llama-3.1-8B-Instruct at 28.7k tokens -22.4%, Qwen2.5-0.5B-Instruct
  // -57.0% (too slow; scored before any change). The same harness's Qwen2.5-0.5B-Instruct online runs (Poisson 10 and 40
  // requests a second, scored as the TPOT at the mean in flight) on that H100 under 0.7.3, -44.9% and -4.0%, and on one
  // A100-SXM4-80GB host under 0.7.3 (one at a time -33.1%, 10 a second -7.6%) and under vLLM 0.20.1's V1 engine (one at
  // a time -0.8%, 10 and 40 a second +14.1% and +25.4%), scored before any change.
  'amverified kind:serving engine:vllm': { count: 10, median: 0.239, p90: 0.461 },
  // sgl-project/sgl-cookbook's MiniMax-M2.5 H100 page: FP8 over TP 8 with EP 8 on 8x H100, SGLang 0.5.9, mean TPOT at one
  // request of 1000/1000 random: +0.4% (scored before any change).
  'sglcb kind:serving engine:sglang': { count: 1, median: 0.005, p90: 0.005 },
  // systalyze/vllm-benchmarks: the stock BF16 baselines of vLLM 0.27.1, one replica a GPU, at the capacity plateau of a
  // Poisson rate sweep (lognormal lengths, mean 4426 in / 231 out), read as saturated bursts of 512: Qwen3-32B and
  // Nemotron-3-Nano on an H200 -1.5%, +17.9%; on an RTX PRO 6000 -29.9%, -15.3% (scored before any change).
  'systalyze kind:serving engine:vllm': { count: 4, median: 0.166, p90: 0.3 },
  // vllm-project/recipes#112: MiniMax-M2 FP8 over TP 4 on H100, 100 requests of 2048 in at 10 in flight, the image's
  // DeepGEMM build and VLLM_USE_DEEP_GEMM=0: TPOT +92.6% / -2.0%, throughput +106.9% / +5.2% (scored before any change).
  'recipes112 kind:serving engine:vllm': { count: 4, median: 0.49, p90: 1.069 },
  // vllm-project/vllm#40838: gpt-oss-120b over TP 4 on H200 at 300 in flight, v0.16.0 +31.2% and v0.17.0 +58.3% (the
  // issue's regression; scored before any change).
  'vllm40838 kind:serving engine:vllm': { count: 2, median: 0.448, p90: 0.583 },
  // The GPUStack lab's Qwen3-235B-A22B page for A100 (vLLM v0.11.0): bf16 over TP 8 and the FP8 checkpoint (Marlin)
  // over TP 4, bursts of ShareGPT and random 128 / 2K / 4K prompts: +16.6..+44.0%, every one fast (scored before any change).
  'gpsq235a100 kind:serving engine:vllm': { count: 6, median: 0.342, p90: 0.44 },
  // The vLLM blog's FP8 KV-cache post (vLLM v0.19.1, BF16 KV cache): gpt-oss-20b at one request, 128 tokens out, the
  // fitted ITL at 1K and 64K tokens in, on an H100 (+32.9%, +28.4%) and a B200 (+30.7%, +27.3%), and 150 requests at 8
  // in flight of about 20K/2K on the H100 (+3.5%), scored before any model change.
  'vllmblogfp8kv kind:serving engine:vllm': { count: 5, median: 0.307, p90: 0.33 },
  // vllm-project/vllm#19455: Qwen3-30B-A3B-FP8 on one B200 under vLLM main of 2025-06-11, 2000 ShareGPT requests at
  // 200 in flight, without and with the PR's tuned fused-MoE file: +86.6%, +39.7% (scored before any change).
  'vllm19455 kind:serving engine:vllm': { count: 2, median: 0.632, p90: 0.867 },
  // sgl-project/sglang#4918: DeepSeek-V3 FP8 over TP 8 on eight H200 under SGLang main of 2025-03-30, 300 ShareGPT
  // requests sent at 4 and 8 a second (the PR's baseline without shared-expert fusion): +74.3%, +163.6% scored before
  // any model change; +69.2%, +127.4% with each lone prefill step priced as a forward of its own.
  'sglang4918 kind:serving engine:sglang': { count: 2, median: 0.984, p90: 1.275 },
  // sgl-project/sglang#6111: DeepSeek-V3 FP8 over TP 8 on eight B200 under SGLang main of 2025-05-08 with the Triton
  // attention backend and the fused MoE's default tiles, bench_one_batch_server at 512 in / 512 out: one request
  // +224.1%, 32 at once +82.3% (scored before any model change); +224.1%, +82.2% after; +191.1%, +72.6% with the MLA
  // backend taken by release (0.4.6's Triton MLA layer counted, not 0.5.6's trtllm_mla; engines/sglang/mla-backend.ts).
  'sglang6111 kind:serving engine:sglang': { count: 2, median: 1.319, p90: 1.912 },
  // sgl-project/sglang#3237: DeepSeek-V3 FP8 over TP 8 on eight MI300X (assumed) under SGLang of February 2025 (the
  // 0.4.3 line, Triton MLA), bench_one_batch at 4 x 2048 in / 256 out, without and with the PR's fused rope: +75.3%,
  // +63.0% scored before any model change; +43.0%, +33.0% with 0.4.3's Triton MLA layer counted in place of 0.5.7's
  // AITER layer (engines/sglang/decode-kernels.ts).
  'sglang3237 kind:serving engine:sglang': { count: 2, median: 0.381, p90: 0.431 },
  // sgl-project/sglang#4858: DeepSeek-V3-0324 FP8 with DP attention over eight H200 under SGLang main of 2025-03-28
  // (DeepGEMM on by default, compiled on first use), 512 random 1000/10 requests at 128 in flight, the first, second
  // and fifth run after `rm -rf ~/.deep_gemm`: +3516.7%, +461.0%, +281.1% (scored before any change); the first two
  // hold the JIT compiles the model does not price (docs/time-model.md "One-time costs inside a measured run") and are
  // carried unscored, the fifth (warm cache) is scored. +181.5% with SGLang's DP-attention gathers as that release runs
  // them: all-reduces of the ranks' summed tokens in every layer, each prompt's tokens in them (extendGatherSeconds).
  'sglang4858 kind:serving engine:sglang': { count: 1, median: 1.816, p90: 1.816 },
  // Isambard-AI's distributed-inference tutorial: gpt-oss-120b over TP 4 on one node of four GH200 under vLLM 0.15.1,
  // 1K / 1K random prompts at 512 in flight, its mean TPOT: +43.9% (scored before any change).
  'isambard kind:serving engine:vllm': { count: 1, median: 0.44, p90: 0.44 },
  // Millstone AI's gpt-oss-20b report on one RTX PRO 6000 Blackwell (vLLM of January 2026): one request at 1K in and
  // 1024 out, its single-request generation speed: +7.4% (scored before any change).
  'millstone kind:serving engine:vllm': { count: 1, median: 0.075, p90: 0.075 },
  // vllm-project/vllm#16300's benchmark_latency table: QwQ-32B bf16 over TP 2, 4 and 8 of an 8x A100 80GB node under
  // vLLM 0.7.2 (V0), one-token prompts and 200 output tokens at batch 1, 16 and 128 (seven cells): +1.8, +10.4, +20.6%
  // at batch 1, +6.7, +24.8, +47.1% at 16, +33.2% at 128 over TP 2, scored before any model change.
  'vllm16300 kind:serving engine:vllm': { count: 7, median: 0.207, p90: 0.471 },
  // kubesimplify's two-GPU post (kubesimplify/website content/blog/running-a-single-llm-across-two-gpus-with-vllm.md):
  // Qwen3-32B bf16 over TP 2 and PP 2 on two RTX PRO 6000 Blackwell Server Edition cards with no NVLink under vLLM
  // 0.27.1, 1024 in / 256 out at 1 and 32 in flight, each cell's median TPOT and output tokens/s, scored before any
  // model change: TPOT -10.5% (TP 2, c1), +6.6% (PP 2, c1), -23.9% (TP 2, c32), -43.3% (PP 2, c32); output tokens/s
  // -9.9%, +4.0%, +2.4%, -35.0%. With a closed loop of equal requests timed as its rounds run (validate-throughput.ts
  // closedLoopTpotSeconds, the rows' equal_lengths): the c32 TPOT rows +9.2% (TP 2) and -15.1% (PP 2).
  'kubesimplify kind:serving engine:vllm': { count: 8, median: 0.096, p90: 0.35 },
  // The LMSYS deterministic-inference post's Normal rows (lm-sys/lm-sys.github.io blog/2025-09-22-sglang-deterministic.md):
  // Qwen3-8B bf16 on one H200 under SGLang of September 2025, 256 requests of 1k/1k, 4k/4k and 8k/8k through the
  // FlashInfer, FA3 and Triton backends, scored before any model change: +4.3/-0.7/+35.7% (FlashInfer), +17.3/+13.5/+20.2%
  // (FA3), +24.8/+19.7/+32.5% (Triton); the estimate does not tell the three backends apart at a GQA decode. With
  // SGLang's retraction in the step-by-step burst (AdmissionReserve.retraction: the ratio reset, the retracted at the
  // back of the queue) the 8k/8k rows read +33.2/+18.0/+30.1%, the 4k/4k +0.5/+14.9/+21.2%: 18.0% / 33.2%.
  'lmsysdet kind:serving engine:sglang': { count: 9, median: 0.18, p90: 0.333 },
  // vllm-project/vllm#13747's benchmark_throughput pair (DeepSeek-R1 FP8 over TP 8 on eight H200, vLLM main of
  // 2025-02-25 on its V0 engine, 100 requests of 3000 in and 1000 out), scored before any model change: +117.9%
  // (TRITON_MLA) and +99.8% (FLASHMLA); the model has no V0 DeepSeek path of that month beyond the engine's. With the
  // build's materialized MLA absorption read (time/mla-absorbed.ts: W_Q_UK and W_UV_O in place of q_b, kv_b and o),
  // +117.4% -> +115.1% and +99.3% -> +97.2%: 106.2% / 115.1%.
  'vllm13747 kind:serving engine:vllm': { count: 2, median: 1.062, p90: 1.151 },
  // AMD's latency tables for its rocm/vllm-dev image (ROCm/vllm docs/dev-docker/README.md, the vLLM 0.7.3 and v0.10.0
  // editions): Llama 3.1 70B and 405B FP8 over TP 8 on 8x MI300X, benchmark_latency at batch 1-128 of 128 or 2048 tokens
  // in and 2048 out, scored before any model change: -23.8..+31.2%; with V1's prefix cache over the script's repeated
  // prompts (the v0.10.0 rows' prefix-cache, time/serving-request.ts staticBatchSeconds, time/length-spread.ts
  // cachedShare) the 2048-token rows read +10.5%, +23.8% (70B) and +24.2% (405B) where they read -1.0%, -1.6%, -15.0%.
  'rocmvllmdev kind:serving engine:vllm': { count: 16, median: 0.158, p90: 0.312 },
} as const;

describe('time model on the serving field rows', () => {
  it('scores the seven Qwen3-8B H100 rows of adithyaJRunpod/vllm_bench out of sample, none further off than first scored', () => {
    // calibration/README.md; docs/time-model.md "Qwen3-8B under vLLM 0.18.0 on an H100: seven concurrency rows".
    const first: Record<string, number> = {
      'adjbench-qwen3-8b-h100-vllm0180-c4': 0.025,
      'adjbench-qwen3-8b-h100-vllm0180-c8': -0.016,
      'adjbench-qwen3-8b-h100-vllm0180-c16': -0.041,
      'adjbench-qwen3-8b-h100-vllm0180-c32': -0.092,
      'adjbench-qwen3-8b-h100-vllm0180-c64': -0.145,
      'adjbench-qwen3-8b-h100-vllm0180-r35-c96': -0.164,
      'adjbench-qwen3-8b-fp8-h100-vllm0180-r35-c96': 0.026,
    };
    const adj = fieldRows.filter((r) => r.id.startsWith('adjbench-'));
    expect(adj.map((r) => r.id).sort()).toEqual(Object.keys(first).sort());
    for (const r of adj) {
      expect(r.inSample, r.id).toBe(false);
      expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(Math.abs(first[r.id]!) + 0.001);
    }
  });

  it('scores the batch-1 rows of joshua8.ai (RTX 5090) and enginrect/llmso (RTX 4090, L4) out of sample, none 36% off', () => {
    // calibration/README.md "Batch-1 decode under vLLM 0.15-0.27 on an RTX 5090, an RTX 4090 and an L4".
    const batch1 = fieldRows.filter(
      (r) => /^(joshua8-|llmso-)/.test(r.id) && !r.id.startsWith('llmso-qwen3-8b-fp8-'),
    );
    expect(batch1.map((r) => r.id).sort()).toEqual([
      'joshua8-qwen3vl30b-awq-rtx5090-vllm0151-b1',
      'joshua8-qwen3vl30b-awq-rtx5090-vllm0160rc2-b1',
      'llmso-qwen25-7b-bf16-l4-vllm0271-sharegpt-c1',
      'llmso-qwen25-7b-bf16-rtx4090-vllm0271-sharegpt-c1',
      'llmso-qwen25-7b-fp8dyn-rtx4090-vllm0271-sharegpt-c1',
      'llmso-qwen25-7b-gptq-int4-l4-vllm0271-sharegpt-c1',
      'llmso-qwen25-7b-gptq-int4-rtx4090-vllm0271-sharegpt-c1',
    ]);
    for (const r of batch1) {
      expect(r.inSample, r.id).toBe(false);
      expect(Math.abs(r.error), r.id).toBeLessThan(0.36);
    }
    // The RTX 4090's memory-bound steps (bf16, Marlin int4, CUTLASS FP8) read within 10% (+0.0%, -1.0%, +3.5% first).
    for (const r of batch1.filter((x) => x.id.includes('rtx4090')))
      expect(Math.abs(r.error), r.id).toBeLessThan(0.1);
  });

  it('scores the 864 scorable field rows (none in sample); the vllm-project/vllm#2542, dstack, non-default NVFP4 MoE, FP8-fault, MI355X 1k/256 c256, dense MXFP4, Tim Wang 50/100 and InferenceBench c64 rows are carried', () => {
    expect(fieldRows.length).toBe(864);
    expect(fieldRows.filter((r) => r.inSample).map((r) => r.id)).toEqual([]);
    const cases = loadThroughputCases('throughput.json');
    const carried = cases.filter((c) => c.id.startsWith('vllm-2542-'));
    expect(carried).toHaveLength(7);
    for (const c of carried) {
      expect(c.scorable).toBe(false);
      expect(c.why_not).toMatch(/not the program the vllm profile models/);
    }
    expect(rows.some((r) => r.id.startsWith('vllm-2542-'))).toBe(false);
    // dstack's DeepSeek-R1 study (pre-release builds of February-March 2025): scored once, carried.
    const dstack = cases.filter((c) => c.id.startsWith('dstack-dsr1-'));
    expect(dstack).toHaveLength(18);
    for (const c of dstack) {
      expect(c.scorable).toBe(false);
      expect(c.why_not).toMatch(/not the programs the engine profiles model/);
    }
    expect(rows.some((r) => r.id.startsWith('dstack-'))).toBe(false);
    // The NVFP4 MoE backends the engine does not run by default on a B200 (vLLM's TensorRT-LLM MoE, SGLang's CUTLASS
    // MoE): no contract flag selects them.
    for (const id of [
      'flashinfer1734-l4scout-nvfp4-b200-trtllm',
      'sglang8552-dsr1-nvfp4-b200-cutlass',
    ]) {
      expect(cases.find((c) => c.id === id)!.scorable, id).toBe(false);
      expect(rows.some((r) => r.id === id)).toBe(false);
    }
    // vllm-project/vllm#49723's per-tensor FP8 runs, which the source reports as a kernel fault on sm100.
    for (const id of [
      'vllm49723-mistral24b-fp8-fp8kv-b200-c64',
      'vllm49723-mistral24b-fp8-b200-c64',
    ]) {
      expect(cases.find((c) => c.id === id)!.why_not, id).toMatch(/kernel-selection fault/);
      expect(rows.some((r) => r.id === id)).toBe(false);
    }
    // llm-d/llm-d#1233's 1k/256 row at 256 in flight: its Total and Output tok/s give 8 input tokens an output token.
    const c256 = 'llmd1233-l33-70b-fp8-mi355x-tp8-i1k-o256-c256';
    expect(cases.find((c) => c.id === c256)!.why_not).toMatch(/8\.00 input tokens/);
    expect(rows.some((r) => r.id === c256)).toBe(false);
    // AMD Quark's dense MXFP4 Llama 3.3 70B on MI355X: the estimate's 'mxfp4' is gpt-oss's MXFP4 experts.
    const dense = 'recipesl33rocm-l33-70b-mxfp4-mi355x-tp1-i8k-o1k-c64';
    expect(cases.find((c) => c.id === dense)!.why_not).toMatch(
      /not a weights kind the estimate has/,
    );
    expect(rows.some((r) => r.id === dense)).toBe(false);
    // The Tim Wang blog's waves of 50 and 100: its generation rate and latency columns imply other output lengths.
    const waves = cases.filter((c) => /^timwang-.*-c(50|100)$/.test(c.id));
    expect(waves).toHaveLength(6);
    for (const c of waves) {
      expect(c.scorable).toBe(false);
      expect(c.why_not).toMatch(/columns disagree/);
    }
    expect(rows.some((r) => /^timwang-.*-c(50|100)$/.test(r.id))).toBe(false);
    // InferenceBench's loop of 64 streams on an H100: its output rate falls from the loop of 16 while the TPOT rises 4.3x.
    const yob = cases.find((c) => c.id === 'yobitel-l31-8b-h100-vllm0210-closed-c64')!;
    expect(yob.scorable).toBe(false);
    expect(yob.why_not).toMatch(/Client-bound/);
    expect(rows.some((r) => r.id === yob.id)).toBe(false);
  });

  for (const [group, bar] of Object.entries(FIELD_BARS))
    it(`${group}: ${bar.count} rows (out of sample), median <= ${bar.median * 100}%, p90 <= ${bar.p90 * 100}%`, () => {
      const [era, kind, engine] = group.split(' ').map((g) => g.split(':').at(-1));
      const s = summarizeThroughput(
        group,
        fieldRows.filter(
          (r) => !r.inSample && eraOf(r.id) === era && r.kind === kind && r.engine === engine,
        ),
      );
      expect(s.count).toBe(bar.count);
      expect(s.medianAbsError).toBeLessThanOrEqual(bar.median);
      expect(s.p90AbsError).toBeLessThanOrEqual(bar.p90);
    });

  // FlashInfer's CUTLASS NVFP4 MoE call was worked out from SGLang's DeepSeek-R1 CUTLASS row alone (now carried);
  // vLLM's Llama 4 Scout row (another engine, model and TP) tests it out of sample: +178% without it. SGLang's default
  // on SM100, the TensorRT-LLM-gen MoE (flashinfer-ai/flashinfer#3976's figure): DeepSeek-R1 over TP 4 -32.8% -> +11.9%,
  // over TP 8 -52.9% -> -19.6%; -20.2% with its embedding's all-reduce and the logits' gather at one request
  // (time/vocab-parallel.ts).
  it('NVFP4 MoE on Blackwell: the Llama 4 Scout and SGLang DeepSeek-R1 rows within 20.3% out of sample', () => {
    for (const id of [
      'flashinfer1734-l4scout-nvfp4-b200-cutlass',
      'sglang8552-dsr1-nvfp4-b200-trtllm',
      'benhamm-dsr1-nvfp4-8xb200-sglang-c1',
    ]) {
      const r = fieldRows.find((x) => x.id === id)!;
      expect(r.inSample, id).toBe(false);
      expect(Math.abs(r.error), id).toBeLessThanOrEqual(0.203);
    }
  });

  // Most field rows are timed too fast: the estimate misses fixed per-step and per-sequence costs.
  // The InferenceX rows alone: 7 rows, scored before the model changed (no constant came from them).
  it('gpt-oss-120b MXFP4 serving on H100 (InferenceX): 7 rows, median <= 10%, p90 <= 34.8%', () => {
    const s = summarizeThroughput(
      'inferencex',
      fieldRows.filter((r) => r.id.startsWith('inferencex-')),
    );
    expect(s.count).toBe(7);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.1);
    // 26% before the graph's kernels were priced at 3.15 µs (engines/graph-kernel.ts): TP 2 at 64 in flight -27.1%;
    // -27.4% since the rows name Marlin, which InferenceX's recipe sets (VLLM_MXFP4_USE_MARLIN=1): its prefill GEMMs
    // run at Marlin's Hopper share of the peak (time/decode.ts hopperPeakShare); -34.4% with the experts read at the
    // shape vLLM pads them to for Marlin, 3072 x 1536 a GPU at TP 2 (engines/vllm/mxfp4-pad.ts).
    // 34.52% with vLLM's sampler passes in the step (time/sampler-step.ts); 34.78% with the logits' all-gather over
    // the two ranks and the embedding's all-reduce (time/vocab-parallel.ts).
    expect(s.p90AbsError).toBeLessThanOrEqual(0.348);
  });

  // A tpot_s row is scored as the speed it implies, from the estimate's per-request TPOT.
  it('a TPOT row: error = measured seconds / the estimate TPOT - 1', () => {
    const r = fieldRows.find((x) => x.id === 'inferencex-gptoss120b-h100-tp8-c64')!;
    expect(r.kind).toBe('serving');
    expect(r.error).toBeCloseTo(r.measured / r.estimated - 1, 10);
    expect(r.estimated).toBeGreaterThan(0.005);
    expect(r.estimated).toBeLessThan(0.01);
  });

  // Batch 1-128 decode at the weight read (hipBLASLt's FP8 rate bounds the steps from about batch 160), so what grows
  // with the batch there is not modelled (docs/time-model.md "Serving field rows: the tail per engine"); batch 256 stays within a point of 128.
  // With the graph's kernels at 3.15 µs (engines/graph-kernel.ts) batch 1-4 read -3.4..-0.9%, batch 8-256 +1.6..+13.5%;
  // with the linears hipBLASLt runs from batch 2 at a fixed cost a call (engines/vllm/rocm-gemm.ts), batch 1-16
  // -5.5..-0.2%, 32-256 +1.3..+13.5% (batch 256 within 1.3 points of 128). With the linears' ridge blend
  // (time/decode-attention.ts ridgeBlend) batch 128 and 256, nearest the ridge, read +8.1% and +11.2%.
  it('the MI300X rows are within 6% at batch 1-16, too fast from 32, and more so as the batch grows to 256', () => {
    const mi = fieldRows
      .filter((r) => r.id.startsWith('oci-mi300x-'))
      .sort((a, b) => a.measured - b.measured);
    expect(mi).toHaveLength(9);
    for (let i = 0; i < mi.length; i++) {
      if (i < 5) expect(Math.abs(mi[i]!.error)).toBeLessThan(0.06);
      else expect(mi[i]!.error).toBeGreaterThan(0);
      if (i > 1) expect(mi[i]!.error).toBeGreaterThanOrEqual(mi[i - 1]!.error);
    }
    expect(mi[8]!.error - mi[7]!.error).toBeLessThan(0.05);
  });

  // The gpt-oss SGLang run's printed throughput carries a TTFT outside the engine (2.7 s mean at 4 in flight): its
  // row is scored by its TPOT, (mean E2E - mean TTFT) / (output - 1), as the speed it implies.
  it('the SGLang gpt-oss run is scored by its TPOT', () => {
    const r = fieldRows.find((x) => x.id === 'sglang-achatbot-gptoss20b-h100-c32')!;
    expect(r.kind).toBe('serving');
    expect(r.measured).toBeCloseTo((11769.33 - 3721.89) / 1023 / 1000, 7);
    expect(r.error).toBeCloseTo(r.measured / r.estimated - 1, 10);
    expect(r.estimated).toBeGreaterThan(0.005);
    expect(r.estimated).toBeLessThan(0.02);
  });
});

// vllm bench serve's closed loop of 100 equal requests at most 32 in flight runs three rounds of 32 and a last one of 4
// (the row's num_prompts); its printed output tokens/s divide by the rounds' wall time, not a steady 32 in flight.
describe('a closed-loop serving row with num_prompts', () => {
  it('is scored as its rounds: 100 x out / (3 rounds of 32 + 1 of 4), below a steady 32 in flight', () => {
    const id = 'a100pcie-qwen25-7b-fp16-tp1-i2048-o512-c32';
    const c = loadThroughputCases('throughput.json').find((x) => x.id === id)!;
    expect(c.num_prompts).toBe(100);
    const flags = c.flags as RawFlags;
    const options = optionsFromFlags(flags);
    const time = timeOptionsFromFlags(flags, options);
    const gpu = findGpu(String(flags.gpu));
    const out = options.seq - Number(flags['prompt-tokens']);
    const round = (batch: number) => {
      const t = estimateTime(caseArch(c), { ...options, batch }, gpu, time);
      return t.ttftSeconds! + (out - 1) * t.tpotSeconds!;
    };
    const r = rows.find((x) => x.id === id)!;
    expect(r.estimated).toBeCloseTo((100 * out) / (3 * round(32) + round(4)), 6);
    expect(r.estimated).toBeLessThan((32 * out) / round(32));
    expect(r.error).toBeCloseTo((r.estimated - r.measured) / r.measured, 10);
  });
});

// Every out-of-sample decode and serving row (earlier and field rows together), per kind and engine: the figures
// reached, so a change that makes one engine worse fails here. The target is median 10%, p90 25% for
// each; the bars above it are today's figures (docs/time-model.md names the rows beyond the target).
const ENGINE_BARS = {
  // With the Qwen3 speed page's four Transformers rows on one H20 (`qwen3speed-*-hf4513-in1`, scored before any change:
  // -53.8..-54.7%, an eager loop whose host issues a layer in 0.61 ms, under half the eager op price), 22 rows, 8.0% /
  // 54.1% (the 18 before them 7.5% / 15.6%).
  // With huggingface/optimum's ten prefill-only rows (`optimum-prefill-*`, Llama-2-13B fp16 on an A100, +2.1..+50.8% scored
  // before any change), 32 rows, 11.4% / 53.8%.
  // With optimum-benchmark's fourteen Llama-2-7B forward rows (`runllamas-fwd-*`, +76.7% at most scored before any
  // change) and the eager forward's elementwise passes priced in a prefill (time/eager-prefill-passes.ts), 46 rows,
  // 11.8% / 40.1%.
  'decode engine:hf-generate': { count: 46, median: 0.118, p90: 0.401 },
  // LitGPT 11.3% / 21.5% -> 7.6% / 19.2% with bitsandbytes' gemv_4bit adding a biased linear's bias in two ops
  // (time/train-work.ts BNB4_GEMV_BIAS_OPS); llama.cpp 9.5% / 24.1% -> 9.5% / 23.3% with the per-slot MoE layer's
  // kernels of December 2023 (engines/llama-cpp/memory.ts perSlotMoeKernels).
  'decode engine:litgpt': { count: 15, median: 0.077, p90: 0.192 },
  // With ggml-org/llama.cpp#19053's two gpt-oss-20b MXFP4 GGUF rows scored (-28.5%, -16.5%), llama.cpp 33 rows 13.8% /
  // 24.1%; 9.5% / 23.3% with the file's non-expert tensors read as Q8_0 (-19.7%, -7.7%; engines/llama-cpp/memory.ts
  // mxfp4Dense).
  // With pavlokhmel/llm_throughput_benchmark's six llama-server gpt-oss-20b rows (scored before any change: +42..+71% on
  // HBM cards, -21.3% on an RTX 4090), 39 rows, 14.6% / 53.9%.
  // With ggml-org/llama.cpp#12183's eight RTX 4090 rows (scored before any change: -28.0..-3.7%), 47 rows, 14.1% / 25.1%
  // (39 rows 13.8% / 23.2% without them); with ggml-org/llama.cpp#17621's four unfused tg128 rows on an RTX 4090 and an
  // RTX 5090 (-31.6..-27.2%), 51 rows, 14.7% / 28.0%; 14.0% / 25.0% with flash attention's one kernel a layer in the
  // unfused graph (engines/llama-cpp/memory.ts unfusedDecodeKernels.flashAttentionFewer); 9.8% / 19.0% with a graph
  // kernel's cost in SM cycles (engines/llama-cpp/memory.ts graphKernelCycles). With the master columns of
  // ggml-org/llama.cpp#16649, ggml-org/llama.cpp#16834 and ggml-org/llama.cpp#15451 (gpt-oss-20b MXFP4 tg128, fused builds of August-October
  // 2025, scored before any change: +19.1..+32.7%), 54 rows, 11.9% / 19.6%.
  // With ggml-org/llama.cpp#26284's three RX 7900 XTX rows (HIP, scored before any change: +8.7%, +7.9%, -0.4%), 57 rows,
  // 9.9% / 19.6%. With the first batched rows, three PRs' microbatch tables (scored before any change: 16.3% / 39.2%),
  // 71 rows, 8.1% / 31.3%; 8.0% / 22.2% with llama.cpp's MUL_MAT_ID at a batch (engines/llama-cpp/memory.ts
  // moeBatchKernel, time/moe-tile.ts): past the p90 target, the gpt-oss-20b rows at 4-16 tokens +22..+30%.
  // With ggml-org/llama.cpp#15802's four Llama 3 8B Q4_0 microbatch rows on an RTX 3090 (-8.9..+86.7%, scored before
  // any change), 75 rows, 8.0% / 18.5%. With ggml-org/llama.cpp#17505's five rows after a 32,768-token depth
  // (-13.4..+42.9%, scored before any change), 80 rows, 8.0% / 21.1%. With a blog's two RTX 3060 12GB Q5_K_M tg512 rows
  // (-14.5%, -13.6%, scored before any change), 82 rows, 8.3% / 21.1%.
  // ggml's own MoE routing kernels by build (engines/llama-cpp/moe-kernels.ts) in place of vLLM's 4: 8.3% / 21.1% ->
  // 8.6% / 22.4% (the unfused ggml-org/llama.cpp#17621 rows 6-16 points slower, the gpt-oss rows of builds before the
  // fusions 3-5 points closer, the December 2023 Mixtral rows 2.6 points faster without a second routing count).
  // With AUGMXNT/speed-benchmarking's llama-server Q4_K_M row on an RTX PRO 6000 (-4.2%) and AUGMXNT/MI300-testing's two
  // llama-bench rows of a ROCm build of October 2024 on one MI300X (+48.7%, +84.7% with -fa 1), all scored before any
  // change, 85 rows, 8.7% / 27.1%. With CambrianTech/continuum#1627's Qwen3-8B Q4_K_M row on one RTX 5090 under WSL2 (-3.3%,
  // scored before any change), 86 rows, 8.6% / 27.1%; with ree2raz/inference-bench's llama-server b5540 rows on an L4
  // (-15.2%, +13.0%, scored before any change), 88 rows, 8.8% / 27.1% (8.3% / 21.1% at today's figures). With llama.cpp's
  // scoreboards (discussion ggml-org/llama.cpp#15013: twelve Llama 2 7B Q4_0 tg128 rows on GeForce and RTX workstation cards,
  // -11.3..+2.9%; discussion ggml-org/llama.cpp#4167: seven F16, Q8_0 and Q4_0 tg128 rows on the M2 Ultra, M4 Max and M3 Max,
  // +7.1..+50.2%; all scored before any change), 107 rows, 7.7% / 21.1%; 7.2% / 18.5% with Metal's dispatch a kernel
  // on Apple GPUs (engines/llama-cpp/memory.ts metalDecode), the Apple seven -8.8..+5.4%. With ggml-org/llama.cpp#19365's
  // Qwen3-Next Q4_K_M tg128 row on an A100 (+211.6%, scored before any change), 108 rows, 7.3% / 19.1%. With
  // ggml-org/llama.cpp#14262's BF16 Llama 8B rows on an RTX 3090 at microbatch 1 and 2 (-14.8%, +0.5%, scored before any
  // change), 110 rows, 7.3% / 18.5%. The 25 microbatch rows timed without the output head, which llama-bench's prompt
  // test computes for the batch's last token only (harness llama-bench-pp: the dense 16-bit rows 6-17 points closer, the
  // gpt-oss-20b rows at 1-16 tokens +11..+23%, as its tg rows read): 7.1% / 20.5%. With ggml-org/llama.cpp#16894's ten
  // llama-batched-bench rows on Metal (M2 Ultra inferred; gpt-oss-20b MXFP4 and Qwen2.5 7B Q8_0 at 1, 2 and 4 sequences:
  // -6.9..+50.7%, scored before any change), 120 rows, 7.2% / 22.0%. With AlexsJones/llmfit's eleven RTX 5070 llama-server
  // rows (-6.5..+6.8%, scored before any change), 131 rows, 6.8% / 20.5%. With geerlingguy/ai-benchmarks' eight
  // Vulkan tg128 rows on an RTX 4090, RTX 3060 and RTX A4000 (-8.8..+28.2%) and ggml-org/llama.cpp#2917's and ggml-org/llama.cpp#2891's
  // five Metal rows of 2023 on the M2 Ultra (+3.3..+18.2%), all scored before any change, 144 rows, 6.8% / 20.5%. With
  // ggml-org/llama.cpp#8215's eight IQ3_XXS microbatch rows on an RTX 3090 and 4090 (-20.7..+54.7%) and Unsloth's
  // DeepSeek-R1 UD-IQ1_S row on 2x H100 (+440.4%), scored before any change, 153 rows, 7.0% / 21.3%. With
  // willettAMT/perf-analysis-modeling-project's L40S tg128 (-7.0%) and calebcoffie.com's two Gemma 3 4B rows on an RTX 3090
  // (+20.3%, +18.4%), scored before any change, 156 rows, 7.0% / 21.3%. With ggml-org/llama.cpp#20835's RTX 5090 tg128
  // (+57.8%, scored before any change), 157 rows, 7.0% / 22.0%. With ggml-org/llama.cpp#15525's seven DeepSeek-V2-Lite
  // Q4_0 microbatch rows on an RTX 3090 (+13.2..+123.4%) and ggml-org/llama.cpp#15631's seven Qwen3-30B-A3B Q4_0
  // microbatch rows on an RTX 4090 (-16.9..+57.4%), scored before any change, 171 rows, 7.3% / 28.2%.
  'decode engine:llama.cpp': { count: 171, median: 0.074, p90: 0.282 },
  // 44 rows of the earlier sources: 10.4% / 29.1% before FlashInfer's CUTLASS NVFP4 MoE call (engines/moe-call.ts),
  // 10.4% / 26.7% with it; with the four rows of AMD's MI300X page and tenstorrent/tt-inference-server#356 (scored
  // before any change, +17..+147%), 48 rows, 11.7% / 43.9%; 10.4% / 26.7% with the attention layers' eager calls
  // under piecewise graphs (time/piecewise.ts); with vllm-project/vllm#25444's four rows (+26..+91%), 52 rows, 11.7% / 32.1%;
  // 11.3% / 29.1% with the block-scaled FP8 linears timed by their kernels (time/block-fp8.ts); 8.0% / 26.6% with
  // the FP8 linears on ROCm timed as hipBLASLt's (time/decode.ts KERNELS.cutlass.rocm, time/hardware.ts); 6.6% /
  // 25.4% later, 6.6% / 23.0% with RCCL's measured all-reduce on MI300X (catalog interconnect.allReduce); 5.9% /
  // 21.2% with the TP all-reduces of prefill timed (time/decode.ts prefillTime). With the six vLLM 0.19.0 rows on A100
  // 80GB PCIe (-43..+12% as first read, -10..+12% read again with the harness's prefix cache and rounds), 58 rows,
  // 6.0% / 21.2%.
  // With GPUStack's seven vLLM 0.11.0 rows (Qwen3-8B TPOT +3.5..+7.2%, the gpt-oss-20b bursts +117.0% and +58.1%, the
  // Qwen3-32B burst +48.7% with the KV pool's queue), 65 rows, 6.2% / 23.0%; with vllm-project/vllm#43232's B200 row
  // (+54.6%), 66 rows, 6.5% / 25.8%; with the A100 40GB blog row (+7.3%), 67 rows, 6.9% / 25.8%; 6.2% / 25.6% with a
  // neighbour's prefill sharing the decode step's weight read (time/decode.ts servingTime). With the graph's kernels at
  // 3.15 µs beyond their bytes (engines/graph-kernel.ts) as well, 6.0% / 27.0%: the p90 row is InferenceX's gpt-oss at
  // TP 2, already slow (-25.8% -> -27.0%).
  // With SemiAnalysisAI/InferenceX#1061's four gpt-oss-120b rows on one MI300X (scored before any change: +67.7..+118.8%),
  // 71 rows, 6.5% / 48.1%; 6.5% / 22.0% with the MXFP4 experts on gfx942 bound by the CUs' work (time/decode.ts
  // KERNELS.marlin.rocmMoeIssue: -17.8..+18.9%).
  // With sariekr/gpu_conc's sixteen gpt-oss-20b rows (vLLM of August 2025 on an H100 PCIe, H200, B200 and MI300X, 1-16
  // in flight; scored before any change: -16.3..+176.8%), 87 rows, 6.9% / 61.2%: past the target (docs/time-model.md
  // "gpt-oss serving of August 2025 and llama.cpp's PR tables"); with AMD's October 2025 MI300X rows (-10.7..+3.2%), 90
  // rows, 6.9% / 54.5%.
  // With DeutscheKI/llm-performance-tests' eight QwQ-32B AWQ rows (-18.5..+12.7%) and vllm-project/vllm#49723's BF16 and
  // NVFP4 rows on B200 (-14.2%, -8.3%), all scored before any change, 100 rows, 7.2% / 54.1%.
  // With dennislee22/vLLM-benchmarking's six Qwen2-7B rows on one A100 (+12.7..+55.5%), vllm-project/recipes#431's
  // Qwen3Guard-8B on one MI300X (+34.5%) and llm-d/llm-d#1233 and llm-d/llm-d#139's six Llama-3.3-70B FP8 rows over TP 8
  // on MI355X (+46.3..+133.5%), all scored before any change and too fast, 113 rows, 8.7% / 61.2%. With vLLM's decode
  // linears on ROCm that its skinny kernels do not take timed as hipBLASLt calls (engines/vllm/rocm-gemm.ts: the AMD
  // rows at batch 2-4 and OCI batch 2-8 slower, the MI355X, MI300X Qwen3 and gpt-oss-20b rows nearer), 9.7% / 54.5%.
  // With the decode step's attention after its GEMMs and FA2's KV rate on Ampere (time/decode-attention.ts: the A100
  // bursts of 200 and 500 +26.1%, +34.6%; the median row, a100pcie tp1 o512 c32, +9.8% -> +10.2%), 9.8% / 54.1%.
  // With the batch-1 and burst rows of 2026 (calibration/README.md "Batch-1 and burst rows of 2026": 19 rows, scored
  // before any change: -2.2..+650.5%, 64.5% / 252.8%), 132 rows, 10.9% / 71.5%. With the block-scaled FP8 GEMMs at vLLM's
  // CUTLASS rate on Hopper and a W8A8 prefill's attention at the 16-bit rate (engines/vllm/block-fp8.ts), with the API
  // server's bound and DeepSeek's decode kernels in: 9.95% / 65.4% -> 9.2% / 55.1%. With llm-d/llm-d#1233's 1k/256 row
  // at 256 in flight carried (its lengths not the heading's), 131 rows, 9.1% / 52.8%.
  // With vllm-project/vllm#25135's Llama 3.1 405B MXFP4 row on one MI355X (-15.8%, scored before any change), 132 rows,
  // 9.0% / 52.0%. With tenstorrent/tt-inference-server#394's five Qwen3-4B rows on an RTX 4090 (-4.5..-1.2%) and
  // vllm-project/vllm#20469's eager Qwen3-14B-AWQ row on an A100 (+101.9%), all scored before any change, 138 rows,
  // 8.7% / 52.0%. With the mainstream rows (tenstorrent/tt-inference-server#125, violet-quartz/vllm-serving-experiments,
  // noonghunna/club-3090#697, vllm-project/vllm#17788, vllm-project/vllm#29217: 20 rows, -15.7..+65.0%, scored before any
  // change), 158 rows, 8.7% / 51.0%. With the one-card rows (the Qwen2.5 speed benchmark's twelve vLLM 0.6.3 batch-1 rows
  // on an A100, -24.4..+1.4%, and lukaLLM/vLLM_vs_SGLang_benchmarks' vLLM v0.10.2 FP8 MoE burst on an L40S, +544.2%, all
  // scored before any change), 171 rows, 8.8% / 47.7%. With the L40S bursts' pools as their runs sized them (the
  // sampler profiled at max_num_seqs, lukaLLM's --gpu-memory-utilization 0.8: vllm-project/vllm#29217 -15.1% -> +51.7%,
  // lukaLLM +544.2% -> +447.5%), 8.8% / 51.0%.
  // With the workstation-Blackwell, H100 NVL and MI300X rows (AUGMXNT/speed-benchmarking's vLLM W4A16 and FP8 rows on an
  // RTX PRO 6000, -26.8..+37.8%; xinyuwei-david/david-share's gpt-oss closed loops of 256 on an H100 NVL, +134.9%, +31.1%,
  // and Qwen3-235B-A22B at one request on 8x MI300X under vLLM 0.8.3's V0 engine, +51.3%; all scored before any change),
  // 180 rows, 9.4% / 51.0%.
  // With the Poisson-rate, closed-loop and burst rows of four sources new to the set (crusoecloud/crusoe-cookbook's L40S
  // sweeps, -27.8..+3.7%; ovg-project/kvcached's Qwen3-0.6B on an H100, +45.9%, +124.1%; a blog's Mistral-7B closed loops
  // on an RTX 4090, -3.3..+20.4%; databasemart.com's RTX 4090 bursts of 300, +25.4..+132.2% with the serial scheduler of
  // early 2025: all scored before any change), 204 rows, 10.3% / 51.7%.
  // With ree2raz/inference-bench's eleven vLLM rows (Qwen2.5-7B bf16 and AWQ-Marlin, Qwen3-30B-A3B bf16 and AWQ-Marlin on
  // A100s under 0.20.1, Qwen2.5-7B on an L4 under 0.8.5: -38.2..+1.7%) and vllm-project/vllm#28992's DeepSeek-V3.1 FP8 row
  // on 8x H200 (-15.8%), all scored before any change, 216 rows, 10.3% / 51.1%; with the source's two Qwen3-8B reasoning
  // rows on the L4 (-12.9%, +6.9%), 218 rows, 10.3% / 51.1%; with vllm-project/vllm#23151's Qwen3-30B-A3B bf16 row on an
  // H100 (-12.0%, scored before any change), 219 rows, 10.32% / 51.1%.
  // With staru09/llm_infra_bench's six eager A100 rows (+21.2..+88.2%) and Cloud-Linuxer/qwen-8b's five RTX 5090 rows
  // (-0.7..+19.7%), all scored before any change, 230 rows, 10.4% / 51.3%.
  // With vllm-project/vllm#27323's GLM-4.6 row on 8x MI300X (+40.9%), vllm-project/vllm#25398's Qwen3-30B-A3B-FP8 row on two
  // H100 PCIe (-7.7%), SemiAnalysisAI/InferenceX#832's two MiniMax-M2.5 FP8 rows on H100 (+40.7%, +66.2%) and
  // NVIDIA/Model-Optimizer#2015's bf16 Mistral 24B row on a B200 (-47.3%), all scored before any change, 235 rows, 10.8% / 50.2%.
  // With tenstorrent/tt-inference-server#521's six gemma-3-4b-it rows on an A100 (+21.0..+54.2%), vllm-project/recipes#165's
  // Nemotron-3-Nano FP8 row on an H200 (+35.6%) and vllm-project/vllm#27402's LoRA burst on an H20 (+48.9%), all scored
  // before any change: 243 rows, 10.8% / 48.1% -> 11.5% / 48.9%.
  // With three vllm-project/recipes pages (MI355X Llama 3.3 70B FP8 -27.0%, 8x MI300X DeepSeek-R1 +33.7%, 4x B200
  // Qwen3-Next +45.2%) and vllm-project/vllm#17530 / vllm-project/vllm#17535's MI300X Qwen3 FP8 MoE bursts (+35.2..+167.6%), all scored
  // before any change: 252 rows, 11.9% / 51.8%. With vllm-project/vllm#28200's default-tile MiniMax-M2 FP8 run over TP 4 on
  // H100 (+30.6%, scored before any change), 253 rows, 12.0% / 51.1%. With vllm-project/vllm#50040's Nemotron-3-Nano FP8
  // run on H200 (-1.6%) and vllm-project/vllm#48757's Qwen3-32B-FP8 base arm over TP 8 on H100 (+17.3%), both scored
  // before any change, 255 rows, 12.0% / 51.1%. With GPUStack's quantization study (17 rows), its A100 pages (14 vLLM
  // rows), vllm-project/vllm#18725 and vllm-project/vllm#23696, all scored before any change: 288 rows, 12.1% / 53.6%;
  // 11.8% / 47.9% with Marlin's large-M GEMMs on an A100 at KernelFamily.sm80PeakShare (vllm-project/vllm#2497).
  // With robertgshaw2-redhat/benchmark-single-token's Qwen2.5-0.5B burst of 25,000 one-token prompts on an H100 (vLLM 0.7.3
  // V1, +0.4%, scored before any change): 289 rows. With vllm-project/vllm#22331's gpt-oss-120b on one A100 (+48.8%,
  // scored before any change): 290 rows. With vllm-project/vllm#6677's two L40S FP8 rows (-26.0%,
  // -21.0%, scored before any change), 292 rows; the same with the Triton fused MoE's prefill share on Ada (the lukallm
  // vLLM burst +259.7% -> +246.2%). With SemiAnalysisAI/InferenceX#1092's two gpt-oss-120b MI300X TP 8 rows (-53.0%,
  // -50.2%, scored before any change): 294 rows. With Livinfly/MLsys-Learning-Record-2's five vLLM 0.9.1 V0 rows on an A100
  // PCIe 40GB (-10.4..+11.8%) and the Tim Wang blog's two H100 waves of 5 (V0 -27.0%, V1 +0.1%), scored before any
  // change: 301 rows, 11.8% / 48.0%. With openinfer-project/openinfer's six RTX 5090 rows (-8.0..+2.2%), HamzahTariq11's
  // eight T4 FP16/AWQ closed loops (-33.5..+27.3%) and LambdaLabsML/vllm-benchmark's three vLLM 0.5.4 H100 bursts
  // (-16.0..+31.8%), scored before any change: 318 rows, 11.6% / 47.9%; 11.3% / 47.9% with vLLM's awq_gemm kept to 255
  // tokens (the gpsquant 4090 and A100 AWQ bursts -23.3% -> -1.0%, -21.9% -> -5.4%, the H100 one +59.4% -> +86.7%).
  // With Michaelvll/llm-ie-benchmarks' eight vLLM 0.8.4 DeepSeek-R1 H200 runs (+16.6..+66.4%) and yobitelcomm/bench's three
  // H100 closed loops (-1.2..+47.5%), scored before any change: 329 rows, 11.5% / 47.9%. With GPUStack's twelve gpt-oss-120b
  // rows on an H100 and an A100 (-8.1..+54.6%) and ai.wmx.dev's six L4 closed loops (-9.4..-5.9%), scored before any change:
  // 347 rows, 11.2% / 47.5%. With LottoLottoLotto's six RTX 3090 rows (-0.1..+30.3%), LLM-Inference-Bench's twelve
  // benchmark_latency batches on H100 and MI300X (-26.7..+185.2%) and vllm-project/vllm#30326's gpt-oss-120b H200 loop
  // (+11.3%), scored before any change: 366 rows, 11.3% / 47.9%. With dstackai/benchmarks' four Llama 3.1 405B
  // single-request rows on 8x MI300X (V0, 16K-128K prompts: +109.7..+162.1%, scored before any change): 370 rows,
  // 11.4% / 49.2%; 11.4% / 47.9% with V0's decode steps past max_seq_len_to_capture run eagerly (+34.9..+81.3%). With
  // vllm-project/vllm#23695's GLM-4.5-Air FP8 row on 2x B200 (+83.1%) and vllm-project/recipes#443's
  // Ministral-3-8B-Reasoning-2512 closed loop on one MI300X (+41.1%), each scored before any change: 374 rows. With
  // the GPUStack lab's GLM-4.6 burst of 500 on 8x H200 (+25.3%, scored before any change): 375 rows. With the Vultr
  // Inference Cookbook's six MI325X closed loops (Llama-3.1-405B FP8 and Qwen3-VL-235B BF16, -26.9..+49.9%, scored before
  // any change): 381 rows, 11.6% / 48.8%; 11.6% / 48.3% with V0's generic ROCm decode kernel priced by release. With six
  // TP + expert-parallel rows (vllm-project/recipes GLM-V.md and DeepSeek-V3.md, the InferenceX blog's MiniMax-M2.5
  // tables: -24.9..+34.9%, scored before any change): 387 rows. With aerlabsAI/nano-vllm's four RTX 3060 rows
  // (+3.3..+21.6%) and hackertron/inference-lab's eager RTX 3060 Ti row (+33.7%), scored before any change: 392 rows. With GPUStack's four GLM-4.5-Air bursts over TP 4 (+62.3..+94.6%, scored
  // before any change): 396 rows. With vllm-project/recipes#476's Ministral-3-3B FP8 closed loop on one MI300X (+50.1%)
  // and SemiAnalysisAI/InferenceX#1276's three MiniMax-M2.5 FP8 rows on 2x MI355X (+6.8..+24.7%), scored before any
  // change: 400 rows, 12.5% / 50.1%. With AccelMark's three verified vLLM 0.7.3 rows on one H100 (-57.0..-22.4%, scored
  // before any change): 403 rows. With systalyze/vllm-benchmarks' four capacity bursts (-29.9..+17.9%),
  // vllm-project/recipes#112's four MiniMax-M2 rows (-2.0..+106.9%) and vllm-project/vllm#40838's two gpt-oss-120b loops
  // (+31.2%, +58.3%), scored before any change, and the GPUStack lab's six Qwen3-235B-A22B bursts on A100
  // (+16.6..+44.0%, scored before any change): 419 rows, 13.1% / 51.0%. With GPUStack's three GLM-4.6 FP8 ShareGPT
  // bursts over TP 8 on H100 and A100 (+51.6..+215.3%, scored before any change): 422 rows, 13.3% / 52.9%. With the
  // vLLM blog's five gpt-oss-20b rows of its FP8 KV-cache post (H100 and B200, +3.5..+32.9%, scored before any
  // change): 427 rows. With vllm-project/vllm#19455's Qwen3-30B-A3B-FP8 B200 runs without and with the tuned fused-MoE
  // file (+86.6%, +39.7%, scored before any change): 429 rows, 13.6% / 53.1%. With Isambard-AI's gpt-oss-120b TP 4
  // GH200 loop at 512 in flight (+43.9%, scored before any change): 430 rows. With GPUStack's GLM-4.x H200 burst (+48.7%
  // scored before any change): 431 rows. With the GPUStack lab's three further gpt-oss-20b H100 bursts (+34.7..+63.1%,
  // scored before any change): 434 rows. With vllm-project/vllm#17530 and vllm-project/vllm#17535's tuned-config columns
  // (five rows, scored before any change): 441 rows. With AccelMark's seven Qwen2.5-0.5B-Instruct rows on H100 and A100
  // (vLLM 0.7.3 and 0.20.1, -44.9..+25.4%, scored before any change): 448 rows. With vllm-project/vllm#13747's two
  // DeepSeek-R1 benchmark_throughput rows on eight H200 (+117.9%, +99.8%, scored before any change): 450 rows. With
  // LambdaLabsML/vllm-benchmark's 80- and 320-prompt vLLM 0.5.4 bursts (-5.8%, +3.3%, scored before any change): 452 rows. With
  // Millstone AI's gpt-oss-20b single request on an RTX PRO 6000 Blackwell (+7.4%, scored before any change): 453 rows. With the
  // seven batch-1 rows of joshua8.ai (RTX 5090) and enginrect/llmso (RTX 4090, L4), -24.3..+5.3%, scored before any
  // change: 460 rows. With that log's two block-FP8 Qwen3-8B rows on the RTX 4090 (+109.8%, +153.3%, scored before any
  // change, "Known misses"): 462 rows. With vllm-project/vllm#48035's Qwen3-4B FP16 and block-FP8 rows on an RTX 4090
  // (-4.1%, +61.3%, scored before any change): 464 rows. With adjbench's seven Qwen3-8B rows on one H100 under vLLM
  // 0.18.0 (adithyaJRunpod/vllm_bench: -16.4..+2.6%, scored before any change): 471 rows, 13.4% / 54.1%.
  // With AMD's rocm/vllm-dev latency tables on 8x MI300X (16 rows, -23.8..+31.2%, scored before any change): 487 rows.
  // With vllm-project/vllm#16300's seven QwQ-32B rows over TP 2-8 on A100 80GB (+1.8..+47.1%, scored before any change)
  // and the vocabulary-parallel layer priced: 494 rows.
  // With the InferenceX blog's six gpt-oss-120b rows at 64 in flight (H100, MI300X, MI325X; -16.9..-42.8%, scored before
  // any change): 500 rows, 13.8% / 51.6%. With kubesimplify's eight Qwen3-32B rows over TP 2 and PP 2 on two RTX PRO 6000
  // under vLLM 0.27.1 (-43.3..+6.6%, scored before any change) and closed loops of equal requests timed as their rounds
  // run: 508 rows, 13.5% / 53.2%.
  'serving engine:vllm': { count: 508, median: 0.135, p90: 0.532 },
  // SGLang's gpt-oss run scored by its TPOT (-8.6%, was +34.4% on its printed throughput); v0.2's batch-128 decode
  // step is still +46%. The DeepSeek-R1 NVFP4 row is in sample. With SemiAnalysisAI/InferenceX#870's DeepSeek-R1 FP8 rows
  // (+16..+23%), 7 rows, 19.6% / 46.0%; 7.3% / 46.0% with the block-scaled FP8 linears timed by DeepGEMM's figures;
  // 8.0% / 46.0% with the TP all-reduces of prefill timed (the DeepSeek-R1 c8 and c16 rows 0.5 and 0.8 point slower).
  // With the SGLang cookbook's and the LMSYS gpt-oss blog's 20 rows (SGLang 0.5.1-0.5.6, scored before any change:
  // 33.3% / 54.4% alone), 27 rows, 24.3% / 54.4%: past the target, the mechanism not found (docs/time-model.md);
  // 27.4% / 55.2% with a request's own prefill left out of its TPOT. With GPUStack's Qwen3-8B row on one H100 (+7.5%,
  // scored before any change), 28 rows, 25.3% / 55.2%; with AccelMark's four SGLang 0.5.6 rows on A100-SXM4-40GB
  // (+3.2..+28.7%), 32 rows, 19.9% / 51.0%; 19.6% / 46.0% with its prefills launched eagerly (time/decode.ts
  // eagerPrefillHostSeconds); 18.3% / 45.6% with the graph's kernels at 3.15 µs beyond their bytes as well
  // (engines/graph-kernel.ts).
  // With sgl-project/sglang#28224's two Llama 3.3 70B NVFP4 rows on 4x GB200 (-54.9%, -34.9% before any change; -6.3%,
  // +35.2% with an NVL72 rack read as NVLink-switched, time/hardware.ts nvSwitched), 34 rows; 12.2% / 42.6% at today's
  // figures (the SGLang rows' earlier changes).
  // With the SGLang rows of 2026 (a gist's SGLang v0.5.8.post1 sweep on 8x B200 at one request and GPUStack's Qwen3-14B-FP8
  // bursts on one H100 with v0.5.5.post1: 7 rows, -20.3..+141.1%, scored before any change), 41 rows, 13.4% / 79.9%.
  // With the SGLang cookbook's DeepSeek rows (R1 FP8 on 8x B200, V3 FP8 on 8x MI300X with MTP, EP and DP attention: 11 rows,
  // +34.8..+701%, scored before any change), 52 rows, 18.5% / 83.7%.
  // With ROCm/aiter#1930's four SGLang DeepSeek-R1 FP8 rows on 8x MI300X (-1.7..+15.3%, scored before any change), 56
  // rows, 15.3% / 82.0%; 15.3% / 74.9% at today's figures. With lukaLLM/vLLM_vs_SGLang_benchmarks' SGLang 0.5.8 FP8 MoE
  // burst on one L40S (+1051.9%, scored before any change), 57 rows, 15.3% / 82.0%.
  // With AUGMXNT/speed-benchmarking's six SGLang rows of Llama-3.1-8B W4A16 and FP8 on an RTX PRO 6000 (-28.3..+3.7%,
  // scored before any change), 63 rows, 15.2% / 65.2%.
  // With ovg-project/kvcached's two SGLang v0.4.6.post2 rows of Llama-3.2-3B on an A100 80GB (+16.2%, +7.2%, scored
  // before any change), 65 rows, 15.2% / 65.2%.
  // With ree2raz/inference-bench's four SGLang rows of Qwen2.5-7B without CUDA graphs (an A100 40GB and an L4: -54.2..+33.2%,
  // scored before any change), 69 rows, 12.3% / 65.2%; with its three SGLang AWQ-Marlin rows on the A100 (-21.6..+46.9%),
  // 72 rows, 12.4% / 61.3%.
  // With the DeepSeek-R1 NVFP4 rows at SGLang's SM100 default TensorRT-LLM-gen MoE (sgl-project/sglang#8552's over TP 4,
  // +11.9%; the BenHamm gist's over TP 8, -19.6%) and sgl-project/sglang#8552's CUTLASS row carried, 74 rows, 10.5% / 54.2%.
  // With sgl-project/sglang#32668's nine gpt-oss-20b Marlin rows on an SM120 card (+0.9..+26.4%, scored before any
  // change), 83 rows, 10.1% / 46.9%.
  // With the Before runs of sgl-project/sglang#10404 and sgl-project/sglang#10467 (Qwen3-Next-80B-A3B on H200 and H20: +28.0..+57.1%), the
  // default-tile run of sgl-project/sglang#7631 (DeepSeek-V3-0324 FP8 on 8x H20: +58.4%), sgl-project/sglang#12343's
  // Qwen3-30B-A3B-FP8 row on H200 (+14.5%) and sgl-project/sglang#31044's four MiniMax-M2.7 rows on MI300X (+42.6..+108.0%),
  // all scored before any change, 94 rows, 12.6% / 65.2%.
  // With sgl-project/sglang#9162's two DeepSeek-R1 NVFP4 rows on B200 (+11.5%, +21.6%) and sgl-project/sglang#10816's four
  // Qwen3-Next TEP4 rows on H200 and H20 (+16.7..+31.3%), scored before any change: 100 rows, 11.9% / 64.1% -> 13.8% / 58.4%.
  // With sgl-project/sglang#6885's default-tile run (DeepSeek-V3-0324 FP8 on 8x H20, a build of early June 2025: +71.2%, scored
  // before any change), 101 rows, 11.7% / 58.7%. MiniMax-M2's block-scaled FP8 config: 11.4% / 52.6%. With
  // sgl-project/sglang#30812's four GLM-5.1 FP8 rows on 8 MI300X (+30.8..+131.7%, scored before any change), 105 rows,
  // 11.4% / 65.4%.
  // With the SGLang cookbook's six LFM2.5-1.2B rows on H100, H200 and B200 (-45.6..+83.2%) and sgl-project/sglang#32994's two
  // W8A8 FP8 one_batch rows (+28.5%, +28.9%), all scored before any change, 113 rows, 13.3% / 68.2%.
  // With GPUStack's two SGLang 0.5.5.post1 ShareGPT bursts on an A100 (Qwen3-14B +4.9%, Qwen3-32B +7.4%), scored before
  // any change: 115 rows. With robertgshaw2-redhat/benchmark-single-token's SGLang 0.4.3.post2 burst of the same shape
  // (+370.1%, scored before any change): 116 rows. With sgl-project/sglang#9359's gpt-oss-120b on 4x B200 (DP attention,
  // EP 4; -9.7%, scored before any change): 117 rows. With sgl-project/sglang#8852's Qwen3-Coder-480B FP8 row on 8x H200
  // (+67.9%) and sgl-project/sglang#7445's Qwen3-235B-A22B-FP8 row on 4x H100 (+77.1%), scored before any change, and the
  // routed experts of block-FP8 checkpoints on Hopper at the Triton fused MoE's prefill share: 119 rows. With
  // datacrunch-research/h200-benchmarks' three Poisson-rate rows (Llama-3.3-70B bf16 over TP 4 on H200: +2.4%, +6.3%,
  // +23.2%, scored before any change): 122 rows. With Livinfly/MLsys-Learning-Record-2's six SGLang 0.4.7.post1 rows on an
  // A100 PCIe 40GB (-3.8..+25.2%), the Tim Wang blog's H100 wave of 5 (+2.2%) and sgl-project/sglang benchmark_vllm_060's
  // four SGLang v0.3.0 ShareGPT rows (-2.2..+8.1%), scored before any change: 133 rows, 9.5% / 59.4%; the
  // sglang8852 row unscored (a TP 8 layout SGLang 0.4.10 refuses for its block-FP8 experts): 132.
  // With Michaelvll/llm-ie-benchmarks' eight SGLang 0.4.5.post3 DeepSeek-R1 H200 runs (+14.6..+37.5%, scored before any
  // change): 140 rows, 10.1% / 53.8%. With the Qwen3 speed benchmark's fifteen batch-1 rows on an H20 (SGLang
  // 0.4.6.post1: +48.0..+712.2%, scored before any change): 155 rows, 11.7% / 83.2%. With its two Qwen3-235B-A22B rows
  // over TP 4 (+48.8%, +651.1%, scored before any change): 157 rows, 11.4% / 86.2%; with SGLang 0.4.6's per-expert
  // Marlin MoE launches (time/per-expert-moe.ts): 11.4% / 81.6%. With sgl-project/sglang#9770's GLM-4.5-Air FP8 row on
  // 4x B200 (+68.8%, scored before any change): 158 rows. With sgl-project/sglang#1060's two eager H100
  // bursts (+157.9%, +32.2%, scored before any change): 160 rows. With AMD-AGI/Magpie#88's two Qwen3-Coder-480B rows on
  // 4x MI355X (FP8 -21.5%, MXFP4 -7.7%, scored before any change): 162 rows. With GPUStack's two GLM-4.5-Air ShareGPT
  // bursts over TP 4 (+46.6%, +34.4%, scored before any change): 164 rows. With sgl-project/sglang#1138's and sgl-project/sglang#1281's
  // four eager MLA bursts (+183.6..+237.5%, scored before any change): 168 rows; with the 0.2/0.3.0 line's eager MLA and
  // MoE layer ops (engines/sglang/memory.ts eagerMlaMoeLayerOps): 86.2% (the test's p90). With sgl-project/sgl-cookbook's
  // MiniMax-M2.5 row on 8x H100 (+0.4%, scored before any change): 169 rows. With GPUStack's two GLM-4.6
  // FP8 ShareGPT bursts over TP 8 on eight H100s (+158.5%, +151.8%, scored before any change): 171 rows. With GPUStack's
  // three GLM-5.2 FP8 runs on eight H200s (+20.0%, +72.4%, -12.1%, scored before any change): 174 rows. With
  // sgl-project/sglang#4918's two DeepSeek-V3 ShareGPT runs at 4 and 8 requests a second on eight H200s (+74.3%,
  // +163.6%, scored before any change): 176 rows, 13.2% / 86.9%; with each lone prefill step priced as a forward of its
  // own (time/length-spread.ts prefillStepPricer): 12.0% / 86.9%. With sgl-project/sglang#6111's two DeepSeek-V3
  // B200 bench_one_batch_server runs (+224.1%, +82.3%, scored before any change): 178 rows.
  // With GPUStack's GLM-4.x H200 burst (+21.2%, scored before any change): 179 rows. With sgl-project/sglang#4858's
  // three DeepSeek-V3-0324 DP-attention runs on eight H200s (first, second and fifth run after an emptied DeepGEMM
  // cache: +3516.7%, +461.0%, +281.1%, scored before any change; the two cold-cache runs then carried unscored): 180 rows.
  // With GPUStack's three GLM-4.6-FP8 runs on eight H200s under SGLang v0.5.3 (TP 8 +41.0%, TP 4 +18.3%, TP 4 with
  // EP 4 +25.7%, scored before any change): 183 rows. With sgl-project/sglang#3237's two DeepSeek-V3 MI300X
  // bench_one_batch rows (+75.3%, +63.0%, scored before any change): 185 rows; with SGLang's MLA backend by release
  // (engines/sglang/mla-backend.ts) they read +43.0%, +33.0%. With GPUStack's two further GLM-5.2 DP-attention runs on
  // eight H200s (--mem-fraction-static 0.8 +14.2%, --ep-size 8 +84.8%, scored before any change): 187 rows.
  // With the After column of sgl-project/sglang#10404 (the PR's tuned H200 Qwen3-Next files in place: -17.5%, -16.5%,
  // -13.5%, scored before the tuned BLOCK_SIZE_N entered the fused_moe grid): 190 rows. With sgl-project/sglang#31044's
  // TP 8 / EP 8 MiniMax-M2.7 row on eight MI300X (+287.5%, scored before any change): 191 rows. With the LMSYS
  // deterministic-inference post's nine Normal-mode Qwen3-8B H200 bursts (+0.7% to +35.7%, scored before any change):
  // 200 rows. With SemiAnalysisAI/InferenceX#870's concurrency-4 rows (+114.0%, +2.3%, +0.8%, scored before any
  // change): 203 rows; SGLang's Triton block-FP8 linears on SM100 before 0.4.8 (engines/sglang/block-fp8.ts
  // sm100Triton) move the sgl-project/sglang#6111 rows +191.1% -> +107.4% and +72.6% -> +43.6%. With
  // ai-bot-pro/achatbot#183's gpt-oss-20b H100 run at 4 in flight (+15.0%, scored before any change): 204 rows.
  // With the sgl-cookbook's GLM-4.6 and Qwen3-Next B200 rows (sglcookbook-glm46-*, sglcookbook-qwen3next-*): 204 -> 215.
  // With the sgl-cookbook's two DeepSeek-V3.1-Terminus MI300X rows (+22.5%, +26.4%, scored before any change;
  // sglcookbook-dsv31-*): 217 rows, 15.6% / 86.7%.
  'serving engine:sglang': { count: 217, median: 0.156, p90: 0.867 },
} as const;

describe('decode and serving accuracy per engine (out of sample)', () => {
  const outOfSample = rows.filter((r) => !r.inSample);
  for (const [group, bar] of Object.entries(ENGINE_BARS))
    it(`${group}: ${bar.count} rows, median <= ${bar.median * 100}%, p90 <= ${bar.p90 * 100}%`, () => {
      const [kind, engine] = group.replace('engine:', '').split(' ');
      const s = summarizeThroughput(
        group,
        outOfSample.filter((r) => r.kind === kind && r.engine === engine),
      );
      expect(s.count).toBe(bar.count);
      expect(s.medianAbsError).toBeLessThanOrEqual(bar.median);
      expect(s.p90AbsError).toBeLessThanOrEqual(bar.p90);
    });

  // 10.4% / 26.7%; 7.0% / 25.7% with the FP8 linears on ROCm timed as hipBLASLt's; 6.6% / 22.8% with RCCL's measured
  // all-reduce on MI300X.
  it('serving engine:vllm, rows of the earlier sources (out of sample): 44 rows, median <= 7%, p90 <= 22.8%', () => {
    const later =
      /^(iognet-|amd-rocm-|tt356-|vllm25444-|a100pcie-|gpustack-|vllm43232-|jmusgrave-|inferencex1061-|gpuconc-|amdrocm1025-|dk-qwq32b-|vllm49723-|dennislee-|recipes431-|llmd1233-|llmd139-|emmy-|benhamm-|gpslab-|vllm25135-|tt394-|vllm20469-|tt125-|vsexp-|club3090-|vllm17788-|vllm29217-|qwen25sb-|lukallm-|davidshare-|speedbench-|kvcached-|mushfiq-|dbmart-|crusoe-|infbench-|vllm28992-|vllm23151-|llminfra-|qwen8b5090-|vllm27323-|vllm25398-|inferencex832-|modelopt2015-|tt521-|recipes165-|vllm27402-|recipesl33rocm-|recipesdsamd-|recipesq3next-|vllm17530-|vllm17535-|vllm28200-|vllm50040-|vllm48757-|gpsquant-|gpsa100-|vllm18725-|vllm23696-|rgshaw-|vllm22331-|sglang9359-|vllm6677-|inferencex1092-|livinfly-|timwang-|openinfer-|hamzah-|lambdavllm-|llmie-|yobitel-|gpsoss120-|gpsglmair-|wmx-|lotto3090-|llminfbench-|vllm30326-|dstackamd-|vllm23695-|recipes443-|vultrcookbook-|recipesglmv-|recipesdsv3-|ixblog-|nanovllm-|inferencelab-|recipes476-|inferencex1276-|amverified-|systalyze-|recipes112-|vllm40838-|gpsq235a100-|gpsglm46-|vllmblogfp8kv-|vllm19455-|gpsglm52-|gpsglm4x-|sglang4918-|sglang6111-|sglang4858-|isambard-|sglang3237-|ocitput-|vllm13747-|millstone-|joshua8-|llmso-|vllm48035-|adjbench-|rocmvllmdev0100-|rocmvllmdev073-|vllm16300-|kubesimplify-)/;
    const s = summarizeThroughput(
      'vllm earlier',
      outOfSample.filter((r) => r.kind === 'serving' && r.engine === 'vllm' && !later.test(r.id)),
    );
    expect(s.count).toBe(44);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.07);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.228);
  });

  // The serving rows of every source before the latest two (SemiAnalysisAI/InferenceX#870, vllm-project/vllm#25444): 11.5% / 43.9%
  // before the attention layers' eager calls under piecewise graphs, 9.8% / 26.7% with them; 7.3% / 25.7% with the
  // FP8 linears on ROCm timed as hipBLASLt's; 6.2% / 22.8% with RCCL's measured all-reduce on MI300X. With
  // sgl-project/sglang#8552's TensorRT-LLM-gen MoE row scored (+11.9%, its CUTLASS row carried), 52 rows.
  it('serving rows before the latest sources (out of sample): 53 rows, median <= 7.4%, p90 <= 22.8%', () => {
    const s = summarizeThroughput(
      'serving before the latest sources',
      outOfSample.filter(
        (r) =>
          r.kind === 'serving' &&
          !NEWEST_FIELD_ROW.test(r.id) &&
          !SGLANG_2025_FIELD_ROW.test(r.id) &&
          !VLLM_2026_FIELD_ROW.test(r.id) &&
          !GPU_LAB_FIELD_ROW.test(r.id) &&
          !ADA_CDNA_FIELD_ROW.test(r.id) &&
          !LATE_2025_FIELD_ROW.test(r.id) &&
          !QUANT_FIELD_ROW.test(r.id) &&
          !SWEEP_FIELD_ROW.test(r.id) &&
          !SRV2026_FIELD_ROW.test(r.id) &&
          !PR_TABLE_FIELD_ROW.test(r.id) &&
          !DEPTH_EAGER_FIELD_ROW.test(r.id) &&
          !MAINSTREAM_FIELD_ROW.test(r.id) &&
          !ONE_CARD_FIELD_ROW.test(r.id) &&
          !PRO6000_FIELD_ROW.test(r.id) &&
          !RATE_SWEEP_FIELD_ROW.test(r.id) &&
          !INFBENCH_FIELD_ROW.test(r.id) &&
          !VLLM28992_FIELD_ROW.test(r.id) &&
          !VLLM23151_FIELD_ROW.test(r.id) &&
          !LLMINFRA_FIELD_ROW.test(r.id) &&
          !SGLANG32668_FIELD_ROW.test(r.id) &&
          !QWEN8B5090_FIELD_ROW.test(r.id) &&
          !isNewSrvRow(r.id),
      ),
    );
    expect(s.count).toBe(53);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.074);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.228);
  });

  // DeepSeek-R1 AWQ over TP 8 on H100 with vLLM of July 2025 (piecewise graphs), batch 1.
  it('the DeepSeek-R1 rows on vLLM within 10% out of sample', () => {
    const ds = outOfSample.filter((r) => r.id.startsWith('tt356-'));
    expect(ds).toHaveLength(2);
    for (const r of ds) expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(0.1);
  });

  it('every decode and serving row belongs to one of these engines', () => {
    const n = Object.values(ENGINE_BARS).reduce((a, b) => a + b.count, 0);
    expect(outOfSample.filter((r) => r.kind === 'decode' || r.kind === 'serving')).toHaveLength(n);
  });
});

// FP8 training (calibration/README.md): the torchao float8 README's Llama-3-8B rows on 8 H100s, bf16 and the
// rowwise recipe torchtitan converts with (the tensorwise row is carried, not scored: torchtitan 0.3.0 runs
// rowwise). Scored before any FP8-specific constant: +17.2% and +34.3%, the rowwise GEMM timed at the
// tensorwise rate (docs/assumptions.md).
describe('time model on the FP8 training rows', () => {
  it('scores the bf16 and rowwise rows; the tensorwise row is carried', () => {
    expect(fp8Rows.map((r) => r.id).sort()).toEqual([
      'torchao-f8-l3-8b-bf16',
      'torchao-f8-l3-8b-rowwise',
    ]);
    const bf16 = fp8Rows.find((r) => r.id.endsWith('bf16'))!;
    const rowwise = fp8Rows.find((r) => r.id.endsWith('rowwise'))!;
    expect(Math.abs(bf16.error)).toBeLessThanOrEqual(0.18);
    expect(Math.abs(rowwise.error)).toBeLessThanOrEqual(0.35);
    // FP8 is faster than bf16, by less than the 2x of the converted matmuls (measured 1.10x).
    const gain = rowwise.estimated / bf16.estimated;
    expect(gain).toBeGreaterThan(1);
    expect(gain).toBeLessThan(1.35);
  });
});

// Training at scale and on MoE (calibration/README.md "Training rows at scale and on MoE"): fms-fsdp's Llama 2
// FSDP rows on 128 A100 and ms-swift's DeepSpeed ZeRO-2/3 benchmark on 8 A800, scored before any model change.
// The dense rows were within 3% then. The MoE rows (Qwen1.5-MoE-A2.7B full fine-tune, transformers 4.x's
// per-expert loop) were +161% / +936% with the grouped dispatch of today's pins, +103% / +708% timed with the loop
// their build ran (the row's moe_dispatch), +89% / +652% with the loop's gather gradients
// (train-work.ts LOOP_INDEX_GRAD_PASSES). ms-swift's configs set overlap_comm false, which puts the gradient
// reduces in series with backward (TimeOptions.serialComm: the dense ZeRO-2 row -2.5% -> -4.3%, the MoE rows
// +78% / +612%), and DeepSpeed's module and gradient hooks run on the host (time/zero-hooks.ts: the looped
// ZeRO-3 rows pay their experts' hooks in series): ZeRO-3 +226%. ms-swift's Qwen3-30B-A3B ZeRO-3 row on 16 A800,
// added then, was +2164% before those two mechanisms and +549% after. The synced loop's ops at the 15.7 µs a
// transformers loop benchmark gives (train-work.ts SYNCED_LOOP_OP_SECONDS), the hooks of each expert's two
// parameter-less modules, ZeRO-3's reduce-scatter and partition ops per gradient, and its backward held in step by
// its event windows (train-step.ts), and the loop's 15 torch calls per expert counted alike: +44.1% (ZeRO-2),
// +90.6% and +250.6% (ZeRO-3); +41.4%, +89.0%, +249.2% with transformers' eager modules counted as read. The loop's
// op re-read as the loop run less the layers' other ops (18.3 µs; the benchmark's grouped_mm run is torch's
// per-group fallback on its A100, time/grouped-mm-cost.ts): +34.2%, +74.7%, +221.5%.
describe('time model on the training rows at scale and on MoE', () => {
  // ms-swift's two dense Qwen2.5-14B rows -4.3% / -2.2% -> -8.2% / -6.2% with transformers' eager RMSNorm and rotary
  // counted as read (engines/hf/eager-modules.ts); what else those runs do faster is not found (their
  // FlashAttention-2 layout copies stay at the assumed 2 passes over q, k and v); -9.6% / -8.0% on the A800's
  // 400 GB/s NVLink (catalog a800-80gb-sxm), which their gradient reduces, serial under overlap_comm false, cross.
  // The ZeRO-2 row -9.8% -> -14.0% once DeepSpeed's ZeRO-2 all-reduces its buckets with their copies
  // (time/zero2-bucket-reduce.ts), all of it in series with backward under overlap_comm false: the ZeRO-2 bar 14.5%.
  it('scores the four dense rows within 5% (ms-swift 10%, its ZeRO-2 row 14.5%) of the published speed', () => {
    const dense = scaleRows.filter(
      (r) =>
        !r.id.includes('-moe-') && !r.id.startsWith('trainy-') && !SWIFT_EXAMPLE_ROW.test(r.id),
    );
    expect(dense.map((r) => r.id).sort()).toEqual([
      'fmsfsdp-34b-a100x128-fsdp',
      'fmsfsdp-70b-a100x128-fsdp',
      'msswift-qwen2.5-14b-8xa800-zero2',
      'msswift-qwen2.5-14b-8xa800-zero3',
    ]);
    for (const r of dense)
      expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(
        r.id === 'msswift-qwen2.5-14b-8xa800-zero2'
          ? 0.145
          : r.id.startsWith('msswift-')
            ? 0.1
            : 0.05,
      );
  });

  // Trainy's torchtitan runs (Llama 3.1 8B, float8 tensorwise, compiled, FSDP over 32 and 64 H200): +13.7%, +15.7%.
  it('scores the torchtitan FP8 rows on 32 and 64 H200 within 16%', () => {
    const f8 = scaleRows.filter((r) => r.id.startsWith('trainy-'));
    expect(f8).toHaveLength(2);
    for (const r of f8) expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(0.16);
  });

  it('times the MoE rows too fast, and no worse than today (+35% ZeRO-2, +32% and +126% ZeRO-3)', () => {
    const moe = Object.fromEntries(
      scaleRows.filter((r) => r.id.includes('-moe-')).map((r) => [r.id, r.error]),
    );
    expect(Object.keys(moe).sort()).toEqual([
      'msswift-qwen1.5-moe-8xa800-zero2',
      'msswift-qwen1.5-moe-8xa800-zero3',
      'msswift-qwen3-moe-30b-a3b-16xa800-zero3',
    ]);
    for (const e of Object.values(moe)) expect(e).toBeGreaterThan(0);
    expect(moe['msswift-qwen1.5-moe-8xa800-zero2']).toBeLessThanOrEqual(0.35);
    expect(moe['msswift-qwen1.5-moe-8xa800-zero3']).toBeLessThanOrEqual(0.32);
    expect(moe['msswift-qwen3-moe-30b-a3b-16xa800-zero3']).toBeLessThanOrEqual(1.26);
    // ZeRO-3 over ZeRO-2: measured 4.04x; the estimate's hooks over 4,320 looped expert linears, with each prefetch
    // group's all-gather and each bucket's reduce-scatter through ProcessGroupNCCL, give 3.75x, and with each
    // coalesced gather's per-rank slices and stream records 4.13x, within 5% of the measured ratio (the ZeRO-2 row
    // then timed 34% too fast). DeepSpeed's ZeRO-2 all-reducing its buckets (time/zero2-bucket-reduce.ts) takes the
    // ZeRO-2 row to +13.3% and leaves the ZeRO-3 one at +27.5%: 3.59x, within 12%.
    const z2 = scaleRows.find((r) => r.id.endsWith('moe-8xa800-zero2'))!;
    const z3 = scaleRows.find((r) => r.id.endsWith('moe-8xa800-zero3'))!;
    expect(z3.estimated / z2.estimated).toBeGreaterThan(3);
    expect(Math.abs(z3.estimated / z2.estimated / 4.04 - 1)).toBeLessThan(0.12);
  });

  // Training out of sample, every training row (the ms-swift MoE rows above included): median <= 10%, p90 <= 30%
  // (83 rows: 9.8% / 37.0% before the dense-loop MoE, padded-SDPA and LoRA-stack mechanisms; 9.6% / 34.3% with them;
  // 8.8% / 34.3% with GeForce's rates; 9.6% / 29.9% with transformers' eager modules counted as read). With the
  // Unsloth Qwen3-30B-A3B notebook row (+319%) 84 rows read 9.65% / 34.3%; without it the 83 stay within 30%. With a
  // fallback group priced from an A100 benchmark of it (time/grouped-mm-cost.ts) the row reads +25.9% and the 84
  // rows 9.65% / 29.9%.
  // The QwenLM/Qwen3#736 rows (held below) take the 87 rows to 9.7% / 34.2% (9.8% / 37.0% when first scored).
  // Unsloth's two FP8 SFT passes on an L4 (+0.5%, -14.0% with the L4's measured matmul rate) make 86 rows here, 89 in all
  // (9.7% / 34.2%). PEFT's four MetaMathQA rows on an L40S and Unsloth's packed TinyLlama QLoRA on a T4 make 91 here
  // (9.7% / 27.4%), 94 in all (9.9% / 34.2%); QwenLM/Qwen's six Qwen-7B LoRA rows make 97 here (9.6% / 27.4%), 100 in all
  // (9.7% / 29.9%), and its six GPTQ Q-LoRA rows 103 here (9.6% / 27.4% with auto-gptq's torch dequantization timed),
  // 106 in all (9.65% / 34.2%). fms-acceleration's nineteen A100 rows make 122 here: 9.65% / 29.9% first scored (its
  // four Mixtral QLoRA rows -86% to -89%, their experts read as fp32), 9.65% / 28.6% with transformers 4.x's
  // per-expert nn.Linear experts quantized (time/float-experts.ts), 9.65% / 27.4% with the one-GPU QLoRA rows' fp32
  // residual stream timed (time/kbit-stream.ts); 125 in all (9.8% / 37.0% -> 9.8% / 34.2% -> 9.8% / 29.9%). torchtitan's
  // docs/performance.md and async TP rows make 134 here: 9.7% / 28.6% first scored, 9.45% / 26.2% with torchtitan's
  // selective policy timed (every other mm and the elementwise ops re-run, attention saved); 137 in all (9.95% / 29.9% ->
  // 9.6% / 28.6%).
  it('training rows out of sample (all sources but QwenLM/Qwen3#736 and the NEWSRC_ROW rows): median <= 10%, p90 <= 30%', () => {
    const training = rows.filter(
      (r) =>
        !r.inSample &&
        r.kind === 'training' &&
        !QWEN_ISSUE_ROW.test(r.id) &&
        !NEWSRC_ROW.test(r.id) &&
        !SWIFT_EXAMPLE_ROW.test(r.id) &&
        !DS_OFFLOAD_ROW.test(r.id) &&
        !QWEN_TABLE_TRL_ROW.test(r.id) &&
        !COMMUNITY_FT_ROW.test(r.id) &&
        !XTUNER_ROW.test(r.id) &&
        !VECTORLM_ROW.test(r.id) &&
        !OPTBENCH_ROW.test(r.id) &&
        !COURSIA_ROW.test(r.id) &&
        !PHILSCHMID_ROW.test(r.id) &&
        !VERL_ROW.test(r.id) &&
        !THUNDER_ROW.test(r.id) &&
        !A10_QLORA_ROW.test(r.id) &&
        !LF_WIKI_ROW.test(r.id) &&
        !SUROGATE_ROW.test(r.id) &&
        !PRIMERL_ROW.test(r.id) &&
        !LORABENCH_ROW.test(r.id) &&
        !AUTOMODEL_ROW.test(r.id) &&
        !DPODIST_ROW.test(r.id) &&
        !NEMONIM_ROW.test(r.id) &&
        !WHYNLP_ROW.test(r.id) &&
        !ATORCH_ROW.test(r.id) &&
        !UNSLOTHNB_ROW.test(r.id) &&
        !FMSMOE_ROW.test(r.id) &&
        !QWEN3FASTSFT_ROW.test(r.id) &&
        !TE_HF_ROW.test(r.id) &&
        !SOUP378_ROW.test(r.id) &&
        !TRLNB_ROW.test(r.id) &&
        !NEMOAMBLOG_ROW.test(r.id) &&
        !HFBLOGFSDP_ROW.test(r.id) &&
        !FLAGPERF_ROW.test(r.id) &&
        !TTPR_ROW.test(r.id) &&
        !CP_ROW.test(r.id) &&
        !MOEPR_ROW.test(r.id) &&
        !PEFTX_LLAMAFACTORY_ROW.test(r.id) &&
        !UNSLOTHBENCH_ROW.test(r.id) &&
        !TT2264_ROW.test(r.id) &&
        !CHENYAOFO_ROW.test(r.id) &&
        !LIGERHF_ROW.test(r.id) &&
        !PITHTRAIN_ROW.test(r.id) &&
        !AXOLOTL_L4_EARLY_ROW.test(r.id) &&
        !GPT2DDP_ROW.test(r.id) &&
        !TRAINING_HUB_ROW.test(r.id) &&
        !QWEN35_FSDP2_PR_ROW.test(r.id) &&
        !FMSORCA_ROW.test(r.id) &&
        !MOEFT_ROW.test(r.id) &&
        !MOEBENCH_ROW.test(r.id) &&
        !HFPATH_ROW.test(r.id) &&
        !YAFSDP_COLOSSAL_ROW.test(r.id),
    );
    const s = summarizeThroughput('training', training);
    expect(s.count).toBe(134);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.1);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.3);
    const earlier = summarizeThroughput(
      'training',
      training.filter((r) => !NOTEBOOK_ROW.test(r.id)),
    );
    expect(earlier.p90AbsError).toBeLessThanOrEqual(0.3);
  });
});

describe('time model on the Unsloth MoE and GRPO notebook rows', () => {
  const err = Object.fromEntries(notebookRows.map((r) => [r.id, r.error]));
  it('holds the four rows, out of sample', () => {
    expect(notebookRows.map((r) => r.id).sort()).toEqual([
      'unsloth-grpo-dsr1-qwen3-8b-t4',
      'unsloth-grpo-llama3.2-3b-a100-40gb-lora16',
      'unsloth-grpo-llama3.2-3b-t4-lora16',
      'unsloth-moe-qwen3-30b-a3b-a100-lora',
    ]);
    expect(notebookRows.every((r) => !r.inSample)).toBe(true);
  });

  // GRPO steps: +28.1%, +130%, +168% first scored; the two gradient_accumulation_steps 4 rows ran a TRL that generated
  // per micro-batch (their steps-per-generation 1): -4.8%, +11.1%. The DeepSeek-R1-0528-Qwen3-8B row's completions all
  // stopped at vLLM's 256-token max_model_len (its log: max_seq_len=256, whole-number step means of 4 completions): read
  // so (100-token prompts, 4 completions of 157 decoded together to that cap) it is +60.0%, too fast, not explained.
  // Every GRPO row together (8): 10.3% / 60.0% (10.3% / 28.1% with TRL's bounds as its prompt and cap). Its decode
  // graphs, captured inside unsloth_zoo's load_vllm before Unsloth reset the shared QuantStates to float16, run
  // bitsandbytes' 4-bit path in fp32 (the fp32 checkpoint vLLM quantized while loading; the row's bnb_decode_dtype,
  // time/decode.ts copyBytes): -5.6%. With each batch's longest completion following its size (longestToMean), the
  // 8 rows 10.4% / 17.7%.
  it('GRPO notebook steps: the two accumulation rows within 12%, the capped T4 row within 7.5%', () => {
    for (const id of [
      'unsloth-grpo-llama3.2-3b-t4-lora16',
      'unsloth-grpo-llama3.2-3b-a100-40gb-lora16',
    ])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.12);
    // -5.6% -> -6.0% with vLLM's graph kernels at 3.15 µs (engines/graph-kernel.ts); the 8 rows 8.4% / 20.4% (the
    // RTX 4090 row -17.7% -> -20.4%); -6.6% with those kernels in SM cycles (the T4's 1.59 GHz); -7.5% with the T4's
    // GEMMs at its power-capped continuous matmul rate (catalog gemm16MeasuredTflops).
    const capped = err['unsloth-grpo-dsr1-qwen3-8b-t4']!;
    expect(Math.abs(capped)).toBeLessThanOrEqual(0.075);
    const rl = rows.filter(
      (r) =>
        !r.inSample &&
        r.kind === 'rl' &&
        !L4_NOTEBOOK_ROW.test(r.id) &&
        !SELFLLM_ROW.test(r.id) &&
        !GEMMA_GRPO_ROW.test(r.id) &&
        !QWEN_TABLE_TRL_ROW.test(r.id) &&
        !COMMUNITY_FT_ROW.test(r.id) &&
        !COURSIA_ROW.test(r.id) &&
        !PHILSCHMID_ROW.test(r.id) &&
        !DPODIST_ROW.test(r.id) &&
        !UNSLOTHNB_ROW.test(r.id) &&
        !UNSLOTHKTO_ROW.test(r.id) &&
        !RLVR_ROW.test(r.id) &&
        !OLSENDPO_ROW.test(r.id) &&
        !COOKBOOKGRPO_ROW.test(r.id) &&
        !HANDSONLLM_ROW.test(r.id) &&
        !NBRERUN_ROW.test(r.id) &&
        !OPENR1GEN_ROW.test(r.id) &&
        !NEWRL21_ROW.test(r.id) &&
        !RICOCQG_ROW.test(r.id) &&
        !UNSLOTH_GRPO_COPIES_ROW.test(r.id) &&
        !GRPO_USER_RUNS_ROW.test(r.id) &&
        !LONGTAIL_GRPO_ROW.test(r.id) &&
        !GRPO_SAVED_RUNS_ROW.test(r.id),
    );
    const s = summarizeThroughput('rl', rl);
    expect(s.count).toBe(8);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.084);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.205);
  });

  // +1,599% first scored (17x the estimate); with torch._grouped_mm's per-group fallback off sm90/sm100 timed
  // (time/grouped-mm.ts) +319% at 5.12 µs a group (a square 128 matmul from Python); +25.8% with a group priced from
  // huggingface/transformers#42697's A100 forward through the same fallback, 19.0 µs (time/grouped-mm-cost.ts), +25.9% with
  // that benchmark's loop op re-read alike (2.68 s of 3.38 s), +26.2% with the experts' adapters sized as memory
  // counts them (one pair per expert on gate_up_proj whole: 2.679 s). Still too fast; what is left is open
  // (docs/time-model.md).
  it('Qwen3-30B-A3B LoRA on an A100: within 27%, still too fast', () => {
    const e = err['unsloth-moe-qwen3-30b-a3b-a100-lora']!;
    expect(e).toBeGreaterThan(0);
    expect(e).toBeLessThanOrEqual(0.265);
  });
});

// QwenLM/Qwen3#736: LoRA r 64 on every linear (the MoE's experts included), ZeRO-3, 8 H100, one padded 512-token row a
// micro-batch, 8 a step; seconds per step = train_runtime / 10. First scored (H100 SXM read): 7B +161%, 72B +298%,
// 57B-A14B +82%, all too fast; with the ZeRO-3 hooks of the layers' parameter-less modules and PEFT's wrapper and
// dropout modules (time/zero-hooks.ts): +137%, +263%, +68%. With the step-10 checkpoint inside train_runtime (the rows'
// timed_saves over timed_steps: the whole 16-bit model gathered to rank 0's host, time/model-save.ts): +134%, +253%,
// +67.5%. With ZeRO-3's measured host price (calibration/measured/zero3-host-cpu.json): +61.2%, +151.1%, +44.7%; with
// each prefetch group's all-gather and each gradient bucket's reduce-scatter through ProcessGroupNCCL (their CUDA
// calls, DEEPSPEED_HOOKS.host3.collectiveOps): +56.5%, +144.5%, +39.7%; with each coalesced all-gather's per-rank
// slices and stream records (DEEPSPEED_HOOKS.host3.coalescedPerRank): +38.9%, +118.7%, +23.6%; with the backward
// finding the recompute's gathers kept within stage3_max_reuse_distance (DEEPSPEED_HOOKS.maxReuseDistance,
// time/zero-collectives.ts backwardRegatherShare: less gathered, less of the compute held by NCCL): +39.8%, +123.2%, +23.6%.
describe('time model on the QwenLM/Qwen3#736 LoRA rows over ZeRO-3', () => {
  const err = Object.fromEntries(qwenIssueRows.map((r) => [r.id, r.error]));
  it('holds the three rows, out of sample, timed too fast and no worse than first scored', () => {
    holdsOutOfSample(qwenIssueRows, err, [
      'qwen3-736-qwen2-57b-a14b-lora-8xh100-zero3',
      'qwen3-736-qwen2-72b-lora-8xh100-zero3',
      'qwen3-736-qwen2-7b-lora-8xh100-zero3',
    ]);
    for (const e of Object.values(err)) expect(e).toBeGreaterThan(0);
    expect(err['qwen3-736-qwen2-7b-lora-8xh100-zero3']).toBeLessThanOrEqual(0.4);
    expect(err['qwen3-736-qwen2-72b-lora-8xh100-zero3']).toBeLessThanOrEqual(1.24);
    expect(err['qwen3-736-qwen2-57b-a14b-lora-8xh100-zero3']).toBeLessThanOrEqual(0.24);
  });
  // The MoE run over the dense 72B: measured 5.6x a step, estimated 9.9x (the looped experts' hooks bind the host).
  it('times the looped MoE far slower than the dense 72B, as measured', () => {
    const est = Object.fromEntries(qwenIssueRows.map((r) => [r.id, r.estimated]));
    const ratio =
      est['qwen3-736-qwen2-57b-a14b-lora-8xh100-zero3']! /
      est['qwen3-736-qwen2-72b-lora-8xh100-zero3']!;
    expect(ratio).toBeGreaterThan(5);
  });
});

// Six rows of four Unsloth notebooks new to the set (unslothai/notebooks 8081c7e): Qwen3-8B and Llama-3.2-1B FP8 LoRA on
// an L4 (GRPO with vLLM 0.10.2 / 0.11.2, and the SFT pass before it), gpt-oss-20b GRPO with a transformers rollout on a
// T4 (4-bit, fp32) and an A100 (bf16). First scored: SFT -48.0%, -51.9%, GRPO -19.6%, +29.9%, gpt-oss +436%, +216%.
// With the L4's measured matmul rate (catalog gemm16MeasuredTflops, zzc0721/torch-performance-test-data#120; the
// 4090's watts scaled to 72 W held it at 31 TFLOPS): SFT +0.5%, -14.0%, GRPO -9.8%, +42.9%. With transformers 4.5x's
// gpt-oss generate running every expert on every token (the rows' generate_experts): +57.0%, +206.9%. The Llama-3.2-1B
// GRPO row and both gpt-oss rows stay too fast: docs/time-model.md "FP8 on an L4 and gpt-oss rollouts". A seventh, new to
// the set, was scored before the gpt-oss decode path was read: the same stack's 2048-game GRPO run on the A100 (its
// reward's 5-s time limits taken out of the measured step), +204.0%.
describe('time model on the Unsloth FP8 L4 and gpt-oss rollout notebook rows', () => {
  const err = Object.fromEntries(l4NotebookRows.map((r) => [r.id, r.error]));
  it('holds the seven rows, out of sample', () => {
    holdsOutOfSample(l4NotebookRows, err, [
      'unsloth-fp8grpo-llama3.2-1b-l4',
      'unsloth-fp8grpo-qwen3-8b-l4',
      'unsloth-fp8sft-llama3.2-1b-l4',
      'unsloth-fp8sft-qwen3-8b-l4',
      'unsloth-gptoss-grpo-2048-20b-bf16-a100-hf',
      'unsloth-gptoss-grpo-20b-bf16-a100-hf',
      'unsloth-gptoss-grpo-20b-t4-hf',
    ]);
  });

  it('the L4 SFT passes and the Qwen3-8B GRPO steps within 15%', () => {
    for (const id of [
      'unsloth-fp8sft-qwen3-8b-l4',
      'unsloth-fp8sft-llama3.2-1b-l4',
      'unsloth-fp8grpo-qwen3-8b-l4',
    ])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.15);
  });

  it('the open misses stay too fast and no worse than now', () => {
    expect(err['unsloth-fp8grpo-llama3.2-1b-l4']).toBeGreaterThan(0);
    // +43.2% with vLLM's graph kernels in SM cycles (the L4's 2.04 GHz); +43.3% with FlashAttention-2's KV read rate
    // (time/decode-attention.ts).
    expect(err['unsloth-fp8grpo-llama3.2-1b-l4']).toBeLessThanOrEqual(0.434);
    // The T4 row with its experts' down projections dequantized to fp32 (bnb_decode_dtype fp32-moe-down): +57.0% ->
    // +23.6%. The A100 rows with q,k,v,o adapted (their logged trainable count), the adapters run unmerged in the
    // trainer's generate (2 ops each in that build, lora_forward_ops) and each layer's eager ops and torch.compile'd calls
    // as the build ran them (generate_layer; pytorch/pytorch#150488's per-call costs): +206.9% -> +211.9% -> +177.0% ->
    // +60.6%, and the 2048-game row +204.0% -> +57.3%; with the training passes' per-expert loop (moe_dispatch) the
    // three rows +21.5%, +56.6%, +50.8%; with the two attention masks generate builds through torch.vmap every decode
    // step (generate_masks) +19.5%, +33.5%, +29.0%, and the A100 rows with their sliding layers' stream syncs
    // (generate_layer.sync) +30.3%, +25.9% (docs/time-model.md "gpt-oss rollouts: generate's masks").
    expect(err['unsloth-gptoss-grpo-20b-t4-hf']).toBeGreaterThan(0);
    expect(err['unsloth-gptoss-grpo-20b-t4-hf']).toBeLessThanOrEqual(0.2);
    for (const id of [
      'unsloth-gptoss-grpo-20b-bf16-a100-hf',
      'unsloth-gptoss-grpo-2048-20b-bf16-a100-hf',
    ]) {
      expect(err[id], id).toBeGreaterThan(0);
      expect(err[id], id).toBeLessThanOrEqual(0.31);
    }
  });

  // With datawhalechina/self-llm's two A100 re-runs (+22.3%, +26.3%, too fast): 15 rows, 10.2% / 30.3%; 9.2% / 30.3%
  // with the tree kernel's datacenter pass from bitsandbytes' H100 table (the re-runs -9.2%, -5.5%).
  // With Unsloth's Gemma 3 1B T4 GRPO notebook (+70.3%, too fast): 16 rows, 8.3% / 39.6%; with self-llm's Gemma 3 4B
  // A800 one (+79.2%): 17 rows, 9.2% / 70.3%. With TRL's GRPO QLoRA notebook on a T4 (+115.0%, too fast: QWEN_TABLE_TRL_ROW):
  // 18 rows, 8.3% / 39.6%. With huggingface/open-r1#251's GRPO step on 8 H100 (-26.2%, too slow: COMMUNITY_FT_ROW): 19 rows,
  // 9.2% / 30.3%. With jsboige/CoursIA's four RTX 4090 probe steps (+25.6..+111.6%, too fast: COURSIA_ROW) and
  // philschmid's DPO notebook on an H100 (-15.7%, too slow: PHILSCHMID_ROW): 24 rows, 12.0% / 39.6%. With the four T4 DPO
  // strategy rows (DPODIST_ROW: FSDP +48.9%, ZeRO-2 -30.7% / -30.9% at the 512-token bound, ZeRO-3 parameter offload +265%):
  // 28 rows, 16.7% / 48.9%. With Unsloth's 4-bit gpt-oss 2048-game GRPO on a T4 (+22.3%, too fast: UNSLOTHNB_ROW) and its KTO
  // example on an RTX 4090 (+60.6%, too fast: UNSLOTHKTO_ROW): 30 rows, 18.6% / 48.9%; with KTO's KL forwards (the KTO row
  // +15.1%), 16.7% / 40.3%. With WYR186/RLVR's three GRPO rows on a Colab A100 (+76.0%, +94.9%, +98.6%: TRL 1.6's
  // transformers generate, too fast: RLVR_ROW) and the LLaMA-Factory DPO log on an RTX A6000 (+19.8%: OLSENDPO_ROW): 34 rows,
  // 19.7% / 94.9%, the same with the autocast casts of each decode step over the 0.5B row's fp32 weights (+36.6%).
  // With the HF cookbook's two GRPO runs on a Colab A100 (+17.1%, +39.1%: COOKBOOKGRPO_ROW) and Hands-On LLMs' T4 DPO
  // (-35.9%: HANDSONLLM_ROW): 37 rows, 15.7% / 39.1%. With huggingface/open-r1#100's ZeRO-3 GRPO step on 8 H100 (-4.2%:
  // OPENR1GEN_ROW): 50 rows, 10.5% / 35.9%. With six GRPO rows from new sources (-6.0%, +0.5%, -46.5%, +8.8%, +5.3%,
  // -25.5%: NEWRL21_ROW): 56 rows, 10.1% / 37.9%. With six DPO rows from a new source (+13.8%, +16.4%, +5.3%, +21.5%,
  // -6.9%, -6.2%: RICOCQG_ROW): 62 rows, 9.7% / 32.3%. With three Unsloth GRPO notebook runs from new sources (-0.6%,
  // +3.6%, +3.8%: UNSLOTH_GRPO_COPIES_ROW): 65 rows, 8.8% / 31.8%; 9.6% / 31.8% with TRL's fetches around the rollout
  // (time/trainer-fetch.ts: rycerzes -6.0% -> -10.7%, huggingface/open-r1#100 -4.2% -> -4.6%). With ten Unsloth GRPO
  // runs from eight new repositories (GRPO_USER_RUNS_ROW, -11.4..+30.3%): 75 rows, 8.8% / 30.9%. With six GRPO runs from
  // three new repositories (LONGTAIL_GRPO_ROW: +31.4%, +136.3%, +230.7%, +191.6%, -6.7%, +10.3%): 81 rows, 8.9% / 33.8%,
  // unchanged with the ToolFormer rows' forced old log-probs forward (+26.5%, +120.1%, +210.2%, +173.3%). With nine
  // Unsloth GRPO runs from eight new repositories (GRPO_SAVED_RUNS_ROW: -13.8..+5.5%): 90 rows, 8.4% / 33.1%.
  it('every RL row together (90, out of sample): median <= 20%, p90 <= 95%', () => {
    const s = summarizeThroughput(
      'rl',
      rows.filter((r) => !r.inSample && r.kind === 'rl'),
    );
    expect(s.count).toBe(90);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.2);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.95);
  });
});

// Five fine-tuning rows from sources new to the time set. PEFT's MetaMathQA method comparison (huggingface/peft@51c2ff6,
// Llama-3.2-3B on an L40S through its own loop, batch 4 of 210 tokens): LoRA r 32 and r 64 on q,v and r 10 on the MLP,
// and a full fine-tune in pure bf16; Unsloth's TinyLlama Alpaca notebook (QLoRA, 4,096-token packed rows, a T4). First
// scored: -44.6%, -43.7%, -42.9%, +0.9% and +44.9%. With the L40S at its measured bf16 matmul rate (catalog
// gemm16MeasuredTflops, https://github.com/zzc0721/torch-performance-test-data/issues/43; the 4090's watts held it at 121 TFLOPS) and torch
// AdamW's foreach step timed by its ops (time/optimizer-step.ts, the rows' adam_impl): -19.9%, -18.9%, -20.9%, -0.6%;
// the T4 row unchanged (docs/time-model.md "PEFT's method comparison and a packed T4 QLoRA").
describe('time model on the PEFT MetaMathQA and packed TinyLlama rows', () => {
  const err = Object.fromEntries(peftRows.map((r) => [r.id, r.error]));
  it('holds the five rows, out of sample', () => {
    holdsOutOfSample(peftRows, err, [
      'peft-mmqa-l32-3b-l40s-full',
      'peft-mmqa-l32-3b-l40s-lora-r10-mlp',
      'peft-mmqa-l32-3b-l40s-lora-r32-qv',
      'peft-mmqa-l32-3b-l40s-lora-r64-qv',
      'unsloth-tinyllama-alpaca-t4-qlora',
    ]);
  });

  // The LoRA rows ran without AMP over fp32 adapters: PEFT's branch computes in fp32 (engines/hf/lora-path.ts
  // fp32Branch), its passes timed at the DRAM rate although at 840 tokens its fp32 tensors (at most 27.5 MB) fit in
  // the L40S's 96 MB L2 (not modelled): q,v -19.9/-18.9% -> -22.1/-21.2%, the MLP row -20.9% -> -30.5%. With the
  // branch's lora_A and lora_B timed as fp32 matmuls (time/adapter-path.ts fp32AdapterMatmuls; the L40S's fp32 rate is
  // a quarter of its 16-bit one) the MLP row -30.9% -> -31.0%, the q,v rows -22.7/-21.8% -> -22.9/-22.2%.
  // The full fine-tune's run.py clips the gradient norm at 1.0 every step (torch clip_grad_norm_: a read of the 3.2B
  // bf16 gradients for the norm, a read and a write to scale them; FrameworkProfile.gradClip): -0.9% -> -8.6%.
  it('the full fine-tune within 9%, the q,v LoRA rows within 23%, the MLP row within 31.5%', () => {
    expect(Math.abs(err['peft-mmqa-l32-3b-l40s-full']!)).toBeLessThanOrEqual(0.09);
    for (const id of ['peft-mmqa-l32-3b-l40s-lora-r32-qv', 'peft-mmqa-l32-3b-l40s-lora-r64-qv'])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.23);
    expect(Math.abs(err['peft-mmqa-l32-3b-l40s-lora-r10-mlp']!)).toBeLessThanOrEqual(0.315);
  });

  // LoRA over full: measured 3.1x the tokens a second (7,194 against 2,315); the full step's extra is its weight
  // gradients and the foreach AdamW over 3.2B bf16 parameters.
  it('times LoRA about three times faster than the full fine-tune, as measured', () => {
    const est = Object.fromEntries(peftRows.map((r) => [r.id, r.estimated]));
    const ratio = est['peft-mmqa-l32-3b-l40s-lora-r32-qv']! / est['peft-mmqa-l32-3b-l40s-full']!;
    expect(ratio).toBeGreaterThan(2.2);
    expect(ratio).toBeLessThan(3.5);
  });

  it('the packed T4 QLoRA stays too fast and no worse than first scored', () => {
    expect(err['unsloth-tinyllama-alpaca-t4-qlora']).toBeGreaterThan(0);
    expect(err['unsloth-tinyllama-alpaca-t4-qlora']).toBeLessThanOrEqual(0.45);
  });
});

// Six rows of QwenLM/Qwen's README profiling table (e6f2a7a, October 2023): Qwen-7B LoRA r 64 on every linear through the
// repository's finetune.py (HF Trainer, Qwen's own code with flash-attn 2, gradient checkpointing, batch 1 x 8, samples
// padded to the length) on one A100 80GB at 256 to 8,192 tokens. First scored, before any model change: +23.2%, -1.7%,
// +3.9%, +1.6%, -2.0%, -5.1% (the 256-token step, 1.2 s printed to 0.1 s, is the host-bound end of the sweep).
// Its Q-LoRA column (GPTQ int4 through auto-gptq under DeepSpeed ZeRO-2 on one GPU, fp16), first scored once the
// hf-deepspeed engine took int4 below ZeRO-3 (engines/hf-deepspeed/runs.ts): +116.5%, +69.3%, +18.0%, +28.6%, +8.0%,
// -3.4%; with auto-gptq's cuda-old QuantLinear dequantizing each weight in torch ops (time/gptq-dequant.ts, the rows'
// gptq_dequant): +39.6%, +18.3%, -6.1%, +12.8%, +0.9%, -6.5%.
describe("time model on QwenLM/Qwen's Qwen-7B LoRA length sweep", () => {
  const err = Object.fromEntries(qwen1Rows.map((r) => [r.id, r.error]));
  const L = [256, 512, 1024, 2048, 4096, 8192];
  it('holds the twelve rows, out of sample', () => {
    expect(qwen1Rows.map((r) => r.id).sort()).toEqual(
      [
        ...L.map((n) => `qwen1-readme-7b-lora-a100-${n}`),
        ...L.map((n) => `qwen1-readme-7b-qlora-gptq-a100-${n}`),
      ].sort(),
    );
    expect(qwen1Rows.every((r) => !r.inSample)).toBe(true);
  });

  // 13%, 0.397 and 0.184 before the recompute left out the output layer and the loss.
  it('the GPTQ Q-LoRA steps: 1,024 to 8,192 tokens within 15%, 256 and 512 too fast and no worse than now', () => {
    for (const n of [1024, 2048, 4096, 8192])
      expect(Math.abs(err[`qwen1-readme-7b-qlora-gptq-a100-${n}`]!), String(n)).toBeLessThanOrEqual(
        0.15,
      );
    const now: Record<number, number> = { 256: 0.411, 512: 0.2 };
    for (const [n, e] of Object.entries(now)) {
      expect(err[`qwen1-readme-7b-qlora-gptq-a100-${n}`], n).toBeGreaterThan(0);
      expect(err[`qwen1-readme-7b-qlora-gptq-a100-${n}`], n).toBeLessThanOrEqual(e);
    }
  });

  // 6% and 24% before the recompute left out the output layer and the loss.
  it('512 to 8,192 tokens within 7%, 256 within 27%', () => {
    for (const n of [512, 1024, 2048, 4096, 8192])
      expect(Math.abs(err[`qwen1-readme-7b-lora-a100-${n}`]!), String(n)).toBeLessThanOrEqual(0.07);
    expect(Math.abs(err['qwen1-readme-7b-lora-a100-256']!)).toBeLessThanOrEqual(0.27);
  });

  // The step grows with the length as measured: 17.75x from 256 to 8,192 tokens (1.2 -> 21.3 s).
  it('scales the step with the length as measured (within 15%)', () => {
    const est = Object.fromEntries(qwen1Rows.map((r) => [r.id, r.estimated]));
    const ratio = est['qwen1-readme-7b-lora-a100-8192']! / est['qwen1-readme-7b-lora-a100-256']!;
    expect(ratio / (21.3 / 1.2)).toBeGreaterThan(0.85);
    expect(ratio / (21.3 / 1.2)).toBeLessThan(1.5);
  });
});

// fms-acceleration's reference benchmarks (foundation-model-stack/fms-acceleration@9122a76
// scripts/benchmarks/refs/a100_80gb.csv): the HF Trainer's train_tokens_per_second of 100 packed 4096-token steps on A100
// 80GB, torch 2.4.1 / transformers 4.48.1, one GPU or FSDP FULL_SHARD over two. First scored, before any model change:
// Mistral-7B full -0.5%, -1.4% (one GPU), +8.2%, +2.3% (two); LoRA +6.0%, +5.3%, +18.0%, +10.7%; QLoRA +22.8%, +21.0%,
// +17.6%, +4.8%; Mixtral-8x7B LoRA over two +28.6%, +18.6%; Mixtral QLoRA -86.3%, -87.2% (one), -87.5%, -88.8% (two);
// Llama-2-70B QLoRA over two +3.4%. The Mixtral QLoRA rows read their experts as fp32 (transformers 5's fused experts,
// which bitsandbytes leaves unquantized); transformers 4.48's MixtralBlockSparseTop2MLP experts are nn.Linear, which it
// quantizes (time/float-experts.ts, the rows' moe_dispatch 'loop'): +40.4%, +34.2%, +21.4%, +13.5%. The one-GPU QLoRA
// rows ran TRL 0.13's k-bit preparation (fp32 norms) over bitsandbytes' dtype-preserving Linear4bit: an fp32 residual
// stream (time/kbit-stream.ts, the rows' kbit_stream): Mistral +22.8%, +21.0% -> +13.6%, +11.8%; Mixtral +40.4%,
// +34.2% -> +32.4%, +26.2%. Under autocast that stream's casts move bytes (an fp32-fed Linear4bit computes "in fp32":
// its weight copied to fp32 and cast back by autocast, its input and output cast; kbitStreamCastBytes): Mistral
// +12.7%, +11.3% -> +2.0%, +1.5%; Mixtral +28.2%, +24.0% -> +10.1%, +9.3%.
describe("time model on fms-acceleration's A100 reference benchmarks", () => {
  const err = Object.fromEntries(fmsaccRows.map((r) => [r.id, r.error]));
  it('holds the nineteen rows, out of sample', () => {
    expect(fmsaccRows).toHaveLength(19);
    expect(fmsaccRows.every((r) => !r.inSample && r.kind === 'training')).toBe(true);
  });

  // Median 2.4% before the recompute left out the output layer and the loss.
  it('the dense Mistral-7B and Llama-2-70B rows: median <= 2.5%, p90 <= 14.0%', () => {
    const s = summarizeThroughput(
      'fmsacc-dense',
      fmsaccRows.filter((r) => !r.id.includes('mixtral')),
    );
    expect(s.count).toBe(13);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.025);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.14);
  });

  it('the Mixtral QLoRA rows time bitsandbytes-quantized experts (none 80% slow), no further off than now', () => {
    const now: Record<string, number> = {
      '1gpu-b4': 0.108,
      '1gpu-b8': 0.097,
      '2gpu-b2': 0.215,
      '2gpu-b4': 0.136,
    };
    for (const [k, e] of Object.entries(now)) {
      const v = err[`fmsacc-a100-mixtral8x7b-qlora-${k}`]!;
      expect(v, k).toBeGreaterThan(-0.2);
      expect(Math.abs(v), k).toBeLessThanOrEqual(e);
    }
  });

  it('the Mixtral LoRA rows over two GPUs: too fast, no further off than now (+28.6%, +18.6%)', () => {
    expect(err['fmsacc-a100-mixtral8x7b-lora-2gpu-b2']!).toBeLessThanOrEqual(0.287);
    expect(err['fmsacc-a100-mixtral8x7b-lora-2gpu-b4']!).toBeLessThanOrEqual(0.187);
  });
});

// torchtitan's docs/performance.md (pytorch/torchtitan@3faaa1a docs/performance.md): Llama 3 8B / 70B and Llama 2 13B / 70B
// over FSDP2 on 64 A100 80GB (April 2024, eager), Llama 3.1 405B over FSDP2 16 x TP 8 on 128 H100 96GB (August 2024).
// First scored: selective op AC +17.9% (8B), +24.0% (13B), +30.7% (70B, batch 1); full AC +6.9%, +6.8%; no AC +11.8%;
// 405B -5.6% (bf16), -23.1% (Float8). torchtitan's SelectiveAC op policy saves SDPA's output and every other mm and re-runs
// the rest (FrameworkProfile.selectiveRecompute): +7.3%, +9.2%, +14.8%; the December 2024 H100 rows and Trainy's H200 rows,
// selective too, move 3.9 to 11.1 points nearer (docs/time-model.md "torchtitan's selective policy and two GRPO
// re-runs"); of the async TP page's selective rows on 64 H100 (FSDP 8 x TP 8) the rowwise one moves nearer (+29.9% ->
// +18.5%), the bf16 one away (-0.3% -> -8.7%). Two Unsloth GRPO notebooks re-run on an A100-SXM4-80GB (datawhalechina/self-llm@0932a89): Phi-4 +22.3%,
// DeepSeek-R1-0528-Qwen3-8B +27.9% (+26.3% with its V1 build's piecewise graphs, cuda_graphs), too fast, not explained.
describe("time model on torchtitan's performance and async TP pages and the self-llm GRPO rows", () => {
  const all = [
    ...rows.filter((r) => TITAN_DOC_ROW.test(r.id)),
    ...rows.filter((r) => SELFLLM_ROW.test(r.id) && !GEMMA_GRPO_ROW.test(r.id)),
  ];
  const err = Object.fromEntries(all.map((r) => [r.id, r.error]));
  it('holds the fourteen rows, out of sample', () => {
    holdsOutOfSample(all, err, [
      'selfllm-grpo-dsr1-qwen3-8b-a100',
      'selfllm-grpo-phi4-14b-a100',
      'torchtitan-asynctp-h100-l31-70b-tp8',
      'torchtitan-asynctp-h100-l31-70b-tp8-f8-rowwise',
      'torchtitan-asynctp-h100-l31-8b-tp8',
      'torchtitan-asynctp-h100-l31-8b-tp8-f8-rowwise',
      'torchtitan-perfdoc-a100-l2-13b-noac',
      'torchtitan-perfdoc-a100-l2-13b-selop',
      'torchtitan-perfdoc-a100-l2-70b-full',
      'torchtitan-perfdoc-a100-l2-70b-selop-b1',
      'torchtitan-perfdoc-a100-l3-70b-full',
      'torchtitan-perfdoc-a100-l3-8b-selop',
      'torchtitan-perfdoc-h100-l31-405b-2d',
      'torchtitan-perfdoc-h100-l31-405b-2d-f8',
    ]);
  });

  it('selective op AC costs about what full AC costs over no AC on the A100s, within 15%', () => {
    for (const id of [
      'torchtitan-perfdoc-a100-l3-8b-selop',
      'torchtitan-perfdoc-a100-l2-13b-selop',
      'torchtitan-perfdoc-a100-l2-70b-selop-b1',
      'torchtitan-perfdoc-a100-l2-13b-noac',
      'torchtitan-perfdoc-a100-l3-70b-full',
      'torchtitan-perfdoc-a100-l2-70b-full',
    ])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.15);
    // The 13B rows: selective op AC measured 12% slower than none; the estimate's gap is the recomputed mm's and ops.
    const est = Object.fromEntries(all.map((r) => [r.id, r.estimated]));
    const gap =
      est['torchtitan-perfdoc-a100-l2-13b-noac']! / est['torchtitan-perfdoc-a100-l2-13b-selop']!;
    expect(gap).toBeGreaterThan(1.1);
  });

  // The async TP page's vanilla TP rows: 70B -13.9% (bf16), +5.9% (rowwise); 8B with selective AC -0.3% -> -8.6% (bf16),
  // +29.9% -> +19.1% (rowwise) with the policy timed (+18.5% before the memory-bound kernels at 500 of 700 W kept
  // 0.974 of their bandwidth, the RTX 3090 decode sweep's, for the old curve's 0.959).
  it('the async TP page rows within 20%', () => {
    for (const id of [
      'torchtitan-asynctp-h100-l31-70b-tp8',
      'torchtitan-asynctp-h100-l31-70b-tp8-f8-rowwise',
      'torchtitan-asynctp-h100-l31-8b-tp8',
      'torchtitan-asynctp-h100-l31-8b-tp8-f8-rowwise',
    ])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.2);
  });

  it('the 405B rows stay within their first-scored errors', () => {
    expect(Math.abs(err['torchtitan-perfdoc-h100-l31-405b-2d']!)).toBeLessThanOrEqual(0.06);
    expect(err['torchtitan-perfdoc-h100-l31-405b-2d-f8']).toBeGreaterThanOrEqual(-0.24);
  });

  // The GRPO re-runs: +22.3%, +26.3% first scored; -9.2%, -5.5% with the pre-0.48 bitsandbytes tree kernel's pass on
  // sm60/80/90 read off bitsandbytes' own H100 timing of a 0.45 build (time/bnb-dequant.ts), not off these rows.
  it('the GRPO re-runs within 10%', () => {
    for (const id of ['selfllm-grpo-phi4-14b-a100', 'selfllm-grpo-dsr1-qwen3-8b-a100'])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.1);
  });
});

// Ten training rows from sources new to the set, scored before any model change (notes of each row). The Hugging
// Face blog's Granite-7B full fine-tune on four A100 (FSDP aligned mode +3.4%, DeepSpeed ZeRO-3 +5.5%); torchtitan's NVFP4 page, Llama 3 8B over FSDP2 on
// four GB200 (bf16 +12.6%, mxfp8 +34.0%); ljm565/universal-llm-trainer's 8,192-token Llama 3.1 8B runs in its
// own deterministic loop (full +74.3%, +48.7%, +58.8% and LoRA +122.1%, +73.9%, +90.1% on an H100, an RTX PRO 6000
// and an A100; their random tokens fill a padded batch whose padding mask SDPA is still handed). Every miss but the
// blog's is too fast. torchao's MX formats README rows (Llama3-8b on eight B200 the
// page calls 'power limited' without giving the cap) are carried unscored: the cap sets the step and is unknown.
describe('time model on the blog, GB200 torchtitan and universal-llm-trainer rows', () => {
  const err = Object.fromEntries(newsrcRows.map((r) => [r.id, r.error]));
  it('holds the ten scored rows, out of sample', () => {
    expect(Object.keys(err).sort()).toEqual([
      'hfblog-ds2fsdp-granite7b-4xa100-fsdp',
      'hfblog-ds2fsdp-granite7b-4xa100-zero3',
      'torchtitan-nvfp4doc-gb200-l3-8b-bf16',
      'torchtitan-nvfp4doc-gb200-l3-8b-mxfp8',
      'ult-a100-l31-8b-full',
      'ult-a100-l31-8b-lora',
      'ult-h100-l31-8b-full',
      'ult-h100-l31-8b-lora',
      'ult-pro6000-l31-8b-full',
      'ult-pro6000-l31-8b-lora',
    ]);
    expect(newsrcRows.every((r) => !r.inSample && r.kind === 'training')).toBe(true);
  });

  it('the FSDP and ZeRO-3 rows on four A100 within 6%', () => {
    expect(Math.abs(err['hfblog-ds2fsdp-granite7b-4xa100-fsdp']!)).toBeLessThanOrEqual(0.06);
    expect(Math.abs(err['hfblog-ds2fsdp-granite7b-4xa100-zero3']!)).toBeLessThanOrEqual(0.06);
  });

  it('the GB200 rows: bf16 within 13%, MXFP8 no further off than now (+34.0%)', () => {
    expect(Math.abs(err['torchtitan-nvfp4doc-gb200-l3-8b-bf16']!)).toBeLessThanOrEqual(0.13);
    expect(Math.abs(err['torchtitan-nvfp4doc-gb200-l3-8b-mxfp8']!)).toBeLessThanOrEqual(0.341);
  });

  // Measured, full over LoRA tokens a second: 1.36 (H100), 1.15 (RTX PRO 6000), 1.19 (A100); the estimate had
  // 1.07, 0.98 and 0.99 before PEFT's fp32 branch and the deterministic fill, 1.32, 1.15 and 1.17 with them, 1.24, 1.12
  // and 1.14 with the padding mask, 1.19, 1.10 and 1.11 with the memory-efficient kernel's rate (the same attention
  // seconds added to both).
  it('the universal-llm-trainer LoRA rows run at least 8% slower than the full ones on every card', () => {
    const est = Object.fromEntries(newsrcRows.map((r) => [r.id, r.estimated]));
    for (const card of ['h100', 'pro6000', 'a100'])
      expect(
        est[`ult-${card}-l31-8b-full`]! / est[`ult-${card}-l31-8b-lora`]!,
        card,
      ).toBeGreaterThan(1.08);
  });

  // The LoRA rows with PEFT's fp32 branch (no autocast) and the deterministic fill of its casts and dropout
  // (engines/hf/lora-path.ts): +122.1/+73.9/+90.1% -> +79.8/+47.9/+60.6%. Every row read again for the padding mask
  // its GPU test hands SDPA (the rows' sdpa_mask: the memory-efficient kernel over the whole square): full
  // +74.3/+48.7/+58.8% -> +32.1/+18.4/+26.1%, LoRA +79.8/+47.9/+60.6% -> +44.8/+21.0/+31.5%. That kernel timed at
  // half FlashAttention-2's rate (time/train-work.ts SDPA_MEM_EFF_ATTN_SHARE): full +5.1/-4.7/+1.7%, LoRA
  // +20.0/-0.5/+8.6%. Their LoRA adapters' matmuls timed in fp32 (time/adapter-path.ts fp32AdapterMatmuls): LoRA
  // +18.7/-0.7/+6.9%. The trainer's clip_grad_norm_ (max_norm 10.0, src/trainer/trainer.py optimizer_step) priced
  // (FrameworkProfile.gradClip): full +4.7/-5.0/+1.4%.
  it('the universal-llm-trainer rows: no further off than now', () => {
    const now: Record<string, number> = {
      'ult-h100-l31-8b-full': 0.057, // 0.052 before the recompute left out the head and loss
      'ult-pro6000-l31-8b-full': 0.05,
      'ult-a100-l31-8b-full': 0.024, // 0.018 before the recompute left out the head and loss
      'ult-h100-l31-8b-lora': 0.196, // 0.187 before the recompute left out the head and loss
      'ult-pro6000-l31-8b-lora': 0.007,
      'ult-a100-l31-8b-lora': 0.079, // 0.069 before the recompute left out the head and loss
    };
    for (const [id, e] of Object.entries(now))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(e);
  });
});

// ms-swift's packed 16K ZeRO-3 full fine-tune of Qwen2.5-7B with Liger on four A100 (its example script's header
// comment), scored before any model change: -21.2%, too slow; -21.4% once each ZeRO-3 reduce-scatter that
// overlap_comm false puts on the compute stream pays its fixed latency (593 a micro-batch). ms-swift packs with varlen
// FlashAttention, so attention runs per packed sample; the contract times causal attention over the whole 16K bin.
// The flash-attention-3 script's FA2 figure on four H20 (catalogs/gpus/h20.json), scored once the card had its entry:
// -42.0%, too slow (the linear layers alone at 76% of the H20's capped 148 TFLOPS).
describe("time model on ms-swift's example-script rows", () => {
  it('are scored out of sample, too slow and within a point of their first scores', () => {
    const swift = rows.filter((r) => SWIFT_EXAMPLE_ROW.test(r.id));
    expect(swift.map((r) => r.id).sort()).toEqual([
      'msswift-fa2-qwen2.5-7b-full-zero3-4xh20-16k',
      'msswift-liger-qwen2.5-7b-full-zero3-4xa100-16k',
    ]);
    const first: Record<string, number> = {
      'msswift-fa2-qwen2.5-7b-full-zero3-4xh20-16k': -0.43,
      'msswift-liger-qwen2.5-7b-full-zero3-4xa100-16k': -0.222,
    };
    for (const r of swift) {
      expect(r.inSample, r.id).toBe(false);
      expect(r.error, r.id).toBeLessThan(0);
      expect(r.error, r.id).toBeGreaterThanOrEqual(first[r.id]!);
    }
  });
});

// Two Gemma 3 GRPO notebooks with a transformers rollout, scored before any model change, both too fast: Unsloth's 1B on a
// T4 in float32 (estimated with fp16 weights, the unsloth profile running none in fp32) +70.3%, datawhalechina/self-llm's
// 4B on an A800 in bf16 +79.2%. With Gemma 3's eager decoder layer counted from transformers' code (its six norms and
// the sliding layers' per-step mask of 4.50.0 and 4.52.4; docs/time-model.md "Eager decoder layers counted by family")
// +13.3% and +7.3%; the 1B +10.7% with its policy trained at the generation batch's padded length (time/objective.ts
// policyTrainOptions); -9.6% and -13.9% with Unsloth's LoRA forward's measured Python at each decode step
// (scripts/measure/unsloth_lora_forward_host.py). datawhalechina/self-llm's Phi-3-mini LoRA notebook names no card
// and is carried unscored.
describe('time model on the Gemma 3 GRPO notebook rows', () => {
  it("are scored out of sample, within a point of their figures with Unsloth's LoRA forward priced", () => {
    const gemma = rows.filter((r) => GEMMA_GRPO_ROW.test(r.id));
    expect(gemma.map((r) => r.id).sort()).toEqual([
      'selfllm-grpo-gemma3-4b-a800-hf',
      'unsloth-grpo-gemma3-1b-t4-hf',
    ]);
    const now: Record<string, number> = {
      'selfllm-grpo-gemma3-4b-a800-hf': -0.139,
      'unsloth-grpo-gemma3-1b-t4-hf': -0.096,
    };
    for (const r of gemma) {
      expect(r.inSample, r.id).toBe(false);
      expect(r.error, r.id).toBeGreaterThan(now[r.id]! - 0.01);
      expect(r.error, r.id).toBeLessThanOrEqual(now[r.id]! + 0.01);
    }
    expect(rows.some((x) => x.id === 'selfllm-lora-phi3-mini-3090')).toBe(false);
  });
});

// The DeepSpeed ZeRO-3 offload rows. deepspeedai/DeepSpeed#3901's batch and checkpointing are not printed: Falcon-7B's
// remote code hands SDPA one key head against 71 query heads, which PyTorch 2.0's fused kernels refuse, so its math path
// materializes the scores (the rows' sdpa_backend), and 76 GB of saved softmax outputs rule out running without
// checkpointing on a 40 GB card. The no-offload base step is then within 10%; the offload row keeps a bar against
// regressions; the CPU optimizer step is priced from DeepSpeed's ZenFlow blog's measured step (hostStepBytesPerS), not
// from these rows.
describe('time model on the DeepSpeed ZeRO-3 parameter offload rows', () => {
  const err = Object.fromEntries(
    rows.filter((r) => DS_OFFLOAD_ROW.test(r.id)).map((r) => [r.id, r.error]),
  );
  it('holds the six scored rows, out of sample', () => {
    expect(Object.keys(err).sort()).toEqual([
      'ds3901-falcon7b-8xa100-40-fsdp',
      'ds3901-falcon7b-8xa100-40-zero3',
      'ds3901-falcon7b-8xa100-40-zero3-offload',
      'ds7474-qwen2.5-3b-zero2-optoff-2xa100-40-bound',
      'ds7474-qwen2.5-3b-zero2-optoff-2xa100-40-unbound',
      'openllama-65b-48xa100-zero3-offload',
    ]);
  });
  it('Open-Llama 65B and the Falcon base steps within 10%; the Falcon offload row no further off than +75%', () => {
    expect(Math.abs(err['openllama-65b-48xa100-zero3-offload']!)).toBeLessThanOrEqual(0.1);
    // The same harness's FSDP column, added after the math path was modelled (+209.2% at the first reading).
    expect(Math.abs(err['ds3901-falcon7b-8xa100-40-fsdp']!)).toBeLessThanOrEqual(0.1);
    expect(err['ds3901-falcon7b-8xa100-40-zero3-offload']!).toBeLessThanOrEqual(0.75);
    expect(Math.abs(err['ds3901-falcon7b-8xa100-40-zero3']!)).toBeLessThanOrEqual(0.1);
  });
  // deepspeedai/DeepSpeed#7474, scored before any model change at +5.6% (unbound) and -18.4% (bound: the model then timed
  // every host step unbound); with --bind_cores_to_rank read (TimeOptions.hostCoresBound) the bound row -7.2%.
  it("deepspeedai/DeepSpeed#7474's ZeRO-Offload steps within 10%, bound and unbound", () => {
    expect(Math.abs(err['ds7474-qwen2.5-3b-zero2-optoff-2xa100-40-unbound']!)).toBeLessThanOrEqual(
      0.1,
    );
    expect(Math.abs(err['ds7474-qwen2.5-3b-zero2-optoff-2xa100-40-bound']!)).toBeLessThanOrEqual(
      0.1,
    );
  });
});

// QwenLM/Qwen's README rows beside its Qwen-7B ones (e6f2a7a for Qwen-14B, e8e1596 for Qwen-1.8B and Qwen-72B; the same
// finetune.py, batch 1 x 8, samples padded to the length), TRL's GRPO QLoRA notebook (Qwen2-7B-Instruct on a Colab T4,
// transformers generate, 8 completions of at most 256 tokens) and PEFT's 2025 rsLoRA MetaMathQA run on an L40S (torch
// 2.7.1). Scored before any model change: Qwen-14B LoRA -5.4%, -7.0%, -6.1%, -6.3% (256 to 8,192 tokens), Q-LoRA +7.0%;
// Qwen-1.8B LoRA +14.5%, -1.6%, its ZeRO-3 full fine-tune on one GPU +17.1%; Qwen-72B LoRA over ZeRO-3 on four A100
// -16.6%, +5.3%, -5.0% (256, 2,048, 8,192), Q-LoRA +13.7%; PEFT rsLoRA -17.2%; the TRL T4 GRPO step +115.0% (the
// estimate 2.15x too fast; bf16 autocast on a T4 read, not modelled: docs/time-model.md "The Qwen table's other sizes,
// TRL's T4 GRPO notebook and an older PEFT run"). No model change followed. The 1.8B full fine-tune's 4,096- and
// 8,192-token cells, carried later and scored before any model change: -7.1% and -15.7% (the estimate too slow).
describe('time model on the Qwen table, TRL GRPO notebook and 2025 PEFT rows', () => {
  const err = Object.fromEntries(qwenTableTrlRows.map((r) => [r.id, r.error]));
  it('holds the sixteen rows, out of sample', () => {
    expect(qwenTableTrlRows).toHaveLength(16);
    expect(qwenTableTrlRows.every((r) => !r.inSample)).toBe(true);
  });

  // The 72B ZeRO-3 256-token row -14.8% -> -17.0% since the backward gathers again the weights the reuse window
  // released after the recompute (time/zero-collectives.ts backwardRegatherShares): the bar 17% -> 17.1%.
  it('the Qwen-14B rows within 8% (GPTQ 8.5%), the 72B ZeRO-3 rows within 17.1%, every Qwen table row within 21%', () => {
    for (const n of [256, 1024, 2048, 8192])
      expect(Math.abs(err[`qwen1-readme-14b-lora-a100-${n}`]!), String(n)).toBeLessThanOrEqual(
        0.08,
      );
    // 8% for the GPTQ row before the recompute left out the output layer and the loss (+7.0% -> +8.4%).
    expect(Math.abs(err['qwen1-readme-14b-qlora-gptq-a100-2048']!)).toBeLessThanOrEqual(0.085);
    for (const n of [256, 2048, 8192])
      expect(
        Math.abs(err[`qwen1-readme-72b-lora-zero3-4xa100-${n}`]!),
        String(n),
      ).toBeLessThanOrEqual(0.171);
    // 18% before the recompute left out the output layer and the loss (1.8B LoRA at 2,048: +14.5% -> +20.1%).
    for (const r of qwenTableTrlRows.filter((x) => x.id.startsWith('qwen1-readme-')))
      expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(0.21);
  });

  it('the rsLoRA row within 18%, the T4 GRPO step (bf16 autocast, emulated on the T4) within 12%', () => {
    expect(Math.abs(err['peft-mmqa-l32-3b-l40s-lora-r64-qv-rslora-2025']!)).toBeLessThanOrEqual(
      0.18,
    );
    expect(Math.abs(err['trl-nb-grpo-qlora-qwen2-7b-t4']!)).toBeLessThanOrEqual(0.12);
  });

  it('the sixteen together: median <= 8%, p90 <= 18%', () => {
    const s = summarizeThroughput('qwen-table-trl', qwenTableTrlRows);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.08);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.18);
  });

  it('the 72B ZeRO-3 LoRA cells at 512, 1,024 and 4,096 tokens: out of sample, within 24%, 512 and 4,096 within 5%', () => {
    const cell = Object.fromEntries(qwen72bZero3LaterCells.map((r) => [r.id, r]));
    expect(qwen72bZero3LaterCells).toHaveLength(3);
    expect(qwen72bZero3LaterCells.every((r) => !r.inSample && Number.isFinite(r.error))).toBe(true);
    for (const n of [512, 4096])
      expect(
        Math.abs(cell[`qwen1-readme-72b-lora-zero3-4xa100-${n}`]!.error),
        String(n),
      ).toBeLessThanOrEqual(0.05);
    expect(Math.abs(cell['qwen1-readme-72b-lora-zero3-4xa100-1024']!.error)).toBeLessThanOrEqual(
      0.24,
    );
  });
});

// The fine-tuning and RL rows from sources new to the set (COMMUNITY_FT_ROW), scored before any model change: Scicom's
// Qwen3-0.6B DDP throughput -35.5% (4 H200), -57.0% (4 H100), -45.2% (4 L40S), all too slow, and its Qwen3-1.7B full
// fine-tunes +11.9% (RTX 5090) and +47.9% (H100), too fast; TinyLlama's pretraining rate +7.0%; the RTX 3090 Unsloth
// QLoRA step -17.2% (its sequence an upper bound); open-r1's GRPO step -26.2% (-25.1% -> -25.3% once its ZeRO-2
// reduces run in series with backward, as its Accelerate-built config's unset overlap_comm has it). With Liger's
// output-layer gradient accumulation timed once, in the loss's forward (TrainWork.lossHeadGradBytes), the DDP rows
// -30.3%, -40.2%, -26.8% and TinyLlama +9.6% (docs/time-model.md "Packed DDP runs, TinyLlama's rate, an RTX 3090 QLoRA
// run and open-r1's GRPO step"); what is left on the DDP rows is read there as their per-document attention, which the contract times
// over whole packed rows. Liger's chunked output-layer GEMMs (kernels/liger.ts ligerChunkGemmSlowdown: 256-row chunks
// of Qwen3's 151,936-entry head on 4 H100) take the H100 row to -41.5%.
describe('time model on the new fine-tuning and RL rows', () => {
  const err = Object.fromEntries(communityFtRows.map((r) => [r.id, r.error]));
  it('holds the six rows, out of sample', () => {
    holdsOutOfSample(communityFtRows, err, [
      'openr1-251-grpo-qwen2.5-math-7b-8xh100-zero2',
      'scicom-q3-0.6b-ddp-4xh100',
      'scicom-q3-0.6b-ddp-4xh200',
      'scicom-q3-0.6b-ddp-4xl40s',
      'scicom-q3-1.7b-full-5090',
      'scicom-q3-1.7b-full-h100',
      'tinyllama-readme-1.1b-16xa100-40-fsdp',
      'verilog-unsloth-l3-8b-3090-qlora',
    ]);
  });

  it('the packed DDP rows no further off than with the Liger gradient timed once and its head chunked (-30.3%, -41.5%, -26.8%)', () => {
    const now: Record<string, number> = {
      'scicom-q3-0.6b-ddp-4xh200': -0.303,
      'scicom-q3-0.6b-ddp-4xh100': -0.415,
      'scicom-q3-0.6b-ddp-4xl40s': -0.268,
    };
    for (const [id, e] of Object.entries(now)) {
      expect(err[id]!, id).toBeGreaterThanOrEqual(e - 0.01);
      expect(err[id]!, id).toBeLessThanOrEqual(0);
    }
  });

  it('TinyLlama within 10%, the RTX 5090 and RTX 3090 rows within 18%, the GRPO step within 27%', () => {
    expect(Math.abs(err['tinyllama-readme-1.1b-16xa100-40-fsdp']!)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(err['scicom-q3-1.7b-full-5090']!)).toBeLessThanOrEqual(0.18);
    expect(Math.abs(err['verilog-unsloth-l3-8b-3090-qlora']!)).toBeLessThanOrEqual(0.18);
    expect(Math.abs(err['openr1-251-grpo-qwen2.5-math-7b-8xh100-zero2']!)).toBeLessThanOrEqual(
      0.27,
    );
    // 0.49 before the recompute left out the output layer and the loss (+47.7% -> +54.3%).
    expect(err['scicom-q3-1.7b-full-h100']!).toBeLessThanOrEqual(0.55);
  });

  it("times open-r1's Accelerate-built ZeRO-2 config with its gradient reduces in series with backward", () => {
    // recipes/accelerate_configs/zero2.yaml at huggingface/open-r1@db19392 sets no overlap_comm, and DeepSpeed 0.15.4
    // defaults it to `stage == 3` (runtime/zero/config.py overlap_comm_valid): false at stage 2.
    const openr1 = loadThroughputCases('throughput.json').find(
      (c) => c.id === 'openr1-251-grpo-qwen2.5-math-7b-8xh100-zero2',
    )!;
    expect(openr1.flags.zero).toBe(2);
    expect(openr1.deepspeed_overlap_comm).toBe(false);
  });
});

// xtuner's DeepSpeed ZeRO-3 full fine-tuning tables (XTUNER_ROW), scored before any model change: on one node within
// 17% (Llama 2 7B at 8k -4.1%, at 32k -11.2%; Llama 3 8B on 8 GPUs -2.1%, on 4 +16.5%), across nodes too fast (Llama 3
// 8B on 16 GPUs +26.8%, Mixtral-8x7B at 32k on 16 +56.4%, Llama 2 70B on 32 +61.3%), where the network between the
// nodes is not stated and the contract's default is used (docs/time-model.md "xtuner's ZeRO-3 tables, VectorLM's FSDP
// table and optimum-benchmark's QLoRA runs").
describe('time model on xtuner ZeRO-3 rows', () => {
  const err = Object.fromEntries(xtunerRows.map((r) => [r.id, r.error]));
  it('holds the seven rows, out of sample', () => {
    holdsOutOfSample(xtunerRows, err, [
      'xtuner-bench-llama2-70b-8k-32xa100-zero3',
      'xtuner-bench-llama2-7b-32k-8xa100-zero3',
      'xtuner-bench-llama2-7b-8k-8xa100-zero3',
      'xtuner-l3readme-8b-8k-16xa100-zero3',
      'xtuner-l3readme-8b-8k-4xa100-zero3',
      'xtuner-l3readme-8b-8k-8xa100-zero3',
      'xtuner-mixtral-8x7b-32k-16xa100-zero3',
    ]);
  });

  // 17% before the recompute left out the output layer and the loss (the 4 x A100 Llama 3 row +16.8% -> +18.6%).
  it('the one-node rows within 19%, the multi-node rows too fast by at most 62%', () => {
    for (const id of [
      'xtuner-bench-llama2-7b-8k-8xa100-zero3',
      'xtuner-bench-llama2-7b-32k-8xa100-zero3',
      'xtuner-l3readme-8b-8k-4xa100-zero3',
      'xtuner-l3readme-8b-8k-8xa100-zero3',
    ])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.19);
    for (const id of [
      'xtuner-l3readme-8b-8k-16xa100-zero3',
      'xtuner-mixtral-8x7b-32k-16xa100-zero3',
      'xtuner-bench-llama2-70b-8k-32xa100-zero3',
    ]) {
      expect(err[id]!, id).toBeGreaterThan(0);
      expect(err[id]!, id).toBeLessThanOrEqual(0.62);
    }
  });

  // 16.8% / 62.0% since the backward reuses the recompute's gathers (time/zero-collectives.ts backwardRegatherShare).
  // Median 18.6% since the recompute leaves out the output layer and the loss.
  it('the seven together: median <= 18.7%, p90 <= 62.1%', () => {
    const s = summarizeThroughput('xtuner', xtunerRows);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.187);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.621);
  });
});

// xtuner's Cohere and DeepSeek V2 README tables (XTUNER_SP_MOE_ROW), scored before any model change: Command R+ at
// 128k over sequence parallelism 32 and 16 on 64, 128 and 256 A100 +3.0%, +3.2%, +4.0%; DeepSeek V2 through the Hub's
// per-expert loop on 128 A100 +32.5%, +11.0% since the backward gathers again the experts the reuse window released
// (docs/time-model.md "ZeRO-3 over many nodes: xtuner's Cohere and DeepSeek V2 rows").
describe('time model on xtuner sequence-parallel and MoE ZeRO-3 rows', () => {
  const err = Object.fromEntries(xtunerSpMoeRows.map((r) => [r.id, r.error]));
  it('holds the four rows, out of sample', () => {
    holdsOutOfSample(xtunerSpMoeRows, err, [
      'xtuner-cohere104b-128k-128xa100-sp16-zero3',
      'xtuner-cohere104b-128k-256xa100-sp16-zero3',
      'xtuner-cohere104b-128k-64xa100-sp32-zero3',
      'xtuner-dsv2-hf-16k-128xa100-zero3',
    ]);
  });

  it('the sequence-parallel rows within 10%, the per-expert loop too fast by at most 12%', () => {
    for (const id of [
      'xtuner-cohere104b-128k-64xa100-sp32-zero3',
      'xtuner-cohere104b-128k-128xa100-sp16-zero3',
      'xtuner-cohere104b-128k-256xa100-sp16-zero3',
    ])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.1);
    expect(err['xtuner-dsv2-hf-16k-128xa100-zero3']!).toBeGreaterThan(0);
    expect(err['xtuner-dsv2-hf-16k-128xa100-zero3']!).toBeLessThanOrEqual(0.12);
  });
});

// xtuner's Llama 2 70B cells beside its 8k row (XTUNER_70B_SP_ROW): the same four nodes, network and ZeRO-3 config;
// at 32k under sequence parallelism 4 each rank holds the 8k row's 8,192 tokens and gathers the same weights a
// micro-batch, yet the run reads 300.9 tokens a GPU against the 8k row's 216.8 (docs/time-model.md "xtuner's Llama 2 70B
// sequence-parallel cells and the 8k row").
describe('time model on xtuner Llama 2 70B sequence-parallel rows', () => {
  const err = Object.fromEntries(xtuner70bSpRows.map((r) => [r.id, r.error]));
  it('holds the three rows, out of sample', () => {
    holdsOutOfSample(xtuner70bSpRows, err, [
      'xtuner-bench-llama2-70b-128k-32xa100-sp8-zero3',
      'xtuner-bench-llama2-70b-256k-32xa100-sp16-zero3',
      'xtuner-bench-llama2-70b-32k-32xa100-sp4-zero3',
    ]);
  });

  it('32k and 128k within 11%, 256k too fast by at most 32%; the 32k cell not faster in the estimate than the 8k row', () => {
    expect(Math.abs(err['xtuner-bench-llama2-70b-32k-32xa100-sp4-zero3']!)).toBeLessThanOrEqual(
      0.11,
    );
    expect(Math.abs(err['xtuner-bench-llama2-70b-128k-32xa100-sp8-zero3']!)).toBeLessThanOrEqual(
      0.11,
    );
    expect(err['xtuner-bench-llama2-70b-256k-32xa100-sp16-zero3']!).toBeGreaterThan(0);
    expect(err['xtuner-bench-llama2-70b-256k-32xa100-sp16-zero3']!).toBeLessThanOrEqual(0.32);
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    // Same tokens a rank and the same gathers, more attention and the all-to-alls: the estimate cannot read faster.
    expect(byId['xtuner-bench-llama2-70b-32k-32xa100-sp4-zero3']!.estimated).toBeLessThanOrEqual(
      byId['xtuner-bench-llama2-70b-8k-32xa100-zero3']!.estimated,
    );
  });
});

// VectorLM's FSDP table (VECTORLM_ROW), scored before any model change: Llama-3-8B full and LoRA fine-tuning on 1 and
// 4 A100 at 2,048 and 8,192 tokens, -14.5% to +5.2% (the one-GPU full rows the slowest, -12.8% and -14.5%).
describe('time model on VectorLM FSDP rows', () => {
  it('holds the six rows, out of sample', () => {
    expect(vectorlmRows.length).toBe(8);
    expect(vectorlmRows.every((r) => !r.inSample)).toBe(true);
  });

  // VectorLM's train_step calls FSDP's clip_grad_norm_ after every backward (vectorlm/trainer.py), priced since
  // (FrameworkProfile.gradClip): the slowest row -14.5% -> -14.6%. FSDP1's gradient division passes on four ranks
  // (time/fsdp-grad-divide.ts) moved the median 6.2% -> 6.3%.
  it('every row within 15%; the eight together: median <= 6.3%, p90 <= 14.7%', () => {
    for (const r of vectorlmRows) expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(0.15);
    const s = summarizeThroughput('vectorlm', vectorlmRows);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.063);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.147);
  });
});

// optimum-benchmark's fp4 QLoRA Llama-2-7B runs at 256 tokens (OPTBENCH_ROW), scored before any model change: the RTX
// 4090 rows too slow (-44.7%, -37.4%, -30.3% at batch 1, 2, 4), the A100 rows too fast (+6.2% at batch 4, +18.8% at 16)
// (docs/time-model.md, the same section).
describe('time model on optimum-benchmark QLoRA rows', () => {
  const err = Object.fromEntries(optbenchRows.map((r) => [r.id, r.error]));
  it('holds the five rows, out of sample', () => {
    holdsOutOfSample(optbenchRows, err, [
      'optbench-l2-7b-qlora-fp4-4090-b1',
      'optbench-l2-7b-qlora-fp4-4090-b2',
      'optbench-l2-7b-qlora-fp4-4090-b4',
      'optbench-l2-7b-qlora-fp4-a100-b16',
      'optbench-l2-7b-qlora-fp4-a100-b4',
    ]);
  });

  it('the RTX 4090 rows no further off than first scored, the A100 rows within 22%', () => {
    const first: Record<string, number> = {
      'optbench-l2-7b-qlora-fp4-4090-b1': -0.447,
      'optbench-l2-7b-qlora-fp4-4090-b2': -0.374,
      'optbench-l2-7b-qlora-fp4-4090-b4': -0.303,
    };
    for (const [id, e] of Object.entries(first)) {
      expect(err[id]!, id).toBeGreaterThanOrEqual(e - 0.005);
      expect(err[id]!, id).toBeLessThan(0);
    }
    for (const id of ['optbench-l2-7b-qlora-fp4-a100-b4', 'optbench-l2-7b-qlora-fp4-a100-b16'])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.22);
    const s = summarizeThroughput('optbench', optbenchRows);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.304);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.448);
  });
});

// TRL's GRPOTrainer on one RTX 4090 (COURSIA_ROW: jsboige/CoursIA's VRAM probe, QLoRA Qwen3-14B, 32 completions a
// step from transformers generate at caps of 96, 160 and 288 tokens, and 16 generations at 160) and philschmid's DPO
// notebook (PHILSCHMID_ROW: QLoRA Mistral-7B, batch 12 of 1,512-token pairs, one H100), scored before any model change:
// +35.5%, +45.5%, +25.6% and +111.6% (too fast; the probe's time holds the trainer's construction and warm-up over
// three steps), -15.7% (too slow; its padded length read at the truncation cap). Mini-R1's GRPO step and
// verl-project/verl#7412's are kept unscored (docs/time-model.md, the same section).
describe('time model on the CoursIA GRPO probe and philschmid rows', () => {
  const err = Object.fromEntries([...coursiaRows, ...philschmidRows].map((r) => [r.id, r.error]));
  it('holds the five scored rows, out of sample', () => {
    holdsOutOfSample([...coursiaRows, ...philschmidRows], err, [
      'coursia-probe-grpo-qwen3-14b-4090-g16-c160',
      'coursia-probe-grpo-qwen3-14b-4090-g8-c160',
      'coursia-probe-grpo-qwen3-14b-4090-g8-c288',
      'coursia-probe-grpo-qwen3-14b-4090-g8-c96',
      'philschmid-dpo-dolphin-mistral-7b-qlora-h100',
    ]);
  });

  it('the probe rows too fast, no further off than first scored; the DPO row within 16%', () => {
    const first: Record<string, number> = {
      'coursia-probe-grpo-qwen3-14b-4090-g8-c96': 0.355,
      'coursia-probe-grpo-qwen3-14b-4090-g8-c160': 0.455,
      'coursia-probe-grpo-qwen3-14b-4090-g8-c288': 0.256,
      'coursia-probe-grpo-qwen3-14b-4090-g16-c160': 1.116,
    };
    for (const [id, e] of Object.entries(first)) {
      expect(err[id]!, id).toBeGreaterThan(-0.05);
      expect(err[id]!, id).toBeLessThanOrEqual(e + 0.005);
    }
    expect(Math.abs(err['philschmid-dpo-dolphin-mistral-7b-qlora-h100']!)).toBeLessThanOrEqual(
      0.16,
    );
  });
});

// Lit-GPT's open_llama_3b under lightning-thunder's example harness (THUNDER_ROW: one and two A100-SXM4-40GB, pure
// bf16, SGD, batch 2 x 2,048, eager and Inductor, FSDP FULL_SHARD wrapped per block), a Mistral-7B QLoRA diagnostic on
// one A10 (A10_QLORA_ROW) and LLaMA-Factory's wiki QLoRA Llama-2-7B line on one A100-40GB (LF_WIKI_ROW), scored before
// any model change: Thunder +5.0%, -3.3% (one GPU), +13.7%, +6.1% (ZeRO-3); the A10 -47.0%, -46.2%, -45.3%, -42.8%,
// -44.7% (too slow: the GA10x power wall held the A10 to 35.8 of 125 TFLOPS), -22.8..-15.6% with the A10's measured
// bf16 matmul rate in the catalog (56 TFLOPS, chsasank/device-benchmarks, docs/time-model.md); LLaMA-Factory -10.0%,
// -7.0%, -4.2%, -12.4%, -31.4%, -13.0%. The SHARD_GRAD_OP rows (the litgpt engine runs FULL_SHARD only), the
// always_wrap_policy rows and the A10 fp16 row are kept unscored (why_not).
describe('time model on the Thunder Lit-GPT, A10 QLoRA and LLaMA-Factory wiki rows', () => {
  const err = Object.fromEntries(
    [...thunderRows, ...a10QloraRows, ...lfWikiRows].map((r) => [r.id, r.error]),
  );
  it('holds the fifteen scored rows, out of sample', () => {
    holdsOutOfSample([...thunderRows, ...a10QloraRows, ...lfWikiRows], err, [
      'dkmistral-a10-qlora-b4-s1024',
      'dkmistral-a10-qlora-b4-s1024-adamw',
      'dkmistral-a10-qlora-b4-s1024-r8',
      'dkmistral-a10-qlora-b4-s512',
      'dkmistral-a10-qlora-b8-s512',
      'lfwiki-l2-7b-qlora-fa2-a100-40-s1024',
      'lfwiki-l2-7b-qlora-fa2-a100-40-s16384',
      'lfwiki-l2-7b-qlora-fa2-a100-40-s2048',
      'lfwiki-l2-7b-qlora-fa2-a100-40-s32768',
      'lfwiki-l2-7b-qlora-fa2-a100-40-s4096',
      'lfwiki-l2-7b-qlora-fa2-a100-40-s8192',
      'thunder-litgpt-ol3b-2xa100-40-fsdp-zero3-block-eager',
      'thunder-litgpt-ol3b-2xa100-40-fsdp-zero3-block-inductor',
      'thunder-litgpt-ol3b-a100-40-eager',
      'thunder-litgpt-ol3b-a100-40-inductor',
    ]);
  });

  it('the Thunder rows within 14%, the LLaMA-Factory rows within 32%', () => {
    for (const r of thunderRows) expect(Math.abs(err[r.id]!), r.id).toBeLessThanOrEqual(0.14);
    for (const r of lfWikiRows) expect(Math.abs(err[r.id]!), r.id).toBeLessThanOrEqual(0.32);
    const s = summarizeThroughput('lfwiki', lfWikiRows);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.113);
  });

  it('the A10 rows still too slow, within 23% since the catalog carries the A10 matmul rate', () => {
    const first: Record<string, number> = {
      'dkmistral-a10-qlora-b4-s1024': -0.47,
      'dkmistral-a10-qlora-b4-s1024-adamw': -0.462,
      'dkmistral-a10-qlora-b4-s1024-r8': -0.453,
      'dkmistral-a10-qlora-b4-s512': -0.428,
      'dkmistral-a10-qlora-b8-s512': -0.447,
    };
    for (const [id, e] of Object.entries(first)) {
      expect(err[id]!, id).toBeGreaterThanOrEqual(e - 0.005);
      expect(err[id]!, id).toBeLessThan(0);
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.23);
    }
  });
});

// Unsloth's LoRA and QLoRA on one RTX 5090 and one H100 (SUROGATE_ROW: Surogate's speed page, its Unsloth columns; Qwen3,
// batch 2 x 2,048 packed, r 16 on every linear, 8-bit AdamW, offloaded checkpointing), prime-rl's SFT trainer
// (PRIMERL_ROW: FSDP2 + per-block compile + full AC, read with the torchtitan engine) and a TinyLlama LoRA harness
// (LORABENCH_ROW: batch 4 x 128 fp16 on one A100-40GB), scored before any model change: Surogate -13.8% to +14.5%
// (median 6.3%); prime-rl too fast, +3.8% to +108.8% (the B200 row, under flash-attn 2; its per-run result files on 8 B200
// +8.6% to +21.5%); llama3-lora-bench too fast,
// +180.0% to +220.5% and carried, not scored: its wall time holds the Trainer's setup over 63 short steps (its
// memory peaks are scored). docs/time-model.md, the same section.
describe('time model on the Surogate Unsloth, prime-rl and llama3-lora-bench rows', () => {
  const err = Object.fromEntries(
    [...surogateRows, ...primerlRows, ...lorabenchRows].map((r) => [r.id, r.error]),
  );
  it('holds the thirty-five scored rows, out of sample', () => {
    holdsOutOfSample([...surogateRows, ...primerlRows, ...lorabenchRows], err, [
      'primerl-rl-lora16-qwen3-0.6b-1xh100-s16384',
      'primerl-rl-lora16-qwen3-30b-a3b-4xh100-s16384',
      'primerl-rl-lora16-qwen3-30b-a3b-8xb200-s16384-fa2',
      'primerl-rl-lora16-qwen3-30b-a3b-8xb200-s16384-fa4',
      'primerl-rl-lora16-qwen3-30b-a3b-8xh100-s16384',
      'primerl-rl-lora16-qwen3-30b-a3b-8xh100-s65536',
      'primerl-rl-lora16-qwen3-30b-a3b-8xh200-s16384',
      'primerl-rl-lora16-qwen3-30b-a3b-8xh200-s65536',
      'primerl-rl-lora16-qwen3-4b-1xh100-s16384',
      'primerl-rl-lora16-qwen3-4b-8xh100-s16384',
      'primerl-rl-lora16-qwen3-4b-8xh100-s65536',
      'primerl-rl-lora16-qwen3-4b-8xh200-s16384',
      'primerl-rl-lora16-qwen3-4b-8xh200-s65536',
      'primerl-sft-qwen3-0.6b-1xa6000-s8192',
      'primerl-sft-qwen3-0.6b-1xh100-s16384',
      'primerl-sft-qwen3-0.6b-1xh100-s8192',
      'primerl-sft-qwen3-30b-a3b-8xb200-s16384-fa2',
      'primerl-sft-qwen3-30b-a3b-8xb200-s16384-fa4',
      'primerl-sft-qwen3-30b-a3b-8xh200-s16384',
      'primerl-sft-qwen3-4b-8xb200-s16384',
      'primerl-sft-qwen3-4b-8xb200-s65536',
      'primerl-sft-qwen3-4b-8xh100-s16384',
      'primerl-sft-qwen3-4b-8xh200-s16384',
      'surogate-unsloth-qwen3-0.6b-5090-lora',
      'surogate-unsloth-qwen3-0.6b-5090-qlora',
      'surogate-unsloth-qwen3-1.7b-5090-lora',
      'surogate-unsloth-qwen3-1.7b-5090-qlora',
      'surogate-unsloth-qwen3-14b-h100-lora',
      'surogate-unsloth-qwen3-14b-h100-qlora',
      'surogate-unsloth-qwen3-4b-5090-lora',
      'surogate-unsloth-qwen3-4b-5090-qlora',
      'surogate-unsloth-qwen3-8b-5090-lora',
      'surogate-unsloth-qwen3-8b-5090-qlora',
      'surogate-unsloth-qwen3-8b-h100-lora',
      'surogate-unsloth-qwen3-8b-h100-qlora',
    ]);
  });

  // prime-rl's RL trainer with LoRA 16 on Qwen3-30B-A3B (its per-run result files, PRIMERL_RL_LORA_ROW), scored before any
  // model change at +60.7% (8 H100) and +52.5% (8 H200): known misses, too fast, as the SFT H200 row of the same model.
  // +55.3% and +48.7% -> +46.9% and +42.6% with the alignment permute of their torchtitan pin (TimeOptions.alignPermute).
  it("prime-rl's Qwen3-30B-A3B LoRA RL rows read too fast, 38-55% (known misses)", () => {
    for (const id of PRIMERL_RL_LORA_ROWS) {
      expect(err[id]!, id).toBeGreaterThan(0.38);
      expect(err[id]!, id).toBeLessThan(0.55);
    }
  });

  // Scored before any model change: 4 H100 +58.4%, 8 B200 under flash-attn 2 +80.0% and under flash-attn 4 +32.3%;
  // +49.9%, +74.5%, +28.3% with the alignment permute. The 4-GPU row reads as its 8-GPU sibling; the B200 pair differ by
  // their attention kernel alone, which the estimate times alike.
  it("prime-rl's further Qwen3-30B-A3B LoRA RL files: 4 H100 as 8, the B200 pair apart by their attention kernel", () => {
    const { fourH100, b200Fa2, b200Fa4 } = PRIMERL_RL_LORA_MORE_ROWS;
    expect(Math.abs(err[fourH100]! - err[PRIMERL_RL_LORA_ROWS[0]]!)).toBeLessThan(0.05);
    expect(err[fourH100]!).toBeGreaterThan(0.4);
    expect(err[fourH100]!).toBeLessThan(0.55);
    expect(err[b200Fa2]!).toBeGreaterThan(0.65);
    expect(err[b200Fa2]!).toBeLessThan(0.85);
    expect(err[b200Fa4]!).toBeGreaterThan(0.2);
    expect(err[b200Fa4]!).toBeLessThan(0.36);
  });

  // Scored before any model change: the 65,536-token rows -13.3% and -15.5% (the estimate's attention, a quarter of the
  // tokens' square, outgrows the measured step: 5.7x the 16,384-token step where the estimate makes it 10.4x), the
  // dense Qwen3-4B rows +44.9% and +37.6% (known misses, as the same model's SFT rows at +21..+27%); +28.9% and +26.4%
  // with torchtitan's LoRA path beside each adapted linear, the long rows -14.4% and -16.3%.
  it("prime-rl's LoRA RL sweep: the long Qwen3-30B-A3B rows read slow, the dense Qwen3-4B rows too fast", () => {
    for (const id of PRIMERL_RL_LORA_SWEEP_ROWS.long) {
      expect(err[id]!, id).toBeGreaterThan(-0.25);
      expect(err[id]!, id).toBeLessThan(0);
    }
    for (const id of PRIMERL_RL_LORA_SWEEP_ROWS.dense) {
      expect(err[id]!, id).toBeGreaterThan(0.2);
      expect(err[id]!, id).toBeLessThan(0.55);
    }
  });

  // Scored before any model change: Qwen3-4B on one H100 +43.2% and Qwen3-0.6B +111.4% (the 0.6B's SFT row at the same
  // length reads -0.9%); Qwen3-4B at 65,536 tokens -18.8% (8 H100) and -19.7% (8 H200), as the Qwen3-30B-A3B rows there.
  // With torchtitan's LoRA path beside each adapted linear: +27.2%, +88.5%, -22.4%, -22.3%.
  it("prime-rl's dense LoRA RL rows: too fast at 16,384 tokens on one H100, slow at 65,536", () => {
    for (const id of PRIMERL_RL_LORA_DENSE_ROWS.oneGpu) {
      expect(err[id]!, id).toBeGreaterThan(0.2);
      expect(err[id]!, id).toBeLessThan(1.2);
    }
    for (const id of PRIMERL_RL_LORA_DENSE_ROWS.long) {
      expect(err[id]!, id).toBeGreaterThan(-0.3);
      expect(err[id]!, id).toBeLessThan(0);
    }
  });

  // The 0.6B rows +14.4% / +28.3% before the recompute left out the output layer and the loss: +22.6% / +37.4%.
  it('the Unsloth rows within 15% (median <= 6.5%), the 0.6B LoRA row within 23%, its QLoRA twin within 38%', () => {
    // The 0.6B QLoRA row's bitsandbytes host dispatch runs under a GPU pass the estimate already times too short (its
    // LoRA twin +14.5%): docs/time-model.md "bitsandbytes' host dispatch under the GPU's work".
    const wide = 'surogate-unsloth-qwen3-0.6b-5090-qlora';
    for (const r of surogateRows)
      expect(Math.abs(err[r.id]!), r.id).toBeLessThanOrEqual(
        r.id === wide ? 0.38 : r.id === 'surogate-unsloth-qwen3-0.6b-5090-lora' ? 0.23 : 0.15,
      );
    const s = summarizeThroughput('surogate', surogateRows);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.065);
  });

  it("QLoRA's cost over LoRA: each 4B-14B pair's step difference within 0.5-1.7x of the measured one", () => {
    // The pairs differ in the 4-bit weights alone, so the difference of their steps is what bitsandbytes' path costs:
    // measured 45, 138, 105, 225 ms a step. Its host dispatch runs under the GPU's work (train-step.ts
    // exposedBnb4Host); charged in series it read 2.2-6.3x the measured difference.
    const byId = Object.fromEntries(surogateRows.map((r) => [r.id, r]));
    const tokens = (id: string) => {
      const f = loadThroughputCases('throughput.json').find((c) => c.id === id)!.flags;
      return Number(f.batch) * Number(f['grad-accum'] ?? 1) * Number(f.seq);
    };
    for (const size of ['4b-5090', '8b-5090', '8b-h100', '14b-h100']) {
      const q = `surogate-unsloth-qwen3-${size}-qlora`;
      const l = `surogate-unsloth-qwen3-${size}-lora`;
      const n = tokens(q);
      expect(tokens(l)).toBe(n);
      const step = (id: string, v: 'measured' | 'estimated') => n / byId[id]![v];
      const ratio =
        (step(q, 'estimated') - step(l, 'estimated')) / (step(q, 'measured') - step(l, 'measured'));
      expect(ratio, size).toBeGreaterThanOrEqual(0.5);
      expect(ratio, size).toBeLessThanOrEqual(1.7);
    }
  });

  // The SFT loop's loss runs eager over the logits cast to fp32 (loss_compile 'off', TimeOptions.eagerLoss): the 0.6B
  // row at 16,384 tokens reads -0.9%, the rest still too fast.
  it('the prime-rl rows no further off than first scored, none more than 5% slow', () => {
    const first: Record<string, number> = {
      'primerl-sft-qwen3-0.6b-1xa6000-s8192': 0.313,
      'primerl-sft-qwen3-0.6b-1xh100-s16384': 0.038,
      'primerl-sft-qwen3-0.6b-1xh100-s8192': 0.458,
      // 0.558 first scored; 0.580 since torchtitan-profile recompute runs inside the FSDP unit (recomputeInUnit)
      'primerl-sft-qwen3-30b-a3b-8xh200-s16384': 0.58,
      // prime-rl's per-run result files (benchmarks/baselines), scored before any model change
      'primerl-sft-qwen3-30b-a3b-8xb200-s16384-fa2': 0.215,
      'primerl-sft-qwen3-30b-a3b-8xb200-s16384-fa4': 0.214,
      'primerl-sft-qwen3-4b-8xb200-s65536': 0.086,
      'primerl-sft-qwen3-4b-8xb200-s16384': 1.088,
      'primerl-sft-qwen3-4b-8xh100-s16384': 0.269,
      'primerl-sft-qwen3-4b-8xh200-s16384': 0.207,
    };
    for (const [id, e] of Object.entries(first)) {
      expect(err[id]!, id).toBeGreaterThan(-0.05);
      expect(err[id]!, id).toBeLessThanOrEqual(e + 0.005);
    }
  });
});

// NeMo AutoModel's performance summary (AUTOMODEL_ROW: mock data at full length, LoRA r 16 on every projection over 1 to 16
// H100 and a Llama 3.1 70B pretraining run over 64 H100 with CP 2), a DPO strategy sweep on two Kaggle T4s (DPODIST_ROW:
// TinyLlama LoRA under FSDP, ZeRO-2 with the optimizer offloaded and ZeRO-3 with parameters offloaded) and SkyPilot's gpt-oss-20b
// FSDP2 log (SKYPILOT_ROW, unscored), scored before any model change: AutoModel's rows read with the torchtitan profile within
// 12.1%, those read with the transformers profiles (hf on one GPU, hf-fsdp for Qwen2.5-32B) 17-22% slow; the DPO rows +48.9% (FSDP), -30.7% / -30.9% (ZeRO-2, timed at the 512-token bound) and +265%
// (ZeRO-3 parameter offload); an Unsloth gpt-oss-20b QLoRA run on one RTX 3090 (NEMONIM_ROW) +8.1%. docs/time-model.md, the
// same section.
describe('time model on the NeMo AutoModel, T4 DPO sweep, SkyPilot and RTX 3090 gpt-oss rows', () => {
  const err = Object.fromEntries([...automodelRows, ...dpodistRows].map((r) => [r.id, r.error]));
  it('holds the eleven scored rows, out of sample, the MoE, device-map and SkyPilot rows unscored', () => {
    holdsOutOfSample([...automodelRows, ...dpodistRows], err, [
      'automodel-lora-llama3.1-8b-1xh100',
      'automodel-lora-llama3.3-70b-16xh100-tp2',
      'automodel-lora-llama3.3-70b-8xh100-tp2',
      'automodel-lora-qwen2.5-32b-16xh100-tp2',
      'automodel-lora-qwen2.5-32b-8xh100-tp2',
      'automodel-lora-qwen2.5-7b-1xh100',
      'automodel-pretrain-llama3.1-70b-64xh100-cp2',
      'dpodist-t4x2-tinyllama-lora-fsdp',
      'dpodist-t4x2-tinyllama-lora-zero2',
      'dpodist-t4x2-tinyllama-lora-zero2-buckets',
      'dpodist-t4x2-tinyllama-lora-zero3-offload',
    ]);
    const all = loadThroughputCases('throughput.json').filter((c) => SKYPILOT_ROW.test(c.id));
    expect(all.map((c) => c.scorable)).toEqual([false]);
  });

  it('the AutoModel rows: the torchtitan-profile rows within 14.5%, the transformers-profile rows slow by at most 24.5%', () => {
    const titan = automodelRows.filter((r) => r.engine === 'torchtitan');
    expect(titan.map((r) => r.id).sort()).toEqual([
      'automodel-lora-llama3.3-70b-16xh100-tp2',
      'automodel-lora-llama3.3-70b-8xh100-tp2',
      'automodel-pretrain-llama3.1-70b-64xh100-cp2',
    ]);
    // 12.1% first scored; the 16-GPU LoRA row 14.1% since the recompute runs inside the FSDP unit (recomputeInUnit).
    for (const r of titan) expect(Math.abs(err[r.id]!), r.id).toBeLessThanOrEqual(0.145);
    // 22.5% before the Qwen2.5-32B LoRA rows' FSDP2 copies were priced (fsdp_version 2: time/fsdp2-copies.ts).
    for (const r of automodelRows.filter((x) => x.engine !== 'torchtitan')) {
      expect(err[r.id]!, r.id).toBeLessThan(0);
      expect(Math.abs(err[r.id]!), r.id).toBeLessThanOrEqual(0.245);
    }
  });

  // +11.7% since the recompute leaves out the output layer and the loss.
  it('the RTX 3090 gpt-oss-20b QLoRA row within 12% (+8.1% first scored)', () => {
    const e = nemonimRows.map((r) => r.error);
    expect(nemonimRows.map((r) => r.inSample)).toEqual([false]);
    expect(Math.abs(e[0]!)).toBeLessThanOrEqual(0.12);
  });

  // The FSDP row +48.9% first scored, +50.8% since non-reentrant checkpointing recomputes on backward's gather (one
  // gather a micro-batch fewer: time/fsdp-unshard-order.ts recomputeRegathers).
  it('the T4 DPO rows no further off than first scored, the FSDP row than its two gathers', () => {
    const first: Record<string, number> = {
      'dpodist-t4x2-tinyllama-lora-fsdp': 0.525, // 0.508 before the recompute left out the head and loss
      'dpodist-t4x2-tinyllama-lora-zero2': -0.307,
      'dpodist-t4x2-tinyllama-lora-zero2-buckets': -0.309,
      'dpodist-t4x2-tinyllama-lora-zero3-offload': 2.652,
    };
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// ATorch's Llama 2 example table (ATORCH_ROW): Llama-2-7B under FSDP FULL_SHARD with bf16 mixed precision, batch 4 of 4,096-token
// blocks, full checkpointing, flash-attention 2, full and LoRA r 16 on q,k,v,o, on 8 to 64 A100-80GB (800 Gb/s RDMA a node),
// tokens/s read back through the table's printed TFLOPs formula, scored before any model change: -6.7% to +1.9%, median 0.7%.
// Their memory peaks are carried in calibration/informative.json (16-20 GiB above the estimate at every size, not explained).
// Soup's ZeRO-3 comparison on eight PCIe-linked H100 (SOUP_ROW) is carried unscored (why_not). docs/time-model.md, the same
// section.
describe('time model on the ATorch FSDP rows and the Soup ZeRO-3 comparison', () => {
  const err = Object.fromEntries(atorchRows.map((r) => [r.id, r.error]));
  it('holds the eight ATorch rows, out of sample, and carries the three Soup rows unscored', () => {
    holdsOutOfSample(atorchRows, err, [
      'atorch-fsdp-l2-7b-full-16xa100',
      'atorch-fsdp-l2-7b-full-32xa100',
      'atorch-fsdp-l2-7b-full-64xa100',
      'atorch-fsdp-l2-7b-full-8xa100',
      'atorch-fsdp-l2-7b-lora-16xa100',
      'atorch-fsdp-l2-7b-lora-32xa100',
      'atorch-fsdp-l2-7b-lora-64xa100',
      'atorch-fsdp-l2-7b-lora-8xa100',
    ]);
    const soup = loadThroughputCases('throughput.json').filter((c) => SOUP_ROW.test(c.id));
    expect(soup.map((c) => c.scorable)).toEqual([false, false, false]);
  });

  it('every ATorch row within 7%; the eight together: median <= 1.5%', () => {
    for (const r of atorchRows) expect(Math.abs(err[r.id]!), r.id).toBeLessThanOrEqual(0.07);
    const s = summarizeThroughput('atorch', atorchRows);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.015);
  });
});

// whyNLP/tinyllama's README tables (WHYNLP_ROW): TinyLlama-1.1B and LLaMA-7B full training under the HF Trainer, 2,048-token packed
// blocks without checkpointing, scored before any model change: the five one-GPU rows within 6.5% (RTX 3090 -3.6%, RTX 4090
// -6.5%, RTX A6000 +3.0%, A100-80G +1.5%); over several GPUs the estimate is too fast, the more so over PCIe: eight A100 +3.9% and
// +5.4% (TinyLlama), +35.2% (LLaMA-7B), four and eight RTX A6000 under DDP +22.1% and +34.2%, eight RTX 3090 +77.7%, and the
// DeepSpeed ZeRO-2 rows +25.0% to +116.2%. docs/time-model.md "Plain DDP and ZeRO-2 over PCIe cards: whyNLP/tinyllama's tables".
describe('time model on the whyNLP/tinyllama README rows', () => {
  const err = Object.fromEntries(whynlpRows.map((r) => [r.id, r.error]));
  it('holds the fourteen rows, out of sample', () => {
    holdsOutOfSample(whynlpRows, err, [
      'whynlp-ds-llama7b-8xa100-b4',
      'whynlp-ds-tinyllama-4xa6000-b12',
      'whynlp-ds-tinyllama-4xa6000-b8',
      'whynlp-ds-tinyllama-8x3090-b4',
      'whynlp-llama7b-8xa100-b1',
      'whynlp-tinyllama-1x3090-b4',
      'whynlp-tinyllama-1x4090-b4',
      'whynlp-tinyllama-1xa100-b16',
      'whynlp-tinyllama-1xa6000-b8',
      'whynlp-tinyllama-4xa6000-b8',
      'whynlp-tinyllama-8x3090-b3',
      'whynlp-tinyllama-8xa100-b16',
      'whynlp-tinyllama-8xa100-b16-ga8',
      'whynlp-tinyllama-8xa6000-b8',
    ]);
  });

  // With the Trainer's foreach AdamW as run (the rows' adam_impl: transformers 4.35.2's default adamw_torch) and its
  // gradient-norm clip (FrameworkProfile.gradClip): RTX 3090 -3.6% -> -6.8%, RTX 4090 -6.5% -> -12.2%, RTX A6000
  // +3.0% -> -0.3%, A100 +1.5% -> +0.2%.
  it('the one-GPU rows within 13%', () => {
    const one = whynlpRows.filter((r) => /-1x/.test(r.id));
    expect(one).toHaveLength(4);
    for (const r of one) expect(Math.abs(err[r.id]!), r.id).toBeLessThanOrEqual(0.13);
  });

  it('the several-GPU rows too fast, no further off than first scored', () => {
    const first: Record<string, number> = {
      'whynlp-ds-llama7b-8xa100-b4': 1.162,
      'whynlp-ds-tinyllama-4xa6000-b12': 0.25,
      'whynlp-ds-tinyllama-4xa6000-b8': 0.378,
      'whynlp-ds-tinyllama-8x3090-b4': 0.528,
      'whynlp-llama7b-8xa100-b1': 0.352,
      'whynlp-tinyllama-4xa6000-b8': 0.221,
      'whynlp-tinyllama-8x3090-b3': 0.777,
      'whynlp-tinyllama-8xa100-b16': 0.054,
      'whynlp-tinyllama-8xa100-b16-ga8': 0.039,
      'whynlp-tinyllama-8xa6000-b8': 0.342,
    };
    for (const [id, e] of Object.entries(first)) {
      expect(err[id]!, id).toBeGreaterThan(-0.05);
      expect(err[id]!, id).toBeLessThanOrEqual(e + 0.005);
    }
  });
});

// Unsloth's gpt-oss notebooks (UNSLOTHNB_ROW), fms-acceleration's Mixtral FSDP baseline (FMSMOE_ROW) and Unsloth's KTO example
// (UNSLOTHKTO_ROW), scored before any model change: Granite-3.0 3B-A800M full fine-tunes on 1, 2 and 4 A100 -3.8%, +0.9%, +4.9%
// (transformers 4.48's per-expert loop: 4.33 s without it on one GPU against 18.3 s measured), the T4 20B QLoRA SFT -53.1% (the expert loop's small GEMMs; 16.9 s without
// it against 17.1 s measured), the T4 4-bit 2048-game GRPO +22.3%, the eight-A100 Mixtral full fine-tune +62.1%, the KTO row
// +60.6%, +15.1% with KTO's KL forwards (ObjectiveProfile.klForward). docs/time-model.md "Unsloth's gpt-oss notebooks, a Mixtral
// FSDP baseline and KTO's KL passes".
describe('time model on the Unsloth gpt-oss notebooks, the fms-acceleration Mixtral baseline and the KTO example', () => {
  const mine = [...unslothnbRows, ...fmsmoeRows, ...unslothktoRows];
  const err = Object.fromEntries(mine.map((r) => [r.id, r.error]));
  it('holds the seven scored rows, out of sample, and carries the 120B A100 row unscored', () => {
    holdsOutOfSample(mine, err, [
      'fmsmoe-granite3-3b-a800m-full-1xa100',
      'fmsmoe-granite3-3b-a800m-full-2xa100',
      'fmsmoe-granite3-3b-a800m-full-4xa100',
      'fmsmoe-mixtral8x7b-full-8xa100-fsdp',
      'unslothkto-gemma2-9b-4090-qlora',
      'unslothnb-gptoss-2048-20b-t4-qlora',
      'unslothnb-gptoss-sft-20b-t4-qlora',
    ]);
    const all = loadThroughputCases('throughput.json').filter((c) => UNSLOTHNB_ROW.test(c.id));
    expect(all.filter((c) => c.scorable === false).map((c) => c.id)).toEqual([
      'unslothnb-gptoss-sft-120b-a100-qlora',
    ]);
  });

  // 20% before the recompute left out the output layer and the loss (+18.8% -> +20.5%).
  it('the KTO row within 21% with its KL forwards (+60.6% without them)', () => {
    expect(Math.abs(err['unslothkto-gemma2-9b-4090-qlora']!)).toBeLessThanOrEqual(0.21);
  });

  it('the Granite-3.0 3B-A800M full fine-tunes on 1, 2 and 4 A100 within 6% (-3.8%, +0.9%, +4.9% first scored)', () => {
    for (const g of [1, 2, 4]) {
      const id = `fmsmoe-granite3-3b-a800m-full-${g}xa100`;
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.06);
    }
  });

  it("the Mixtral FSDP row within 48% with the forward's gathers behind the loop's syncs (+62.1% without them)", () => {
    expect(err['fmsmoe-mixtral8x7b-full-8xa100-fsdp']!).toBeGreaterThan(0);
    expect(err['fmsmoe-mixtral8x7b-full-8xa100-fsdp']!).toBeLessThanOrEqual(0.48);
  });

  it('the MoE rows no further off than first scored', () => {
    const first: Record<string, number> = {
      'fmsmoe-mixtral8x7b-full-8xa100-fsdp': 0.621,
      'unslothnb-gptoss-2048-20b-t4-qlora': 0.223,
      'unslothnb-gptoss-sft-20b-t4-qlora': -0.531,
    };
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// WYR186/RLVR's GRPO runs (RLVR_ROW) and JonOlsenCa/LLM_fine-tuning's DPO log (OLSENDPO_ROW), scored before any model change:
// the 0.5B full GRPO +76.0%, the 7B and 7B-Instruct LoRA GRPO +94.9% and +98.6%, the DPO row +19.8%. With torch.autocast's
// per-step casts in the trainer's generate over fp32 weights (time/objective.ts autocastDecodeOps) the 0.5B row is +36.6%;
// the LoRA rows keep bf16 weights and do not move. docs/time-model.md "TRL's transformers generate on Colab A100s, a
// LLaMA-Factory DPO log".
describe('time model on the RLVR GRPO runs and the LLaMA-Factory DPO log', () => {
  const mine = [...rlvrRows, ...olsendpoRows];
  const err = Object.fromEntries(mine.map((r) => [r.id, r.error]));
  it('holds the four scored rows, out of sample', () => {
    holdsOutOfSample(mine, err, [
      'olsendpo-qwen2.5-7b-lora-r256-a6000',
      'rlvr-grpo-qwen2.5-0.5b-instruct-full-a100-c1280',
      'rlvr-grpo-qwen2.5-7b-instruct-lora-a100-c1536',
      'rlvr-grpo-qwen2.5-7b-lora-a100-c1280',
    ]);
  });

  it('the fp32-weight rollout within 40% with the autocast casts of each decode step (+76.0% without them)', () => {
    expect(err['rlvr-grpo-qwen2.5-0.5b-instruct-full-a100-c1280']!).toBeGreaterThan(0);
    expect(err['rlvr-grpo-qwen2.5-0.5b-instruct-full-a100-c1280']!).toBeLessThanOrEqual(0.4);
  });

  it('no row further off than first scored', () => {
    const first: Record<string, number> = {
      'olsendpo-qwen2.5-7b-lora-r256-a6000': 0.215, // 0.198 before the recompute left out the head and loss
      'rlvr-grpo-qwen2.5-0.5b-instruct-full-a100-c1280': 0.76,
      'rlvr-grpo-qwen2.5-7b-instruct-lora-a100-c1536': 0.986,
      'rlvr-grpo-qwen2.5-7b-lora-a100-c1280': 0.949,
    };
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// yehchunhung/qwen3-moe-fast-sft's Qwen3-30B-A3B baselines on one B200 node (QWEN3FASTSFT_ROW), scored before any model change:
// ZeRO-3 with every expert hooked +17.6%, with the MoE block as one leaf (stage3_module_granularity_threshold) -3.9%, FSDP
// +247.1%; read again with SDPA's padding mask (TRL pads each micro-batch): +16.2%, -5.1%, +103.8%. The FSDP run set
// forward_prefetch, so its forward's gathers are not held behind the loop. docs/time-model.md "Qwen3-30B-A3B's experts
// hooked and as one leaf on one B200 node, and FSDP's forward gathers behind the loop".
describe('time model on the qwen3-moe-fast-sft baselines', () => {
  const err = Object.fromEntries(qwen3fastsftRows.map((r) => [r.id, r.error]));
  it('holds the three scored rows, out of sample', () => {
    holdsOutOfSample(qwen3fastsftRows, err, [
      'qwen3fastsft-qwen3-30b-a3b-8xb200-fsdp',
      'qwen3fastsft-qwen3-30b-a3b-8xb200-zero3-hooked',
      'qwen3fastsft-qwen3-30b-a3b-8xb200-zero3-leaf',
    ]);
  });

  it('the hooked and the leaf ZeRO-3 steps within 20% on one node (318 s and 84 s measured)', () => {
    expect(Math.abs(err['qwen3fastsft-qwen3-30b-a3b-8xb200-zero3-hooked']!)).toBeLessThanOrEqual(
      0.2,
    );
    expect(Math.abs(err['qwen3fastsft-qwen3-30b-a3b-8xb200-zero3-leaf']!)).toBeLessThanOrEqual(0.2);
  });

  it('no row further off than first read', () => {
    const first: Record<string, number> = {
      'qwen3fastsft-qwen3-30b-a3b-8xb200-fsdp': 1.038,
      'qwen3fastsft-qwen3-30b-a3b-8xb200-zero3-hooked': 0.162,
      'qwen3fastsft-qwen3-30b-a3b-8xb200-zero3-leaf': -0.051,
    };
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// NVIDIA/TransformerEngine's te_llama HF baselines (TE_HF_ROW) and MakazhanAlpamys/Soup#378's four arms (SOUP378_ROW), scored
// before any model change: Llama 2 7B -3.8%, Llama 3 8B -5.6%; Soup's SDPA +24.1%, FlashAttention 2 +21.0%, Liger +43.0%,
// FlashAttention 2 + Liger +39.3% (too fast: an 80-step train_runtime with its start-up inside, and Liger measured at +5.1%
// over SDPA where the estimate gives +21%). docs/time-model.md "Transformer Engine's HF baselines and Soup's attention and
// Liger arms" and "Known misses".
describe("time model on Transformer Engine's HF baselines and Soup's attention and Liger arms", () => {
  const mine = [...teHfRows, ...soup378Rows];
  const err = Object.fromEntries(mine.map((r) => [r.id, r.error]));
  it('holds the six rows, out of sample', () => {
    holdsOutOfSample(mine, err, [
      'soup378-h100-l31-8b-lora-r16-fa2',
      'soup378-h100-l31-8b-lora-r16-fa2-liger',
      'soup378-h100-l31-8b-lora-r16-liger',
      'soup378-h100-l31-8b-lora-r16-sdpa',
      'te-hf-llama2-7b-full-bf16-h100',
      'te-hf-llama3-8b-full-bf16-h100',
    ]);
  });

  it('the two HF full fine-tunes within 6%', () => {
    for (const r of teHfRows) expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(0.06);
  });

  it('the Soup arms too fast, no further off than first scored', () => {
    const first: Record<string, number> = {
      'soup378-h100-l31-8b-lora-r16-sdpa': 0.241,
      'soup378-h100-l31-8b-lora-r16-fa2': 0.21,
      'soup378-h100-l31-8b-lora-r16-liger': 0.43,
      'soup378-h100-l31-8b-lora-r16-fa2-liger': 0.393,
    };
    for (const [id, e] of Object.entries(first)) {
      expect(err[id]!, id).toBeGreaterThan(-0.05);
      expect(err[id]!, id).toBeLessThanOrEqual(e + 0.005);
    }
  });
});

// TRL's sft_nemotron_3 notebook (TRLNB_ROW), scored before any model change: -10.6% (Nemotron-3-Nano-30B-A3B bf16 LoRA r 8,
// eager attention, no checkpointing, 4 x 128 tokens a step on one A100 80GB).
describe("time model on TRL's Nemotron 3 SFT notebook", () => {
  it('holds its row out of sample, within 12%', () => {
    const err = Object.fromEntries(trlnbRows.map((r) => [r.id, r.error]));
    holdsOutOfSample(trlnbRows, err, ['trlnb-sft-nemotron3nano-30b-a3b-lora-a100']);
    for (const r of trlnbRows) expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(0.12);
  });
});

// The Transformers v5 baselines of NVIDIA's NeMo AutoModel post (NEMOAMBLOG_ROW: FSDP2 over 8 H100, batch 1 x 4,096, v5's
// grouped_mm experts), scored before any model change: Qwen3-30B-A3B +75.3%, Nemotron 3 Nano 30B A3B +16.2%; +72.0% and +15.1%
// with the grouped experts' routed-row traffic (time/grouped-mm.ts groupedRowBytes). docs/time-model.md
// "Transformers v5's MoE baselines in NVIDIA's NeMo AutoModel post" and "Known misses".
describe("time model on the Transformers v5 MoE baselines of NVIDIA's NeMo AutoModel post", () => {
  const err = Object.fromEntries(nemoamblogRows.map((r) => [r.id, r.error]));
  it('holds the two rows, out of sample', () => {
    holdsOutOfSample(nemoamblogRows, err, [
      'nemoamblog-v5-nemotron3-nano-30b-a3b-8xh100-fsdp2',
      'nemoamblog-v5-qwen3-30b-a3b-8xh100-fsdp2',
    ]);
  });

  // Transformers v5 checkpoints non-reentrant (modeling_utils.py `{"use_reentrant": False}` in the 5.0.0 wheel), so
  // FSDP2 recomputes on backward's gather: two gathers a micro-batch, not three (time/fsdp-unshard-order.ts
  // recomputeRegathers), +39.6% -> +77.7% and -7.1% -> +19.4%.
  it('no row further off than with two gathers a micro-batch', () => {
    const twoGathers: Record<string, number> = {
      'nemoamblog-v5-qwen3-30b-a3b-8xh100-fsdp2': 0.777,
      'nemoamblog-v5-nemotron3-nano-30b-a3b-8xh100-fsdp2': 0.194,
    };
    for (const [id, e] of Object.entries(twoGathers))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it("keeps the grouped experts' routed-row traffic: Qwen3 further off than Nano", () => {
    expect(err['nemoamblog-v5-qwen3-30b-a3b-8xh100-fsdp2']!).toBeGreaterThan(
      err['nemoamblog-v5-nemotron3-nano-30b-a3b-8xh100-fsdp2']!,
    );
  });
});

// FlagPerf's DeepSpeed ZeRO-3 Llama-2-7B case on one DGX A800 (FLAGPERF_ROW), scored before any model change: +12.9%,
// +10.5%, +9.1%; the same case on one node of 8 H800 SXM5 (the H100 SXM5 with NVLink at 400 GB/s), scored before any
// model change: +16.5%. The Hugging Face blog's Llama 2 70B FSDP fine-tune (HFBLOGFSDP_ROW: two A100 nodes over EFA,
// ~13.5 hours for 500 steps of 16 x 2,048 tokens) is carried, not scored: its figure is the whole run (load,
// evaluations, saves) over an unstated network path, +663.6% when read as a step. docs/time-model.md "A Llama 2 70B FSDP fine-tune over EFA and
// FlagPerf's DeepSpeed ZeRO-3 Llama-2-7B case".
describe("time model on the HF blog's Llama 2 70B FSDP run and FlagPerf's DeepSpeed ZeRO-3 case", () => {
  const mine = [...hfblogFsdpRows, ...flagperfRows];
  const err = Object.fromEntries(mine.map((r) => [r.id, r.error]));
  it('holds the four FlagPerf rows, out of sample; the 70B run is carried with its reason', () => {
    holdsOutOfSample(mine, err, [
      'flagperf-l2-7b-ds-zero3-8xa800',
      'flagperf-l2-7b-ds-zero3-8xa800-s2048-b3',
      'flagperf-l2-7b-ds-zero3-8xa800-s2048-b3-ga64',
      'flagperf-l2-7b-ds-zero3-8xh800',
    ]);
    const blog = loadThroughputCases('throughput.json').find(
      (c) => c.id === 'hfblog-fsdp-llama2-70b-16xa100-efa',
    )!;
    expect(blog.scorable).toBe(false);
    expect(blog.why_not).toMatch(/whole run/);
  });

  it("FlagPerf's three A800 rows within 14%, the H800 row within 17%", () => {
    for (const r of flagperfRows)
      expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(r.id.endsWith('-8xh800') ? 0.17 : 0.14);
  });

  it('reads the H800 row on the H800 SXM5 entry: the H100 SXM5 rates, NVLink at 400 GB/s', () => {
    const h800 = loadThroughputCases('throughput.json').find(
      (c) => c.id === 'flagperf-l2-7b-ds-zero3-8xh800',
    )!;
    const gpu = findGpu(String(h800.flags.gpu))!;
    const h100 = findGpu('h100-sxm')!;
    expect(gpu.interconnect.nvlinkGBps).toBe(400);
    expect(gpu.tflops).toEqual(h100.tflops);
    expect(gpu.memoryBandwidthGBps).toBe(h100.memoryBandwidthGBps);
  });

  it('no row further off than first scored', () => {
    const first: Record<string, number> = {
      'flagperf-l2-7b-ds-zero3-8xa800': 0.129,
      'flagperf-l2-7b-ds-zero3-8xa800-s2048-b3': 0.105,
      'flagperf-l2-7b-ds-zero3-8xa800-s2048-b3-ga64': 0.091,
      'flagperf-l2-7b-ds-zero3-8xh800': 0.165,
    };
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// The HF cookbook's GRPO notebook (COOKBOOKGRPO_ROW: Qwen2-0.5B-Instruct LoRA r 8 on q and v, transformers generate every
// micro-batch on a Colab A100, TRL 0.14.0 and the main of 2025-01-28) and Hands-On LLMs' chapter 12 DPO (HANDSONLLM_ROW:
// TinyLlama QLoRA r 64 on a Colab T4, TRL 0.9.4), scored before any model change: +17.1%, +39.1%, -35.9%. With the
// DynamicCache's per-step copy (FrameworkProfile.kvAppendCopies) none moves: the rollouts are bound by the host's dispatch.
// docs/time-model.md "The HF cookbook's GRPO notebook, Hands-On LLMs' T4 DPO and transformers' DynamicCache copy".
describe("time model on the HF cookbook's GRPO runs and Hands-On LLMs' T4 DPO", () => {
  const err = Object.fromEntries(cookbookHandsOnRows.map((r) => [r.id, r.error]));
  it('holds the three scored rows, out of sample', () => {
    holdsOutOfSample(cookbookHandsOnRows, err, [
      'cookbook-grpo-qwen2-0.5b-lora-a100-c32-b8',
      'cookbook-grpo-qwen2-0.5b-lora-a100-c64',
      'handsonllm-ch12-dpo-tinyllama-qlora-t4',
    ]);
  });

  it('no row further off than first scored', () => {
    const first: Record<string, number> = {
      'cookbook-grpo-qwen2-0.5b-lora-a100-c64': 0.171,
      'cookbook-grpo-qwen2-0.5b-lora-a100-c32-b8': 0.391,
      'handsonllm-ch12-dpo-tinyllama-qlora-t4': -0.359,
    };
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// torchtitan PR logs and a packed single-H100 trainer (TTPR_ROW), scored before any model change (first figures below;
// median 4.6%, p90 14.8%): torchtitan's Qwen3-32B over FSDP 8 (eager and compiled), FSDP 16 and FSDP x TP 4/8 on 8-64
// H100 96GB (-0.8..-14.8%), Llama 3 8B with and without the chunked loss (-0.0%, +1.3%), the SDPA arm on an A100 80GB
// (+25.5%, its rank count inferred) and FlashSamplePack's packed Qwen2.5-7B full fine-tune on one H100 (-8.6%).
// docs/time-model.md "torchtitan PR logs and a packed single-H100 trainer".
describe('time model on the torchtitan PR logs and the FlashSamplePack run', () => {
  const err = Object.fromEntries(ttprRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'tt1690-qwen3-32b-fsdp8-lbs2-compile': -0.148,
    'tt1690-qwen3-32b-fsdp8-lbs1': -0.031,
    'tt1690-qwen3-32b-fsdp8-lbs2': -0.088,
    'tt1690-qwen3-32b-fsdp16-lbs4': -0.008,
    'tt1690-qwen3-32b-fsdp8-tp4-lbs16': -0.014,
    'tt1690-qwen3-32b-fsdp4-tp8-lbs16': -0.052,
    'tt1690-qwen3-32b-fsdp4-tp8-lbs32': -0.051,
    'tt1690-qwen3-32b-fsdp8-tp8-lbs32': -0.041,
    'tt996-llama3-8b-fsdp8-baseline': -0.0,
    'tt996-llama3-8b-fsdp8-chunked-ce': 0.013,
    'tt887-llama3-8b-a100-sdpa': 0.255,
    'flashsamplepack-qwen2.5-7b-full-h100-packed-fa2': -0.086,
  };
  it('holds the twelve rows, out of sample', () => {
    holdsOutOfSample(ttprRows, err, Object.keys(first).sort());
  });

  // FSDP2's copy-outs and reduce-scatter copy-in on the compute stream (time/fsdp2-copies.ts, torchtitan's fully_shard)
  // moved the FSDP-only rows slower, by what they move per micro-batch: the errors they read since.
  const withFsdp2Copies: Record<string, number> = {
    'tt1690-qwen3-32b-fsdp8-lbs2-compile': -0.18,
    'tt1690-qwen3-32b-fsdp8-lbs1': -0.092,
    'tt1690-qwen3-32b-fsdp8-lbs2': -0.12,
    'tt1690-qwen3-32b-fsdp16-lbs4': -0.025,
    'tt996-llama3-8b-fsdp8-baseline': -0.04,
    'tt996-llama3-8b-fsdp8-chunked-ce': -0.039,
  };
  // Liger's output layer run in 512-row chunks (kernels/liger.ts ligerChunkGemmSlowdown) moved FlashSamplePack's
  // Liger run slower: the error it reads since.
  const withLigerChunks: Record<string, number> = {
    'flashsamplepack-qwen2.5-7b-full-h100-packed-fa2': -0.099,
  };
  it('median |error| <= 6%, p90 <= 18.5% (16% before FSDP2 copies, 18% before torchtitan clipped)', () => {
    const s = summarizeThroughput('training', ttprRows);
    expect(s.count).toBe(12);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.06);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.185);
  });

  // FlashSamplePack's TRL SFTTrainer clips at max_grad_norm 1.0 every step (FrameworkProfile.gradClip), on top of
  // Liger's chunked output layer, and torchtitan's trainer calls clip_grad_norm_ every step (engines/torchtitan/
  // memory.ts gradClip): the errors they read with it.
  const withGradClip: Record<string, number> = {
    'flashsamplepack-qwen2.5-7b-full-h100-packed-fa2': -0.12,
    'tt1690-qwen3-32b-fsdp8-lbs2-compile': -0.184,
    'tt1690-qwen3-32b-fsdp8-lbs1': -0.1,
    'tt1690-qwen3-32b-fsdp8-lbs2': -0.123,
    'tt1690-qwen3-32b-fsdp16-lbs4': -0.026,
    'tt996-llama3-8b-fsdp8-baseline': -0.044,
    'tt996-llama3-8b-fsdp8-chunked-ce': -0.043,
  };
  it('no row further off than first scored, or than read with FSDP2 copies, Liger chunks or the gradient clip', () => {
    for (const [id, e] of Object.entries(first)) {
      const since = Math.max(
        Math.abs(e),
        Math.abs(withFsdp2Copies[id] ?? 0),
        Math.abs(withLigerChunks[id] ?? 0),
        Math.abs(withGradClip[id] ?? 0),
      );
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(since + 0.005);
    }
  });
});

// Unsloth GRPO notebook runs saved by users (NBRERUN_ROW), scored before any model change (no model change followed): the
// T4 Qwen2.5-3B runs -9.2..+4.5% (four with the notebook's configuration measured 21.6-24.2 s against one 23.7 s
// estimate), the H20 run +2.4%, the RTX 3090 medical run -15.4%, Gemma 3 1B +4.4%, Llama 3.1 8B -1.9%. docs/time-model.md "Unsloth GRPO
// notebook runs saved by users".
describe('time model on Unsloth GRPO notebook runs saved by users', () => {
  const err = Object.fromEntries(nbrerunRows.map((r) => [r.id, r.error]));
  it('holds the twelve scored rows, out of sample', () => {
    holdsOutOfSample(nbrerunRows, err, [
      'feeyan-grpo-qwen2.5-3b-t4-c400',
      'gianfrancopuca-grpo-qwen2.5-3b-t4',
      'holazzer-grpo-gemma3-1b-t4-hf',
      'holazzer-grpo-qwen2.5-3b-t4-ga4',
      'matthewchung74-grpo-qwen2.5-3b-3090-medical',
      'micic-grpo-qwen2.5-3b-t4',
      'newsteinwell-grpo-qwen2.5-3b-h20',
      'qiuzhanghua-grpo-llama3.1-8b-t4',
      'vidya-grpo-qwen2.5-3b-t4',
      'xenonaesir-grpo-qwen2.5-3b-t4-g12-ga4',
      'xun3-grpo-qwen2.5-3b-t4-a',
      'xun3-grpo-qwen2.5-3b-t4-b',
    ]);
  });

  // Median 5% before the recompute left out the output layer and the loss.
  it('median |error| <= 5.3% and every row within 16%', () => {
    const abs = Object.values(err)
      .map((e) => Math.abs(e))
      .sort((a, b) => a - b);
    expect(abs[Math.floor(abs.length / 2)]!).toBeLessThanOrEqual(0.053);
    for (const [id, e] of Object.entries(err)) expect(Math.abs(e), id).toBeLessThanOrEqual(0.16);
  });
});

// huggingface/open-r1#100 (OPENR1GEN_ROW): open-r1's README GRPO command of 2025-01-29 (DeepSeek-R1-Distill-Qwen-7B, full,
// DeepSpeed ZeRO-3 on 8 H100, one prompt of 8 completions a micro-step, 16 micro-steps, TRL main of that day generating
// with transformers generate in every micro-step against a ZeRO-3 reference), 119 s a step reported; scored before any
// model change: -4.2%. docs/time-model.md "open-r1's README GRPO command on 8 H100".
describe("time model on open-r1's README GRPO command on 8 H100", () => {
  const err = Object.fromEntries(openr1genRows.map((r) => [r.id, r.error]));
  it('holds the scored row, out of sample', () => {
    holdsOutOfSample(openr1genRows, err, ['openr1-100-grpo-r1distill-qwen-7b-8xh100-zero3-hfgen']);
  });

  // 0.042 + 0.005 before the loss's logit traffic was counted forward and backward apart (time/loss-bytes.ts: 22 B a
  // logit in forward, 26 in backward, where 16 and 32 were taken): -4.65% -> -4.72%.
  // 0.042 + 0.006 before the eager forward's elementwise passes were priced in each prefill of the micro-steps' generate
  // (time/eager-prefill-passes.ts): -4.72% -> -4.80%.
  it('no further off than first scored', () => {
    expect(
      Math.abs(err['openr1-100-grpo-r1distill-qwen-7b-8xh100-zero3-hfgen']!),
    ).toBeLessThanOrEqual(0.042 + 0.007);
  });
});

// CP_ROW: pytorch/torchtitan#929's compiled Llama 3 8B over FSDP2 on 8 A100 (+17.8%) and huggingface/trl#6846's 1M-token
// SFT over context parallelism 8 on 8 H100 (Qwen3-0.6B, 8B, 30B-A3B: +385.6%, +337.1%, +381.6% first scored, a rank's
// attention counted at 1/cp^2 of the sequence's; -33.9%, -33.1%, -32.4% with ring attention's (seq / cp) x seq), scored
// before any model change; torchtitan's December 2024 Table 2 (Llama 3.1 8B, FSDP x CP 1-8 at 32,768-262,144 tokens, Float8)
// scored after that change: +15.3%, +10.6%, +50.0%, +58.0% (+15.3%, +76.3%, +317.3%, +711.9% with the 1/cp^2 count).
// huggingface/trl#6845's Qwen3-0.6B at 4,194,304 tokens over the same harness, a source new to the set scored before any
// model change: -35.0%. The ring's own merges, accumulators and exchanges then moved the Table 2 rows +58.0/+49.9/+10.2%
// -> +54.8/+46.7/+7.8% and the TRL rows 0.2-0.8 points slower. SDPA's cuDNN attention, which huggingface/trl#6846 names (its first
// figures fell back to FlashAttention), timed at cuDNN's H100 rate (FlashAttention-3 Figures 5-6) moved the three 1M
// rows -34.7/-33.7/-33.0% -> +3.3/+3.7/+5.7%. huggingface/trl#6845's table prints the same 1M figures, so its 4M row is read as a
// cuDNN run too: -35.2% -> +3.5%. docs/time-model.md "Context-parallel attention".
describe('time model on context-parallel long-sequence rows and a torchtitan issue log', () => {
  const err = Object.fromEntries(cpRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'tt929-a100-l3-8b-fsdp8-compile': 0.178,
    'trl6846-q3-0.6b-1m-cp8-8xh100': 3.856,
    'trl6846-q3-8b-1m-cp8-8xh100': 3.371,
    'trl6846-q3-30b-a3b-1m-cp8-8xh100': 3.816,
    'trl6845-q3-0.6b-4m-cp8-8xh100': -0.35,
    'torchtitan-t2-tps-cp1': 0.153,
    'torchtitan-t2-tps-cp2': 0.763,
    'torchtitan-t2-tps-cp4': 3.173,
    'torchtitan-t2-tps-cp8': 7.119,
  };
  it('holds the nine rows, out of sample', () => {
    holdsOutOfSample(cpRows, err, Object.keys(first).sort());
  });

  it('a rank meets the whole sequence: every CP row within 60%, the 1M-token rows not 4x fast', () => {
    for (const [id, e] of Object.entries(err)) expect(Math.abs(e), id).toBeLessThanOrEqual(0.6);
    // At cuDNN's rate the TRL rows (1M and 4M tokens) read within 10%.
    for (const id of Object.keys(first).filter((i) => i.startsWith('trl684')))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.1);
  });

  it('median |error| <= 34%, and no row further off than first scored', () => {
    const s = summarizeThroughput('training', cpRows);
    expect(s.count).toBe(9);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.34);
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// MOEPR_ROW: torchtitan's MoE runs from threads new to the set, scored before any model change: DeepSeek-V3-16B
// (DeepSeek-V2-Lite's geometry) over FSDP 8 and EP 8 on 8 H100 (pytorch/torchtitan#1789, +5.1%), the same flavour's
// tuning arms on 8 B200 (pytorch/torchtitan#1993, MFU read back as tokens/s: +33.8..+53.3%), Qwen3-30B-A3B's baseline
// recipe on 8 B200 (pytorch/torchtitan#4605, TFLOPS read back: +98.1%) and gpt-oss-20b at 2 x 8,192 on 8 B200 with and
// without full checkpointing (pytorch/torchtitan#2389, +82.8% and +91.4%). Then the dispatcher's routed-row passes
// (engines/torchtitan/memory.ts TITAN_LOCAL_DISPATCH_ROW_PASSES) moved every row slower: the B200 rows 8-35 points
// closer, the H100 run +5.1% -> -8.9%. docs/time-model.md "torchtitan's MoE runs on 8 H100 and 8 B200".
describe("time model on torchtitan's MoE runs on 8 H100 and 8 B200", () => {
  const err = Object.fromEntries(moeprRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'tt1789-dsv3-16b-8xh100-ep8-lbs4': 0.051,
    'tt1993-dsv3-16b-8xb200-baseline': 0.397,
    'tt1993-dsv3-16b-8xb200-noac': 0.37,
    'tt1993-dsv3-16b-8xb200-noac-compile': 0.488,
    'tt1993-dsv3-16b-8xb200-noac-compile-ep1': 0.533,
    'tt1993-dsv3-16b-8xb200-noac-compile-ep1-lbs6': 0.444,
    'tt1993-dsv3-16b-8xb200-noac-compile-ep1-s6144': 0.338,
    'tt2389-gptoss20b-8xb200-fullac': 0.828,
    'tt2389-gptoss20b-8xb200-noac': 0.914,
    'tt4605-qwen3-30b-a3b-8xb200-baseline': 0.981,
  };
  const h100 = 'tt1789-dsv3-16b-8xh100-ep8-lbs4';
  it('holds the ten rows, out of sample', () => {
    holdsOutOfSample(moeprRows, err, Object.keys(first).sort());
  });

  it('the H100 run within 10%, slow; the B200 runs read fast, not slow (docs/time-model.md "Known misses")', () => {
    expect(err[h100]!).toBeLessThan(0);
    expect(Math.abs(err[h100]!)).toBeLessThanOrEqual(0.1);
    for (const [id, e] of Object.entries(err)) if (id !== h100) expect(e, id).toBeGreaterThan(0);
  });

  it('median |error| <= 38%, and no B200 row further off than first scored', () => {
    const s = summarizeThroughput('training', moeprRows);
    expect(s.count).toBe(10);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.38);
    for (const [id, e] of Object.entries(first))
      if (id !== h100) expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it("gpt-oss-20b's two arms: full checkpointing's recompute makes the estimated step slower, as measured", () => {
    const full = moeprRows.find((r) => r.id === 'tt2389-gptoss20b-8xb200-fullac')!;
    const none = moeprRows.find((r) => r.id === 'tt2389-gptoss20b-8xb200-noac')!;
    expect(full.estimated).toBeLessThan(none.estimated);
    expect(full.measured).toBeLessThan(none.measured);
  });
});

// NEWRL21_ROW: six GRPO optimizer steps with their logged completion lengths, from sources new to the set, scored before
// any model change (no model change followed): TRL 1.5.0.dev0's GRPOTrainer with TRL's vllm-serve on the second of two
// A10G (Qwen3-4B LoRA, 8 completions a step) -6.0%; Unsloth with vLLM colocated on a T4, Qwen2.5-3B QLoRA r 128 (two
// prompts of 8 short completions) +0.5% and Llama-3.2-1B QLoRA (TRL's per-micro-batch generation) +8.8% (-4.2% with its
// build's bitsandbytes tree dequantization, bnb_dequant, set after the first score); on a 32 GB
// RTX 4080 SUPER, Qwen3-4B-Base 16-bit LoRA with 961-token completions +5.3%; on an RTX 4090, Llama-3.1-8B QLoRA -25.5%
// (too slow, as Unsloth's other GeForce GRPO rows read: docs/time-model.md "GRPO runs with logged lengths from six new
// sources"); Unsloth's own generate of Llama-3.2-1B on an A10 -46.5% (too slow: FastLlamaModel's patched generate
// decodes through Unsloth's LlamaModel_fast_forward_inference, not transformers' eager layers), -4.4% once that layer's
// ops, counted from its source, price the rollout (engines/unsloth/generate-decode.ts; "Unsloth's own generate decode").
describe('time model on GRPO rows from six new sources', () => {
  const err = Object.fromEntries(newrl21Rows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'amitons13-grpo-llama3.2-1b-t4': 0.088,
    'bsvaz-grpo-qwen2.5-3b-t4-r128': 0.012, // 0.005 before the recompute left out the head and loss
    'genaiexplorer-grpo-llama3.2-1b-a10-hf': -0.465,
    'kevindic-grpo-llama3.1-8b-4090': -0.255,
    'rycerzes-trl-grpo-qwen3-4b-lora-a10g-server': -0.102, // -0.06 before the recompute left out the head and loss
    'surtrj-grpo-qwen3-4b-base-4080s-32gb': 0.059, // 0.053 before the recompute left out the head and loss
  };
  it('holds the six rows, out of sample', () => {
    holdsOutOfSample(newrl21Rows, err, Object.keys(first).sort());
  });

  it('three vLLM rollouts within 10%, the server one within 11%, the RTX 4090 row within 26%, Unsloth generate within 6%', () => {
    for (const id of [
      'amitons13-grpo-llama3.2-1b-t4',
      'bsvaz-grpo-qwen2.5-3b-t4-r128',
      'surtrj-grpo-qwen3-4b-base-4080s-32gb',
    ])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.1);
    // trl vllm-serve's weight sync takes one request per named tensor (time/trainer-fetch.ts, huggingface/trl#5249's
    // cost): 398 requests a step, -6.0% -> -10.7%.
    const server = 'rycerzes-trl-grpo-qwen3-4b-lora-a10g-server';
    expect(Math.abs(err[server]!)).toBeLessThanOrEqual(0.11);
    expect(Math.abs(err['kevindic-grpo-llama3.1-8b-4090']!)).toBeLessThanOrEqual(0.26);
    // Unsloth's own decode layer (engines/unsloth/generate-decode.ts): -46.5% -> -4.4%.
    expect(Math.abs(err['genaiexplorer-grpo-llama3.2-1b-a10-hf']!)).toBeLessThanOrEqual(0.06);
    for (const [id, e] of Object.entries(first))
      if (id !== server) expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// RICOCQG_ROW: six preference-tuning optimizer steps from a source new to the set, scored before any model change (no
// model change followed): RicoStaedeli/NLP2025_CQG's six Unsloth DPO runs of Llama-3.1-8B QLoRA r 16 on a Colab A100
// 40GB, 20 pairs x 4 a step, timed from their TensorBoard files with the logged evaluations taken out (+13.8%, +16.4%,
// +5.3%, +21.5%, and on the project's earlier pairs -6.9%, -6.2%; one length estimate from the repository's data at 4
// characters a token for all six, whose own step times span 18.7-24.4 s). Unsloth's Zephyr DPO and Llama 3 ORPO
// notebooks on a T4 log no lengths and are carried unscored.
describe('time model on DPO rows from a new source', () => {
  const err = Object.fromEntries(ricocqgRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'ricocqg-dpo-llama3.1-8b-qlora-a100-40gb-t2': 0.157, // 0.138 before the recompute left out the head and loss
    'ricocqg-dpo-llama3.1-8b-qlora-a100-40gb-t4a': 0.071, // 0.053 before the recompute left out the head and loss
    'ricocqg-dpo-llama3.1-8b-qlora-a100-40gb-t4b': 0.235, // 0.215 before the recompute left out the head and loss
    'ricocqg-dpo-llama3.1-8b-qlora-a100-40gb-t5': -0.069,
    'ricocqg-dpo-sft-llama3.1-8b-qlora-a100-40gb-t3': 0.184, // 0.164 before the recompute left out the head and loss
    'ricocqg-dpo-sft-llama3.1-8b-qlora-a100-40gb-t6': -0.062,
  };
  it('holds the six rows, out of sample', () => {
    holdsOutOfSample(ricocqgRows, err, Object.keys(first).sort());
  });

  // 22% before the recompute left out the output layer and the loss.
  it('the DPO rows within 24%; none further off than first scored', () => {
    for (const id of Object.keys(first)) expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.24);
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
    const s = summarizeThroughput('rl', ricocqgRows);
    expect(s.count).toBe(6);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.114); // 0.11 before the recompute left out the head and loss
  });
});

// UNSLOTH_GRPO_COPIES_ROW: three Unsloth GRPO notebook runs users saved with their outputs, scored before any model change
// (TRL's fetches around the rollout, time/trainer-fetch.ts, move none of them: no sharding, vLLM colocated on the shared
// weights): Qwen2.5-3B QLoRA on an H100 at 4 prompts x 4 completions a step (-0.6%), Llama 3.1 8B QLoRA on a T4 at the
// February notebook's 200-token cap (+3.6%) and at March's 768 (+3.8%).
describe('time model on Unsloth GRPO notebook runs from three new sources', () => {
  const err = Object.fromEntries(unslothGrpoCopiesRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'benjaminsinzore-grpo-llama3.1-8b-t4-c768': 0.038,
    'manojpatil-grpo-qwen2.5-3b-h100-g4x4': -0.006,
    'pranays676-grpo-llama3.1-8b-t4-c200': 0.036,
  };
  it('holds the three rows, out of sample', () => {
    holdsOutOfSample(unslothGrpoCopiesRows, err, Object.keys(first).sort());
  });

  it('each within 5%; none further off than first scored', () => {
    for (const [id, e] of Object.entries(first)) {
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.05);
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
    }
  });
});

// GRPO_USER_RUNS_ROW: ten Unsloth GRPO runs users saved with their outputs in eight new repositories, scored before any
// model change (no time change followed; docs/time-model.md "GRPO runs from eight more repositories: T4, A10G and their
// completion spread"). The two Time-Carbon QLoRA rows were first scored without their build's bitsandbytes (+20.1%,
// +22.1%); they carry bnb_dequant 'tree' as every other mid-2025 QLoRA row does. MA-vector's run logs a per-step longest
// completion of 1.68x its mean, where time/completion-length.ts puts the longest of 4 at 1.31x: +30.3%.
describe('time model on Unsloth GRPO runs from eight new repositories', () => {
  const err = Object.fromEntries(grpoUserRunsRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'hoa10-grpo-llama3.1-8b-t4-qk-c256': 0.148,
    'majidhanif-grpo-gemma3-1b-t4-hf-2025.8': 0.086, // 0.077 before the recompute left out the head and loss
    'mavector-grpo-qwen3-4b-t4-v092': 0.303,
    'posttrain-grpo-qwen3-4b-t4-v085': -0.114,
    'pydev369-grpo-qwen3-4b-t4-v092': 0.011,
    'timecarbon-grpo-qwen3-1.7b-qlora-t4': 0.07,
    'timecarbon-grpo-qwen3-4b-qlora-t4': 0.002,
    'tituslhy-grpo-llama3.2-1b-qlora-a10g-hf-ga4': 0.021,
    'tituslhy-grpo-qwen2.5-14b-qlora-a10g-hf': -0.056,
    'tkg31302-grpo-phi4-14b-t4-g6-b12': 0.25,
  };
  it('holds the ten rows, out of sample', () => {
    holdsOutOfSample(grpoUserRunsRows, err, Object.keys(first).sort());
  });

  // Median 7.5% before the recompute left out the output layer and the loss.
  it('each within 31%; none further off than first scored; the ten at median <= 7.9%, p90 <= 31%', () => {
    for (const [id, e] of Object.entries(first)) {
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.31);
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
    }
    const s = summarizeThroughput('rl', grpoUserRunsRows);
    expect(s.count).toBe(10);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.079);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.31);
  });
});

// LONGTAIL_GRPO_ROW: six Unsloth GRPO runs users saved with their outputs in three new repositories, scored before any model
// change (docs/time-model.md "Long-tailed GRPO completions: four Kaggle runs on an RTX PRO 6000 and two Colab T4 runs";
// the ToolFormer rows then priced with their build's forced old log-probs forward). The three ToolFormer rows 36% or more off log a generation batch's longest completion at 3.4-5.0x its
// mean (the mean of the per-step completions/max_length over the mean of completions/mean_length), where
// time/completion-length.ts puts the longest of 16 at 1.63x; their batch of 8 at 1.65x against 1.47x reads +31.4% (+26.5% with the forced forward).
describe('time model on Unsloth GRPO runs with long-tailed completions from three new repositories', () => {
  const err = Object.fromEntries(longtailGrpoRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'abdullahfageeh-grpo-qwen3-4b-t4': 0.103,
    'freakz3z-grpo-llama3.1-8b-t4': -0.067,
    'toolformer-grpo-qwen3-1.7b-pro6000-g4-ga4-16k': 2.307,
    'toolformer-grpo-qwen3-1.7b-pro6000-g4-ga4-8k': 1.916,
    'toolformer-grpo-qwen3-1.7b-pro6000-g8-ga2-cispo': 0.314,
    'toolformer-grpo-qwen3-1.7b-pro6000-g8-ga4-dapo': 1.363,
  };
  it('holds the six rows, out of sample', () => {
    holdsOutOfSample(longtailGrpoRows, err, Object.keys(first).sort());
  });

  // 83.9% / 230.7% first scored; 73.3% / 210.3% with Unsloth 2026.3.17's old log-probs forward under vLLM (the ToolFormer
  // rows' old_logprobs 'vllm-forced', TimeOptions.vllmOldLogprobs): +31.4% -> +26.5%, +136.3% -> +120.1%, +230.7% ->
  // +210.2%, +191.6% -> +173.3%.
  it('none further off than first scored; the six at median <= 73.3%, p90 <= 210.3%', () => {
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
    const s = summarizeThroughput('rl', longtailGrpoRows);
    expect(s.count).toBe(6);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.733);
    expect(s.p90AbsError).toBeLessThanOrEqual(2.103);
  });

  it("prices the ToolFormer rows' forced old log-probs forward: each row nearer than first scored", () => {
    for (const id of Object.keys(first).filter((k) => k.startsWith('toolformer-')))
      expect(Math.abs(err[id]!), id).toBeLessThan(Math.abs(first[id]!) - 0.03);
  });

  it('estimates every ToolFormer row too fast, the most where the logged longest is furthest past the mean', () => {
    const tf = longtailGrpoRows.filter((r) => r.id.startsWith('toolformer-'));
    expect(tf.length).toBe(4);
    for (const r of tf) expect(r.error, r.id).toBeGreaterThan(0);
    // Batch 8 at 1.65x the mean (+31%) against batch 16 at 3.4x, 4.5x and 5.0x.
    expect(err['toolformer-grpo-qwen3-1.7b-pro6000-g8-ga2-cispo']!).toBeLessThan(
      Math.min(
        err['toolformer-grpo-qwen3-1.7b-pro6000-g8-ga4-dapo']!,
        err['toolformer-grpo-qwen3-1.7b-pro6000-g4-ga4-8k']!,
        err['toolformer-grpo-qwen3-1.7b-pro6000-g4-ga4-16k']!,
      ),
    );
  });
});

// PEFTX_LLAMAFACTORY_ROW: fine-tuning rows from three sources new to the set, scored before any model change (no time change
// followed; docs/time-model.md "torchtune against PEFT on RTX 4090s and two LLaMA-Factory LoRA runs"):
// BenjaminBossan/peft-experiments' per-step logs of Llama-3-8B LoRA and QLoRA on one RTX 4090 (torchtune +29.7%, PEFT
// +47.5%, PEFT QLoRA +37.6%; torchtune's eager torchao QLoRA +109.5%, in sample: DEQUANT_BYTES_EAGER_TORCHAO cites it), LoRA
// over FSDP on two RTX 4090 (+81.0%, +86.9%) and fsdp_qlora's CPU-offloaded QLoRA on the same pair (+0.1%, -15.9%);
// LLaMA-Factory's llama3_lora_sft recipe on an RTX 5090 (hiyouga/LlamaFactory#6958, +97.7%) and on a V100S (-2.5%).
describe('time model on fine-tuning rows from three new sources', () => {
  const err = Object.fromEntries(peftxLlamafactoryRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'bbpeftx-llama2-7b-qlora-2x4090-fsdpqlora-answerai': -0.159,
    'bbpeftx-llama2-7b-qlora-2x4090-fsdpqlora-peft': 0.001,
    'bbpeftx-llama3-8b-lora-2x4090-fsdp-peft': 0.869,
    'bbpeftx-llama3-8b-lora-2x4090-fsdp-torchtune': 0.81,
    'bbpeftx-llama3-8b-lora-4090-peft': 0.475,
    'bbpeftx-llama3-8b-lora-4090-torchtune': 0.329, // 0.297 before the recompute left out the head and loss
    'bbpeftx-llama3-8b-qlora-4090-peft': 0.376,
    'lf6958-llama3-8b-lora-5090': 1.016, // 0.977 before the recompute left out the head and loss
    'nrzheng-llama3-8b-lora-v100s-llamafactory': -0.025,
  };
  const outOfSample = peftxLlamafactoryRows.filter((r) => !r.inSample);
  it('holds the nine rows out of sample and the eager torchao QLoRA row in sample', () => {
    holdsOutOfSample(
      outOfSample,
      Object.fromEntries(outOfSample.map((r) => [r.id, r.error])),
      Object.keys(first).sort(),
    );
    expect(peftxLlamafactoryRows.filter((r) => r.inSample).map((r) => r.id)).toEqual([
      'bbpeftx-llama3-8b-qlora-4090-torchtune',
    ]);
  });

  it('the CPU-offloaded QLoRA pair and the V100S run within 17%; the rest read fast, not slow (docs/time-model.md "Known misses")', () => {
    for (const id of [
      'bbpeftx-llama2-7b-qlora-2x4090-fsdpqlora-answerai',
      'bbpeftx-llama2-7b-qlora-2x4090-fsdpqlora-peft',
      'nrzheng-llama3-8b-lora-v100s-llamafactory',
    ])
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.17);
    for (const id of Object.keys(first))
      if (!/fsdpqlora|nrzheng/.test(id)) expect(err[id]!, id).toBeGreaterThan(0);
  });

  it('median |error| <= 38%, and no row further off than first scored', () => {
    const s = summarizeThroughput('training', outOfSample);
    expect(s.count).toBe(9);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.38);
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// PEFTX_QLORA_RUNS_ROW: three more runs of the same repository's Llama-3-8B QLoRA on one RTX 4090 at 2 x ~256 padded
// tokens, scored before any model change (docs/time-model.md "Llama-3-8B QLoRA on one RTX 4090: three more runs and the
// loss each loop computes"): transformers + bitsandbytes + PEFT on q, k, v inside torchtune's recipe, the model's own
// flattened loss (-19.6%); PEFT's LoRA inside torchtune's torchao QLoRA recipe with checkpointing (+97.5%, in sample:
// DEQUANT_BYTES_EAGER_TORCHAO comes from the same recipe's torchtune arm); the notebook loop on bitsandbytes 0.43.2
// (+37.5%).
describe('time model on three more Llama-3-8B QLoRA runs on one RTX 4090', () => {
  const first: Record<string, number> = {
    'bbpeftx-llama3-8b-qlora-4090-hf-in-torchtune': -0.196,
    'bbpeftx-llama3-8b-qlora-4090-peft-bnb0432': 0.375,
    'bbpeftx-llama3-8b-qlora-4090-peft-in-torchtune': 0.998, // 0.975 before the recompute left out the head and loss
  };
  it('holds the two out of sample and the torchao run in sample, each no further off than first scored', () => {
    expect(peftxQloraRunsRows.map((r) => r.id).sort()).toEqual(Object.keys(first).sort());
    expect(peftxQloraRunsRows.filter((r) => r.inSample).map((r) => r.id)).toEqual([
      'bbpeftx-llama3-8b-qlora-4090-peft-in-torchtune',
    ]);
    for (const r of peftxQloraRunsRows)
      expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(Math.abs(first[r.id]!) + 0.005);
  });

  it('the bitsandbytes 0.43.2 run reads as its 0.43.3 twin: one configuration, one estimate', () => {
    const e = Object.fromEntries(rows.map((r) => [r.id, r.estimated]));
    expect(e['bbpeftx-llama3-8b-qlora-4090-peft-bnb0432']).toBe(
      e['bbpeftx-llama3-8b-qlora-4090-peft'],
    );
  });
});

// UNSLOTHBENCH_ROW: fine-tuning rows from a source new to the set, scored before any model change (docs/time-model.md
// "PEFT's fp32 adapter matmuls without autocast: unsloth-lora-bench"): noamshh/unsloth-lora-bench's Qwen2.5-3B LoRA r 32
// on an A100, batch 32 at 64-512 padded tokens, fp16 without autocast. First scored (autocast false): vanilla PEFT
// +12.2/+9.9/+8.1/+4.7%, Unsloth +37.6/+20.6/+5.7/-1.2%. With PEFT's fp32 adapters timed as fp32 matmuls
// (time/adapter-path.ts fp32AdapterMatmuls) the PEFT arm -1.8/-4.1/-5.6/-8.4%; the Unsloth arm (its adapters cast to
// the input's dtype) unchanged.
describe('time model on the unsloth-lora-bench rows', () => {
  const err = Object.fromEntries(unslothbenchRows.map((r) => [r.id, r.error]));
  const now: Record<string, number> = {
    'unslothbench-qwen25-3b-lora-a100-peft-s64': -0.018,
    'unslothbench-qwen25-3b-lora-a100-peft-s128': -0.041,
    'unslothbench-qwen25-3b-lora-a100-peft-s256': -0.056,
    'unslothbench-qwen25-3b-lora-a100-peft-s512': -0.084,
    'unslothbench-qwen25-3b-lora-a100-unsloth-s64': 0.376,
    'unslothbench-qwen25-3b-lora-a100-unsloth-s128': 0.206,
    'unslothbench-qwen25-3b-lora-a100-unsloth-s256': 0.072, // 0.057 before the recompute left out the head and loss
    'unslothbench-qwen25-3b-lora-a100-unsloth-s512': 0.033, // -0.012 before the recompute left out the head and loss
  };
  it('holds the eight rows out of sample', () => {
    holdsOutOfSample(unslothbenchRows, err, Object.keys(now).sort());
  });

  it('the PEFT arm within 9% (12.2% at most first scored), every row no further off than now', () => {
    for (const id of Object.keys(now))
      if (/-peft-/.test(id)) expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.09);
    for (const [id, e] of Object.entries(now))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
    const s = summarizeThroughput('training', unslothbenchRows);
    expect(s.count).toBe(8);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.06);
  });
});

// TT2264_ROW: a held-out fine-tuning row from a source new to the set, scored before any model change (docs/time-model.md
// "FSDP over consumer cards without P2P: a held-out torchtune run on four RTX 3090"): meta-pytorch/torchtune#2264's
// Phi-3-mini LoRA under lora_finetune_distributed (FSDP2, every micro-batch gathering the frozen weights twice) on four
// RTX 3090 without P2P, -15.2% first scored: bound by the parameter gathers, which the estimate times at the staged
// host-memory rate (time/hardware.ts) a little slower than the run, where the two-RTX 4090 FSDP rows of
// BenjaminBossan/peft-experiments read +81% / +87% too fast over the same kind of link.
describe('time model on the held-out torchtune FSDP run over four RTX 3090', () => {
  const err = Object.fromEntries(tt2264Rows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'tt2264-phi3-mini-lora-4x3090-fsdp': -0.152,
  };
  it('holds the row out of sample', () => {
    holdsOutOfSample(tt2264Rows, err, Object.keys(first).sort());
  });

  // torchtune's fully_shard copies each gathered unit out and the adapters' gradients in on the compute stream
  // (time/fsdp2-copies.ts): -18.4% since.
  const withFsdp2Copies: Record<string, number> = { 'tt2264-phi3-mini-lora-4x3090-fsdp': -0.184 };
  it('reads within 20%, communication-bound, and no further off than first scored or read with FSDP2 copies', () => {
    for (const [id, e] of Object.entries(first)) {
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.2);
      const since = Math.max(Math.abs(e), Math.abs(withFsdp2Copies[id] ?? 0));
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(since + 0.005);
    }
    expect(tt2264Rows.map((r) => r.bound)).toEqual(['communication']);
  });
});

// CHENYAOFO_ROW: DeepSpeed rows of LLaMA-7B at 4,096 tokens on one 8-A800 machine from a source new to the set, scored before
// any model change (docs/time-model.md "A DeepSpeed benchmark gist's LLaMA-7B on 8 A800: ZeRO-3 beside its ZeRO-2 control"):
// ZeRO-3 at 2 x 4,096 without checkpointing +69.5%, with it +42.0%, the ZeRO-2 row at 1 x 4,096 +57.5%. The ZeRO-2 control
// is as far off as the ZeRO-3 rows, so the gap is the source's, not ZeRO-3's: the measured ZeRO-3 rate is within 7% of the
// ZeRO-2 one, as the estimate's is within 0.1%. With the backward reusing the recompute's gathers
// (time/zero-collectives.ts backwardRegatherShare) the checkpointed row +43.0%, the others unchanged. With DeepSpeed's ZeRO-2
// all-reducing its buckets, with the hooks' copies and the bucket's passes (time/zero2-bucket-reduce.ts): the ZeRO-2 rows
// +57.2% -> +51.5% (1 x 4,096), +51.7% -> +47.4% and +36.7% -> +35.7% (checkpointed, 1 and 4 x 4,096), +124.0% -> +120.0%
// (offloaded); the ZeRO-3 rows unchanged.
describe("time model on chenyaofo's DeepSpeed LLaMA-7B rows", () => {
  const err = Object.fromEntries(chenyaofoRows.map((r) => [r.id, r.error]));
  const now: Record<string, number> = {
    'chenyaofo-llama7b-zero2-8xa800-b1': 0.516,
    'chenyaofo-llama7b-zero3-8xa800-b2': 0.695,
    'chenyaofo-llama7b-zero3-ckpt-8xa800-b2': 0.43,
    // The table's other rows without offload, carried later and scored before any model change.
    'chenyaofo-llama7b-zero2-ckpt-8xa800-b1': 0.482, // 0.475 before the recompute left out the head and loss
    'chenyaofo-llama7b-zero2-ckpt-8xa800-b4': 0.364, // 0.358 before the recompute left out the head and loss
    'chenyaofo-llama7b-zero3-ckpt-8xa800-b8': 0.37, // 0.363 before the recompute left out the head and loss
    'chenyaofo-llama7b-zero3-ckpt-8xa800-b8-gb128': 0.504, // 0.496 before the recompute left out the head and loss
    // Its optimizer-offload rows (DeepSpeedCPUAdam on two Xeon 8358 shared by 8 ranks), scored before any model change
    // at +135.6% and +108.0%; with the host step at an unbound launcher's share (FrameworkProfile.hostStepUnboundShare)
    // +124.0% and +97.7%; the ZeRO-2 row +120.0% with its buckets all-reduced (time/zero2-bucket-reduce.ts); with the
    // host step at the gist's 64 physical cores where the rate was measured on 128 (FrameworkProfile.hostStepCores,
    // the rows' host_cores) +62.1% and +45.0%.
    'chenyaofo-llama7b-zero2-ckpt-optoff-8xa800-b1': 0.621,
    'chenyaofo-llama7b-zero3-ckpt-optoff-8xa800-b2': 0.45,
  };
  it('holds the nine rows out of sample', () => {
    holdsOutOfSample(chenyaofoRows, err, Object.keys(now).sort());
  });

  it('no row further off than now', () => {
    for (const [id, e] of Object.entries(now))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it("ZeRO-3 without checkpointing costs within 10% of the ZeRO-2 control's rate, as measured (2,534 against 2,729)", () => {
    const rate = (id: string) => chenyaofoRows.find((r) => r.id === id)!.estimated;
    const ratio =
      rate('chenyaofo-llama7b-zero3-8xa800-b2') / rate('chenyaofo-llama7b-zero2-8xa800-b1');
    expect(ratio).toBeGreaterThanOrEqual(0.9);
    expect(ratio).toBeLessThanOrEqual(1.1);
  });
});

// LIGERHF_ROW: FSDP1 full fine-tunes under the HF Trainer (trl's SFTTrainer, transformers 4.43.3) of Llama-3-8B,
// Mistral-7B-v0.1 and Gemma-7B-it on four A100 80GB, alpaca batches padded to their longest sample, from a source new to
// the set, scored before any model change (docs/time-model.md "Liger-Kernel's HF Trainer logs: FSDP full fine-tunes of
// three 7-8B models on four A100"): each model with transformers' own modules and with Liger's kernels.
describe("time model on Liger-Kernel's HF Trainer FSDP logs", () => {
  const err = Object.fromEntries(ligerhfRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'ligerhf-gemma-7b-full-fsdp-4xa100-b24': 0.477, // 0.445 before the recompute left out the head and loss
    'ligerhf-gemma-7b-full-fsdp-4xa100-b24-liger': 0.136,
    'ligerhf-l3-8b-full-fsdp-4xa100-b32': 0.202, // 0.184 before the recompute left out the head and loss
    'ligerhf-l3-8b-full-fsdp-4xa100-b32-liger': 0.09, // 0.08 before the recompute left out the head and loss
    'ligerhf-mistral-7b-full-fsdp-4xa100-b32': 0.164,
    'ligerhf-mistral-7b-full-fsdp-4xa100-b32-liger': 0.149,
  };
  it('holds the six rows out of sample', () => {
    holdsOutOfSample(ligerhfRows, err, Object.keys(first).sort());
  });

  it('no row further off than first scored', () => {
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  // Gemma-7B is left out: its plain run reserved 78,378 MB of the 80 GB card (its log) and the allocator's retries there
  // are not modelled, while Liger's own benchmark times its chunked output layer slower than torch's at Gemma's 256,000
  // tokens of vocabulary (kernels/liger.ts), so the estimate of that pair does not follow the logs' order.
  it("Liger's kernels never make a Llama or Mistral row's estimate slower (the logs: 1.12-1.28x the tokens a second)", () => {
    for (const id of Object.keys(first).filter(
      (k) => !k.endsWith('-liger') && !k.includes('gemma'),
    )) {
      const rate = (k: string) => ligerhfRows.find((r) => r.id === k)!.estimated;
      expect(rate(`${id}-liger`), id).toBeGreaterThan(rate(id));
    }
  });
});

// PITHTRAIN_ROW: mlc-ai/pith-train#79's torchtitan control run, scored before any model change: Qwen3-30B-A3B over FSDP 8
// (no expert parallelism) on 8 B200 at 8 x 8,192 tokens a rank, selective checkpointing, blocks and loss compiled, the loss
// in eight chunks: 19,487 tokens/s a GPU measured, -27.3% first scored (too slow). torchtitan's baseline recipe of the same
// model on the same card (tt4605-qwen3-30b-a3b-8xb200-baseline: 2 x 4,096, full checkpointing, no compile) reads too fast,
// so the pair brackets the model rather than one side of it. docs/time-model.md "A torchtitan Qwen3-30B-A3B control run on 8
// B200, and torch._grouped_mm on Hopper against a kernel benchmark".
describe("time model on mlc-ai/pith-train#79's torchtitan control run on 8 B200", () => {
  const err = Object.fromEntries(pithtrainRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'pithtrain79-qwen3-30b-a3b-8xb200-titan-fsdp8': -0.273,
  };
  it('holds the row out of sample', () => {
    holdsOutOfSample(pithtrainRows, err, Object.keys(first).sort());
  });

  it('reads too slow, within 30%, and no further off than first scored', () => {
    for (const [id, e] of Object.entries(first)) {
      expect(err[id]!, id).toBeLessThan(0);
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(0.3);
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
    }
  });

  it("estimates it faster a GPU than torchtitan's baseline recipe of the same model on the same card, as measured", () => {
    const row = pithtrainRows[0]!;
    const base = rows.find((r) => r.id === 'tt4605-qwen3-30b-a3b-8xb200-baseline')!;
    expect(row.measured).toBeGreaterThan(base.measured);
    expect(row.estimated).toBeGreaterThan(base.estimated);
  });
});

// GPT2DDP_ROW: GPT-2 and GPT-2 medium under transformers 4.3's Trainer (fp32, transformers.AdamW) from two sources new to the
// set, scored before any model change (docs/time-model.md "torch DDP's last bucket, and GPT-2 DDP through host memory"):
// two TITAN RTX over their NVLink bridge -15.3%, two RTX 3090 on one card +6.9% / +19.1% and over their bridge +16.7% /
// +25.6%. With the input embedding's gradient in torch DDP's last bucket (time/train-comm-work.ts ddpEmbeddingBucketBytes)
// the bridged RTX 3090 rows +13.7% / +23.7%, the TITAN RTX row -15.8%.
describe('time model on the GPT-2 DDP rows of the transformers docs and huggingface/transformers#9371', () => {
  const err = Object.fromEntries(gpt2ddpRows.map((r) => [r.id, r.error]));
  const now: Record<string, number> = {
    'hfdocs-ddp-gpt2-2xtitanrtx-nvlink': -0.158,
    't9371-gpt2-b512-2x3090-ddp': 0.137,
    't9371-gpt2-b512-3090-1gpu': 0.069,
    't9371-gpt2m-b512-2x3090-ddp': 0.237,
    't9371-gpt2m-b512-3090-1gpu': 0.191,
  };
  it('holds the five scored rows out of sample', () => {
    holdsOutOfSample(gpt2ddpRows, err, Object.keys(now).sort());
  });

  it('no row further off than now', () => {
    for (const [id, e] of Object.entries(now))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it("prices DDP's all-reduce over the bridge above one card's step, as the runs took longer", () => {
    const est = (id: string) => gpt2ddpRows.find((r) => r.id === id)!.estimated;
    expect(est('t9371-gpt2-b512-2x3090-ddp')).toBeGreaterThan(est('t9371-gpt2-b512-3090-1gpu'));
    expect(est('t9371-gpt2m-b512-2x3090-ddp')).toBeGreaterThan(est('t9371-gpt2m-b512-3090-1gpu'));
  });
});

// AXOLOTL_L4_EARLY_ROW: the two Llama 4 lines of axolotl's README at axolotl-ai-cloud/axolotl@9f986f5e7, scored before any
// model change: Maverick QLoRA over FSDP1 with offloaded parameters on four H100, 206 tokens/s read as the whole run's
// (axolotl's formula multiplies by num_gpus; no per-GPU label), +37.5% (a known miss); Scout QLoRA on one H100 (flash
// attention, no compile), 546 tokens/s, +3.3%. Both run the linearized experts one by one over every token (dense-loop).
describe("time model on axolotl's first Llama 4 README lines", () => {
  const err = Object.fromEntries(axolotlL4EarlyRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'axolotl9f98-l4maverick-4xh100-fsdp1': 0.375,
    'axolotl9f98-l4scout-1xh100': 0.033,
  };
  it('holds the rows out of sample', () => {
    holdsOutOfSample(axolotlL4EarlyRows, err, Object.keys(first).sort());
  });

  it('reads no further off than first scored', () => {
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it("estimates Maverick's 128 looped experts slower a GPU than Scout's 16, as measured", () => {
    const rate = (id: string) => axolotlL4EarlyRows.find((r) => r.id === id)!;
    const maverick = rate('axolotl9f98-l4maverick-4xh100-fsdp1');
    const scout = rate('axolotl9f98-l4scout-1xh100');
    expect(maverick.measured).toBeLessThan(scout.measured);
    expect(maverick.estimated).toBeLessThan(scout.estimated / 4);
  });
});

// TRAINING_HUB_ROW and QWEN35_FSDP2_PR_ROW, scored before any model change (docs/time-model.md "Granite 3.3 SFT through
// training_hub, and a Qwen3.5-9B FSDP2 step"): Granite 3.3 8B full SFT, Table-GPT at a mean 931 tokens +19.8% on eight
// H100 and +12.8% on eight A100, Bespoke-Stratos at a mean 6,023 tokens +1.1% and -5.1%; Qwen3.5-9B-Base over FSDP2 on
// eight B200, 0.60 s a step against 0.436 s, +37.5% (a known miss: the Gated DeltaNet layers' own kernels and fp32 gated
// norm are not timed in training).
describe("time model on training_hub's Granite 3.3 SFT table and huggingface/transformers#48692", () => {
  const err = Object.fromEntries(
    [...trainingHubRows, ...qwen35Fsdp2PrRows].map((r) => [r.id, r.error]),
  );
  const first: Record<string, number> = {
    'hf48692-qwen3.5-9b-full-fsdp2-8xb200': 0.375,
    'traininghub-granite33-8b-sft-bespoke-8xa100': -0.051,
    'traininghub-granite33-8b-sft-bespoke-8xh100': 0.011,
    'traininghub-granite33-8b-sft-tablegpt-8xa100': 0.128,
    'traininghub-granite33-8b-sft-tablegpt-8xh100': 0.198,
  };
  it('holds the five rows out of sample', () => {
    holdsOutOfSample([...trainingHubRows, ...qwen35Fsdp2PrRows], err, Object.keys(first).sort());
  });

  it('reads no further off than first scored', () => {
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it('estimates each H100 row faster than its A100 twin, as measured', () => {
    const row = (id: string) => trainingHubRows.find((r) => r.id === id)!;
    for (const ds of ['tablegpt', 'bespoke']) {
      const h = row(`traininghub-granite33-8b-sft-${ds}-8xh100`);
      const a = row(`traininghub-granite33-8b-sft-${ds}-8xa100`);
      expect(h.measured).toBeGreaterThan(a.measured);
      expect(h.estimated).toBeGreaterThan(a.estimated);
    }
  });
});

// FMSORCA_ROW, scored before any model change (docs/time-model.md "fms-acceleration's OrcaMath padding-free benchmark:
// Mistral-7B at 289-524 tokens a sample"): every row too fast, the one-GPU rows by 0.16-0.30 s a two-micro-batch step
// (0.44 s at QLoRA 4 x 289), the FSDP1 rows on two A100s by 0.50-0.58 s (full) and 1.9-2.5 s (QLoRA); no mechanism sourced.
describe("time model on fms-acceleration's OrcaMath padding-free benchmark", () => {
  const err = Object.fromEntries(fmsorcaRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'fmsorca-a100-mistral7b-full-1gpu-b4-pad': 0.127,
    'fmsorca-a100-mistral7b-full-1gpu-b4-pf': 0.176,
    'fmsorca-a100-mistral7b-full-1gpu-b8-pad': 0.077,
    'fmsorca-a100-mistral7b-full-1gpu-b8-pf': 0.101,
    'fmsorca-a100-mistral7b-full-2gpu-b2-pad': 0.835,
    'fmsorca-a100-mistral7b-full-2gpu-b2-pf': 0.927,
    'fmsorca-a100-mistral7b-full-2gpu-b4-pad': 0.458,
    'fmsorca-a100-mistral7b-full-2gpu-b4-pf': 0.544,
    'fmsorca-a100-mistral7b-qlora-1gpu-b4-pad': 0.246,
    'fmsorca-a100-mistral7b-qlora-1gpu-b4-pf': 0.53,
    'fmsorca-a100-mistral7b-qlora-1gpu-b8-pad': 0.117,
    'fmsorca-a100-mistral7b-qlora-1gpu-b8-pf': 0.22,
    'fmsorca-a100-mistral7b-qlora-2gpu-b2-pad': 3.824,
    'fmsorca-a100-mistral7b-qlora-2gpu-b2-pf': 4.183,
    'fmsorca-a100-mistral7b-qlora-2gpu-b4-pad': 1.744,
    'fmsorca-a100-mistral7b-qlora-2gpu-b4-pf': 2.606,
  };
  it('holds the sixteen rows out of sample', () => {
    holdsOutOfSample(fmsorcaRows, err, Object.keys(first).sort());
  });

  it('reads no further off than first scored', () => {
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it('estimates the larger micro-batch of each one-GPU pair faster a GPU, as measured', () => {
    const row = (id: string) => fmsorcaRows.find((r) => r.id === id)!;
    for (const m of ['full', 'qlora'])
      for (const arm of ['pad', 'pf']) {
        const b4 = row(`fmsorca-a100-mistral7b-${m}-1gpu-b4-${arm}`);
        const b8 = row(`fmsorca-a100-mistral7b-${m}-1gpu-b8-${arm}`);
        expect(b8.measured).toBeGreaterThan(b4.measured);
        expect(b8.estimated).toBeGreaterThan(b4.estimated);
      }
  });
});

// MoE fine-tuning rows (MOEFT_ROW), scored before any model change: the OpenAI cookbook's gpt-oss-20b TRL recipe on
// one H100 +96.3% and its Azure rerun on an H100 NVL +86.6% (transformers 4.55's expert loop, PEFT target_parameters
// on three layers' experts: +57.0% and +53.2% with ParamWrapper's W + ΔW rebuilt at each hit expert's access,
// time/param-wrapper.ts expertParamLoraWork), Unsloth's gpt-oss-20b notebook on an RTX 4090 (2025.9.7) +35.0% and on a
// T4 under 2025.8.4 and 2025.10.9 -32.5% and -21.7%, the Qwen3-30B-A3B A100 notebook's 200-step run +7.8%.
describe('time model on the MoE fine-tuning rows of the cookbook recipe and the Unsloth notebooks', () => {
  const err = Object.fromEntries(moeftRows.map((r) => [r.id, r.error]));
  const now: Record<string, number> = {
    'moeft-davidshare-gptoss20b-lora-1xh100nvl': 0.532,
    'moeft-oaicookbook-gptoss20b-lora-1xh100': 0.57,
    'moeft-unslothnb-gptoss20b-4090-qlora-u2509': 0.35,
    'moeft-unslothnb-gptoss20b-t4-qlora-u2508-4': -0.325,
    'moeft-unslothnb-gptoss20b-t4-qlora-u2510': -0.217,
    'moeft-unslothnb-qwen3moe-a100-lora-200steps': 0.078,
  };
  it('holds the six rows out of sample', () => {
    holdsOutOfSample(moeftRows, err, Object.keys(now).sort());
  });

  it('reads no further off than it did', () => {
    for (const [id, e] of Object.entries(now))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it("prices the cookbook recipe's expert adapters: both rows slower than without them, still fast", () => {
    for (const id of [
      'moeft-oaicookbook-gptoss20b-lora-1xh100',
      'moeft-davidshare-gptoss20b-lora-1xh100nvl',
    ])
      expect(err[id]!, id).toBeLessThan(0.6);
  });
});

// GRPO_SAVED_RUNS_ROW: nine Unsloth GRPO runs users saved with their outputs in eight new repositories, scored before any
// model change (docs/time-model.md "Unsloth GRPO runs saved in eight more repositories: T4 and L4 under vLLM V0 and V1").
// The Qwen3 (4B) notebook's runs decode near their 1,846-token cap on a T4 (V0) and an L4 (V1); the Llama 3.2 1B run trains
// sixteen micro-batches of one completion a step at the padded width of its generation batch; the DeepSeek-R1-0528-Qwen3-8B
// run decodes every completion to its 843-token cap. The furthest, -13.8%, is the Llama 3.1 8B run whose prompt length is
// read as its 512-token bound.
describe('time model on Unsloth GRPO runs saved in eight new repositories', () => {
  const err = Object.fromEntries(grpoSavedRunsRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'atingj-grpo-llama3.2-1b-t4-ga16': 0.014,
    'cometbaydo-grpo-qwen3-4b-t4-v085': -0.015,
    'dariorepo-grpo-qwen3-4b-t4-v085': 0.029,
    'gyaneshhere-grpo-llama3.1-8b-t4': -0.011,
    'gyaneshhere-grpo-qwen3-4b-t4-v085': 0.055,
    'machupichu-grpo-llama3.1-8b-t4-c200': -0.138,
    'quannh98-grpo-dsr1-qwen3-8b-t4-c843': -0.072,
    'wendyhub-grpo-qwen3-4b-l4-v1': -0.075,
    'whaipku-grpo-qwen2.5-3b-t4': 0.025,
  };
  it('holds the nine rows, out of sample', () => {
    holdsOutOfSample(grpoSavedRunsRows, err, Object.keys(first).sort());
  });

  // 2.9% / 13.8% first scored.
  it('none further off than first scored; the nine at median <= 2.9%, p90 <= 13.8%', () => {
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
    const s = summarizeThroughput('rl', grpoSavedRunsRows);
    expect(s.count).toBe(9);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.029);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.138);
  });
});

// MoE fine-tuning benchmark rows (MOEBENCH_ROW), scored before any model change: Unsloth's MoE page, gpt-oss-20b BF16
// LoRA on one B200 at 1,024-16,384 tokens (Unsloth +404.8% at 1,024 tokens down to +57.2% at 16,384; transformers 5 +
// TRL +100.8..+123.2%; transformers 4.57's expert loop with ParamWrapper's per-access rebuild -25.6..+63.7%), and
// experts4bit-qlora's RTX 5090 lane (Unsloth's native_torch expert loop on Qwen3-30B-A3B -32.6% and -40.0%,
// transformers 5.17 + PEFT on Granite-3.1-3B-A800M +165.6%).
describe("time model on the MoE fine-tuning benchmark rows of Unsloth's MoE page and the RTX 5090 lane", () => {
  const err = Object.fromEntries(moebenchRows.map((r) => [r.id, r.error]));
  const est = Object.fromEntries(moebenchRows.map((r) => [r.id, r.estimated]));
  const now: Record<string, number> = {
    'e4btp4-granite31-3b-a800m-5090-hf-peft': 1.656,
    'e4btp4-qwen3-30b-a3b-5090-unsloth-qlora-mb1': -0.4,
    'e4btp4-qwen3-30b-a3b-5090-unsloth-qlora-mb2': -0.326,
    'unslothmoe-gptoss20b-b200-tfv4-s1024': -0.256,
    'unslothmoe-gptoss20b-b200-tfv4-s2048': -0.116,
    'unslothmoe-gptoss20b-b200-tfv4-s4096': 0.17,
    'unslothmoe-gptoss20b-b200-tfv4-s8192': 0.637,
    'unslothmoe-gptoss20b-b200-tfv5-s1024': 1.232,
    'unslothmoe-gptoss20b-b200-tfv5-s2048': 1.23,
    'unslothmoe-gptoss20b-b200-tfv5-s4096': 1.223,
    'unslothmoe-gptoss20b-b200-tfv5-s8192': 1.008,
    'unslothmoe-gptoss20b-b200-unsloth-s1024': 4.048,
    'unslothmoe-gptoss20b-b200-unsloth-s16384': 0.572,
    'unslothmoe-gptoss20b-b200-unsloth-s2048': 2.313,
    'unslothmoe-gptoss20b-b200-unsloth-s4096': 1.145,
    'unslothmoe-gptoss20b-b200-unsloth-s8192': 0.755,
  };
  it('holds the sixteen rows out of sample', () => {
    holdsOutOfSample(moebenchRows, err, Object.keys(now).sort());
  });

  it('reads no further off than it did', () => {
    for (const [id, e] of Object.entries(now))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it("keeps the page's order at every length: transformers 4.57 slower than transformers 5, Unsloth fastest", () => {
    for (const s of [1024, 2048, 4096, 8192]) {
      const v4 = est[`unslothmoe-gptoss20b-b200-tfv4-s${s}`]!;
      const v5 = est[`unslothmoe-gptoss20b-b200-tfv5-s${s}`]!;
      const u = est[`unslothmoe-gptoss20b-b200-unsloth-s${s}`]!;
      expect(v4, `v4 ${s}`).toBeGreaterThan(v5);
      expect(v5, `v5 ${s}`).toBeGreaterThan(u);
    }
  });
});

// Single-GPU Hugging Face path rows (HFPATH_ROW), scored before any model change: Vertex Model Garden's OpenLLaMA-7B
// report on one A100 40GB (fp16 LoRA and NF4 QLoRA on every linear, two samples a micro-batch padded to the cap; its
// sequence sweep at rank 16 and its rank sweep at 512 tokens) and a Qwen3-0.6B QLoRA run under LLaMA-Factory on an RTX
// 3090 (one ~440-token sample a step).
describe('time model on the Vertex OpenLLaMA-7B report and the Qwen3-0.6B RTX 3090 run', () => {
  const err = Object.fromEntries(hfpathRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'agrec-qwen3-0.6b-qlora-3090-lf': 1.978,
    'vtx-ollama7b-lora-a100-40-r32': 0.423,
    'vtx-ollama7b-lora-a100-40-r64': 0.573,
    'vtx-ollama7b-lora-a100-40-r8': 0.277,
    'vtx-ollama7b-lora-a100-40-s256': 1.119,
    'vtx-ollama7b-lora-a100-40-s512': 0.327,
    'vtx-ollama7b-qlora-a100-40-r32': 0.009,
    'vtx-ollama7b-qlora-a100-40-r64': 0.096,
    'vtx-ollama7b-qlora-a100-40-r8': -0.055,
    'vtx-ollama7b-qlora-a100-40-s1024': -0.025,
    'vtx-ollama7b-qlora-a100-40-s2048': -0.062,
    'vtx-ollama7b-qlora-a100-40-s256': 0.408,
    'vtx-ollama7b-qlora-a100-40-s512': -0.033,
  };
  it('holds the thirteen rows out of sample', () => {
    holdsOutOfSample(hfpathRows, err, Object.keys(first).sort());
  });

  it('reads no further off than first scored', () => {
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });
});

// YAFSDP_COLOSSAL_ROW, scored before any model change (docs/time-model.md "FSDP1 on 64-256 A100 and a ZeRO-3 LLaMA-7B on
// eight A800, and FSDP1's float32 reduce"): the FSDP1 rows too fast by 0.36-2.1 s a step at 2,048 tokens a GPU, in
// proportion to the parameters gathered and reduced, less at 4,096 and 8,192 tokens; the network between the hosts is not
// stated. With the run's float32 reduce priced (their fsdp_reduce_dtype, TimeOptions.fsdpReduceFp32) 13 rows read
// 30.2% / 76.6% (33.1% / 83.8% first scored).
describe("time model on YaFSDP's FSDP1 baseline and hpcaitech/ColossalAI#4311's ZeRO-3 run", () => {
  const err = Object.fromEntries(yafsdpColossalRows.map((r) => [r.id, r.error]));
  const first: Record<string, number> = {
    'colossalai4311-llama7b-ds-zero3-8xa800-b8-s512': -0.068,
    'yafsdp-fsdp1-l2-13b-128xa100-s2048': 0.79,
    'yafsdp-fsdp1-l2-13b-128xa100-s4096': 0.162,
    'yafsdp-fsdp1-l2-34b-128xa100-s2048': 0.792,
    'yafsdp-fsdp1-l2-34b-256xa100-s2048': 0.893,
    'yafsdp-fsdp1-l2-7b-128xa100-s2048': 0.807,
    'yafsdp-fsdp1-l2-7b-128xa100-s4096': 0.212,
    'yafsdp-fsdp1-l2-7b-128xa100-s8192': 0.089,
    'yafsdp-fsdp1-l2-7b-64xa100-s2048': 0.669,
    'yafsdp-fsdp1-l2-7b-64xa100-s4096': 0.199,
    'yafsdp-fsdp1-l2-7b-64xa100-s8192': 0.078,
    'yafsdp-fsdp1-l3-8b-64xa100-s2048': 0.838,
    'yafsdp-fsdp1-l3-8b-64xa100-s4096': 0.331,
  };
  it('holds the thirteen rows out of sample', () => {
    holdsOutOfSample(yafsdpColossalRows, err, Object.keys(first).sort());
  });

  it('reads no further off than first scored', () => {
    for (const [id, e] of Object.entries(first))
      expect(Math.abs(err[id]!), id).toBeLessThanOrEqual(Math.abs(e) + 0.005);
  });

  it('all 13 rows: median <= 30.2%, p90 <= 76.6%', () => {
    const s = summarizeThroughput('training', yafsdpColossalRows);
    expect(s.count).toBe(13);
    expect(s.medianAbsError).toBeLessThanOrEqual(0.302);
    expect(s.p90AbsError).toBeLessThanOrEqual(0.766);
  });

  it('estimates each FSDP1 model and rank count slower a step at more tokens, as measured', () => {
    const row = (id: string) => yafsdpColossalRows.find((r) => r.id === id)!;
    for (const [m, g] of [
      ['l2-7b', 64],
      ['l2-7b', 128],
      ['l2-13b', 128],
      ['l3-8b', 64],
    ] as const) {
      const s2 = row(`yafsdp-fsdp1-${m}-${g}xa100-s2048`);
      const s4 = row(`yafsdp-fsdp1-${m}-${g}xa100-s4096`);
      expect(s4.measured).toBeGreaterThan(s2.measured);
      expect(s4.estimated).toBeGreaterThan(s2.estimated);
    }
  });
});

// RUNLLAMAS_ROW: optimum-benchmark's Llama-2-7B forwards on one A100-SXM4-80GB, first scored -3.2, +22.1, +44.2, +61.5,
// +72.4, +75.5, +76.7% (eager) and -7.5, +13.4, +37.6, +51.5, +64.0, +67.0, +67.1% (FlashAttention-2); with the eager
// forward's elementwise passes priced in a prefill (time/eager-prefill-passes.ts): -14.8..+40.0%.
describe("time model on optimum-benchmark's running-llamas forwards", () => {
  const err = Object.fromEntries(runllamasRows.map((r) => [r.id, r.error]));
  it('holds the fourteen rows, out of sample', () => {
    holdsOutOfSample(
      runllamasRows,
      err,
      [1, 2, 4, 8, 16, 32, 64]
        .flatMap((b) => [
          `runllamas-fwd-l2-7b-fp16-a100-hf4352-b${b}`,
          `runllamas-fwd-l2-7b-fp16-fa2-a100-hf4352-b${b}`,
        ])
        .sort(),
    );
  });

  it('each row within 40.1%, the 2 x 256-token eager forward within 5.5%', () => {
    for (const r of runllamasRows) expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(0.401);
    expect(Math.abs(err['runllamas-fwd-l2-7b-fp16-a100-hf4352-b2']!)).toBeLessThanOrEqual(0.055);
  });
});
