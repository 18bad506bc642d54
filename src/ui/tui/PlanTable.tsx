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
}

export function PlanTable({ header, rows, selected, empty }: PlanTableProps) {
  return (
    <Box flexDirection="column">
      <Text bold>{header}</Text>
      {rows.length === 0 ? <Text dimColor> {empty}</Text> : null}
      {rows.map((r, i) => (
        <Row key={i} text={r} inverse={i === selected} />
      ))}
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
