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

type Language = (typeof LANGUAGES)[number]["value"];

export const isLanguage = (value: string | null): value is Language =>
  LANGUAGES.some((option) => option.value === value);

/**
 * The browser's first preference we speak (any Chinese variant reads the simplified console).
 * Chinese when it prefers neither: the console's home market.
 */
function browserLanguage(): Language {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const primary = tag.toLowerCase().split("-")[0];
    if (primary === "zh") return "zh-CN";
    if (primary === "en") return "en";
  }
  return "zh-CN";
}

function applyLanguage(language: string): void {
  dayjs.locale(dayjsLocale(language));
  document.documentElement.lang = language;
}

/** The user's own pick outlives the browser's preference; until there is one, the browser decides on each visit. */
export function pickLanguage(language: Language): void {
  localStorage.setItem(STORAGE_KEY, language);
  void i18next.changeLanguage(language);
}

export function initI18n() {
  const saved = localStorage.getItem(STORAGE_KEY);
  const language = isLanguage(saved) ? saved : browserLanguage();
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
