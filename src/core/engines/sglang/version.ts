/** The SGLang release serve.sh is written for (PyPI sglang 0.5.23, 2026-10; server_args.py read at 469c63e5). */
export const SGLANG_VERSION = '0.5.23';
