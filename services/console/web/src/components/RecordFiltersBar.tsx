import { Group, Select, TextInput } from "@mantine/core";
import { DatePickerInput } from "@mantine/dates";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.js";
import type { ApiKey, RecordFilters } from "../api/types.js";

const STATUSES = ["ok", "error", "client_cancelled", "vendor_error", "stream_broken"] as const;

export const keysQuery = { queryKey: ["keys"], queryFn: () => api.get<{ keys: ApiKey[] }>("/api/keys") };

/** Time, model, key and status filters of usage records and request logs. */
export function RecordFiltersBar({
  value,
  onChange,
}: {
  value: RecordFilters;
  onChange: (next: RecordFilters) => void;
}) {
  const { t } = useTranslation();
  const keys = useQuery(keysQuery);
  const set = (patch: Partial<RecordFilters>) => onChange({ ...value, ...patch });
  return (
    <Group align="flex-end" gap="sm">
      <DatePickerInput
        type="range"
        label={t("common.dateRange")}
        value={[value.from ?? null, value.to ?? null]}
        onChange={([from, to]) => set({ from: from ?? undefined, to: to ?? undefined })}
        valueFormat="YYYY-MM-DD"
        clearable
        allowSingleDateInRange
        miw={220}
      />
      <TextInput
        label={t("common.model")}
        placeholder={t("common.anyModel")}
        value={value.model ?? ""}
        onChange={(event) => set({ model: event.currentTarget.value || undefined })}
      />
      <Select
        label={t("common.key")}
        placeholder={t("common.allKeys")}
        data={(keys.data?.keys ?? []).map((key) => ({ value: key.id, label: `${key.name} (${key.prefix})` }))}
        value={value.keyId ?? null}
        onChange={(keyId) => set({ keyId: keyId ?? undefined })}
        clearable
      />
      <Select
        label={t("common.status")}
        placeholder={t("common.allStatuses")}
        data={STATUSES.map((status) => ({ value: status, label: t(`outcome.${status}`) }))}
        value={value.status ?? null}
        onChange={(status) => set({ status: status ?? undefined })}
        clearable
      />
    </Group>
  );
}
