/** Scenarios side by side: the best plan of each, its memory breakdown, time and cost. */
import { Box, Text } from 'ink';
import { MemoryBar } from './MemoryBar.js';
import type { Segment } from './cells.js';

export interface CompareViewProps {
  readonly labels: readonly string[];
  readonly columns: readonly {
    name: string;
    rows: readonly string[];
    segments: readonly Segment[];
  }[];
  readonly labelWidth: number;
  readonly columnWidth: number;
}

export function CompareView({ labels, columns, labelWidth, columnWidth }: CompareViewProps) {
  return (
    <Box flexDirection="column">
      <Box>
        <Box width={labelWidth} flexShrink={0}>
          <Text bold>compare ≠ differs</Text>
        </Box>
        {columns.map((c, i) => (
          <Box key={i} width={columnWidth} flexShrink={0} paddingRight={2}>
            <Text bold wrap="truncate">
              {c.name}
            </Text>
          </Box>
        ))}
      </Box>
      <Box>
        <Box width={labelWidth} flexShrink={0}>
          <Text>{'  memory'}</Text>
        </Box>
        {columns.map((c, i) => (
          <Box key={i} width={columnWidth} flexShrink={0}>
            <MemoryBar segments={c.segments} />
          </Box>
        ))}
      </Box>
      {labels.map((l, r) => (
        <Box key={r}>
          <Box width={labelWidth} flexShrink={0}>
            <Text>{l}</Text>
          </Box>
          {columns.map((c, i) => (
            <Box key={i} width={columnWidth} flexShrink={0} paddingRight={2}>
              <Text wrap="truncate">{c.rows[r] ?? ''}</Text>
            </Box>
          ))}
        </Box>
      ))}
    </Box>
  );
}
