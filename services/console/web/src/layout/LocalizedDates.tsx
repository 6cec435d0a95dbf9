import { DatesProvider } from "@mantine/dates";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { dayjsLocale } from "../i18n/index.js";

/** Date pickers in the chosen language. */
export function LocalizedDates({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation();
  return <DatesProvider settings={{ locale: dayjsLocale(i18n.language) }}>{children}</DatesProvider>;
}
