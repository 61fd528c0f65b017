/**
 * Layout checks of the browser tests (issue 20, item 4): each page is screenshotted at a
 * desktop width (1,100 px) and a phone width (390 px) into test/e2e/screenshots/ (ignored by
 * git) and must not scroll sideways; table header cells and status cells stay on one line;
 * buttons side by side do not touch.
 */
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

/** The two widths every page must fit. */
export const WIDTHS = [1100, 390] as const;
export const SCREENSHOT_DIR = 'test/e2e/screenshots';

/** What {@link layoutFacts} measures in the page. */
export interface LayoutFacts {
  scrollWidth: number;
  innerWidth: number;
  /** Header / status / method cells taller than one line of text: one syllable per line. */
  brokenCells: string[];
  /** Pairs of buttons in one row closer than 4 px (or overlapping). */
  touchingButtons: string[];
}

/** Measures the current page. */
export function layoutFacts(page: Page): Promise<LayoutFacts> {
  // Runs in the browser; the project compiles without the DOM lib, hence the loose typing.
  return page.evaluate(() => {
    const g = globalThis as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    const doc = g.document;
    const brokenCells: string[] = [];
    for (const cell of doc.querySelectorAll('th, td.status, td.method, td.amount')) {
      const text = String(cell.textContent).trim();
      if (!text) continue;
      // The text's own box (a cell is as tall as its row): more than one line means it broke.
      const range = doc.createRange();
      range.selectNodeContents(cell);
      const lh = parseFloat(g.getComputedStyle(cell).lineHeight) || 24;
      if (range.getBoundingClientRect().height > lh * 1.5) brokenCells.push(text);
    }
    const touchingButtons: string[] = [];
    const buttons = [...doc.querySelectorAll('button, a.button')].filter((b: any) => b.offsetParent !== null); // eslint-disable-line @typescript-eslint/no-explicit-any
    for (let i = 0; i < buttons.length; i++) {
      for (let j = i + 1; j < buttons.length; j++) {
        const a = buttons[i].getBoundingClientRect();
        const b = buttons[j].getBoundingClientRect();
        const sameRow = a.top < b.bottom && b.top < a.bottom;
        const gap = Math.max(b.left - a.right, a.left - b.right);
        if (sameRow && gap < 4) touchingButtons.push(`${buttons[i].textContent.trim()} | ${buttons[j].textContent.trim()}`);
      }
    }
    return { scrollWidth: doc.documentElement.scrollWidth as number, innerWidth: g.innerWidth as number, brokenCells, touchingButtons };
  });
}

/**
 * Screenshots the current page at 1,100 px and 390 px as `<name>-<width>.png` and asserts
 * the layout facts at both widths; leaves the viewport at 1,100 px.
 */
export async function checkLayout(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-${width}.png`, fullPage: true });
    const facts = await layoutFacts(page);
    expect(facts.scrollWidth, `${name} at ${width}px scrolls sideways`).to.be.at.most(facts.innerWidth);
    expect(facts.brokenCells, `${name} at ${width}px: cells broken one syllable per line`).to.deep.equal([]);
    expect(facts.touchingButtons, `${name} at ${width}px: buttons touch`).to.deep.equal([]);
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}
