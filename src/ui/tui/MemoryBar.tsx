/** A stacked per-GPU memory bar: one coloured run per component, then the headroom, then the capacity mark. */
import { Text } from 'ink';
import type { Segment } from './cells.js';

export interface MemoryBarProps {
  /** Segments from memorySegments(); their cells add up to the bar's width. */
  readonly segments: readonly Segment[];
  /** Text after the bar. */
  readonly label?: string;
}

export function MemoryBar({ segments, label }: MemoryBarProps) {
  return (
    <Text wrap="truncate">
      {segments.map((s) => (
        <Text key={s.key} color={s.color} dimColor={s.key === 'headroom'}>
          {s.glyph.repeat(s.cells)}
        </Text>
      ))}
      <Text>│</Text>
      {label ? <Text> {label}</Text> : null}
    </Text>
  );
}
