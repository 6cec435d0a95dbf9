import { Table, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { CursorPager } from "./CursorPager.js";
import { TableHeader } from "./TableHeader.js";
import type { useCursorPages } from "./useCursorPages.js";

/** One page of a cursor-paged list as a striped table, "nothing here" when empty, and the pager below. */
export function PagedTable({
  labels,
  rows,
  minWidth,
  testId,
  pages,
  nextCursor,
}: {
  labels: string[];
  rows: ReactNode[];
  minWidth: number;
  testId: string;
  pages: ReturnType<typeof useCursorPages>;
  nextCursor: string;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Table.ScrollContainer minWidth={minWidth}>
        <Table striped data-testid={testId}>
          <TableHeader labels={labels} />
          <Table.Tbody>{rows}</Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {rows.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
      <CursorPager pages={pages} nextCursor={nextCursor} />
    </>
  );
}
