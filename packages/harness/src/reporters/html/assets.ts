import { createHash } from 'node:crypto';

/** Stylesheet of the HTML report (static; no data is ever interpolated here). */
export const REPORT_CSS = `
:root{--fg:#1f2328;--muted:#59636e;--border:#d0d7de;--bg:#fff;--soft:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;--err:#9a6700;--skip:#8c959f;--accent:#0969da}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
header,main{max-width:1400px;margin:0 auto;padding:16px 24px}
header{border-bottom:1px solid var(--border)}
h1{font-size:22px;margin:0 0 6px}
h2{font-size:17px;margin:24px 0 8px}
.facts{display:flex;flex-wrap:wrap;gap:4px 18px;color:var(--muted);font-size:13px;margin:0;padding:0;list-style:none}
.facts b{color:var(--fg);font-weight:600}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;margin:14px 0}
.card{border:1px solid var(--border);border-radius:6px;padding:10px 12px;background:var(--soft)}
.card .v{font-size:20px;font-weight:600}
.card .l{color:var(--muted);font-size:12px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:16px;align-items:start}
.chart{width:100%;max-width:520px;height:auto}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--border);padding:5px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);position:sticky;top:0;z-index:1;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.metrics td{white-space:nowrap}.metrics td.desc{white-space:normal;color:var(--muted)}
.badge{display:inline-block;padding:0 7px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;white-space:nowrap}
.s-passed{background:var(--pass)}.s-failed{background:var(--fail)}.s-error{background:var(--err)}.s-skipped{background:var(--skip)}
.ok{color:var(--pass)}.bad{color:var(--fail)}
.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0;position:sticky;top:0;background:var(--bg);padding:6px 0;z-index:2}
.filters input,.filters select{font:inherit;padding:4px 8px;border:1px solid var(--border);border-radius:6px}
.filters input{min-width:260px}
#f-count{color:var(--muted)}
.cases tbody tr{cursor:pointer}
.cases tbody tr:hover,.cases tbody tr:focus{background:#ddf4ff;outline:none}
.cases td.reason,.cases td.out{max-width:380px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:var(--muted)}
.cases small{color:var(--muted);display:block}
.tag{display:inline-block;border:1px solid var(--border);border-radius:10px;padding:0 6px;margin:0 2px 2px 0;font-size:12px}
.note{color:var(--muted);font-size:13px}
#drill{position:fixed;top:0;right:0;bottom:0;width:min(760px,100%);background:var(--bg);border-left:1px solid var(--border);box-shadow:-8px 0 24px rgba(0,0,0,.12);overflow:auto;padding:16px 20px;z-index:10}
#drill h3{margin:0 30px 4px 0;font-size:18px}
#drill h4{margin:16px 0 6px;font-size:14px}
#drill pre{background:var(--soft);border:1px solid var(--border);border-radius:6px;padding:8px;white-space:pre-wrap;word-break:break-word;max-height:360px;overflow:auto;margin:0;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
#drill .close{position:absolute;top:12px;right:14px;font-size:20px;border:0;background:none;cursor:pointer}
#drill table td{font-size:13px}
.timeline li{margin:0 0 10px}
.timeline .bar{display:inline-block;height:8px;background:var(--accent);border-radius:2px;vertical-align:middle;margin-left:6px}
.timeline .tool-error{color:var(--fail);font-weight:600}
@media print{.filters,#drill{display:none}}
`;

/**
 * Behaviour of the HTML report: filtering the case table and the per-case drill-down. Case data is read from
 * the JSON data block and only ever placed with textContent, never parsed as HTML.
 */
export const REPORT_SCRIPT = `(function(){'use strict';
var body=document.getElementById('cases-body');if(!body)return;
var rows=Array.prototype.slice.call(body.rows);
var q=document.getElementById('f-text'),st=document.getElementById('f-status'),tg=document.getElementById('f-tag'),ev=document.getElementById('f-eval'),count=document.getElementById('f-count');
var texts=null;
function has(list,v){return ('\\n'+(list||'')+'\\n').indexOf('\\n'+v+'\\n')>=0;}
function apply(){
 if(!texts)texts=rows.map(function(r){return r.textContent.toLowerCase();});
 var text=q.value.trim().toLowerCase(),s=st.value,t=tg.value,e=ev.value,shown=0;
 for(var i=0;i<rows.length;i++){var r=rows[i];
  var ok=(!s||r.getAttribute('data-status')===s)&&(!t||has(r.getAttribute('data-tags'),t))&&(!e||has(r.getAttribute('data-failed'),e))&&(!text||texts[i].indexOf(text)>=0);
  r.hidden=!ok;if(ok)shown++;}
 count.textContent=shown+' of '+rows.length+' shown';
}
[q,st,tg,ev].forEach(function(el){if(el){el.addEventListener('input',apply);el.addEventListener('change',apply);}});
var data=null;
function caseData(i){if(!data){data=JSON.parse(document.getElementById('aeh-cases').textContent||'[]');}return data[i];}
var drill=document.getElementById('drill'),content=document.getElementById('drill-content');
function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;return e;}
function section(title,text){if(text===undefined||text===null||text==='')return null;var f=document.createDocumentFragment();f.appendChild(el('h4',title));f.appendChild(el('pre',text));return f;}
function add(node){if(node)content.appendChild(node);}
function open(i,push){
 var c=caseData(i);if(!c)return;
 content.textContent='';
 var title=el('h3',c.name);content.appendChild(title);
 var meta=el('div',null,'note');
 meta.textContent=c.id+' · repeat '+c.repeat+' · '+c.status+' · score '+c.score.toFixed(3)+' · '+c.duration.toFixed(3)+' s'+(c.attempts>1?' · '+c.attempts+' attempts':'')+(c.cost!==null?' · $'+c.cost:'')+(c.tokens?' · '+c.tokens:'');
 content.appendChild(meta);
 add(section('Input',c.input));add(section('Expected',c.expected));add(section('Output',c.output));add(section('Agent error',c.error));
 if(c.evaluations.length){content.appendChild(el('h4','Evaluations ('+c.evaluations.length+')'));
  var t=el('table');var hr=el('tr');['Evaluator','Score','Result','Explanation'].forEach(function(h){hr.appendChild(el('th',h));});t.appendChild(hr);
  c.evaluations.forEach(function(e){var tr=el('tr');tr.appendChild(el('td',e.evaluator));tr.appendChild(el('td',e.score.toFixed(3),'num'));
   tr.appendChild(el('td',e.error?'evaluator error':(e.passed?'pass':'fail'),e.passed?'ok':'bad'));
   var td=el('td',e.explanation);if(e.details){var d=el('details');d.appendChild(el('summary','details'));d.appendChild(el('pre',e.details));td.appendChild(d);}
   tr.appendChild(td);t.appendChild(tr);});
  content.appendChild(t);}
 if(c.tool_calls.length){content.appendChild(el('h4','Tool-call trajectory ('+c.tool_calls.length+')'));
  var max=0;c.tool_calls.forEach(function(tc){if(tc.duration>max)max=tc.duration;});
  var ol=el('ol',null,'timeline');
  c.tool_calls.forEach(function(tc){var li=el('li');var head=el('div');head.appendChild(el('b',tc.tool_name));
   head.appendChild(el('span',' '+(tc.status==='error'?'error':'ok'),tc.status==='error'?'tool-error':'ok'));
   if(tc.duration!==null){head.appendChild(el('span',' '+tc.duration.toFixed(3)+' s'));if(max>0){var b=el('span',null,'bar');b.style.width=Math.max(2,Math.round(200*tc.duration/max))+'px';head.appendChild(b);}}
   li.appendChild(head);[['arguments',tc.args],['result',tc.result],['error',tc.error]].forEach(function(p){if(p[1]){li.appendChild(el('div',p[0],'note'));li.appendChild(el('pre',p[1]));}});ol.appendChild(li);});
  content.appendChild(ol);}
 if(c.messages.length){content.appendChild(el('h4','Messages ('+c.messages.length+')'));c.messages.forEach(function(m){content.appendChild(el('div',m.role,'note'));content.appendChild(el('pre',m.content));});}
 if(c.spans.length){content.appendChild(el('h4','Spans ('+c.spans.length+')'));var ul=el('ul');c.spans.forEach(function(s){ul.appendChild(el('li',s.name+' · '+s.ms+' ms'+(s.status==='error'?' · error':'')));});content.appendChild(ul);}
 add(section('Tags',c.tags.join(', ')));add(section('Metadata',c.metadata));
 drill.hidden=false;drill.focus();
 if(push!==false&&history.replaceState)history.replaceState(null,'','#case-'+i);
}
function close(){drill.hidden=true;if(history.replaceState)history.replaceState(null,'',location.pathname+location.search);}
document.getElementById('drill-close').addEventListener('click',close);
document.addEventListener('keydown',function(e){if(e.key==='Escape'&&!drill.hidden)close();});
body.addEventListener('click',function(e){var tr=e.target.closest('tr');if(tr&&tr.hasAttribute('data-i'))open(+tr.getAttribute('data-i'));});
body.addEventListener('keydown',function(e){if(e.key==='Enter'){var tr=e.target.closest('tr');if(tr&&tr.hasAttribute('data-i'))open(+tr.getAttribute('data-i'));}});
var m=/^#case-(\\d+)$/.exec(location.hash);if(m)open(+m[1],false);
document.documentElement.setAttribute('data-ready','1');
})();`;

/** CSP source for the inline script: only this exact script may run. */
export const REPORT_SCRIPT_HASH = `sha256-${createHash('sha256').update(REPORT_SCRIPT).digest('base64')}`;
