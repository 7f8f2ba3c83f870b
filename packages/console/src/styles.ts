/** The console's one stylesheet. Colours keep at least 4.5:1 contrast; focus is always visible. */
export const stylesheet = `
:root{--ink:#1b1f24;--muted:#4b5563;--line:#d0d7de;--bg:#fff;--panel:#f6f8fa;--link:#0a58ca;--focus:#0a58ca;
--ok-bg:#e6f4ea;--ok:#0b5a27;--bad-bg:#fdecea;--bad:#9b1c1c;--busy-bg:#fff4d6;--busy:#6b4300;--idle-bg:#eceff1;--idle:#37474f;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg);line-height:1.45}
body{margin:0}
a{color:var(--link)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--ink);color:#fff;padding:.5rem 1rem}
.skip:focus{left:0}
header.top{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;padding:.6rem 1.5rem;border-bottom:1px solid var(--line);background:var(--panel)}
header.top .brand{font-weight:700;color:var(--ink);text-decoration:none}
header.top nav ul{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;list-style:none;margin:0;padding:0}
header.top nav a{display:inline-block;padding:.15rem 0;border-bottom:3px solid transparent}
header.top nav a[aria-current=page]{font-weight:700;color:var(--ink);text-decoration:none;border-bottom-color:var(--link)}
.who{display:flex;gap:.6rem;align-items:center;color:var(--muted);font-size:.9rem}
.who form{margin:0}
main{padding:1rem 1.5rem 3rem;max-width:76rem}
h1{font-size:1.5rem;margin:.6rem 0}
.unbroken{display:inline-block;max-width:100%;text-decoration:inherit}
h2{font-size:1.15rem;margin:1.6rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel)}
caption{text-align:left;font-weight:600;padding:1rem 0 .3rem}
h3{font-size:1rem;margin:1rem 0 .3rem}
ul.plain{list-style:none;padding:0;margin:0}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.86rem;overflow-wrap:anywhere}
pre{background:var(--panel);border:1px solid var(--line);padding:.6rem;overflow:auto;white-space:pre-wrap;word-break:break-all;max-height:28rem}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.25rem 1rem;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;margin-right:.35rem;padding:.05rem .5rem;border-radius:1rem;font-size:.82rem;font-weight:600;border:1px solid currentColor}
.badge.ok{background:var(--ok-bg);color:var(--ok)}
.badge.bad{background:var(--bad-bg);color:var(--bad)}
.badge.busy{background:var(--busy-bg);color:var(--busy)}
.badge.idle{background:var(--idle-bg);color:var(--idle)}
.notice{border-left:4px solid var(--link);background:var(--panel);padding:.5rem .8rem;margin:.8rem 0}
.error{border-left:4px solid var(--bad);background:var(--bad-bg);color:var(--bad);padding:.5rem .8rem;margin:.8rem 0}
.warning{border-left:4px solid var(--busy);background:var(--busy-bg);color:var(--busy);padding:.5rem .8rem;margin:.8rem 0}
form.filters{display:flex;flex-wrap:wrap;gap:.8rem;align-items:end;margin:.6rem 0 1rem}
label{display:block;font-weight:600;font-size:.9rem;margin-bottom:.2rem}
.field{margin:.6rem 0}
.hint{color:var(--muted);font-size:.85rem;font-weight:400}
input[type=text],input[type=password],input[type=number],select{font:inherit;padding:.35rem .45rem;border:1px solid #8c959f;border-radius:4px;min-width:12rem}
input[type=checkbox]{width:1.1rem;height:1.1rem}
fieldset{border:1px solid var(--line);padding:.6rem 1rem;margin:.8rem 0}
legend{font-weight:600}
.row{display:flex;flex-wrap:wrap;gap:.8rem}
button,.button{font:inherit;padding:.4rem .9rem;border-radius:4px;border:1px solid var(--link);background:var(--link);color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:var(--link)}
button.danger,.button.danger{background:var(--bad);border-color:var(--bad)}
button:disabled{background:#8c959f;border-color:#8c959f;cursor:not-allowed}
.actions{display:flex;gap:.6rem;flex-wrap:wrap;margin:.8rem 0}
.columns{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(22rem,100%),1fr));gap:0 2rem}
ol.timeline{list-style:none;padding:0;margin:0}
ol.timeline li{padding:.3rem 0;border-bottom:1px solid var(--line)}
ol.timeline time{color:var(--muted);font-size:.85rem;margin-right:.5rem}
.copy{display:flex;gap:.5rem;align-items:flex-start}
.copy pre{flex:1;margin:0}
.htmx-indicator{opacity:0;transition:opacity .2s}
.htmx-request .htmx-indicator,.htmx-request.htmx-indicator{opacity:1}
@media (max-width:40rem){
header.top{padding:.5rem .75rem}
main{padding:.75rem .75rem 2rem}
.row>*,.field{min-width:0;max-width:100%;flex:1 1 100%}
table thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table,table tbody,table tr,table th,table td,table caption{display:block}
table tr{border:1px solid var(--line);border-radius:4px;margin:0 0 .6rem;padding:.3rem .6rem}
table th,table td{border:0;padding:.15rem 0;background:none}
table td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font-weight:600}
dl.facts{grid-template-columns:minmax(0,1fr);gap:0}
dl.facts dt{margin-top:.5rem;font-size:.85rem}
input[type=text],input[type=password],input[type=number],select{min-width:0;width:100%;box-sizing:border-box}
}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
