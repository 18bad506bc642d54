/** The selected plan: memory bar and legend, power per circuit, time and cost; techniques and pruned counts beside. */
import { Box, Text } from 'ink';
import { MemoryBar } from './MemoryBar.js';
import type { Segment } from './cells.js';

export interface DetailPaneProps {
  readonly title: string;
  readonly segments: readonly Segment[];
  readonly memoryHeadline: string;
  /** The plan's host RAM per node (hostRamDetail): the figure every view shows. */
  readonly hostRam: string;
  readonly legend: readonly string[];
  readonly power: readonly string[];
  readonly timeCost: string;
  readonly techniques: readonly string[];
  readonly slowdown: string;
  readonly pruned: readonly string[];
  readonly leftWidth: number;
  readonly rightWidth: number;
}

export function DetailPane(p: DetailPaneProps) {
  return (
    <Box flexDirection="column" borderStyle="single" borderTop paddingX={0}>
      <Text bold wrap="truncate">
        {p.title}
      </Text>
      <Box>
        <Box flexDirection="column" width={p.leftWidth} marginRight={2}>
          <Text wrap="truncate">{p.memoryHeadline}</Text>
          <MemoryBar segments={p.segments} />
          <Text wrap="truncate">{p.hostRam}</Text>
          {p.legend.map((l, i) => (
            <Text key={i} wrap="truncate">
              {l}
            </Text>
          ))}
          <Text bold>power</Text>
          {p.power.slice(0, 3).map((l, i) => (
            <Text key={i} wrap="truncate">
              {l}
            </Text>
          ))}
          <Text bold>time and cost</Text>
          <Text wrap="truncate">{p.timeCost}</Text>
        </Box>
        <Box flexDirection="column" width={p.rightWidth}>
          <Text bold wrap="truncate">
            techniques · {p.slowdown}
          </Text>
          {p.techniques.slice(0, 4).map((l, i) => (
            <Text key={i} wrap="truncate">
              {l}
            </Text>
          ))}
          <Text bold>pruned around it</Text>
          {p.pruned.slice(0, 5).map((l, i) => (
            <Text key={i} wrap="truncate">
              {l}
            </Text>
          ))}
        </Box>
      </Box>
    </Box>
  );
}
