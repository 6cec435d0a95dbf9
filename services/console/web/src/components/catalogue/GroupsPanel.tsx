import { Button, Group, Stack, Table } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { GroupEntry } from "../../api/catalogue-types.js";
import { formatNumber } from "../../format/time.js";
import { QueryState } from "../QueryState.js";
import { TableHeader } from "../TableHeader.js";
import { GroupForm } from "./GroupForm.js";
import { useIsAdmin, useStoredCatalogue } from "./useCatalogueChange.js";

/** The stored groups with their models, limits and multiplier; an admin creates and edits them. */
export function GroupsPanel() {
  const { t, i18n } = useTranslation();
  const isAdmin = useIsAdmin();
  const stored = useStoredCatalogue();
  const [editing, setEditing] = useState<{ name: string; entry: GroupEntry; models: string[] } | null | undefined>(
    undefined,
  );
  const limit = (value: number | undefined) =>
    value === undefined ? t("catalogue.unlimited") : formatNumber(value, i18n.language);
  return (
    <QueryState query={stored}>
      {({ catalogue }) => {
        const models = catalogue?.models ?? [];
        const modelsOf = (group: string) =>
          models.filter((model) => model.groups.includes(group)).map((model) => model.id);
        return (
          <Stack>
            {isAdmin && (
              <Group>
                <Button onClick={() => setEditing(null)}>{t("catalogueEdit.addGroup")}</Button>
              </Group>
            )}
            <Table.ScrollContainer minWidth={800}>
              <Table striped>
                <TableHeader
                  labels={[
                    t("catalogue.group"),
                    t("catalogue.description"),
                    t("catalogue.multiplier"),
                    t("catalogue.rpm"),
                    t("catalogue.tpm"),
                    t("catalogue.concurrent"),
                    t("catalogueEdit.modelCount"),
                    "",
                  ]}
                />
                <Table.Tbody>
                  {Object.entries(catalogue?.groups ?? {}).map(([name, entry]) => (
                    <Table.Tr key={name}>
                      <Table.Td>{name}</Table.Td>
                      <Table.Td>{entry.description}</Table.Td>
                      <Table.Td>×{formatNumber(entry.multiplier_basis_points / 10_000, i18n.language)}</Table.Td>
                      <Table.Td>{limit(entry.limits?.requests_per_minute)}</Table.Td>
                      <Table.Td>{limit(entry.limits?.tokens_per_minute)}</Table.Td>
                      <Table.Td>{limit(entry.limits?.concurrent_requests)}</Table.Td>
                      <Table.Td>{modelsOf(name).length}</Table.Td>
                      <Table.Td>
                        {isAdmin && (
                          <Button
                            size="xs"
                            variant="default"
                            onClick={() => setEditing({ name, entry, models: modelsOf(name) })}
                          >
                            {t("catalogueEdit.edit")}
                          </Button>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {editing !== undefined && (
              <GroupForm
                editing={editing}
                models={models.map((model) => model.id)}
                onClose={() => setEditing(undefined)}
              />
            )}
          </Stack>
        );
      }}
    </QueryState>
  );
}
