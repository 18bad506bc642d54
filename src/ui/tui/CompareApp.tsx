/** `vramplan compare` in a terminal: the side-by-side view; q or Esc quits. */
import { Box, Text, useApp, useInput, useStdin } from 'ink';
import { CompareView } from './CompareView.js';
import type { Snapshot } from './state.js';
import { compareProps } from './view.js';

export interface CompareAppProps {
  readonly snapshots: readonly Snapshot[];
  readonly width: number;
  /** Terminal lines: rows that do not fit are left out (the memory breakdown first). */
  readonly height?: number;
}

export function CompareApp({ snapshots, width, height }: CompareAppProps) {
  const { exit } = useApp();
  const { isRawModeSupported } = useStdin();
  useInput(
    (input, key) => {
      if (input === 'q' || key.escape) exit();
    },
    { isActive: isRawModeSupported === true },
  );
  return (
    <Box flexDirection="column" width={width}>
      <CompareView
        {...compareProps(snapshots, width, height === undefined ? Infinity : height + 1)}
      />
      <Text dimColor>q quit</Text>
    </Box>
  );
}
