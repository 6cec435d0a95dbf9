// Text drawn from every Unicode script, for checking token bounds against real tokenizers.

/** Every value of the Unicode Script property but Unknown (Unicode 17, as Node 20.19+ and 24 know it). */
export const unicodeScripts = [
  "Adlam",
  "Ahom",
  "Anatolian_Hieroglyphs",
  "Arabic",
  "Armenian",
  "Avestan",
  "Balinese",
  "Bamum",
  "Bassa_Vah",
  "Batak",
  "Bengali",
  "Beria_Erfe",
  "Bhaiksuki",
  "Bopomofo",
  "Brahmi",
  "Braille",
  "Buginese",
  "Buhid",
  "Canadian_Aboriginal",
  "Carian",
  "Caucasian_Albanian",
  "Chakma",
  "Cham",
  "Cherokee",
  "Chorasmian",
  "Common",
  "Coptic",
  "Cuneiform",
  "Cypriot",
  "Cypro_Minoan",
  "Cyrillic",
  "Deseret",
  "Devanagari",
  "Dives_Akuru",
  "Dogra",
  "Duployan",
  "Egyptian_Hieroglyphs",
  "Elbasan",
  "Elymaic",
  "Ethiopic",
  "Garay",
  "Georgian",
  "Glagolitic",
  "Gothic",
  "Grantha",
  "Greek",
  "Gujarati",
  "Gunjala_Gondi",
  "Gurmukhi",
  "Gurung_Khema",
  "Hangul",
  "Han",
  "Hanifi_Rohingya",
  "Hanunoo",
  "Hatran",
  "Hebrew",
  "Hiragana",
  "Imperial_Aramaic",
  "Inherited",
  "Inscriptional_Pahlavi",
  "Inscriptional_Parthian",
  "Javanese",
  "Kaithi",
  "Kannada",
  "Katakana",
  "Kawi",
  "Kayah_Li",
  "Kharoshthi",
  "Khitan_Small_Script",
  "Khmer",
  "Khojki",
  "Khudawadi",
  "Kirat_Rai",
  "Lao",
  "Latin",
  "Lepcha",
  "Limbu",
  "Linear_A",
  "Linear_B",
  "Lisu",
  "Lycian",
  "Lydian",
  "Mahajani",
  "Makasar",
  "Malayalam",
  "Mandaic",
  "Manichaean",
  "Marchen",
  "Masaram_Gondi",
  "Medefaidrin",
  "Meetei_Mayek",
  "Mende_Kikakui",
  "Meroitic_Cursive",
  "Meroitic_Hieroglyphs",
  "Modi",
  "Mongolian",
  "Mro",
  "Multani",
  "Myanmar",
  "Nabataean",
  "Nag_Mundari",
  "Nandinagari",
  "New_Tai_Lue",
  "Newa",
  "Nko",
  "Nushu",
  "Nyiakeng_Puachue_Hmong",
  "Ogham",
  "Ol_Chiki",
  "Ol_Onal",
  "Old_Hungarian",
  "Old_Italic",
  "Old_North_Arabian",
  "Old_Permic",
  "Old_Persian",
  "Old_Sogdian",
  "Old_South_Arabian",
  "Old_Turkic",
  "Old_Uyghur",
  "Oriya",
  "Osage",
  "Osmanya",
  "Pahawh_Hmong",
  "Palmyrene",
  "Pau_Cin_Hau",
  "Phags_Pa",
  "Phoenician",
  "Miao",
  "Psalter_Pahlavi",
  "Rejang",
  "Runic",
  "Samaritan",
  "Saurashtra",
  "Sharada",
  "Shavian",
  "Siddham",
  "Sidetic",
  "SignWriting",
  "Sinhala",
  "Sogdian",
  "Sora_Sompeng",
  "Soyombo",
  "Sundanese",
  "Sunuwar",
  "Syloti_Nagri",
  "Syriac",
  "Tagalog",
  "Tagbanwa",
  "Tai_Le",
  "Tai_Tham",
  "Tai_Viet",
  "Tai_Yo",
  "Takri",
  "Tamil",
  "Tangsa",
  "Tangut",
  "Telugu",
  "Thaana",
  "Thai",
  "Tibetan",
  "Tifinagh",
  "Tirhuta",
  "Todhri",
  "Tolong_Siki",
  "Toto",
  "Tulu_Tigalari",
  "Ugaritic",
  "Vai",
  "Vithkuqi",
  "Wancho",
  "Warang_Citi",
  "Yezidi",
  "Yi",
  "Zanabazar_Square",
] as const;

const everyCodePoint = (() => {
  let text = "";
  for (let code = 0; code <= 0x10ffff; code++) if (code < 0xd800 || code > 0xdfff) text += String.fromCodePoint(code);
  return text;
})();

/** Assigned characters outside every listed script (should be none): private use and surrogates aside. */
export function unlistedCharacters(): string[] {
  const listed = unicodeScripts.map((name) => `\\p{Script=${name}}`).join("");
  return everyCodePoint.match(new RegExp(`(?![${listed}\\p{Co}\\p{Cn}])[^]`, "gu")) ?? [];
}

/** The characters of one script. */
export const scriptCharacters = (script: string): string[] =>
  everyCodePoint.match(new RegExp(`\\p{Script=${script}}`, "gu")) ?? [];

// mulberry32: a small seeded generator, so every run draws the same text.
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const asciiMix = [..."abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,;:!?'\"-_/()[]{}<>#$%&*+=\n\t"];

/**
 * Text of `length` characters from `characters`: one unbroken run, words between single spaces
 * and line breaks, and the script's characters mixed with ASCII letters, digits and symbols.
 */
export function sampleTexts(characters: string[], length: number, seed: number): Record<string, string> {
  const random = seededRandom(seed);
  const pick = (from: string[]) => from[Math.floor(random() * from.length)]!;
  let run = "";
  let words = "";
  let mixed = "";
  for (let i = 0; i < length; i++) {
    run += pick(characters);
    words += pick(characters) + (random() < 0.25 ? pick([" ", " ", " ", "\n", ", "]) : "");
    mixed += random() < 0.5 ? pick(characters) : pick(asciiMix);
  }
  return { run, words, mixed };
}
