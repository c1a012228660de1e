import { fnv } from '../checkout/assets';

// The offer page's stylesheet, served under a path holding a hash of its text (cached for a year;
// a change gets a new path). The page has no script: it works, and prints, as plain HTML.

const CSS = `
:root{--fg:#1a1a1a;--muted:#4d4d4d;--bg:#f4f5f7;--card:#fff;--line:#c9ccd1;--accent:#0b57d0;--accent-dark:#0842a0;--error:#b3261e;--ok:#146c2e;--focus:#ffbf47}
*{box-sizing:border-box}
html{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
.top{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding:.75rem 1.5rem;background:var(--card);border-bottom:1px solid var(--line)}
.brand{font-weight:700;font-size:1.05rem;margin:0}
main{max-width:52rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1.25rem 1.5rem;margin:0 0 1.25rem}
.message{max-width:36rem;margin:2rem auto}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 .25rem}h2{font-size:1.25rem;margin:0 0 .75rem}h3{font-size:1.1rem;margin:1.25rem 0 .5rem}h4{font-size:1rem;margin:1rem 0 .4rem}
.meta{color:var(--muted);margin:0 0 1rem}
.muted{color:var(--muted)}.small{font-size:.875rem}
.rich p{margin:0 0 .75rem}.rich ul,.rich ol{margin:0 0 .75rem;padding-left:1.5rem}.rich li{margin:.15rem 0}
.rich blockquote{margin:0 0 .75rem;padding:.25rem 0 .25rem 1rem;border-left:3px solid var(--line);color:var(--muted)}
.rich hr{border:0;border-top:1px solid var(--line);margin:1rem 0}
.description{white-space:pre-line}
a{color:var(--accent)}
.table-wrap{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:.95rem}
th,td{text-align:left;padding:.5rem .4rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.85rem;color:var(--muted);font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap}
.item-name{font-weight:600;display:block}
.totals{margin:1rem 0 0 auto;max-width:22rem}
.totals .row{display:flex;justify-content:space-between;gap:1rem;padding:.2rem 0}
.totals dt,.totals dd{margin:0}.totals dd{white-space:nowrap}
.totals .grand{border-top:2px solid var(--fg);margin-top:.4rem;padding-top:.4rem;font-weight:700}
dl.terms{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1.5rem;margin:0}
dl.terms dt{color:var(--muted)}dl.terms dd{margin:0}
.sign{border:2px solid var(--accent)}
.field{display:flex;flex-direction:column;margin:0 0 .9rem;max-width:28rem}
.field label{font-weight:600;margin-bottom:.25rem}
.req{color:var(--error)}
input[type=text]{font:inherit;color:inherit;padding:.55rem .65rem;border:1px solid #767b82;border-radius:.375rem;background:#fff;width:100%}
input[aria-invalid=true]{border-color:var(--error);border-width:2px}
.check{display:flex;gap:.6rem;align-items:flex-start;margin:0 0 .9rem}
.check input{width:1.2rem;height:1.2rem;margin-top:.2rem;flex:none}
.error{color:var(--error);font-weight:600;margin:.25rem 0 0}
.error::before{content:"⚠ "}
button,.button{font:inherit;font-weight:600;border-radius:.375rem;padding:.6rem 1.1rem;cursor:pointer;border:2px solid var(--accent);text-decoration:none;display:inline-block}
.primary{background:var(--accent);color:#fff}
.primary:hover{background:var(--accent-dark);border-color:var(--accent-dark)}
.secondary{background:#fff;color:var(--accent)}
.secondary:hover{background:#eef3fc}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px;box-shadow:0 0 0 5px #1a1a1a}
.alert{border:2px solid var(--error);background:#fdeceb;border-radius:.5rem;padding:.75rem 1.25rem;margin:0 0 1rem}
.alert p{margin:0 0 .25rem;font-weight:700}.alert ul{margin:0;padding-left:1.25rem}.alert a{color:var(--error)}
.done{border:2px solid var(--ok);background:#e9f5ec}
.done h2{color:var(--ok)}
.note{border-left:4px solid var(--accent);padding:.5rem 1rem;background:#eef3fc;margin:0 0 1rem}
.lang{font-size:.9rem}
@media (max-width:40rem){main{padding:1rem .5rem 2rem}.card{padding:1rem}h1{font-size:1.35rem}
  .items thead{display:none}.items tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}
  .items td{display:flex;justify-content:space-between;gap:1rem;border:0;padding:.15rem 0;text-align:right}
  .items td::before{content:attr(data-label);color:var(--muted);text-align:left}
  .items td.item{display:block;text-align:left}.items td.item::before{content:none}}
@media print{
  html{background:#fff;font-size:11pt}
  .top .lang,.sign form,.no-print{display:none!important}
  .card{border:0;padding:0;margin:0 0 1rem}
  main{max-width:none;padding:0}
  a{color:inherit}
  .rich a[href]::after{content:" <" attr(href) ">";font-size:.85em}
}
`;

export const OFFER_CSS = { text: CSS, type: 'text/css; charset=utf-8', hash: fnv(CSS) } as const;
export const offerCssPath = () => `/offer-assets/offer.${OFFER_CSS.hash}.css`;
