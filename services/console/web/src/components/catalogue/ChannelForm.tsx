import { Modal, NumberInput, Select, Stack, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useTranslation } from "react-i18next";
import type { ChannelEntry } from "../../api/catalogue-types.js";
import { FormActions } from "../FormActions.js";
import { ChangeProblems, listOf, useCatalogueChange } from "./useCatalogueChange.js";

interface ChannelValues {
  name: string;
  vendor: string;
  baseUrl: string;
  keys: string;
  models: string;
  modelMap: string;
  weight: number | string;
  priority: number | string;
}

const mapText = (map: Record<string, string> | undefined) =>
  Object.entries(map ?? {})
    .map(([from, to]) => `${from}=${to}`)
    .join("\n");

const mapOf = (text: string) =>
  Object.fromEntries(
    text
      .split("\n")
      .map((line) => line.split("=").map((part) => part.trim()))
      .filter((pair) => pair.length === 2 && pair[0] && pair[1]),
  );

/**
 * A new channel (its keys given here, stored encrypted) or an existing one's settings; keys of an
 * existing channel are added and removed one by one in the table, since only their masks are shown.
 */
export function ChannelForm({
  editing,
  vendors,
  onClose,
}: {
  // null: a new channel; undefined: closed.
  editing: { name: string; entry: ChannelEntry } | null | undefined;
  vendors: string[];
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const entry = editing?.entry;
  const form = useForm<ChannelValues>({
    initialValues: {
      name: editing?.name ?? "",
      vendor: entry?.vendor ?? vendors[0] ?? "",
      baseUrl: entry?.base_url ?? "",
      keys: "",
      models: (entry?.models ?? []).join(", "),
      modelMap: mapText(entry?.model_map),
      weight: entry?.weight ?? 1,
      priority: entry?.priority ?? 0,
    },
  });
  const change = useCatalogueChange(onClose);
  const submit = (values: ChannelValues) => {
    const models = listOf(values.models);
    const modelMap = mapOf(values.modelMap);
    const fields = {
      vendor: values.vendor,
      base_url: values.baseUrl.trim() || null,
      models: models.length > 0 ? models : null,
      model_map: Object.keys(modelMap).length > 0 ? modelMap : null,
      weight: Number(values.weight),
      priority: Number(values.priority),
    };
    if (editing) {
      // A merge patch merges maps: a pair taken out of the map is removed by naming it null.
      const removed = Object.keys(entry?.model_map ?? {}).filter((from) => !(from in modelMap));
      const mapPatch = { ...Object.fromEntries(removed.map((from) => [from, null])), ...modelMap };
      const patch = { ...fields, model_map: Object.keys(mapPatch).length > 0 ? mapPatch : undefined };
      change.mutate({ action: "channel.update", name: editing.name, patch });
      return;
    }
    const keys = listOf(values.keys);
    const entryOf = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
    change.mutate({
      action: "channel.add",
      name: values.name.trim(),
      entry: { ...entryOf, ...(keys.length > 0 && { api_keys: keys }) },
    });
  };
  return (
    <Modal
      closeButtonProps={{ "aria-label": t("common.close") }}
      opened={editing !== undefined}
      onClose={onClose}
      title={editing ? t("catalogueEdit.editChannel", { name: editing.name }) : t("catalogueEdit.addChannel")}
      size="lg"
    >
      <form onSubmit={form.onSubmit(submit)}>
        <Stack>
          {!editing && <TextInput label={t("channels.name")} withAsterisk {...form.getInputProps("name")} />}
          <Select label={t("channels.vendor")} data={vendors} allowDeselect={false} {...form.getInputProps("vendor")} />
          <TextInput
            label={t("catalogueEdit.baseUrl")}
            description={t("catalogueEdit.baseUrlHelp")}
            {...form.getInputProps("baseUrl")}
          />
          {!editing && (
            <Textarea
              label={t("channels.keys")}
              description={t("catalogueEdit.keysHelp")}
              autosize
              minRows={2}
              {...form.getInputProps("keys")}
            />
          )}
          <TextInput
            label={t("catalogueEdit.channelModels")}
            description={t("catalogueEdit.modelsHelp")}
            {...form.getInputProps("models")}
          />
          <Textarea
            label={t("catalogueEdit.modelMap")}
            description={t("catalogueEdit.modelMapHelp")}
            autosize
            minRows={1}
            {...form.getInputProps("modelMap")}
          />
          <NumberInput label={t("catalogueEdit.weight")} min={1} {...form.getInputProps("weight")} />
          <NumberInput label={t("catalogueEdit.priority")} min={0} {...form.getInputProps("priority")} />
          <ChangeProblems error={change.error} />
          <FormActions submit={t("catalogueEdit.save")} pending={change.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
