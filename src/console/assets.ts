/**
 * The console's only stylesheet and script, served from /console/assets so the CSP can forbid
 * every inline script and style. Logical properties (inline-start/end) make one sheet serve RTL and LTR.
 */
export const CONSOLE_CSS = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Heebo,Arial,sans-serif;color:#1f2933;background:#f5f7fa}
.top{display:flex;align-items:center;gap:1.5rem;padding:.75rem 1.5rem;background:#1f2933;color:#fff}
.top a{color:#fff;text-decoration:none}
.brand{font-weight:700}
.nav{display:flex;align-items:center;gap:1rem;flex:1}
.nav a{opacity:.8}.nav a.current{opacity:1;border-block-end:2px solid #3e7bfa}
.who{margin-inline-start:auto;opacity:.8}
.lang{margin-inline-start:auto;font-size:.9rem;opacity:.9}
.nav + .lang{margin-inline-start:0}
main{max-width:980px;margin:2rem auto;padding:0 1.5rem}
main.wide{max-width:1280px}
.tabs{display:flex;gap:.25rem;margin-block-end:1rem;flex-wrap:wrap;align-items:center}
.tabs a{padding:.3rem .8rem;border-radius:999px;background:#e4e7eb;color:#1f2933;text-decoration:none;font-size:.9rem}
.tabs a.current{background:#1f2933;color:#fff}
.tabs .label{font-weight:600;margin-inline-end:.5rem}
.pager{display:flex;gap:1rem;margin:1rem 0}
.num{text-align:end;white-space:nowrap;direction:ltr;unicode-bidi:isolate}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:1.25rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}
dl.facts dt{color:#52606d}
dl.facts dd{margin:0}
iframe.pdf{width:100%;height:720px;border:1px solid #e4e7eb;border-radius:6px;background:#fff}
img.thumb{max-width:80px;max-height:80px;border:1px solid #e4e7eb;border-radius:4px}
pre.excerpt{direction:ltr;text-align:left;margin:.25rem 0 0;white-space:pre-wrap;word-break:break-all;font-size:.8rem;background:#f5f7fa;padding:.4rem;border-radius:4px;max-height:8rem;overflow:auto}
.tag.issued,.tag.delivered,.tag.granted,.tag.recorded,.tag.ok{background:#e3f9e5;color:#1e5631}
.tag.failed,.tag.refused,.tag.error{background:#fde8e8;color:#8a1c1c}
.tag.pending,.tag.draft{background:#fff3c4;color:#8d6b00}
tr.hit td{background:#fffbea}
td.wrap code,td.wrap{word-break:break-all}
td.when{white-space:nowrap}
table.attempts td{padding:.3rem .4rem}
table.attempts pre.excerpt{min-width:9rem;max-width:16rem;margin:0}
#deliveries details pre.excerpt{min-width:14rem;max-height:14rem}
table.attempts td:nth-child(2){white-space:nowrap}
h1{font-size:1.6rem;margin:0 0 1rem}
h2{font-size:1.2rem;margin:2rem 0 .75rem}
.card > h2:first-child{margin-block-start:0}
.card{background:#fff;border:1px solid #e4e7eb;border-radius:8px;padding:1.25rem 1.5rem;margin-block-end:1.25rem}
.narrow{max-width:440px}
.field{display:flex;flex-direction:column;margin-block-end:1rem}
.field label{font-weight:600;margin-block-end:.25rem}
.field input,.field select{font:inherit;padding:.5rem .6rem;border:1px solid #cbd2d9;border-radius:6px}
.field.has-error input{border-color:#d64545}
.hint{color:#616e7c}.error{color:#b42318}
fieldset{border:1px solid #e4e7eb;border-radius:6px;margin:0 0 1rem;padding:.5rem 1rem}
legend{font-weight:600}
fieldset label{display:inline-flex;gap:.35rem;align-items:center;margin-inline-end:1.25rem}
button,.button{font:inherit;padding:.5rem 1rem;border:0;border-radius:6px;background:#3e7bfa;color:#fff;cursor:pointer}
button:disabled{background:#9aa5b1;cursor:not-allowed}
button.danger{background:#d64545}
button.link{background:none;color:inherit;padding:0;text-decoration:underline;opacity:.8}
button.secondary{background:#e4e7eb;color:#1f2933}
form.inline{display:inline}
.card form.inline button{margin-block-start:.75rem}
.notice{padding:.75rem 1rem;border-radius:6px;margin:0 0 1rem}
.notice.error{background:#fde8e8;color:#8a1c1c}
.notice.ok{background:#e3f9e5;color:#1e5631}
.notice.info{background:#e6f0ff;color:#1d3f8a}
table{width:100%;border-collapse:collapse;background:#fff}
th,td{text-align:start;padding:.5rem .6rem;border-block-end:1px solid #e4e7eb;vertical-align:top}
th{font-size:.85rem;color:#52606d;font-weight:600}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;direction:ltr;unicode-bidi:isolate}
.secret{display:flex;gap:.5rem;margin:.75rem 0}
.secret input{flex:1;font-family:ui-monospace,Menlo,Consolas,monospace;padding:.5rem;border:1px solid #cbd2d9;border-radius:6px}
.tag{display:inline-block;font-size:.8rem;padding:.05rem .45rem;border-radius:999px;background:#e4e7eb;margin-inline-end:.25rem}
.tag.live{background:#ffe8d9;color:#8a2c0d}.tag.test{background:#e6f0ff;color:#1d3f8a}
.tag.revoked,.tag.expired{background:#f0f0f0;color:#7b8794}
tr.inactive td{color:#7b8794}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(400px,1fr));gap:1rem}
.chart-card h3{margin:0 0 .25rem;font-size:1rem}
.chart-card .sum{color:#52606d;font-size:.85rem}
.filters{display:flex;gap:1rem;align-items:flex-end;flex-wrap:wrap}
.filters .field{margin:0}
.muted{color:#616e7c}
`;

export const CONSOLE_JS = `
document.addEventListener('click', function (e) {
  var b = e.target.closest('[data-copy]');
  if (!b) return;
  var el = document.getElementById(b.getAttribute('data-copy'));
  if (!el) return;
  el.select();
  var done = function () { b.textContent = b.getAttribute('data-copied') || 'Copied'; };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(el.value).then(done, function () { document.execCommand('copy'); done(); });
  else { document.execCommand('copy'); done(); }
});
document.addEventListener('submit', function (e) {
  var msg = e.target.getAttribute('data-confirm');
  if (msg && !window.confirm(msg)) e.preventDefault();
});
`;
