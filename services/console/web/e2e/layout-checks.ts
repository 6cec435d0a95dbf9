import type { Page } from "playwright-core";

// Run in the page, where the layout is: plain script, as this project's types have no DOM.
const LAYOUT_PROBLEMS = `(() => {
  const problems = [];
  const text = (element) => (element.textContent ?? "").trim().slice(0, 60);
  const scrollsSideways = (element) => ["auto", "scroll"].includes(getComputedStyle(element).overflowX);
  for (const label of document.querySelectorAll(".mantine-Badge-label")) {
    if (label.scrollWidth > label.clientWidth + 1) problems.push(\`badge "\${text(label)}" is cut by an ellipsis\`);
  }
  for (const table of document.querySelectorAll("table")) {
    let scrolled = false;
    for (let ancestor = table.parentElement; ancestor && ancestor !== document.body; ancestor = ancestor.parentElement) {
      if (scrollsSideways(ancestor)) scrolled = true;
    }
    const box = table.parentElement;
    const width = table.getBoundingClientRect().width;
    if (!scrolled && width > box.clientWidth + 1) {
      const headings = [...table.querySelectorAll("th")].map(text).join(", ");
      problems.push(\`table (\${headings}) is \${Math.round(width)} px wide in a box of \${box.clientWidth} px\`);
    }
  }
  const pageWidth = document.documentElement.scrollWidth;
  if (pageWidth > window.innerWidth + 1) problems.push(\`the page is \${pageWidth} px wide on a \${window.innerWidth} px screen\`);
  for (const element of document.querySelectorAll("[data-layout-visible]")) {
    const { right } = element.getBoundingClientRect();
    let edge = window.innerWidth;
    for (let ancestor = element.parentElement; ancestor; ancestor = ancestor.parentElement) {
      if (scrollsSideways(ancestor)) edge = Math.min(edge, ancestor.getBoundingClientRect().right);
    }
    if (right > edge + 1) problems.push(\`"\${text(element)}" is past the edge of what is shown\`);
  }
  return problems;
})()`;

/**
 * What a page's layout hides from its reader, as the browser laid it out, each as a sentence:
 * - a status badge whose words end in an ellipsis ("SUC…", "已…");
 * - a table wider than the box it sits in, unless an ancestor scrolls sideways (Mantine's
 *   Table.ScrollContainer, where a wide data table is put on purpose so that a phone scrolls to
 *   its other columns): anywhere else its columns are cut off or push the page sideways;
 * - a page wider than the screen;
 * - `[data-layout-visible]` content (what a reader must see without scrolling sideways, such as
 *   an order's amount and status) past the right edge of the screen or of a scrolled box.
 */
export const layoutProblems = (page: Page) => page.evaluate<string[]>(LAYOUT_PROBLEMS);

const TOASTS_OVER_HEADER = `(() => {
  const header = document.querySelector(".mantine-AppShell-header")?.getBoundingClientRect();
  if (!header) return [];
  return [...document.querySelectorAll(".mantine-Notification-root")].flatMap((toast) => {
    const box = toast.getBoundingClientRect();
    const overlaps = box.left < header.right && box.right > header.left && box.top < header.bottom && box.bottom > header.top;
    return overlaps ? [\`toast "\${(toast.textContent ?? "").trim().slice(0, 60)}" covers the header\`] : [];
  });
})()`;

/** Each open toast that covers the header (the account's name, balance and language menu). */
export const toastsOverHeader = (page: Page) => page.evaluate<string[]>(TOASTS_OVER_HEADER);
