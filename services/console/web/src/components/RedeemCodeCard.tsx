import { Alert, Button, Card, Stack, TextInput, Title } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, api } from "../api/client.js";
import { SESSION_KEY } from "../api/session.js";
import type { RedeemedCode } from "../api/types.js";
import { fenToMicros, formatYuan } from "../format/money.js";

const ERROR_KEYS: Record<number, string> = { 404: "redeem.notRedeemable", 429: "redeem.throttled" };

/** A prepaid code typed or pasted in: its credit lands at once, as a paid top-up in the history. */
export function RedeemCodeCard() {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const [code, setCode] = useState("");
  const redeem = useMutation({
    mutationFn: (typed: string) => api.post<RedeemedCode>("/api/topups/redeem", { code: typed }),
    onSuccess: () => {
      setCode("");
      for (const key of [SESSION_KEY, ["topups"], ["overview"]]) void client.invalidateQueries({ queryKey: key });
    },
  });
  const failure = redeem.error;
  const errorKey = failure instanceof ApiError ? ERROR_KEYS[failure.status] : undefined;
  return (
    <Card withBorder miw={280}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (code.trim()) redeem.mutate(code.trim());
        }}
      >
        <Stack>
          <Title order={4}>{t("redeem.title")}</Title>
          <TextInput
            label={t("redeem.code")}
            placeholder={t("redeem.placeholder")}
            value={code}
            onChange={(event) => setCode(event.currentTarget.value)}
            ff="monospace"
            autoComplete="off"
            data-testid="redeem-code"
          />
          <Button type="submit" variant="light" loading={redeem.isPending} disabled={!code.trim()}>
            {t("redeem.submit")}
          </Button>
          {redeem.isSuccess && (
            <Alert color="green" data-testid="redeem-result">
              {t("redeem.redeemed", { amount: formatYuan(fenToMicros(redeem.data.order.amountFen), i18n.language) })}
            </Alert>
          )}
          {failure && (
            <Alert color="red" data-testid="redeem-error">
              {errorKey ? t(errorKey) : failure.message}
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}
