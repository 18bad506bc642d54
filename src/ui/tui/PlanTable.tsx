/** The ranked plans: a header and only the visible window of rows (fast with thousands of plans). */
import { memo } from 'react';
import { Box, Text } from 'ink';

export interface PlanTableProps {
  /** Column titles, already laid out to the table width. */
  readonly header: string;
  /** The visible rows, already formatted. */
  readonly rows: readonly string[];
  /** Index in `rows` of the selected plan, or -1. */
  readonly selected: number;
  /** Shown when there are no rows. */
  readonly empty: string;
  /** What a narrow table's abbreviated titles mean (null at full width). */
  readonly legend: string | null;
  /** The selected plan in full under a narrow table (null at full width). */
  readonly selectedText: string | null;
}

export function PlanTable({ header, rows, selected, empty, legend, selectedText }: PlanTableProps) {
  return (
    <Box flexDirection="column">
      <Text bold>{header}</Text>
      {rows.length === 0 ? <Text dimColor> {empty}</Text> : null}
      {rows.map((r, i) => (
        <Row key={i} text={r} inverse={i === selected} />
      ))}
      {legend !== null ? (
        <Text dimColor wrap="truncate">
          {legend}
        </Text>
      ) : null}
      {selectedText !== null ? <Text wrap="truncate">{selectedText}</Text> : null}
    </Box>
  );
}

/** One row; a key move redraws only the two rows whose highlight changed (the others keep their props). */
const Row = memo(function Row({ text, inverse }: { text: string; inverse: boolean }) {
  return (
    <Text inverse={inverse} wrap="truncate">
      {text}
    </Text>
  );
});
