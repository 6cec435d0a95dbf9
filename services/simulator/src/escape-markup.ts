const entities: Record<string, string> = { "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" };

/** Text safe inside XML or HTML elements and quoted attributes. */
export function escapeMarkup(text: string): string {
  return text.replace(/[<>&"']/g, (character) => entities[character] ?? character);
}
