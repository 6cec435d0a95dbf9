import { Modal, MultiSelect, NumberInput, SimpleGrid, Stack, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useTranslation } from "react-i18next";
import type { GroupEntry } from "../../api/catalogue-types.js";
import { FormActions } from "../FormActions.js";
import { ChangeProblems, useCatalogueChange } from "./useCatalogueChange.js";

const LIMITS = ["requests_per_minute", "tokens_per_minute", "concurrent_requests"] as const;

type GroupValues = {
  name: string;
  description: string;
  multiplier: number | string;
  models: string[];
} & Record<(typeof LIMITS)[number], number | string>;

/** A new group or an existing one's description, limits, price multiplier and models. */
export function GroupForm({
  editing,
  models,
  onClose,
}: {
  // null: a new group; undefined: closed.
  editing: { name: string; entry: GroupEntry; models: string[] } | null | undefined;
  models: string[];
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const limits = editing?.entry.limits ?? {};
  const form = useForm<GroupValues>({
    initialValues: {
      name: editing?.name ?? "",
      description: editing?.entry.description ?? "",
      multiplier: (editing?.entry.multiplier_basis_points ?? 10_000) / 10_000,
      models: editing?.models ?? [],
      requests_per_minute: limits.requests_per_minute ?? "",
      tokens_per_minute: limits.tokens_per_minute ?? "",
      concurrent_requests: limits.concurrent_requests ?? "",
    },
  });
  const change = useCatalogueChange(onClose);
  const submit = (values: GroupValues) => {
    // A limit left empty is no limit (null removes it from the stored entry).
    const limitPatch = Object.fromEntries(
      LIMITS.map((limit) => [limit, values[limit] === "" ? null : Number(values[limit])]),
    );
    const fields = {
      description: values.description.trim(),
      multiplier_basis_points: Math.round(Number(values.multiplier) * 10_000),
    };
    const before = editing?.models ?? [];
    const groupModels = {
      add: values.models.filter((id) => !before.includes(id)),
      remove: before.filter((id) => !values.models.includes(id)),
    };
    if (editing) {
      change.mutate({
        action: "group.update",
        name: editing.name,
        patch: { ...fields, limits: limitPatch },
        models: groupModels,
      });
      return;
    }
    const entryLimits = Object.fromEntries(Object.entries(limitPatch).filter(([, value]) => value !== null));
    change.mutate({
      action: "group.add",
      name: values.name.trim(),
      entry: { ...fields, limits: entryLimits },
      models: groupModels,
    });
  };
  return (
    <Modal
      closeButtonProps={{ "aria-label": t("common.close") }}
      opened={editing !== undefined}
      onClose={onClose}
      title={editing ? t("catalogueEdit.editGroup", { name: editing.name }) : t("catalogueEdit.addGroup")}
      size="lg"
    >
      <form onSubmit={form.onSubmit(submit)}>
        <Stack>
          {!editing && <TextInput label={t("catalogue.group")} withAsterisk {...form.getInputProps("name")} />}
          <TextInput label={t("catalogue.description")} {...form.getInputProps("description")} />
          <NumberInput
            label={t("catalogue.multiplier")}
            description={t("catalogueEdit.multiplierHelp")}
            decimalScale={4}
            min={0.0001}
            {...form.getInputProps("multiplier")}
          />
          <SimpleGrid cols={3}>
            <NumberInput label={t("catalogue.rpm")} min={1} {...form.getInputProps("requests_per_minute")} />
            <NumberInput label={t("catalogue.tpm")} min={1} {...form.getInputProps("tokens_per_minute")} />
            <NumberInput label={t("catalogue.concurrent")} min={1} {...form.getInputProps("concurrent_requests")} />
          </SimpleGrid>
          <MultiSelect
            label={t("catalogueEdit.groupModels")}
            data={models}
            searchable
            {...form.getInputProps("models")}
          />
          <ChangeProblems error={change.error} />
          <FormActions submit={t("catalogueEdit.save")} pending={change.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
