import { Select } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { isLanguage, LANGUAGES, pickLanguage } from "../i18n/index.js";

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  return (
    <Select
      aria-label={t("app.language")}
      data={[...LANGUAGES]}
      value={i18n.language}
      onChange={(language) => isLanguage(language) && pickLanguage(language)}
      allowDeselect={false}
      w={130}
      size="xs"
      comboboxProps={{ withinPortal: true }}
    />
  );
}
