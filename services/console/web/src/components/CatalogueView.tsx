import { Badge, Select, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.js";
import type { CatalogueDescription, CatalogueModel } from "../api/types.js";
import { formatPrice } from "../format/money.js";
import { formatNumber } from "../format/time.js";
import { ModelSearchFields, useModelSearch } from "./ModelSearchFields.js";
import { QueryState } from "./QueryState.js";
import { TableHeader } from "./TableHeader.js";

const KINDS: CatalogueModel["kind"][] = ["chat", "embedding", "image", "audio", "video"];

/** What a model costs beyond tokens: per image (the cheapest to the dearest size and quality) or per second. */
function UnitPrice({ model }: { model: CatalogueModel }) {
  const { t, i18n } = useTranslation();
  const price = (micros: number) => formatPrice(micros, i18n.language);
  if (model.imagePrices.length > 0) {
    const prices = model.imagePrices.map((entry) => entry.price);
    const [low, high] = [Math.min(...prices), Math.max(...prices)];
    return <>{t("catalogue.perImage", { price: low === high ? price(low) : `${price(low)}–${price(high)}` })}</>;
  }
  if (model.pricePerSecond !== undefined)
    return <>{t("catalogue.perSecond", { price: price(model.pricePerSecond) })}</>;
  return null;
}

function ModelsTable({ models }: { models: CatalogueModel[] }) {
  const { t, i18n } = useTranslation();
  const price = (micros: number | undefined) => (micros === undefined ? "—" : formatPrice(micros, i18n.language));
  return (
    <Table.ScrollContainer minWidth={960}>
      <Table striped highlightOnHover>
        <TableHeader
          labels={[
            t("catalogue.model"),
            t("channels.vendor"),
            t("catalogue.kind"),
            t("catalogue.groups"),
            t("catalogue.context"),
            t("catalogue.input"),
            t("catalogue.output"),
            t("catalogue.cacheRead"),
            t("catalogue.cacheWrite"),
            t("catalogue.unitPrice"),
          ]}
        />
        <Table.Tbody>
          {models.map((model) => (
            <Table.Tr key={model.id}>
              <Table.Td>
                {model.id}
                {!model.servable && (
                  <Badge ml="xs" color="gray" variant="outline">
                    {t("catalogue.unservable")}
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>{model.ownedBy}</Table.Td>
              <Table.Td>{t(`catalogue.kinds.${model.kind}`)}</Table.Td>
              <Table.Td>{model.groups.join(", ")}</Table.Td>
              <Table.Td>{formatNumber(model.contextWindow, i18n.language)}</Table.Td>
              <Table.Td>{price(model.prices.input)}</Table.Td>
              <Table.Td>{price(model.prices.output)}</Table.Td>
              <Table.Td>{price(model.prices.cacheRead)}</Table.Td>
              <Table.Td>{price(model.prices.cacheWrite)}</Table.Td>
              <Table.Td>
                <UnitPrice model={model} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The catalogue's groups with their rate limits, and its models with their prices, searchable. */
export function CatalogueView() {
  const { t, i18n } = useTranslation();
  const modelSearch = useModelSearch();
  const [kind, setKind] = useState<string | null>(null);
  const catalogue = useQuery({
    queryKey: ["admin-catalogue"],
    queryFn: () => api.get<CatalogueDescription>("/api/admin/catalogue"),
  });
  const limit = (value: number | undefined) =>
    value === undefined ? t("catalogue.unlimited") : formatNumber(value, i18n.language);
  return (
    <QueryState query={catalogue}>
      {({ groups, models }) => {
        const shown = models.filter(
          (model) =>
            modelSearch.matches(model) &&
            (!modelSearch.group || model.groups.includes(modelSearch.group)) &&
            (!kind || model.kind === kind),
        );
        return (
          <Stack>
            <Title order={3}>{t("catalogue.groupsTitle")}</Title>
            <Table.ScrollContainer minWidth={640}>
              <Table striped>
                <TableHeader
                  labels={[
                    t("catalogue.group"),
                    t("catalogue.description"),
                    t("catalogue.multiplier"),
                    t("catalogue.rpm"),
                    t("catalogue.tpm"),
                    t("catalogue.concurrent"),
                  ]}
                />
                <Table.Tbody>
                  {groups.map((entry) => (
                    <Table.Tr key={entry.name}>
                      <Table.Td>{entry.name}</Table.Td>
                      <Table.Td>{entry.description}</Table.Td>
                      <Table.Td>×{formatNumber(entry.multiplierBasisPoints / 10_000, i18n.language)}</Table.Td>
                      <Table.Td>{limit(entry.limits.requestsPerMinute)}</Table.Td>
                      <Table.Td>{limit(entry.limits.tokensPerMinute)}</Table.Td>
                      <Table.Td>{limit(entry.limits.concurrentRequests)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Title order={3}>{t("catalogue.modelsTitle")}</Title>
            <Text c="dimmed" size="sm">
              {t("catalogue.priceUnit")}
            </Text>
            <ModelSearchFields
              state={modelSearch}
              groups={groups.map((entry) => entry.name)}
              allGroups={t("catalogue.all")}
            >
              <Select
                label={t("catalogue.kind")}
                placeholder={t("catalogue.all")}
                data={KINDS.map((value) => ({ value, label: t(`catalogue.kinds.${value}`) }))}
                value={kind}
                onChange={setKind}
                clearable
                maw={200}
              />
            </ModelSearchFields>
            <ModelsTable models={shown} />
            {shown.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
          </Stack>
        );
      }}
    </QueryState>
  );
}
