/**
 * TypeDoc plugin of the API reference (typedoc.json `plugin`), so the reference reads as the
 * package is used:
 *
 * 1. Modules are named by their import paths (`express-nicepay`, `express-nicepay/sandbox`,
 *    `express-nicepay/redis`), taken from package.json `exports`, instead of the source files
 *    TypeDoc names them after (`index`, `sandbox`, `store/redis-store`).
 * 2. A Markdown heading with inline code keeps that code in the page's table of contents and in
 *    its anchor (TypeDoc takes only plain text: "### `createNicepay(options)`" became an empty
 *    entry `#_`), so the anchors are the ones GitHub makes and the guides' links resolve.
 * 3. The search finds members as the README writes them: `nicepay.checkoutReturn`,
 *    `nicepay.billing.charge`, `Nicepay.checkoutReturn` (TypeDoc indexes the bare name only).
 */
import { readFileSync } from 'node:fs';
import { Converter, ReflectionKind, Renderer } from 'typedoc';

/**
 * TypeDoc's module name of each export of package.json, to its import path: the built file
 * `./dist/sandbox/index.js` is the source `sandbox/index.ts`, which TypeDoc calls `sandbox`.
 * @returns {Map<string, string>}
 */
function importPaths() {
  const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
  const names = new Map();
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (!/^\.\/dist\/.+\.js$/.test(file)) continue;
    const moduleName = file.replace(/^\.\/dist\//, '').replace(/\.js$/, '').replace(/\/index$/, '');
    names.set(moduleName, subpath === '.' ? pkg.name : `${pkg.name}${subpath.slice(1)}`);
  }
  return names;
}

/**
 * A markdown-it core rule: the inline code of a heading becomes `<code>` around a text token,
 * which renders the same and which TypeDoc's heading text (table of contents, anchor) reads.
 * @param {{ tokens: Array<{ type: string; children: Array<{ type: string; content: string }> | null }>; Token: new (type: string, tag: string, nesting: number) => { content: string } }} state
 */
function headingCodeAsText(state) {
  state.tokens.forEach((token, i) => {
    if (token.type !== 'inline' || state.tokens[i - 1]?.type !== 'heading_open' || !token.children) return;
    token.children = token.children.flatMap((child) => {
      if (child.type !== 'code_inline') return [child];
      const open = new state.Token('html_inline', '', 0);
      open.content = '<code>';
      const text = new state.Token('text', '', 0);
      text.content = child.content;
      const close = new state.Token('html_inline', '', 0);
      close.content = '</code>';
      return [open, text, close];
    });
  });
}

/** Lower-cases the first letter: `Nicepay` → `nicepay`, as the README names an instance. */
const instanceName = (name) => name.charAt(0).toLowerCase() + name.slice(1);

/**
 * How the README reaches an interface: `nicepay` for what `createNicepay()` returns, then
 * `nicepay.billing` for the interface of its `billing` property (one level down).
 * @param {import('typedoc').ProjectReflection} project
 * @returns {Map<import('typedoc').Reflection, string[]>}
 */
function instancePaths(project) {
  const paths = new Map();
  const add = (reflection, path) => paths.set(reflection, [...(paths.get(reflection) ?? []), path]);
  for (const fn of project.getReflectionsByKind(ReflectionKind.Function)) {
    for (const signature of fn.signatures ?? []) {
      const returned = signature.type?.type === 'reference' ? signature.type.reflection : undefined;
      if (!returned || returned.kind !== ReflectionKind.Interface || !/^create/.test(fn.name)) continue;
      const root = instanceName(returned.name);
      add(returned, root);
      for (const prop of returned.children ?? []) {
        const target = prop.type?.type === 'reference' ? prop.type.reflection : undefined;
        if (target && target.kind === ReflectionKind.Interface) add(target, `${root}.${prop.name}`);
      }
    }
  }
  return paths;
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  const names = importPaths();
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
      const importPath = names.get(module.name);
      if (importPath) module.name = importPath;
    }
  });

  /** @type {Map<import('typedoc').Reflection, string[]>} */
  let paths = new Map();
  // After TypeDoc's own Markdown set-up (priority 0) has made the parser of this render.
  app.renderer.on(Renderer.EVENT_BEGIN, (event) => {
    app.renderer.markedPlugin.parser.core.ruler.push('heading-code-as-text', headingCodeAsText);
    paths = instancePaths(event.project);
  }, -100);

  app.renderer.on(Renderer.EVENT_PREPARE_INDEX, (event) => {
    event.searchFieldWeights.path = 10;
    event.searchResults.forEach((reflection, i) => {
      const parent = reflection.parent;
      if (!parent || parent.isProject() || parent.kind === ReflectionKind.Module) return;
      const terms = [`${parent.name}.${reflection.name}`, ...(paths.get(parent) ?? []).map((p) => `${p}.${reflection.name}`)];
      event.searchFields[i] = { ...event.searchFields[i], path: terms.join(' ') };
    });
  });
}
