import { Table } from "@mantine/core";

/** A table's column headings; an empty label leaves a column (of buttons) unnamed. */
export function TableHeader({ labels }: { labels: (string | false)[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {labels.map((label, index) =>
          label === false ? null : (
            // Columns are fixed per table; an unnamed one has no other identity than its place.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <Table.Th key={index}>{label}</Table.Th>
          ),
        )}
      </Table.Tr>
    </Table.Thead>
  );
}
