import { Button, Group, Modal, MultiSelect, NumberInput, Select, SimpleGrid, Stack, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useTranslation } from "react-i18next";
import type { ModelEntry, TokenPrice, TokenPrices } from "../../api/catalogue-types.js";
import type { CatalogueModel } from "../../api/types.js";
import { formatPrice, yuanToMicros } from "../../format/money.js";
import { FormActions } from "../FormActions.js";
import { ChangeProblems, useCatalogueChange } from "./useCatalogueChange.js";

const PRICE_FIELDS = ["input", "output", "cache_read", "cache_write"] as const;
type PriceField = (typeof PRICE_FIELDS)[number];

type ModelValues = {
  id: string;
  vendor: string;
  contextWindow: number | string;
  groups: string[];
  priceReason: string;
} & Record<PriceField, number | string>;

// Yuan per million tokens in the form; banded prices are the CLI's (the form leaves them as they are).
const yuanOf = (price: TokenPrice | undefined) => (typeof price === "number" ? price / 1_000_000 : "");
const isBanded = (prices: TokenPrices | undefined) => PRICE_FIELDS.some((field) => typeof prices?.[field] === "object");

/**
 * A new model or an existing one's vendor, context, groups and prices. A model without its own
 * price takes the price dataset's; "Use the dataset's price" removes ours, and router refuses it
 * (with the reason) when the dataset lacks the model.
 */
export function ModelForm({
  editing,
  vendors,
  groups,
  charged,
  onClose,
}: {
  // null: a new model; undefined: closed.
  editing: ModelEntry | null | undefined;
  vendors: string[];
  groups: string[];
  // What router charges now (micro-yuan per million tokens): the dataset's where the entry sets no price.
  charged: CatalogueModel["prices"] | undefined;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const chargedPrice = (field: PriceField) => {
    const key = ({ input: "input", output: "output", cache_read: "cacheRead", cache_write: "cacheWrite" } as const)[
      field
    ];
    const micros = charged?.[key];
    return micros === undefined ? undefined : formatPrice(micros, i18n.language);
  };
  const banded = isBanded(editing?.price);
  const form = useForm<ModelValues>({
    initialValues: {
      id: editing?.id ?? "",
      vendor: editing?.vendor ?? vendors[0] ?? "",
      contextWindow: editing?.context_window ?? 128_000,
      groups: editing?.groups ?? ["default"],
      priceReason: editing?.price_reason ?? "",
      input: yuanOf(editing?.price?.input),
      output: yuanOf(editing?.price?.output),
      cache_read: yuanOf(editing?.price?.cache_read),
      cache_write: yuanOf(editing?.price?.cache_write),
    },
  });
  const change = useCatalogueChange(onClose);
  const priceOf = (values: ModelValues) => {
    const entries = PRICE_FIELDS.filter((field) => values[field] !== "").map((field) => [
      field,
      yuanToMicros(Number(values[field])),
    ]);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  };
  const submit = (values: ModelValues) => {
    const price = banded ? undefined : priceOf(values);
    const fields = {
      vendor: values.vendor,
      context_window: Number(values.contextWindow),
      groups: values.groups,
      ...(price && { price }),
      ...(values.priceReason.trim() && { price_reason: values.priceReason.trim() }),
    };
    if (editing) change.mutate({ action: "model.update", name: editing.id, patch: fields });
    else
      change.mutate({
        action: "model.add",
        entry: {
          id: values.id.trim(),
          created: Math.floor(Date.now() / 1000),
          endpoints: ["/v1/chat/completions"],
          ...fields,
        },
      });
  };
  return (
    <Modal
      closeButtonProps={{ "aria-label": t("common.close") }}
      opened={editing !== undefined}
      onClose={onClose}
      title={editing ? t("catalogueEdit.editModel", { name: editing.id }) : t("catalogueEdit.addModel")}
      size="lg"
    >
      <form onSubmit={form.onSubmit(submit)}>
        <Stack>
          {!editing && <TextInput label={t("catalogue.model")} withAsterisk {...form.getInputProps("id")} />}
          <Select label={t("channels.vendor")} data={vendors} allowDeselect={false} {...form.getInputProps("vendor")} />
          <NumberInput label={t("catalogue.context")} min={1} {...form.getInputProps("contextWindow")} />
          <MultiSelect label={t("catalogue.groups")} data={groups} {...form.getInputProps("groups")} />
          <SimpleGrid cols={2}>
            {PRICE_FIELDS.map((field) => (
              <NumberInput
                key={field}
                label={t(`catalogueEdit.price.${field}`)}
                description={t("catalogueEdit.perMillion")}
                placeholder={
                  editing && !editing.price
                    ? t("catalogueEdit.datasetNow", { price: chargedPrice(field) ?? "—" })
                    : undefined
                }
                decimalScale={6}
                min={0}
                disabled={banded}
                {...form.getInputProps(field)}
              />
            ))}
          </SimpleGrid>
          <TextInput
            label={t("catalogueEdit.priceReason")}
            description={t("catalogueEdit.priceReasonHelp")}
            {...form.getInputProps("priceReason")}
          />
          <ChangeProblems error={change.error} />
          <Group justify="space-between">
            {editing ? (
              <Button
                variant="subtle"
                loading={change.isPending}
                onClick={() =>
                  change.mutate({
                    action: "model.update",
                    name: editing.id,
                    patch: { price: null, price_reason: null },
                  })
                }
              >
                {t("catalogueEdit.useDataset")}
              </Button>
            ) : (
              <span />
            )}
            <FormActions submit={t("catalogueEdit.save")} pending={change.isPending} onCancel={onClose} />
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
