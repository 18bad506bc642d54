/** The flags of LLaMA-Factory's HF LoRA runs (calibration/throughput.json llamafactory-l2-7b-hf-*): Llama-2-7B, q,v. */
export const HF_LORA_ROW_FLAGS = {
  method: 'lora',
  'lora-targets': 'q,v',
  batch: 4,
  seq: 1024,
  checkpointing: 'full',
  framework: 'hf',
} as const;
