import { describe, expect, it } from 'vitest';
import { parseRichText, safeHref, sanitizeRichText } from '../../src/lib/rich-text';

// The rich text of offers: hostile markup in, the safe subset out (docs/decisions.md, Offers).

describe('sanitizeRichText', () => {
  it.each([
    ['keeps the subset', '<h2>Title</h2><p>Some <strong>bold</strong> and <em>italic</em> text.</p>', '<h2>Title</h2><p>Some <strong>bold</strong> and <em>italic</em> text.</p>'],
    ['maps b and i', '<p><b>b</b> <i>i</i></p>', '<p><strong>b</strong> <em>i</em></p>'],
    ['drops scripts with their content', '<p>a<script>alert(1)</script>b</p>', '<p>ab</p>'],
    ['drops styles, iframes and svg with their content', '<style>p{}</style><iframe src="x">t</iframe><svg><script>1</script></svg><p>ok</p>', '<p>ok</p>'],
    ['drops event handlers and every other attribute', '<p onclick="x()" style="color:red" class="c">t</p><img src=x onerror=alert(1)>', '<p>t</p>'],
    ['drops javascript: links but keeps their text', '<p><a href="javascript:alert(1)">click</a></p>', '<p>click</p>'],
    ['drops javascript: hidden by entities and control characters', '<p><a href="&#106;avascript:alert(1)">a</a><a href="java\tscript:x">b</a><a href=" JAVASCRIPT:x">c</a></p>', '<p>abc</p>'],
    ['drops data: and relative links', '<p><a href="data:text/html,x">a</a> <a href="/admin">b</a></p>', '<p>a b</p>'],
    ['keeps http(s) and mailto links', '<p><a href="https://example.com/a?b=1&amp;c=2" target="_blank">x</a> <a href="mailto:a@example.com">m</a></p>', '<p><a href="https://example.com/a?b=1&amp;c=2">x</a> <a href="mailto:a@example.com">m</a></p>'],
    ['escapes text that looks like markup', '<p>1 &lt; 2 &amp; "q" \'s\'</p>', '<p>1 &lt; 2 &amp; &quot;q&quot; &#39;s&#39;</p>'],
    ['treats a stray < as text', '<p>a < b</p>', '<p>a &lt; b</p>'],
    ['closes what was left open', '<p><strong>bold', '<p><strong>bold</strong></p>'],
    ['ignores end tags that close nothing', '</em><p>t</p></div>', '<p>t</p>'],
    ['comments and doctypes vanish', '<!DOCTYPE html><!-- <script>x</script> --><p>t</p>', '<p>t</p>'],
    ['an unclosed comment swallows the rest', '<p>a</p><!-- <p>b</p>', '<p>a</p>'],
    ['divs and tables become paragraphs', '<div>one</div><table><tr><td>two</td></tr></table>', '<p>one</p><p>two</p>'],
    ['lists, nested', '<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>', '<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>'],
    ['ordered lists', '<ol><li>one</li><li>two</li></ol>', '<ol><li>one</li><li>two</li></ol>'],
    ['quotes, rules and breaks', '<blockquote>q</blockquote><hr><p>a<br>b</p>', '<blockquote><p>q</p></blockquote><hr><p>a<br>b</p>'],
    ['headings below h3 become h3', '<h5>x</h5><h1>y</h1>', '<h3>x</h3><h1>y</h1>'],
    ['plain text becomes paragraphs', 'First line\nsecond line\n\nNext paragraph', '<p>First line<br>second line</p><p>Next paragraph</p>'],
    ['whitespace collapses as HTML shows it', '<p>  a \n\t b  </p>', '<p>a b</p>'],
    ['nothing left is nothing', '<script>x</script><p> </p>', ''],
    ['attribute values with > do not end the tag', '<p title="a>b">t</p>', '<p>t</p>'],
    ['a mismatched quote in a tag swallows to the end, as text never markup', '<p title="x>t</p><script>alert(1)</script>', ''],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeRichText(input)).toBe(expected);
  });

  it('is idempotent: the stored form reads back as itself', () => {
    for (const input of ['<ul><li>a<ul><li>b<ul><li>c</li></ul></li></ul></li><li>d</li></ul>', '<p>x<br><br>y</p>', '<blockquote><p>a <a href="https://e.x">l</a></p></blockquote>']) {
      const once = sanitizeRichText(input);
      expect(sanitizeRichText(once)).toBe(once);
    }
  });

  it('never lets a tag or an event handler through, whatever the input', () => {
    const nasty = [
      '<scr<script>ipt>alert(1)</script>',
      '<<script>script>alert(1)</script>',
      '<a href="https://x" onmouseover="alert(1)">a</a>',
      '<svg/onload=alert(1)>',
      '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
      '<a href="https://example.com" style="x:expression(alert(1))">a</a>',
      '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    ];
    for (const input of nasty) {
      const out = sanitizeRichText(input);
      expect(out).not.toMatch(/<(?!\/?(p|h[1-3]|strong|em|a|ul|ol|li|blockquote|br|hr)\b)[a-z]/i);
      expect(out).not.toMatch(/\son\w+=/i);
      expect(out).not.toMatch(/javascript:/i);
      expect(out).not.toMatch(/<a (?!href="(https?|mailto):)/);
    }
  });

  it('parses blocks the page and the PDF draw', () => {
    expect(parseRichText('<h2>T</h2><p>a <strong>b</strong></p><ol><li>x</li></ol>')).toEqual([
      { kind: 'heading', level: 2, inlines: [{ text: 'T' }] },
      { kind: 'paragraph', inlines: [{ text: 'a ' }, { text: 'b', bold: true }] },
      { kind: 'list', ordered: true, items: [{ depth: 1, inlines: [{ text: 'x' }] }] },
    ]);
  });
});

describe('safeHref', () => {
  it.each([
    ['https://example.com', 'https://example.com'],
    ['HTTP://EXAMPLE.COM/x', 'HTTP://EXAMPLE.COM/x'],
    ['mailto:a@b.example', 'mailto:a@b.example'],
    ['javascript:alert(1)', null],
    ['vbscript:x', null],
    ['//evil.example', null],
    ['https://', null],
    ['https://exa mple.com', null],
  ])('%s', (href, expected) => {
    expect(safeHref(href)).toBe(expected);
  });
});
