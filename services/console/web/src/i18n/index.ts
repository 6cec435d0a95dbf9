import "dayjs/locale/zh-cn";
import dayjs from "dayjs";
import i18next from "i18next";
import { initReactI18next } from "react-i18next";
import { en } from "./en.js";
import { zhCN } from "./zh-CN.js";

export const LANGUAGES = [
  { value: "zh-CN", label: "简体中文" },
  { value: "en", label: "English" },
] as const;

const STORAGE_KEY = "console.language";

const dayjsLocale = (language: string) => (language === "zh-CN" ? "zh-cn" : "en");

function applyLanguage(language: string): void {
  dayjs.locale(dayjsLocale(language));
  document.documentElement.lang = language;
  localStorage.setItem(STORAGE_KEY, language);
}

export function initI18n() {
  const saved = localStorage.getItem(STORAGE_KEY);
  const language = LANGUAGES.some((option) => option.value === saved) ? saved! : "zh-CN";
  i18next.on("languageChanged", applyLanguage);
  void i18next.use(initReactI18next).init({
    lng: language,
    fallbackLng: "zh-CN",
    resources: { "zh-CN": { translation: zhCN }, en: { translation: en } },
    interpolation: { escapeValue: false },
  });
  applyLanguage(language);
  return i18next;
}

export { dayjsLocale };
