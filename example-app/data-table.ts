/**
 * The shop's one way to render a table. On a desktop it scrolls inside its own box (the page
 * never scrolls sideways); at phone width (views.ts, `max-width:40rem`) each row becomes a
 * card, and every value in it is shown beside its column's label, because every cell carries
 * that label (`data-label`), so a card never reads as a list of bare values ("23,000원 / 0원").
 *
 * A column's `kind` gives the cell its class, which decides how it wraps: identifiers (order
 * numbers, TIDs, sequence numbers, account numbers) and amounts, dates and statuses never
 * break inside; goods names and free text wrap between words. The long identifiers, a TID
 * (30 characters) and the shop's order number (21), may break between their parts
 * ({@link idParts}) and nowhere else, so a wide table of them still fits a laptop's width.
 */
import { html, type SafeHtml, type Value } from './views.js';

// The parts of the long identifiers. A TID: merchant id (10) + pay-method and medium codes (4)
// + request time YYMMDDHHMISS (12) + random (4) (docs/spec/gateway-interface.md). The shop's
// order number: ORD + KST date (db.ts) + random (10).
const ID_SHAPES: readonly RegExp[] = [/^(\w{10})(\d{4})(\d{12})(\w{4})$/, /^(ORD\d{8})([0-9A-F]{10})$/];

/**
 * An identifier that may break over lines only between its parts, each part kept whole; the
 * text (and what is copied) is the identifier itself, and its title shows it in one piece
 * (the markup carries it whole too). One of no known shape stays whole.
 */
export function idParts(id: string): SafeHtml {
  const parts = ID_SHAPES.map((shape) => shape.exec(id)?.slice(1)).find(Boolean) ?? [id];
  return html`<span class="id-parts" title="${id}">${parts.map((p, i) => html`${i > 0 && html`<wbr>`}<span class="id-part">${p}</span>`)}</span>`;
}

/**
 * How a column's cells behave: `moid`, `tid` and `id` are identifiers kept whole; `amount`,
 * `date`, `status` and `method` stay on one line; `goods` and `text` wrap; `actions` holds
 * buttons.
 */
export type ColumnKind = 'moid' | 'tid' | 'id' | 'amount' | 'date' | 'status' | 'method' | 'goods' | 'text' | 'actions';

/** One column: its header (also the label of its cells on a phone), its kind and its cell. */
export interface Column<T> {
  label: string;
  kind: ColumnKind;
  cell(row: T): Value;
  /** Extra classes of the cell, e.g. `status-paid` for the state's colour. */
  extraClass?(row: T): string;
}

/** The attributes of a row (`data-moid`, `data-status` ...), by name; `undefined` leaves one out. */
export type RowData = Readonly<Record<string, string | number | undefined>>;

/**
 * A labelled table inside its `.table-wrap`: `id` for tests and links, `rowData` for each
 * row's `data-*` attributes.
 */
export function dataTable<T>(
  id: string,
  columns: ReadonlyArray<Column<T>>,
  rows: readonly T[],
  rowData: (row: T) => RowData = () => ({}),
): SafeHtml {
  const head = columns.map((c) => html`<th scope="col">${c.label}</th>`);
  const body = rows.map((row) => {
    const attrs = Object.entries(rowData(row))
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => html` data-${k}="${String(v)}"`);
    const cells = columns.map((c) => {
      const cls = [c.kind, c.extraClass?.(row)].filter(Boolean).join(' ');
      const value = c.cell(row);
      const shown = (c.kind === 'tid' || c.kind === 'moid') && typeof value === 'string' ? idParts(value) : value;
      return html`<td class="${cls}" data-label="${c.label}">${shown}</td>`;
    });
    return html`<tr${attrs}>${cells}</tr>\n`;
  });
  return html`<div class="table-wrap"><table id="${id}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}
