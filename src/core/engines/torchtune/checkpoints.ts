/**
 * Where each model's tokenizer and weights lie in its Hugging Face repository, as torchtune 0.6.1's own recipe
 * configs name them (recipes/configs/<family>/<size>_full.yaml at tag v0.6.1, commit a6290a5b; the file is
 * named per row). The checkpointer loads exactly the files listed, so a wrong shard count fails at load.
 */

/** The checkpointer block's file list: explicit names, or torchtune's filename_format + max_filename pair. */
export type TuneCheckpointFiles = string[] | { filename_format: string; max_filename: string };

export interface TuneCheckpoint {
  /** The tokenizer file, relative to the downloaded repository. */
  tokenizer: string;
  /** The checkpoint files, relative to `dir`. */
  files: TuneCheckpointFiles;
  /** Meta's consolidated .pth under original/ (FullModelMetaCheckpointer), else the HF files (FullModelHFCheckpointer). */
  meta?: true;
  /** Sub-folder of the repository holding the files ('' = its root). */
  dir: string;
  /**
   * `tune download --ignore-patterns` as the row's recipe writes it (the header comment of the same file): the
   * repository's other copy of the weights, which the checkpointer does not read.
   */
  ignore?: string;
}

const bins = (n: number): string[] =>
  Array.from(
    { length: n },
    (_, i) =>
      `pytorch_model-${String(i + 1).padStart(5, '0')}-of-${String(n).padStart(5, '0')}.bin`,
  );
const shards = (n: number): string[] =>
  Array.from(
    { length: n },
    (_, i) =>
      `model-${String(i + 1).padStart(5, '0')}-of-${String(n).padStart(5, '0')}.safetensors`,
  );
const format = (n: number, ext: 'bin' | 'safetensors') => ({
  filename_format: ext === 'bin' ? 'pytorch_model-{}-of-{}.bin' : 'model-{}-of-{}.safetensors',
  max_filename: String(n).padStart(5, '0'),
});
const ROOT = 'tokenizer.model';
const ORIG = 'original/tokenizer.model';

/** Catalog id → its files (torchtune v0.6.1 recipes/configs/…, file per row). */
export const TUNE_CHECKPOINTS: Readonly<Record<string, TuneCheckpoint>> = {
  'llama-2-7b': { tokenizer: ROOT, dir: '', files: bins(2), ignore: '*.safetensors' }, // llama2/7B_full.yaml
  'llama-2-13b': { tokenizer: ROOT, dir: '', files: bins(3), ignore: '*.safetensors' }, // llama2/13B_full.yaml
  'llama-2-70b': { tokenizer: ROOT, dir: '', files: format(15, 'bin'), ignore: '*.safetensors' }, // llama2/70B_qlora.yaml
  'codellama-7b': { tokenizer: ROOT, dir: '', files: bins(3) }, // code_llama2/7B_full_low_memory.yaml
  // llama3/8B_full.yaml: Meta's consolidated checkpoint under original/ (FullModelMetaCheckpointer).
  'llama-3-8b': {
    tokenizer: ORIG,
    dir: 'original',
    files: ['consolidated.00.pth'],
    meta: true,
    ignore: '*.safetensors',
  },
  'llama-3-70b': {
    tokenizer: ORIG,
    dir: '',
    files: format(30, 'safetensors'),
    ignore: 'original/consolidated*',
  }, // llama3/70B_full.yaml
  'llama-3.1-8b': {
    tokenizer: ORIG,
    dir: '',
    files: shards(4),
    ignore: 'original/consolidated.00.pth',
  }, // llama3_1/8B_full.yaml
  'llama-3.1-70b': {
    tokenizer: ORIG,
    dir: '',
    files: format(30, 'safetensors'),
    ignore: 'original/consolidated*',
  }, // llama3_1/70B_full.yaml
  // llama3_1/405B_qlora.yaml (the Instruct repository's original/mp8 tokenizer).
  'llama-3.1-405b': {
    tokenizer: 'original/mp8/tokenizer.model',
    dir: '',
    files: format(191, 'safetensors'),
    ignore: 'original/consolidated*',
  },
  'llama-3.2-1b': {
    tokenizer: ORIG,
    dir: '',
    files: ['model.safetensors'],
    ignore: 'original/consolidated.00.pth',
  }, // llama3_2/1B_full.yaml
  'llama-3.2-3b': {
    tokenizer: ORIG,
    dir: '',
    files: shards(2),
    ignore: 'original/consolidated.00.pth',
  }, // llama3_2/3B_full.yaml
  'llama-3.3-70b-instruct': {
    tokenizer: ORIG,
    dir: '',
    files: format(30, 'safetensors'),
    ignore: 'original/consolidated*',
  }, // llama3_3/70B_full.yaml
  'mistral-7b-v0.1': { tokenizer: ROOT, dir: '', files: bins(2), ignore: '*.safetensors' }, // mistral/7B_full.yaml
  'gemma-2b': { tokenizer: ROOT, dir: '', files: shards(2), ignore: 'gemma-2b.gguf' }, // gemma/2B_full.yaml
  'gemma-7b': { tokenizer: ROOT, dir: '', files: shards(4), ignore: 'gemma-7b.gguf' }, // gemma/7B_full.yaml
  'gemma-2-2b': { tokenizer: ROOT, dir: '', files: shards(3), ignore: 'gemma-2-2b.gguf' }, // gemma2/2B_full.yaml
  'gemma-2-9b': {
    tokenizer: ROOT,
    dir: '',
    files: format(8, 'safetensors'),
    ignore: 'gemma-2-9b.gguf',
  }, // gemma2/9B_full.yaml
  'gemma-2-27b': {
    tokenizer: ROOT,
    dir: '',
    files: format(24, 'safetensors'),
    ignore: 'gemma-2-27b.gguf',
  }, // gemma2/27B_full.yaml
  'phi-3-mini-4k-instruct': { tokenizer: ROOT, dir: '', files: shards(2) }, // phi3/mini_full.yaml
};

/** The files as names: filename_format expanded as FormattedCheckpointFiles.build_checkpoint_filenames does (v0.6.1 training/checkpointing/_utils.py:170). */
export function checkpointFileNames(files: TuneCheckpointFiles): string[] {
  if (Array.isArray(files)) return files;
  const n = Number(files.max_filename);
  const width = files.max_filename.length;
  return Array.from({ length: n }, (_, i) =>
    files.filename_format
      .replace('{}', String(i + 1).padStart(width, '0'))
      .replace('{}', files.max_filename),
  );
}
