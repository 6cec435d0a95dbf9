import { Code, Spoiler, Table, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { CatalogueChange } from "../../api/catalogue-types.js";
import { api } from "../../api/client.js";
import { formatDateTime } from "../../format/time.js";
import { QueryState } from "../QueryState.js";
import { TableHeader } from "../TableHeader.js";

const shown = (value: unknown) => (value === null ? "—" : JSON.stringify(value, null, 1));

function JsonCell({ value }: { value: unknown }) {
  const { t } = useTranslation();
  return (
    <Table.Td maw={320}>
      <Spoiler maxHeight={60} showLabel={t("catalogueEdit.more")} hideLabel={t("catalogueEdit.less")}>
        <Code block>{shown(value)}</Code>
      </Spoiler>
    </Table.Td>
  );
}

/** The catalogue's own audit, its latest 50 changes (`pnpm gw catalogue history` lists more): who changed which object at which revision, before and after (keys masked). */
export function CatalogueHistoryPanel() {
  const { t } = useTranslation();
  const history = useQuery({
    queryKey: ["catalogue-history"],
    queryFn: () => api.get<{ changes: CatalogueChange[] }>("/api/admin/catalogue/history?limit=50"),
  });
  return (
    <QueryState query={history}>
      {({ changes }) => (
        <>
          <Table.ScrollContainer minWidth={960}>
            <Table striped>
              <TableHeader
                labels={[
                  t("catalogueEdit.revision"),
                  t("catalogueEdit.changedAt"),
                  t("catalogueEdit.actor"),
                  t("catalogueEdit.action"),
                  t("catalogueEdit.object"),
                  t("catalogueEdit.before"),
                  t("catalogueEdit.after"),
                ]}
              />
              <Table.Tbody>
                {changes.map((change) => (
                  <Table.Tr key={`${change.revision}-${change.kind}-${change.name}`}>
                    <Table.Td>{change.revision}</Table.Td>
                    <Table.Td>{formatDateTime(change.changedAt)}</Table.Td>
                    <Table.Td ff="monospace">{change.actor}</Table.Td>
                    <Table.Td>{change.action}</Table.Td>
                    <Table.Td>{`${change.kind} ${change.name}`}</Table.Td>
                    <JsonCell value={change.before} />
                    <JsonCell value={change.after} />
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {changes.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
        </>
      )}
    </QueryState>
  );
}
