import { Modal, NumberInput, Stack, Textarea } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.js";
import { formatYuan, yuanToMicros } from "../format/money.js";
import { FormActions } from "./FormActions.js";

/** An operator's credit adjustment of one account, with the reason the audit log keeps. */
export function AdjustCreditDialog({
  account,
  onClose,
}: {
  account: { id: string; name: string } | null;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  // One key per opened dialog: a retried or double-clicked submit credits once.
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const form = useForm<{ yuan: number | string; reason: string }>({
    initialValues: { yuan: "", reason: "" },
    validate: {
      yuan: (yuan) => (typeof yuan === "number" && yuanToMicros(yuan) !== 0 ? null : t("admin.amountInvalid")),
      reason: (reason) => (reason.trim() ? null : t("admin.reasonRequired")),
    },
  });
  const adjust = useMutation({
    mutationFn: ({ id, ...credit }: { id: string; amountMicros: number; reason: string; idempotencyKey: string }) =>
      api.post<{ balanceMicros: number }>(`/api/admin/accounts/${encodeURIComponent(id)}/credit`, credit),
    onSuccess: ({ balanceMicros }) => {
      notifications.show({
        color: "green",
        message: t("admin.adjusted", { balance: formatYuan(balanceMicros, i18n.language) }),
      });
      void client.invalidateQueries({ queryKey: ["admin-accounts"] });
      void client.invalidateQueries({ queryKey: ["operator-account"] });
      form.reset();
      onClose();
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  return (
    <Modal
      closeButtonProps={{ "aria-label": t("common.close") }}
      opened={account !== null}
      onClose={onClose}
      title={t("admin.adjustTitle", { name: account?.name ?? "" })}
    >
      <form
        onSubmit={form.onSubmit(({ yuan, reason }) =>
          adjust.mutate({
            id: account!.id,
            amountMicros: yuanToMicros(Number(yuan)),
            reason: reason.trim(),
            idempotencyKey,
          }),
        )}
      >
        <Stack>
          <NumberInput label={t("admin.amount")} decimalScale={6} withAsterisk {...form.getInputProps("yuan")} />
          <Textarea label={t("admin.reason")} withAsterisk autosize minRows={2} {...form.getInputProps("reason")} />
          <FormActions submit={t("admin.adjust")} pending={adjust.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
