import { Button, Group } from "@mantine/core";
import { useTranslation } from "react-i18next";

/** A dialog form's Cancel and submit buttons. */
export function FormActions({ submit, pending, onCancel }: { submit: string; pending: boolean; onCancel: () => void }) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        {t("common.cancel")}
      </Button>
      <Button type="submit" loading={pending}>
        {submit}
      </Button>
    </Group>
  );
}
