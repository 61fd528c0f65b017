/**
 * Layout checks of the browser tests: each page is screenshotted at a laptop width (1,280 px),
 * a narrow desktop window (1,100 px) and a phone (375 px) into test/e2e/screenshots/ (ignored
 * by git) and must not scroll sideways; table header cells and status cells stay on one line;
 * identifiers (order numbers, TIDs, sequence numbers, test card numbers) break only where the
 * shop marked a place for it (`<wbr>` between an identifier's parts), never mid-part; on a phone
 * every value of a table's card shows its label and every link, button and radio label is at
 * least 44 px tall; at 1,280 px every table fits its frame whole, and on a desktop every table
 * cell is a table cell; buttons side by side and boxes one above the other do not touch.
 */
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

/** The laptop width at which every table of every page fits its frame, no column hidden. */
export const LAPTOP = 1280;
/** The phone width, at which tables are cards and tap targets are at least {@link MIN_TAP} px tall. */
export const PHONE = 375;
/** The smallest height of a link, button or radio label on a phone. */
export const MIN_TAP = 44;
/** A narrow desktop window, where a wide table may scroll inside its own box; the tests' default. */
export const DESKTOP = 1100;
/** The widths every page must fit: a laptop, a narrow desktop window, a phone. */
export const WIDTHS = [LAPTOP, DESKTOP, PHONE] as const;
export const SCREENSHOT_DIR = 'test/e2e/screenshots';

/** What {@link layoutFacts} measures in the page. */
export interface LayoutFacts {
  scrollWidth: number;
  innerWidth: number;
  /** Header / status / method cells taller than one line of text: one syllable per line. */
  brokenCells: string[];
  /** Pairs of buttons in one row closer than 4 px (or overlapping). */
  touchingButtons: string[];
  /** Table cells shown as cards (phone width) whose value has no visible label. */
  unlabelledCells: string[];
  /** Framed boxes (cards, notices, tables, inputs) stacked with less than 4 px between them. */
  touchingBoxes: string[];
  /** Cells of a table shown as a table (its header visible) that are not `display: table-cell`. */
  cellsNotCells: string[];
  /** Tables wider than their frame (`id scrollWidth/clientWidth`): columns hidden off to the side. */
  widerTables: string[];
  /** Links, buttons and radio labels shorter than {@link MIN_TAP} px (`text height`); a link inside running text is exempt. */
  smallTargets: string[];
}

/** What must never break inside: identifiers, and the test card numbers of the key-in page. */
export const IDENTIFIERS = '.moid, td.moid a, .tid, .id, code, #card-number, #vbank-account, td.date';

/** Measures the current page. */
export function layoutFacts(page: Page): Promise<LayoutFacts> {
  // Runs in the browser; the project compiles without the DOM lib, hence the loose typing.
  return page.evaluate((minTap) => {
    const g = globalThis as any;
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
    const buttons = [...doc.querySelectorAll('button, a.button')].filter((b: any) => b.offsetParent !== null);
    for (let i = 0; i < buttons.length; i++) {
      for (let j = i + 1; j < buttons.length; j++) {
        const a = buttons[i].getBoundingClientRect();
        const b = buttons[j].getBoundingClientRect();
        const sameRow = a.top < b.bottom && b.top < a.bottom;
        const gap = Math.max(b.left - a.right, a.left - b.right);
        if (sameRow && gap < 4)
          touchingButtons.push(`${buttons[i].textContent.trim()} | ${buttons[j].textContent.trim()}`);
      }
    }
    // (No named functions in here: the test runner's transpiler would wrap them in a helper
    // the browser does not have.)
    // A table shown as cards hides its header: each value must then show its own label.
    const unlabelledCells: string[] = [];
    for (const cell of doc.querySelectorAll('.table-wrap td')) {
      if (g.getComputedStyle(cell.closest('table').querySelector('thead') ?? cell).display !== 'none') continue;
      if (cell.offsetParent === null || cell.classList.contains('actions') || !String(cell.textContent).trim())
        continue;
      const label = g.getComputedStyle(cell, '::before').content;
      if (!cell.dataset.label || label === 'none' || label === 'normal' || label === '""')
        unlabelledCells.push(String(cell.textContent).trim());
    }
    // Framed boxes: a border or a background of their own. Two of them, neither inside the
    // other, side by side horizontally and less than 4 px apart vertically, touch.
    const framed = [...doc.querySelectorAll('main *')].filter((el: any) => {
      if (el.offsetParent === null || el.closest('td, th, dl, label, nav, .actions, li')) return false;
      const cs = g.getComputedStyle(el);
      return parseFloat(cs.borderTopWidth) > 0 || parseFloat(cs.borderBottomWidth) > 0;
    });
    const touchingBoxes: string[] = [];
    for (let i = 0; i < framed.length; i++) {
      for (let j = 0; j < framed.length; j++) {
        const [a, b] = [framed[i], framed[j]];
        if (i === j || a.contains(b) || b.contains(a)) continue;
        const ra = a.getBoundingClientRect();
        const rb = b.getBoundingClientRect();
        const gap = rb.top - ra.bottom;
        if (ra.left < rb.right && rb.left < ra.right && gap >= -1 && gap < 4 && ra.top < rb.top)
          touchingBoxes.push(`${a.id || a.tagName} | ${b.id || b.tagName}`);
      }
    }
    const cellsNotCells: string[] = [];
    for (const cell of doc.querySelectorAll('td, th')) {
      const head = cell.closest('table').querySelector('thead');
      if (cell.offsetParent === null || (head && g.getComputedStyle(head).display === 'none')) continue;
      const display = g.getComputedStyle(cell).display;
      if (display !== 'table-cell') cellsNotCells.push(`${cell.dataset.label ?? cell.tagName}: ${display}`);
    }
    const widerTables: string[] = [];
    for (const wrap of doc.querySelectorAll('.table-wrap')) {
      if (wrap.offsetParent !== null && wrap.scrollWidth > wrap.clientWidth + 1)
        widerTables.push(`${wrap.querySelector('table')?.id} ${wrap.scrollWidth}/${wrap.clientWidth}`);
    }
    // What a thumb taps: links (not one inside a sentence, whose line is its target), buttons,
    // and the labels of radio buttons and check boxes (the label is the target, not the dot).
    const smallTargets: string[] = [];
    for (const el of doc.querySelectorAll('a[href], button, label')) {
      if (el.offsetParent === null) continue;
      if (el.tagName === 'LABEL' && !el.querySelector('input[type=radio], input[type=checkbox]')) continue;
      if (
        el.tagName === 'A' &&
        [...el.parentElement.childNodes].some((n: any) => n !== el && n.nodeType === 3 && String(n.textContent).trim())
      )
        continue;
      const height = el.getBoundingClientRect().height;
      if (height < minTap) smallTargets.push(`${String(el.textContent).trim()} ${Math.round(height)}px`);
    }
    return {
      scrollWidth: doc.documentElement.scrollWidth as number,
      innerWidth: g.innerWidth as number,
      brokenCells,
      touchingButtons,
      unlabelledCells,
      touchingBoxes,
      cellsNotCells,
      widerTables,
      smallTargets,
    };
  }, MIN_TAP);
}

/**
 * The elements of `selector` whose own text runs over more than one line (an identifier broken
 * mid-token). A `<wbr>` inside the element marks where it may break: each run of text between
 * two of them must stay on one line.
 */
export function brokenOverLines(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const g = globalThis as any;
    const doc = g.document;
    const out: string[] = [];
    for (const el of doc.querySelectorAll(sel)) {
      if (el.offsetParent === null || String(el.textContent).trim() === '') continue;
      // The line boxes of its text (not of the elements around it), part by part between the
      // <wbr>s: tops apart within a part means a break inside it.
      const parts: number[][] = [[]];
      const walker = doc.createTreeWalker(el, 5 /* NodeFilter.SHOW_ELEMENT | SHOW_TEXT */);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.nodeType === 1) {
          if (node.tagName === 'WBR') parts.push([]);
          continue;
        }
        const range = doc.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) if (r.width > 0) parts[parts.length - 1]!.push(r.top);
      }
      if (parts.some((tops) => tops.length > 1 && Math.max(...tops) - Math.min(...tops) > 4))
        out.push(String(el.textContent).trim());
    }
    return out;
  }, selector);
}

/**
 * Screenshots the current page at each of {@link WIDTHS} as `<name>-<width>.png` and asserts
 * the layout facts at each; leaves the viewport at {@link DESKTOP}.
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
    expect(
      await brokenOverLines(page, IDENTIFIERS),
      `${name} at ${width}px: identifiers broken over lines`,
    ).to.deep.equal([]);
    expect(facts.unlabelledCells, `${name} at ${width}px: card values without their label`).to.deep.equal([]);
    expect(facts.touchingBoxes, `${name} at ${width}px: boxes touch`).to.deep.equal([]);
    expect(facts.cellsNotCells, `${name} at ${width}px: table cells not laid out as cells`).to.deep.equal([]);
    if (width === LAPTOP)
      expect(facts.widerTables, `${name} at ${width}px: tables wider than their frame`).to.deep.equal([]);
    if (width === PHONE)
      expect(facts.smallTargets, `${name} at ${width}px: tap targets under ${MIN_TAP}px`).to.deep.equal([]);
  }
  await page.setViewportSize({ width: DESKTOP, height: 900 });
}
