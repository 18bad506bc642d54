/** Every top-level key each tool accepts (key names only, read from the tools' own schemas), to tell an
 * unknown key (a typo) from a known key vramplan does not use. */
export { AXOLOTL_KEYS } from './keys/axolotl.js';
export { LLAMAFACTORY_KEYS } from './keys/llamafactory.js';
export { HF_ARGS_KEYS } from './keys/hf-args.js';
