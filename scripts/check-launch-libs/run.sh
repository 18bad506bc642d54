#!/usr/bin/env bash
# Check every launch folder type against the real libraries (CPU only; PyPI access needed):
# write the folders, resolve each requirements file with pip, construct the Hugging Face configs,
# then refresh test/fixtures/launch-libs/ and docs/launch-libs-<date>.md.
# Usage: scripts/check-launch-libs/run.sh [WORK_DIR] [check.py options, e.g. --reuse --jobs 3]
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${1:-/tmp/vramplan-libs}"
shift || true
npx tsx scripts/check-launch-libs/write-folders.ts "$work/folders"
python3 scripts/check-launch-libs/check.py --folders "$work/folders" --work "$work" "$@"
