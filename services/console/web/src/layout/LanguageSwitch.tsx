import { Select } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { LANGUAGES } from "../i18n/index.js";

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  return (
    <Select
      aria-label={t("app.language")}
      data={[...LANGUAGES]}
      value={i18n.language}
      onChange={(language) => language && void i18n.changeLanguage(language)}
      allowDeselect={false}
      w={130}
      size="xs"
      comboboxProps={{ withinPortal: true }}
    />
  );
}
