/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { parseRichText, type Block, type Inline } from '../../lib/rich-text';

// An offer's rich text on its page: drawn from its parsed blocks by JSX, which escapes every text
// and attribute, so what the tenant wrote never reaches the page as markup (docs/decisions.md, Offers).

function Inlines(props: { inlines: Inline[] }) {
  return (
    <>
      {props.inlines.map((r) => {
        if (r.text === '\n') return <br />;
        let node: Child = r.text;
        if (r.italic) node = <em>{node}</em>;
        if (r.bold) node = <strong>{node}</strong>;
        // Only http(s) and mailto addresses survive sanitizing; the token in this page's address stays here (no referrer).
        if (r.href) node = <a href={r.href} rel="noopener noreferrer nofollow">{node}</a>;
        return node;
      })}
    </>
  );
}

function ListItems(props: { items: Extract<Block, { kind: 'list' }>['items']; ordered: boolean; depth: number }) {
  const out: Child[] = [];
  const { items, depth } = props;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.depth !== depth) continue;
    // The deeper items right after this one are its sub-list.
    let j = i + 1;
    while (j < items.length && items[j]!.depth > depth) j++;
    const nested = items.slice(i + 1, j);
    const Tag = props.ordered ? 'ol' : 'ul';
    out.push(
      <li>
        <Inlines inlines={item.inlines} />
        {nested.length ? (
          <Tag>
            <ListItems items={nested} ordered={props.ordered} depth={depth + 1} />
          </Tag>
        ) : null}
      </li>,
    );
    i = j - 1;
  }
  return <>{out}</>;
}

export function RichText(props: { html: string }) {
  return (
    <div class="rich">
      {parseRichText(props.html).map((b) => {
        switch (b.kind) {
          case 'heading':
            return b.level === 1 ? (
              <h2>
                <Inlines inlines={b.inlines} />
              </h2>
            ) : b.level === 2 ? (
              <h3>
                <Inlines inlines={b.inlines} />
              </h3>
            ) : (
              <h4>
                <Inlines inlines={b.inlines} />
              </h4>
            );
          case 'paragraph':
            return (
              <p>
                <Inlines inlines={b.inlines} />
              </p>
            );
          case 'quote':
            return (
              <blockquote>
                <Inlines inlines={b.inlines} />
              </blockquote>
            );
          case 'rule':
            return <hr />;
          case 'list':
            return b.ordered ? (
              <ol>
                <ListItems items={b.items} ordered depth={1} />
              </ol>
            ) : (
              <ul>
                <ListItems items={b.items} ordered={false} depth={1} />
              </ul>
            );
        }
      })}
    </div>
  );
}
