import { Badge, Button, Group, Stack, Table, Text, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { ModelEntry } from "../../api/catalogue-types.js";
import { api } from "../../api/client.js";
import type { CatalogueDescription } from "../../api/types.js";
import { formatPrice } from "../../format/money.js";
import { QueryState } from "../QueryState.js";
import { TableHeader } from "../TableHeader.js";
import { ModelForm } from "./ModelForm.js";
import { RetireDialog } from "./RetireDialog.js";
import { useIsAdmin, useStoredCatalogue } from "./useCatalogueChange.js";

/**
 * The stored models with the prices router charges (its description: ours where the entry sets
 * them, else the dataset's) and where they come from; an admin adds, edits and retires them.
 */
export function ModelsPanel() {
  const { t, i18n } = useTranslation();
  const isAdmin = useIsAdmin();
  const stored = useStoredCatalogue();
  const described = useQuery({
    queryKey: ["admin-catalogue"],
    queryFn: () => api.get<CatalogueDescription>("/api/admin/catalogue"),
  });
  const [search, setSearch] = useState("");
  const [editing, setEditing] = useState<ModelEntry | null | undefined>(undefined);
  const [retiring, setRetiring] = useState<string | null>(null);
  const charged = new Map((described.data?.models ?? []).map((model) => [model.id, model.prices]));
  const price = (micros: number | undefined) => (micros === undefined ? "—" : formatPrice(micros, i18n.language));
  return (
    <QueryState query={stored}>
      {({ catalogue }) => {
        const models = catalogue?.models ?? [];
        const shown = models.filter((model) => model.id.includes(search.trim()));
        return (
          <Stack>
            <Group align="flex-end">
              <TextInput
                label={t("common.search")}
                value={search}
                onChange={(event) => setSearch(event.currentTarget.value)}
                maw={280}
              />
              {isAdmin && <Button onClick={() => setEditing(null)}>{t("catalogueEdit.addModel")}</Button>}
            </Group>
            <Text c="dimmed" size="sm">
              {t("catalogue.priceUnit")}
            </Text>
            <Table.ScrollContainer minWidth={960}>
              <Table striped highlightOnHover>
                <TableHeader
                  labels={[
                    t("catalogue.model"),
                    t("channels.vendor"),
                    t("catalogue.groups"),
                    t("catalogue.input"),
                    t("catalogue.output"),
                    t("catalogueEdit.priceSource"),
                    "",
                  ]}
                />
                <Table.Tbody>
                  {shown.map((model) => {
                    const prices = charged.get(model.id);
                    return (
                      <Table.Tr key={model.id}>
                        <Table.Td>
                          {model.id}
                          {model.retired && (
                            <Text size="xs" c="dimmed">
                              {t(model.retired.serve ? "catalogueEdit.retiredServed" : "catalogueEdit.retiredRefused", {
                                successor: model.retired.successor,
                                on: model.retired.on,
                              })}
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td>{model.vendor}</Table.Td>
                        <Table.Td>{model.groups.join(", ")}</Table.Td>
                        <Table.Td>{price(prices?.input)}</Table.Td>
                        <Table.Td>{price(prices?.output)}</Table.Td>
                        <Table.Td>
                          <Badge variant="light" color={model.price ? "blue" : "gray"}>
                            {model.price ? t("catalogueEdit.priceOurs") : t("catalogueEdit.priceDataset")}
                          </Badge>
                          {model.price_reason && (
                            <Text size="xs" c="dimmed">
                              {model.price_reason}
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td>
                          {isAdmin && (
                            <Group gap="xs" wrap="nowrap">
                              <Button size="xs" variant="default" onClick={() => setEditing(model)}>
                                {t("catalogueEdit.edit")}
                              </Button>
                              {!model.retired && (
                                <Button size="xs" variant="light" color="red" onClick={() => setRetiring(model.id)}>
                                  {t("catalogueEdit.retire")}
                                </Button>
                              )}
                            </Group>
                          )}
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {editing !== undefined && (
              <ModelForm
                editing={editing}
                vendors={Object.keys(catalogue?.vendors ?? {})}
                groups={Object.keys(catalogue?.groups ?? {})}
                charged={editing ? charged.get(editing.id) : undefined}
                onClose={() => setEditing(undefined)}
              />
            )}
            {retiring !== null && (
              <RetireDialog
                model={retiring}
                models={models.map((model) => model.id)}
                onClose={() => setRetiring(null)}
              />
            )}
          </Stack>
        );
      }}
    </QueryState>
  );
}
