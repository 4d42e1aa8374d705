/** The dashboard's whole stylesheet, inlined so the page needs no external asset. */
export const STYLES = `
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2330;--muted:#5d6778;--line:#e3e6eb;--accent:#3451b2;--accent-ink:#fff;
--ok:#1f9d55;--error:#d93036;--timeout:#e8770e;--abandoned:#8f1d4a;--skipped:#8a94a6;--missed:#9b5de5;--running:#2f7de1;--planned:#b7c0ce;--cancelled:#6b4f2a;--cancelling:#a07a45;--buffered:#58a6a6;
color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#11141a;--card:#1a1f28;--ink:#e6e9ef;--muted:#9aa4b5;--line:#2b323e;--accent:#7c93e8;--accent-ink:#0d1017;--planned:#4a5467}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
header.top{display:flex;align-items:center;gap:16px;padding:12px 24px;background:var(--card);border-bottom:1px solid var(--line);position:sticky;top:0;z-index:1}
header.top h1{font-size:18px;margin:0;font-weight:650;letter-spacing:-.01em}
header.top h1 a{color:inherit}
header.top .meta{color:var(--muted);font-size:13px;display:flex;gap:14px;align-items:center;flex-wrap:wrap}
header.top .spacer{flex:1}
main{max-width:1180px;margin:0 auto;padding:20px 24px 48px}
.pill{display:inline-flex;align-items:center;gap:6px;padding:2px 10px;border-radius:999px;font-size:12px;font-weight:600;border:1px solid var(--line);background:var(--card);white-space:nowrap}
.pill::before{content:"";width:8px;height:8px;border-radius:50%;background:currentColor}
.pill.good{color:var(--ok)}.pill.bad{color:var(--error)}.pill.warn{color:var(--timeout)}.pill.idle{color:var(--muted)}
.notice{padding:10px 14px;border-radius:8px;margin:0 0 16px;border:1px solid var(--line);background:var(--card)}
.notice.good{border-left:4px solid var(--ok)}.notice.bad{border-left:4px solid var(--error)}
.toolbar{display:flex;justify-content:space-between;align-items:center;gap:12px;margin:4px 0 14px;flex-wrap:wrap}
.toolbar h2{margin:0;font-size:16px}
.legend{display:flex;flex-wrap:wrap;gap:12px;list-style:none;margin:0;padding:0;color:var(--muted);font-size:12px}
.legend li{display:flex;align-items:center;gap:5px}
.swatch{width:10px;height:10px;border-radius:2px;display:inline-block;background:currentColor}
.job{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 18px 12px;margin:0 0 14px}
.job-head{display:flex;gap:14px;align-items:flex-start;flex-wrap:wrap}
.job-title{flex:1;min-width:240px}
.job-title h3{margin:0;font-size:16px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.job-title .desc{color:var(--muted);margin:2px 0 0}
.tag{font-size:11px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:0 5px}
.actions{display:flex;gap:6px}
.actions form{margin:0}
button{font:inherit;font-size:13px;font-weight:600;padding:6px 12px;border-radius:6px;border:1px solid var(--line);background:var(--card);color:var(--ink);cursor:pointer}
button:hover{border-color:var(--accent)}
button.primary{background:var(--accent);color:var(--accent-ink);border-color:var(--accent)}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,190px),1fr));gap:10px 18px;margin:12px 0 8px}
@media (min-width:1100px){.facts{grid-template-columns:1.1fr .8fr 1.6fr 1.5fr 1.3fr}}
.facts>div{min-width:0}.facts dd{overflow-wrap:anywhere}
.facts p{margin:0}.sub.err{color:var(--error)}
.facts dt{font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:0 0 2px}
.facts dd{margin:0}
.facts ol{margin:0;padding:0;list-style:none}
.sub{color:var(--muted);font-size:12px}
.status{display:inline-block;font-size:12px;font-weight:650;padding:1px 8px;border-radius:4px;color:#fff!important;background:var(--planned)}
.counters{display:flex;flex-wrap:wrap;gap:2px 12px;font-size:12px;color:var(--muted);padding-right:4px}
.last-outcome{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 8px}.last-outcome>.err{flex-basis:100%}
.counters b{color:var(--ink);font-weight:650}
svg.timeline{width:100%;height:auto;display:block;margin-top:6px}
svg.timeline .track{fill:var(--bg)}svg.timeline .track-past{fill:var(--line);opacity:.45}
svg.timeline .grid{stroke:var(--line);stroke-width:1;fill:none}
svg.timeline path.mark{fill:none;stroke-width:4}svg.timeline path.band{stroke:none;opacity:.9}
svg.timeline .now{stroke:var(--ink);stroke-width:1.5;stroke-dasharray:3 2}
svg.timeline .axis{fill:var(--muted);font-size:10px}
${
  [
    "ok",
    "error",
    "timeout",
    "abandoned",
    "cancelled",
    "cancelling",
    "skipped",
    "missed",
    "buffered",
    "running",
    "planned",
  ].map((s) => `.s-${s}{color:var(--${s});fill:var(--${s});stroke:var(--${s});background:var(--${s})}`).join("")
}
table.runs{width:100%;border-collapse:collapse;background:var(--card);border:1px solid var(--line);border-radius:10px;overflow:hidden}
table.runs th,table.runs td{text-align:left;padding:7px 10px;border-bottom:1px solid var(--line);vertical-align:top}
table.runs th{font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);background:var(--bg)}
table.runs td.err{color:var(--error);max-width:420px;overflow-wrap:anywhere}
.empty{color:var(--muted);padding:24px;text-align:center;background:var(--card);border:1px dashed var(--line);border-radius:10px}
.login{max-width:380px;margin:12vh auto;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:24px}
.login h1{margin:0 0 4px;font-size:20px}.login p{color:var(--muted);margin:0 0 16px}.login p.hint{font-size:12px;margin-top:-8px}
.login input{width:100%;font:inherit;padding:8px 10px;border-radius:6px;border:1px solid var(--line);background:var(--bg);color:var(--ink);margin:4px 0 12px}
.pager{display:flex;justify-content:flex-end;gap:16px;margin:10px 0}
h2.section{font-size:15px;margin:26px 0 10px}
.timeline-wrap{overflow-x:auto}
@media (max-width:640px){header.top{flex-wrap:wrap;padding:10px 14px;gap:8px 12px}header.top .meta{order:3;width:100%;font-size:12px;gap:10px}
main{padding:14px 12px 32px}.job{padding:14px 12px 10px}.job-title{min-width:0}
svg.timeline .axis{font-size:24px}svg.timeline .axis.minor{display:none}
table.runs,table.runs tbody,table.runs tr,table.runs td{display:block;width:100%}table.runs thead{display:none}
table.runs tr{border-bottom:1px solid var(--line);padding:6px 0}table.runs td{border:0;padding:2px 10px;display:flex;gap:10px}
table.runs td::before{content:attr(data-label);flex:0 0 64px;font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
table.runs td.err{max-width:none}}
`;
