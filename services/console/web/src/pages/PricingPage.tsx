import { Badge, Button, Container, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { api } from "../api/client.js";
import { useSession } from "../api/session.js";
import type { PricedModel, PriceList, TokenPricing } from "../api/types.js";
import { ModelSearchFields, useModelSearch } from "../components/ModelSearchFields.js";
import { QueryState } from "../components/QueryState.js";
import { TableHeader } from "../components/TableHeader.js";
import { formatDecimalYuan } from "../format/money.js";
import { formatNumber } from "../format/time.js";
import { LanguageSwitch } from "../layout/LanguageSwitch.js";

type PriceGroup = PriceList["groups"][number];

const pricedByUnit = ({ pricing }: PricedModel) =>
  pricing.images.length > 0 || pricing.audioSecond !== undefined || pricing.videoSecond !== undefined;

/**
 * Whether a zero is a price: only a token-priced model's input can be free. A zero elsewhere
 * (tokens of a per-image or per-second model, an embedding's output, a cache the model has no
 * price for) means the model is not priced that way, shown as a dash rather than ¥0.00.
 */
const notPricedSo = (model: PricedModel, field: keyof TokenPricing) =>
  Number(model.pricing.tokens[field]) === 0 && (field !== "prompt" || pricedByUnit(model));

/** One token price, and below it the price for each longer-prompt band. */
function TokenPrice({ model, field }: { model: PricedModel; field: keyof TokenPricing }) {
  const { t, i18n } = useTranslation();
  const yuan = (value: string) => formatDecimalYuan(value, i18n.language);
  if (notPricedSo(model, field)) return <Text c="dimmed">—</Text>;
  return (
    <>
      {yuan(model.pricing.tokens[field])}
      {model.pricing.tiers.map((tier) => (
        <Text key={tier.minPromptTokens} size="xs" c="dimmed">
          {t("pricing.tier", {
            tokens: formatNumber(tier.minPromptTokens, i18n.language),
            price: yuan(tier.prices[field]),
          })}
        </Text>
      ))}
    </>
  );
}

/** What a model costs beyond tokens: each image size and quality, or a second of audio or video. */
function UnitPrices({ model }: { model: PricedModel }) {
  const { t, i18n } = useTranslation();
  const yuan = (value: string) => formatDecimalYuan(value, i18n.language);
  const { images, audioSecond, videoSecond } = model.pricing;
  const perSecond = audioSecond ?? videoSecond;
  return (
    <>
      {images.map((image) => (
        <Text key={`${image.size}/${image.quality}`} size="xs">
          {t("pricing.perImage", { size: image.size, quality: image.quality, price: yuan(image.price) })}
        </Text>
      ))}
      {perSecond !== undefined && t("catalogue.perSecond", { price: yuan(perSecond) })}
    </>
  );
}

function GroupPrices({ group, models }: { group: PriceGroup; models: PricedModel[] }) {
  const { t, i18n } = useTranslation();
  return (
    <Stack gap="xs" component="section" aria-label={group.name}>
      <Group gap="sm">
        <Title order={3}>{group.name}</Title>
        <Badge variant="light">
          {t("pricing.multiplier", { value: formatNumber(group.multiplierBasisPoints / 10_000, i18n.language) })}
        </Badge>
      </Group>
      <Text c="dimmed" size="sm">
        {group.description}
      </Text>
      <Table.ScrollContainer minWidth={960}>
        <Table striped highlightOnHover>
          <TableHeader
            labels={[
              t("catalogue.model"),
              t("channels.vendor"),
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
                <Table.Td>{model.id}</Table.Td>
                <Table.Td>{model.ownedBy}</Table.Td>
                <Table.Td>{formatNumber(model.contextWindow, i18n.language)}</Table.Td>
                <Table.Td>
                  <TokenPrice model={model} field="prompt" />
                </Table.Td>
                <Table.Td>
                  <TokenPrice model={model} field="completion" />
                </Table.Td>
                <Table.Td>
                  <TokenPrice model={model} field="inputCacheRead" />
                </Table.Td>
                <Table.Td>
                  <TokenPrice model={model} field="inputCacheWrite" />
                </Table.Td>
                <Table.Td>
                  <UnitPrices model={model} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {models.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
    </Stack>
  );
}

/** The public price list (no sign-in): each group's models at that group's prices, searchable. */
export default function PricingPage() {
  const { t } = useTranslation();
  const session = useSession();
  const modelSearch = useModelSearch();
  const list = useQuery({ queryKey: ["pricing"], queryFn: () => api.get<PriceList>("/api/pricing") });
  return (
    <Container size="xl" py="lg">
      <Stack>
        <Group justify="space-between" align="flex-start">
          <Stack gap={4}>
            <Title order={2}>{t("pricing.title")}</Title>
            <Text c="dimmed" size="sm">
              {t("pricing.subtitle")}
            </Text>
          </Stack>
          <Group gap="sm">
            <LanguageSwitch />
            <Button component={Link} to={session.data ? "/" : "/signin"} variant="light" size="xs">
              {session.data ? t("pricing.toConsole") : t("pricing.signIn")}
            </Button>
          </Group>
        </Group>
        <QueryState query={list}>
          {({ groups }) => (
            <>
              <ModelSearchFields
                state={modelSearch}
                groups={groups.map((group) => group.name)}
                allGroups={t("pricing.allGroups")}
              />
              {groups
                .filter((group) => !modelSearch.group || group.name === modelSearch.group)
                .map((group) => (
                  <GroupPrices key={group.name} group={group} models={group.models.filter(modelSearch.matches)} />
                ))}
            </>
          )}
        </QueryState>
      </Stack>
    </Container>
  );
}
