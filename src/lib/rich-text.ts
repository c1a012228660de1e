// Rich text of offers and offer templates (docs/decisions.md, Offers): a small, safe subset of HTML.
// Input is parsed leniently into blocks of styled text; whatever the subset does not know is
// dropped (tags, attributes) or dropped with its content (script, style and the like), and the
// stored text is the blocks written out again by `toHtml`. Nothing of the input reaches the output
// unescaped, so a parser that reads hostile markup differently from a browser can lose text but
// never smuggle markup through. The page and the PDF render the blocks, not the HTML.

export interface Inline {
  text: string;
  bold?: true;
  italic?: true;
  /** Only http(s) and mailto addresses survive. */
  href?: string;
}

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; inlines: Inline[] }
  | { kind: 'paragraph'; inlines: Inline[] }
  | { kind: 'quote'; inlines: Inline[] }
  | { kind: 'list'; ordered: boolean; items: { depth: number; inlines: Inline[] }[] }
  | { kind: 'rule' };

/** Elements dropped together with everything inside them. */
const DROPPED = new Set([
  'script', 'style', 'template', 'noscript', 'iframe', 'object', 'embed', 'applet', 'svg', 'math', 'textarea',
  'title', 'head', 'select', 'option', 'xmp', 'noembed', 'noframes', 'plaintext', 'canvas', 'audio', 'video', 'picture', 'form', 'button',
]);
/** Elements whose text is kept but which start a new paragraph. */
const BLOCKISH = new Set(['p', 'div', 'section', 'article', 'header', 'footer', 'main', 'aside', 'table', 'tr', 'td', 'th', 'thead', 'tbody', 'pre', 'figure', 'figcaption', 'dl', 'dt', 'dd', 'center', 'address']);
const VOID = new Set(['br', 'hr', 'img', 'input', 'meta', 'link', 'col', 'area', 'base', 'wbr', 'source', 'track', 'param', 'embed']);
const MAX_LIST_DEPTH = 3;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', shy: '', euro: '€', copy: '©', reg: '®', ndash: '–', mdash: '—', hellip: '…', laquo: '«', raquo: '»', bdquo: '„', ldquo: '“', rdquo: '”', lsquo: '‘', rsquo: '’', auml: 'ä', ouml: 'ö', uuml: 'ü', Auml: 'Ä', Ouml: 'Ö', Uuml: 'Ü', szlig: 'ß', middot: '·', bull: '•', times: '×', sect: '§', deg: '°' };

/** Character references decoded; an unknown or invalid one stays as written (it is text). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      // No NUL, surrogates or values beyond Unicode: U+FFFD as browsers do.
      if (!Number.isFinite(code) || code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
      return String.fromCodePoint(code);
    }
    return NAMED[ref] ?? whole;
  });
}

/** Text for HTML: every character that could start or end markup or an attribute is escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * A link target only when it is a web or mail address. Browsers ignore control characters and
 * whitespace inside a scheme (`java\tscript:`), so those are refused rather than stripped.
 */
export function safeHref(raw: string): string | null {
  const href = decodeEntities(raw).trim();
  if (href.length > 2048 || /[\u0000-\u0020\u007f-\u009f]/.test(href)) return null;
  if (/^https?:\/\/[^/?#\s]+/i.test(href)) return href;
  if (/^mailto:[^\s<>"]+@[^\s<>"]+$/i.test(href)) return href;
  return null;
}

interface Token {
  type: 'text' | 'open' | 'close';
  name?: string;
  text?: string;
  attrs?: Record<string, string>;
}

/** Splits markup into text, start tags and end tags; comments, doctypes and processing instructions vanish. */
function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    const lt = input.indexOf('<', i);
    if (lt === -1) {
      tokens.push({ type: 'text', text: input.slice(i) });
      break;
    }
    if (lt > i) tokens.push({ type: 'text', text: input.slice(i, lt) });
    if (input.startsWith('<!--', lt)) {
      const end = input.indexOf('-->', lt + 4);
      i = end === -1 ? n : end + 3;
      continue;
    }
    if (input[lt + 1] === '!' || input[lt + 1] === '?') {
      const end = input.indexOf('>', lt);
      i = end === -1 ? n : end + 1;
      continue;
    }
    const m = /^<(\/?)([A-Za-z][A-Za-z0-9-]{0,31})/.exec(input.slice(lt, lt + 40));
    if (!m) {
      // A "<" that starts no tag is text.
      tokens.push({ type: 'text', text: '<' });
      i = lt + 1;
      continue;
    }
    // The tag runs to the first ">" outside a quoted attribute value.
    let j = lt + m[0].length;
    let quote: string | null = null;
    while (j < n) {
      const ch = input[j]!;
      if (quote) {
        if (ch === quote) quote = null;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '>') break;
      j++;
    }
    const body = input.slice(lt + m[0].length, j);
    i = j + 1;
    const name = m[2]!.toLowerCase();
    if (m[1]) tokens.push({ type: 'close', name });
    else tokens.push({ type: 'open', name, attrs: parseAttributes(body) });
  }
  return tokens;
}

function parseAttributes(body: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  const re = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    const key = m[1]!.toLowerCase();
    if (!(key in attrs)) attrs[key] = m[2] ?? m[3] ?? m[4] ?? '';
  }
  return attrs;
}

/** Line breaks (`<br>`, or a newline of plain text) as they are collected, before whitespace is collapsed. */
const BREAK: Inline = { text: '\n' };

/** Runs of text with the same style merged; whitespace collapsed as HTML displays it; a line break is a run of its own, `\n`. */
function normalizeInlines(inlines: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const run of inlines) {
    if (run === BREAK) {
      if (out.length && out[out.length - 1]!.text !== '\n') out.push({ text: '\n' });
      continue;
    }
    const text = run.text.replace(/[\t\n\r\f ]+/g, ' ');
    if (!text) continue;
    const last = out[out.length - 1];
    if (last && last.text !== '\n' && last.bold === run.bold && last.italic === run.italic && last.href === run.href) {
      last.text += text;
    } else out.push({ ...run, text });
  }
  // Trim the block's ends and spaces around line breaks.
  if (out.length) {
    out[0]!.text = out[0]!.text.replace(/^ +/, '');
    const last = out[out.length - 1]!;
    last.text = last.text.replace(/[ \n]+$/, '');
  }
  for (let k = 0; k < out.length; k++) {
    if (out[k]!.text === '\n') {
      if (k > 0) out[k - 1]!.text = out[k - 1]!.text.replace(/ +$/, '');
      if (k + 1 < out.length) out[k + 1]!.text = out[k + 1]!.text.replace(/^ +/, '');
    }
  }
  return out.filter((r) => r.text !== '');
}

const hasText = (inlines: Inline[]) => inlines.some((r) => r.text.trim() !== '');

/** Plain text without any tag: blank lines part paragraphs, single line breaks stay line breaks. */
function plainTextBlocks(input: string): Block[] {
  return input
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => ({
      kind: 'paragraph' as const,
      inlines: normalizeInlines(p.split('\n').flatMap((line, k) => (k ? [BREAK, { text: line }] : [{ text: line }]))),
    }))
    .filter((b) => hasText(b.inlines));
}

/** Parses (hostile) markup into blocks of the subset. */
export function parseRichText(input: string): Block[] {
  if (!/<[A-Za-z/!?]/.test(input)) return plainTextBlocks(decodeEntities(input));
  const blocks: Block[] = [];
  let current: Inline[] = [];
  let currentKind: 'paragraph' | 'heading' | 'quote' | 'item' = 'paragraph';
  let headingLevel: 1 | 2 | 3 = 2;
  const lists: { ordered: boolean; block: Extract<Block, { kind: 'list' }> }[] = [];
  const style = { bold: 0, italic: 0, quote: 0, href: [] as (string | null)[] };
  const stack: string[] = [];
  let dropping: string | null = null;
  let dropDepth = 0;

  const flush = () => {
    const inlines = normalizeInlines(current);
    current = [];
    if (!hasText(inlines)) return;
    if (currentKind === 'item' && lists.length) {
      lists[lists.length - 1]!.block.items.push({ depth: Math.min(lists.length, MAX_LIST_DEPTH), inlines });
    } else if (currentKind === 'heading') blocks.push({ kind: 'heading', level: headingLevel, inlines });
    else if (currentKind === 'quote' || style.quote > 0) blocks.push({ kind: 'quote', inlines });
    else blocks.push({ kind: 'paragraph', inlines });
  };
  const addText = (text: string) => {
    const href = [...style.href].reverse().find((h) => h !== undefined) ?? null;
    current.push({
      text,
      ...(style.bold ? { bold: true as const } : {}),
      ...(style.italic ? { italic: true as const } : {}),
      ...(href ? { href } : {}),
    });
  };

  for (const token of tokenize(input)) {
    if (dropping) {
      if (token.type === 'open' && token.name === dropping) dropDepth++;
      if (token.type === 'close' && token.name === dropping && --dropDepth === 0) dropping = null;
      continue;
    }
    if (token.type === 'text') {
      addText(decodeEntities(token.text!));
      continue;
    }
    const name = token.name!;
    if (token.type === 'open') {
      if (DROPPED.has(name)) {
        if (!VOID.has(name)) {
          dropping = name;
          dropDepth = 1;
        }
        continue;
      }
      if (name === 'br') {
        current.push(BREAK);
        continue;
      }
      if (name === 'hr') {
        flush();
        blocks.push({ kind: 'rule' });
        continue;
      }
      if (VOID.has(name)) continue;
      stack.push(name);
      if (name === 'b' || name === 'strong') style.bold++;
      else if (name === 'i' || name === 'em') style.italic++;
      else if (name === 'a') style.href.push(safeHref(token.attrs?.href ?? ''));
      else if (/^h[1-6]$/.test(name)) {
        flush();
        currentKind = 'heading';
        headingLevel = Math.min(3, Number(name[1])) as 1 | 2 | 3;
      } else if (name === 'ul' || name === 'ol') {
        flush();
        if (lists.length === 0) {
          const block: Extract<Block, { kind: 'list' }> = { kind: 'list', ordered: name === 'ol', items: [] };
          blocks.push(block);
          lists.push({ ordered: name === 'ol', block });
        } else lists.push({ ordered: name === 'ol', block: lists[lists.length - 1]!.block });
        currentKind = 'paragraph';
      } else if (name === 'li') {
        flush();
        currentKind = lists.length ? 'item' : 'paragraph';
      } else if (name === 'blockquote') {
        flush();
        style.quote++;
        currentKind = 'quote';
      } else if (BLOCKISH.has(name)) flush();
      continue;
    }
    // An end tag closes the innermost open element of its name (and what was left open inside it).
    const at = stack.lastIndexOf(name);
    if (at === -1) continue;
    for (const closed of stack.splice(at).reverse()) {
      if (closed === 'b' || closed === 'strong') style.bold--;
      else if (closed === 'i' || closed === 'em') style.italic--;
      else if (closed === 'a') style.href.pop();
      else if (/^h[1-6]$/.test(closed)) {
        flush();
        currentKind = lists.length ? 'item' : style.quote ? 'quote' : 'paragraph';
      } else if (closed === 'ul' || closed === 'ol') {
        flush();
        lists.pop();
        currentKind = lists.length ? 'item' : 'paragraph';
      } else if (closed === 'li') {
        flush();
        currentKind = 'paragraph';
      } else if (closed === 'blockquote') {
        flush();
        style.quote--;
        currentKind = style.quote ? 'quote' : 'paragraph';
      } else if (BLOCKISH.has(closed)) flush();
    }
  }
  flush();
  // A list whose items all lost their text is no list.
  return blocks.filter((b) => b.kind !== 'list' || b.items.length > 0);
}

function inlineHtml(inlines: Inline[]): string {
  return inlines
    .map((r) => {
      if (r.text === '\n') return '<br>';
      let html = escapeHtml(r.text);
      if (r.italic) html = `<em>${html}</em>`;
      if (r.bold) html = `<strong>${html}</strong>`;
      if (r.href) html = `<a href="${escapeHtml(r.href)}">${html}</a>`;
      return html;
    })
    .join('');
}

/** The blocks as the canonical HTML of the subset (what is stored and shown by the API). */
export function toHtml(blocks: Block[]): string {
  return blocks
    .map((b) => {
      switch (b.kind) {
        case 'heading':
          return `<h${b.level}>${inlineHtml(b.inlines)}</h${b.level}>`;
        case 'paragraph':
          return `<p>${inlineHtml(b.inlines)}</p>`;
        case 'quote':
          return `<blockquote><p>${inlineHtml(b.inlines)}</p></blockquote>`;
        case 'rule':
          return '<hr>';
        case 'list': {
          const tag = b.ordered ? 'ol' : 'ul';
          let html = `<${tag}>`;
          let depth = 1;
          b.items.forEach((item, k) => {
            while (depth < item.depth) {
              html = html.replace(/<\/li>$/, '');
              html += `<${tag}>`;
              depth++;
            }
            while (depth > item.depth) {
              html += `</${tag}></li>`;
              depth--;
            }
            html += `<li>${inlineHtml(item.inlines)}</li>`;
            void k;
          });
          while (depth > 1) {
            html += `</${tag}></li>`;
            depth--;
          }
          return `${html}</${tag}>`;
        }
      }
    })
    .join('');
}

/** Hostile markup in, the safe subset out: the form in which sections are stored. */
export function sanitizeRichText(input: string): string {
  return toHtml(parseRichText(input));
}

/** The blocks as plain text (e-mails, search). */
export function richTextPlain(blocks: Block[]): string {
  const line = (inlines: Inline[]) => inlines.map((r) => r.text).join('');
  return blocks
    .map((b) => {
      if (b.kind === 'rule') return '———';
      if (b.kind === 'list') return b.items.map((it, k) => `${'  '.repeat(it.depth - 1)}${b.ordered ? `${k + 1}.` : '•'} ${line(it.inlines)}`).join('\n');
      return line(b.inlines);
    })
    .join('\n\n');
}
