import { Badge } from "@mantine/core";
import { useTranslation } from "react-i18next";

export function OutcomeBadge({ outcome }: { outcome: string }) {
  const { t } = useTranslation();
  return (
    <Badge color={outcome === "ok" ? "green" : "red"} variant="light">
      {t(`outcome.${outcome}`, { defaultValue: outcome })}
    </Badge>
  );
}
